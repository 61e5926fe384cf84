# --report DIR below a file: the same mistake one level up (exit 2).
cmd: mdp removable --lambda 0.4 --rates 1 --power 1 --report $DATA/arx_model.json/r
exit: 2
stderr: arx_model.json' is not a directory (in '
