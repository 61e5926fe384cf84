# K = c (M/M/1/1): nobody waits, so the waiting time is 0 and so is its
# interval. t - arrival - service rounds a few ulps above or below 0, and
# a range's sums are differences of running sums: the mean was 7e-16 with
# an interval [7e-16, 8e-16] that excluded 0 (found by the property
# harness, tests/properties/).
cmd: sim queue --arrival exp:71.089363102630571 --service exp:654.98499594697432 --capacity 1 --customers 5000 --reps 10 --seed 1 --json
json: metrics.waiting_time.value eq 0
json: metrics.waiting_time.ci_low eq 0
json: metrics.waiting_time.ci_high le 1e-300
