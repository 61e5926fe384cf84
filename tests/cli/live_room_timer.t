# Each waiting request is refused at its own deadline by the worker's one
# waiting-room timer, counted as reason="deadline" (127.0.0.1, < 5 s).
cmd: --version
sh: sh "$DATA/../live/room_timer.sh"
