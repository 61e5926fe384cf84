# --compare without --json adds the comparison table to the text output.
cmd: sim pool --servers 3 --arrival exp:1 --customers 5000 --reps 2 --policy random --compare --quiet
stdout: policy comparison (same input and seed; 95% half-widths)
sh: grep -q '^random ' "$TMP/stdout" && grep -q '^central ' "$TMP/stdout"
