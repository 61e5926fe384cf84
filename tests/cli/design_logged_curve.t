# The loop closed on the logged RIS, predicted with the Wiener sensor (the
# sensor model's dynamics at unit DC gain, then the completion log's curve;
# the model is examples/maxusers' identification, seed 1) against what
# 'sim maxusers --sensor logged --sensor-model' measures at seed 1 over 8
# replications (examples/maxusers/results/results.md), with the agreement
# criterion of bench/bench_maxusers_predict.sh (the 95% interval widened by
# the larger of 5 points and 15%): K_I = 0.4, step 325 -> 250, overshoot
# 0.0 +- 0.0% measured (the affine model predicts 17.7%); K_I = 20, the
# limit cycle's excursion 260.6 +- 12.7%, never settles (affine: 317%).
cmd: design --model $DATA/arx_model_logged.json --law integral --gains 0.4,20 --reference 250 --from 325 --u-min 0 --u-max 1000 --antiwindup none --json
json: prediction.sensor_model str wiener_completion_log
json: sensor.curve.scale within 599 602
json: prediction.gains_through_sensor.0.verdict str settles
json: prediction.gains_through_sensor.0.overshoot_percent lt 5
json: prediction.gains_through_sensor.1.settled false
json: prediction.gains_through_sensor.1.overshoot_percent within 208.8 312.4
