# --report onto a path that is a file: bad usage (exit 2) before the run,
# and the file is left as it was.
cmd: sim queue --arrival exp:0.5 --service exp:1 --customers 1000 --report $DATA/arx_model.json
exit: 2
stderr: --report: '
stderr: arx_model.json' exists and is not a directory
sh: grep -q '"sample_interval": 60' "$DATA/arx_model.json"
sh: ! grep -q 'G/G/c/K' "$TMP/stdout"
