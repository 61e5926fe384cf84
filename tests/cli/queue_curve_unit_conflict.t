# Issue 34: a curve file that says its times are hours, run with
# --curve-unit min: two answers to one question, refused before any work
# with both named (exit 2); a unit line with another word names FILE:LINE.
cmd: sim queue --arrival curve:$DATA/curve_day_hours_unit.csv --curve-unit min --service exp:1.6
exit: 2
stderr: --curve-unit min: the curve file
stderr: states its unit as h
sh: printf '# unit: fortnights\n0,1\n1,2\n' > "$TMP/c.csv"; "$QCTL" sim queue --arrival curve:$TMP/c.csv --service exp:10 2>"$TMP/e"; [ $? -eq 2 ] && grep -q "c.csv:1: unit 'fortnights' is not s, min or h" "$TMP/e"
sh: printf '# unit: h\n# unit: s\n0,1\n1,2\n' > "$TMP/d.csv"; "$QCTL" sim queue --arrival curve:$TMP/d.csv --service exp:10 2>"$TMP/e"; [ $? -eq 2 ] && grep -q "d.csv:2: a second unit line disagrees with line 1" "$TMP/e"
