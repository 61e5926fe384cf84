# Without --json a table is printed; --output writes the JSON as well.
cmd: sim queue --arrival exp:0.5 --service exp:1 --customers 20000 --output $TMP/s.json
stdout: response time
stdout: 95% confidence interval
stdout: CI by batch means
file: $TMP/s.json
no-stderr:
