# Progress shows on a terminal for runs over a second, and not with --quiet
# (the other cases run with stderr not a terminal and expect it empty).
cmd: --version
sh: command -v script >/dev/null || exit 77; script -qec "$QCTL sim queue --arrival exp:0.95 --service exp:1 --customers 40000000 --warmup 0 --json" /dev/null | tr '\r' '\n' | grep -q 'qctl: sim queue .*%'
sh: command -v script >/dev/null || exit 77; ! script -qec "$QCTL sim queue --arrival exp:0.95 --service exp:1 --customers 40000000 --warmup 0 --json --quiet" /dev/null | tr '\r' '\n' | grep -q 'qctl: sim queue .*%'
