# Open loop with a PRBS around MaxUsers = 375 for identification.
cmd: sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --duration 7200 --series $TMP/id.csv --json
json: run.controller str open
sh: grep -v '^#' $TMP/id.csv | awk -F, 'NR>1 {print $3}' | sort -u | tr '\n' ' ' | grep -q '^325 425 $'
