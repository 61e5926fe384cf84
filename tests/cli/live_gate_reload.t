# qctl gate reloaded by SIGHUP: a raised limit lets the waiting sessions
# in at once, no session is closed by the reload, bad files are refused
# with their message (127.0.0.1, about 5 s).
needs: curl python3
cmd: --version
sh: sh "$DATA/../live/gate_reload.sh"
