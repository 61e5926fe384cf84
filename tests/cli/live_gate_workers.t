# qctl gate --workers 2 and 4 share one limit and one waiting room: at
# about 4x overload of --limit 8 an independent echo backend never holds
# more than 8 sessions at once (127.0.0.1, < 60 s).
needs: curl python3
cmd: --version
sh: sh "$DATA/../live/gate_workers.sh"
