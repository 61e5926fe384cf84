# Series (one row per busy cycle with a sample) and plots.
cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --reps 1 --time 40000 --series $TMP/s.csv --plot $TMP/p --quiet
stdout: delay while admitted
file: $TMP/s.csv
sh: head -1 $TMP/s.csv | grep -q '^time,delay_gold,bound_gold,priority_gold,weight_gold,state_gold,delay_silver'
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/p/class_gold.svg ] && [ -s $TMP/p/class_silver.png ] && [ -s $TMP/p/weights.svg ]
