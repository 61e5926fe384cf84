# qctl control closes an integral loop only on an identified gain it can
# trust: --model's gain of K_I's sign, its interval clear of 0, of the
# sign --gain-sign says (tests/live/control_model.sh; < 15 s).
cmd: --version
sh: sh "$DATA/../live/control_model.sh"
