# --method both, value iteration stopped by --max-sweeps: still valid bounds (they contain
# the policy-iteration gain), reported as not converged, with a notice.
cmd: mdp removable --lambda 0.4 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --switch-cost 3 --holding 0.1 --max-sweeps 50 --method both --json
stderr: cross-check skipped: value iteration did not converge within 50 sweeps
json: solver.rvi.iterations le 51
json: solver.rvi.gain_low le 1.2442527
json: solver.rvi.gain_high ge 1.2442528
sh: grep -q '"converged": false' $TMP/stdout && grep -q '"bounds_contain_pi": true' $TMP/stdout && grep -q '"agree": false' $TMP/stdout
