# The input in effect falls at most as sessions end: 1 - exp(-interval /
# mean session) = 1 - exp(-60/1200) = 0.0488 of the connected users leave
# a sample. sysid --fall auto finds that rate with the model (within 0.01),
# and with it the model is fast (a near 0.3: refused users retry within 30 s)
# where the plain fit averages rise and fall into a = 0.65; the static gain
# stays 1 (RIS = M - X Z). design reads input_fall from the model, and
# runs its prediction over 20 noise realisations unless --noise-reps says
# otherwise (at most 10000).
cmd: sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 4 --duration 72000 --seed 7 --series $TMP/id.csv --quiet
sh: $QCTL sysid --csv $TMP/id.csv --columns time,maxusers,ris --skip 30 --orders 1..1 --delays 0..0 --fall auto -o $TMP/m.json >$TMP/out.txt && grep -q 'input in effect: falls at most' $TMP/out.txt
sh: $JCHECK $TMP/m.json input_fall within 0.039 0.059 && $JCHECK $TMP/m.json a.0 within 0.2 0.4 && $JCHECK $TMP/m.json fit.dc_gain.value within 0.9 1.1 && $JCHECK $TMP/m.json fit.r2 ge 0.95
sh: $QCTL design --model $TMP/m.json --no-sensor --gains 1 --reference 250 --from 325 --u-min 0 --u-max 1000 --antiwindup none --json >$TMP/d.json && $JCHECK $TMP/d.json prediction.fall within 0.039 0.059
sh: $QCTL sysid --csv $TMP/id.csv --columns time,maxusers,ris --fall 1.5 2>$TMP/err; test $? -eq 2 && grep -q -- '--fall: 1.5 is not in' $TMP/err
sh: $JCHECK $TMP/d.json prediction.noise_realisations eq 20 && $JCHECK $TMP/d.json prediction.gains.0.realisations eq 20 && $JCHECK $TMP/d.json prediction.noise_sd gt 0
sh: $QCTL design --model $TMP/m.json --no-sensor --gains 1 --reference 250 --from 325 --u-max 1000 --noise-reps 0 --json >$TMP/d0.json && $JCHECK $TMP/d0.json prediction.gains.0.realisations eq 1
sh: $QCTL design --model $TMP/m.json --reference 250 --noise-reps 20000 2>$TMP/err2; test $? -eq 2 && grep -q -- '--noise-reps: 20000 is not in' $TMP/err2
