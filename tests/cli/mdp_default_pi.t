# The default method is policy iteration alone (no value-iteration block);
# --method both at a load near saturation, where value iteration needs more
# than the quick-check cap of 20000 sweeps, says the cross-check was skipped.
cmd: mdp removable --lambda 0.2 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --holding 0.3 --levels 40 --json
json: solver.method str pi
json: gain within 0.7978527 0.7978529
sh: ! grep -q '"rvi":' $TMP/stdout
sh: $QCTL mdp removable --lambda 0.2 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --holding 0.3 --levels 40 --method both --max-sweeps 50 2>$TMP/err >$TMP/out; grep -q "cross-check skipped: value iteration did not converge within 50 sweeps" $TMP/err && grep -q "cross-check skipped" $TMP/out
