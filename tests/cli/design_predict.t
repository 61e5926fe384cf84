# Prediction of a reference step with the actuator limits: a reachable
# reference (500 maps to 220 < 300) is designed; a low gain settles without
# saturating, a gain far above the linear loop's needs hits the limits.
cmd: design --model $DATA/arx_model_reach.json --reference 500 --from 400 --u-max 1000 --gains 0.1,40 --law integral --json
json: prediction.reference_measured within 219.99 220.01
json: prediction.gains.0.verdict str settles
json: prediction.gains.0.fraction_saturated eq 0
json: prediction.gains.1.fraction_saturated gt 0
