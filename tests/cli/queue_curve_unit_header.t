# Issue 34: a curve file that states its unit ("# unit: h" before the
# data) is read in it with no flag: the same run as --curve-unit h on the
# unitless file (0.5 a second, load 0.3125 with E[S] 0.625, three whole
# days), and the JSON says where the unit came from.
cmd: sim queue --arrival curve:$DATA/curve_day_hours_unit.csv --service exp:1.6 --json
json: model.curve_unit str h
json: model.curve_unit_from str file
json: model.whole_periods true
json: model.load ge 0.31249
json: model.load le 0.31251
json: run.time eq 259200
json: metrics.utilization covers 0.3125
sh: "$QCTL" sim queue --arrival curve:$DATA/curve_day_hours_unit.csv --curve-unit h --service exp:1.6 --json > "$TMP/a" && "$QCTL" sim queue --arrival curve:$DATA/curve_day_hours.csv --curve-unit h --service exp:1.6 --json > "$TMP/b" && grep -v -e elapsed -e curve_unit -e "\"arrival\":" "$TMP/a" > "$TMP/a2" && grep -v -e elapsed -e curve_unit -e "\"arrival\":" "$TMP/b" > "$TMP/b2" && cmp -s "$TMP/a2" "$TMP/b2"
