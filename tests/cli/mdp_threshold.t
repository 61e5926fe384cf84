# Low load, cheap holding, a switch-on cost: the optimal policy switches off
# when idle, back on at 4 jobs, and raises the rate 0.5 -> 1 -> 1.5 with the
# queue. The top level of the truncation decides differently when N is
# doubled (blocking there makes serving less urgent): the checks stop below.
cmd: mdp removable --lambda 0.4 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 --setup-power 2 --setup-rate 1 --switch-cost 3 --holding 0.1 --method both --json
json: structure.threshold_n eq 4
json: structure.boundary_from eq 32
json: structure.checked_levels eq 32
json: policy.switch_on.3 eq 0
json: policy.switch_on.4 eq 1
json: policy.rate.1 eq 0.5
json: policy.rate.4 eq 1
json: policy.rate.17 eq 1.5
json: policy.when_on.0 str off
json: gain within 1.2442527 1.2442528
json: comparison.3.parameter eq 5
sh: grep -q '"off_when_idle": true' $TMP/stdout && grep -q '"work_conserving": true' $TMP/stdout && grep -q '"rate_nondecreasing": true' $TMP/stdout && grep -q '"agree": true' $TMP/stdout
