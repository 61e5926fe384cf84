# A step's steady-state error is the mean RIS over the last half of its
# segment: a segment of 1020 s at the 60 s control interval averages 8.5
# intervals, the transient rather than a steady state. The run says so in
# words, prints no interval (the means alone) and exits 1; --allow-short
# prints them marked unreliable and exits 0; a run whose steps are long
# enough (the default 14400 s) is supported and exits 0.
cmd: sim maxusers --reps 3 --reference 300@0,350@3000 --duration 4000 --seed 5 --quiet
exit: 1
stdout: RUN TOO SHORT FOR ITS INTERVALS: the step to 350 at t = 3000 lasts 1020 s
stderr: sim maxusers: the run is too short for its intervals
sh: ! grep -q ' +- ' "$TMP/stdout"
sh: "$QCTL" sim maxusers --reps 3 --reference 300@0,350@3000 --duration 4000 --seed 5 --quiet --json > "$TMP/j"; test $? -eq 1 && grep -q '"supported": false' "$TMP/j" && grep -q '"ci_low": null' "$TMP/j"
sh: "$QCTL" sim maxusers --reps 3 --reference 300@0,350@3000 --duration 4000 --seed 5 --quiet --allow-short > "$TMP/a" && grep -q 'UNRELIABLE (--allow-short)' "$TMP/a" && grep -q ' +- ' "$TMP/a"
sh: "$QCTL" sim maxusers --reps 3 --seed 5 --quiet --json > "$TMP/d" && grep -q '"supported": true' "$TMP/d"
