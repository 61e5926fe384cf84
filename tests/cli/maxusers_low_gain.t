# Integral control with a low gain tracks a reference step without
# saturating (steady-state error under 5%).
cmd: sim maxusers --ki 0.1 --reference 325@0,250@7200 --duration 14400 --json --series $TMP/s.csv
json: steps.0.steady_state_error within -0.05 0.05
json: steps.1.steady_state_error within -0.05 0.05
json: summary.fraction_saturated eq 0
json: steps.1.settling_time lt 3600
file: $TMP/s.csv
sh: grep -v '^#' $TMP/s.csv | head -1 | grep -q '^time,reference,maxusers,ris,ris_now,ris_logged'
