# qctl gate: 10 silent clients at a limit of 5 free their places within
# the idle timeout and the other sessions are served; without the bound
# they are not; --max-session, --max-bytes; /healthz, /readyz, promtool
# on /metrics (127.0.0.1, < 20 s).
cmd: --version
sh: sh "$DATA/../live/gate_idle.sh"
