# sim queue --check runs the command's own validation: what a run refuses
# before it starts, --check refuses with the same message and exit 2.
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 1000 --warmup 1e12 --check
exit: 2
stderr: --warmup
sh: for a in "--customers 1000 --warmup 1e12" "--precision 2" "--series s.csv --series-dt 1e-12" "--capacity 0" "--max-reps 5"; do $QCTL sim queue --arrival exp:0.9 --service exp:1 $a --check >/dev/null 2>$TMP/check; c=$?; (cd $TMP && $QCTL sim queue --arrival exp:0.9 --service exp:1 $a --quiet >/dev/null 2>$TMP/run); r=$?; [ $c -eq 2 ] && [ $r -eq 2 ] && cmp -s $TMP/check $TMP/run || { echo "differs for: $a"; cat $TMP/check $TMP/run; exit 1; }; done
