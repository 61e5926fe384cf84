# y(k+1) = 0.43 y(k) + 0.47 u(k) under integral control: z^2 - (1.43 -
# 0.47 K_I) z + 0.43, stable for 0 < K_I < 2 (1 + a) / b = 6.0851. The book's
# gains: K_I = 0.1 (poles 0.911, 0.472), 1 and 5 (complex, |p| = sqrt(0.43)).
cmd: design --model $DATA/arx_model_first_order.json --gains 0.1,1,5 --json
no-stderr:
json: loops.0.stable_range.lo eq 0
json: loops.0.stable_range.hi within 6.08510 6.08511
json: loops.0.order eq 2
json: loops.0.characteristic_polynomial.p0.1 within -1.4300001 -1.4299999
json: loops.0.characteristic_polynomial.pki.1 within 0.4699999 0.4700001
json: loops.0.root_locus.0.max_modulus within 0.91097 0.91099
json: loops.0.root_locus.0.predicted.overshoot eq 0
json: loops.0.root_locus.1.max_modulus within 0.65574 0.65575
json: loops.0.root_locus.2.max_modulus within 0.65574 0.65575
json: loops.0.root_locus.1.predicted.settling_seconds within 568 569
json: loops.0.root_locus.2.simulated.overshoot gt 1
json: sensor null
