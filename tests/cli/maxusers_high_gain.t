# A high gain without anti-windup saturates MaxUsers and never settles.
cmd: sim maxusers --ki 5 --antiwindup none --reference 325@0,250@7200 --duration 14400 --json
json: summary.fraction_saturated gt 0.5
json: steps.0.settling_time null
json: steps.1.settling_time null
