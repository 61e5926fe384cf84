# Through the affine map 95 + 0.25 r: 900 maps to 320 > 300; the largest
# reference it can hold is below (300 - 95) / 0.25 = 820.
cmd: design --model $DATA/arx_model_reach.json --reference 900
exit: 2
stderr: the largest reference it can hold is below 820
