# Without --json: the policy table, the structure, the comparison table.
cmd: mdp removable --lambda 0.4 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --switch-cost 3 --holding 0.1 --method both --output $TMP/r.json
stdout: when off
stdout: 1-3        stay off     rate 0.5
stdout: switch-on threshold      yes  (when off, switches on iff n >= 4)
stdout: value iteration bounds
stdout: N-policy, best N
stdout: DelayedOff, best timer
no-stderr:
file: $TMP/r.json
