# --precision out of reach within --max-customers: said, not hidden; and
# the bounds without --precision are refused.
cmd: sim queue --arrival exp:0.9 --service exp:1 --precision 0.001 --max-customers 400000 --quiet
stdout: precision 0.1% NOT reached
sh: "$QCTL" sim queue --arrival exp:0.9 --service exp:1 --max-reps 5 2>"$TMP/e"; [ $? -eq 2 ] && grep -q 'only with --precision' "$TMP/e"
sh: "$QCTL" sim queue --arrival exp:0.9 --service exp:1 --precision 2 2>"$TMP/e"; [ $? -eq 2 ] && grep -q -- '--precision' "$TMP/e"
