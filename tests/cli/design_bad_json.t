# A JSON syntax error: FILE:LINE:COLUMN; exit 2.
cmd: design --model $DATA/arx_model_syntax.json
exit: 2
stderr: arx_model_syntax.json:5:
