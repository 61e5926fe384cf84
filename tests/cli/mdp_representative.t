# lambda 0.7, rates 0.5,1,1.5 with powers rising convexly (watts times a
# price), slow setup (rate 0.1), holding 1: staying on is optimal, at rate
# 1 with one job and 1.5 above; RVI and PI agree.
cmd: mdp removable --lambda 0.7 --rates 0.5,1,1.5 --power 195,240,315 --idle-power 180 --setup-power 240 --setup-rate 0.1 --price 0.01 --method both --json
no-stderr:
json: gain within 3.3049999 3.3050000
json: solver.pi.gain within 3.3049999 3.3050000
json: solver.rvi.gain_low within 3.3049999 3.3050000
json: solver.rvi.gain_high within 3.3049999 3.3050000
json: solver.rvi.span le 3.31e-9
json: solver.agreement.differences eq 0
json: truncation.mass_at_N lt 1e-8
json: truncation.tail_mass lt 1e-8
json: policy.rate.1 eq 1.5
json: policy.rate.5 eq 1.5
json: performance.average_cost within 3.3049999 3.3050000
json: performance.mean_response within 1.2499999 1.2500001
json: comparison.0.policy str 'optimal (MDP)'
json: comparison.1.policy str 'always on'
json: comparison.2.policy str 'switch off when idle'
json: comparison.3.policy str 'N-policy, best N'
json: comparison.4.policy str 'DelayedOff, best timer'
json: comparison.2.average_cost gt 3.305
sh: grep -q '"agree": true' $TMP/stdout && grep -q '"work_conserving": true' $TMP/stdout && grep -q '"switch_on_threshold": true' $TMP/stdout && grep -q '"rate_nondecreasing": true' $TMP/stdout && grep -q '"tail_ok": true' $TMP/stdout
