# qctl backend names a bad setup-time distribution (--warmup, its old name,
# still works, with a note).
cmd: backend --setup det:-1
exit: 2
stderr: --setup:
sh: $QCTL backend --warmup det:-1 2>&1 >/dev/null | grep -q -- '--warmup is deprecated; use --setup'
