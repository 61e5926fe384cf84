# --plot draws the root locus and the step responses (gnuplot).
cmd: design --model $DATA/arx_model.json --settling 20 --gains 0.1,1,5 --plot $TMP/p
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/p/root_locus.svg ] && [ -s $TMP/p/root_locus_sensor.png ] && [ -s $TMP/p/step_response.svg ] && [ -s $TMP/p/step_response_sensor.svg ]
