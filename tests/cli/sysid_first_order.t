# Identifies y(k+1) = 0.43 y(k) + 0.47 u(k) (offsets) from 400 noisy samples
# (noise sd 3): AIC picks na = nb = 1, delay 0; coefficients within 4
# standard errors (0.0068, 0.0049) of the truth.
cmd: sysid --csv $DATA/arx_first_order.csv --json
no-stderr:
json: type str arx
json: na eq 1
json: nb eq 1
json: delay eq 0
json: a.0 within 0.403 0.457
json: b.0 within 0.450 0.490
json: fit.se_a.0 within 0.004 0.01
json: fit.criterion str aic
json: fit.r2 gt 0.98
json: fit.validation.fit_percent gt 80
json: fit.validation_samples eq 120
json: sample_interval eq 60
json: fit.candidates.8.na eq 3
