# The README's mdp removable quick start: with idle power 0.8 the optimal
# policy switches off when the queue empties and back on at the first
# arrival (threshold 1), serves one job at the slow rate, and beats always
# on, whose cost is the M/M/1 closed form: E[N] = 0.3/0.7 = 0.428571 plus
# power 3 x 0.3 + 0.8 x 0.7 = 1.46, i.e. 1.888571.
cmd: mdp removable --lambda 0.3 --rates 0.6,1 --power 1,3 --idle-power 0.8 --setup-rate 1 --setup-power 1 --json
json: structure.off_when_idle true
json: structure.switch_on_threshold true
json: structure.threshold_n eq 1
json: policy.when_on.0 str off
json: policy.rate.1 eq 0.6
json: policy.rate.2 eq 1
json: comparison.1.average_cost within 1.8885710 1.8885720
json: gain lt 1.80
