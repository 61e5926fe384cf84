# Pole placement for a 30-sample settling time without overshoot: integral
# control puts a real pole at e^(-4/30) = 0.87517 (K_I = 0.1351); the model
# loop settles in 31 samples. PI places a double pole there.
cmd: design --model $DATA/arx_model_first_order.json --settling 30 --json
json: spec.target_pole.modulus within 0.875173 0.875174
json: loops.0.integral.k_i within 0.13509 0.13510
json: loops.0.integral.predicted.settling_samples within 29.999 30.001
json: loops.0.integral.simulated.settling_samples within 27 33
json: loops.0.pi.poles.0.modulus within 0.87517 0.87518
json: loops.0.pi.controller_zero exists
