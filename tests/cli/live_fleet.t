# `qctl proxy --route djsq`: backends unparked by a command under a rising
# load (setup measured to the first healthy answer, about 0.5 s) and
# parked by the idle timer; every request answered once (127.0.0.1, < 15 s).
cmd: --version
sh: sh "$DATA/../live/fleet.sh"
