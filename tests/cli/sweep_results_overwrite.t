# --results BASE whose BASE.json is the sweep file itself is refused.
cmd: sweep "$(printf '{"experiment": "sim queue", "metrics": {"r": "metrics.response_time"}}' > $TMP/s.json; echo $TMP/s.json)" --results $TMP/s --quiet
exit: 2
stderr: would overwrite the sweep file
sh: test "$(cat $TMP/s.json)" = '{"experiment": "sim queue", "metrics": {"r": "metrics.response_time"}}'
