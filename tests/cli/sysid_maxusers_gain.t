# Identification from the simulated MaxUsers server (a seed other than the
# example's): the plant's static gain is 1 (RIS = M - X Z while MaxUsers
# binds), recovered within 15% with R^2 >= 0.75. PRBS hold 3 >= the plant's
# time constant (-1 / ln 0.66 = 2.4 intervals). The same rows logged the
# other way (each row's MaxUsers the one in force over the interval ending
# there) give the same model with --input-lag 1.
cmd: sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 3 --duration 72000 --seed 4 --series $TMP/id.csv --quiet
file: $TMP/id.csv
sh: $QCTL sysid --csv $TMP/id.csv --columns time,maxusers,ris --skip 30 --orders 1..1 --delays 0..0 --json >$TMP/m.json
sh: $JCHECK $TMP/m.json fit.dc_gain.value within 0.85 1.15 && $JCHECK $TMP/m.json fit.r2 ge 0.75
sh: grep -v '^#' $TMP/id.csv | awk -F, 'NR == 1 {print; next} {t[NR] = $1; u[NR] = $3; y[NR] = $4} END {for (i = 3; i <= NR; i++) print t[i] ",," u[i-1] "," y[i]}' >$TMP/other.csv
sh: $QCTL sysid --csv $TMP/other.csv --columns time,maxusers,ris --skip 29 --input-lag 1 --orders 1..1 --delays 0..0 --json >$TMP/m2.json && $JCHECK $TMP/m2.json fit.dc_gain.value within 0.85 1.15 && $JCHECK $TMP/m2.json fit.r2 ge 0.75
