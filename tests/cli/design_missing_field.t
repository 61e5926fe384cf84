# A model JSON with a missing field: the file and the key path; exit 2.
cmd: design --model $DATA/arx_model_missing_field.json
exit: 2
stderr: arx_model_missing_field.json: sensor.b: missing field
