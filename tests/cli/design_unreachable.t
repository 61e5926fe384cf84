# The logged sensor reads at most 300 (its "max"): a reference of 325 given
# in the sensor's units cannot be reached, and one that maps above 300
# through the affine map (95 + 0.25 r > 300 for r > 820) neither; both are
# refused with the bound before any design.
cmd: design --model $DATA/arx_model_reach.json --reference 325 --sensor-reference
exit: 2
stderr: the sensor cannot read more than 300
