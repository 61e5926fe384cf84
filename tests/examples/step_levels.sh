#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# examples/postgres/step_levels.awk against settled levels and gains worked
# out by hand: a warm-up left out, holds of 4 and 5 rows (second halves
# averaged), a hold of 3 rows left out, a row without a RIS, the limit of
# row k applied to row k+1's RIS; one level only; and the usage error.
set -eu
awk_file=${1:?usage: step_levels.sh path/to/step_levels.awk}
command -v awk >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hdr=time,reference,limit,connected,waiting,refused,sensor,ris_true
# rows: time, limit, RIS; w = 2 leaves out rows up to 3 (row 3's RIS
# belongs to the warm-up's limit, 90)
series() {
    echo "$hdr"
    while read -r t u y; do echo "$t,,$u,,,,,$y"; done
}
series >"$tmp/a.csv" <<'ROWS'
1 90 0
2 90 10
3 60 50
4 60 45
5 60 40
6 60 42
7 120 38
8 120 70
9 120 100
10 120 98
11 120 102
12 120
13 60 100
14 60 50
15 60 46
16 60 44
ROWS
# A (limit 60): rows 4-7, RIS 45 40 42 38, settled (42 + 38) / 2 = 40;
# B (120): rows 8-13 but row 12 has no RIS, 70 100 98 102 100, settled
# (98 + 102 + 100) / 3 = 100; C (60): rows 14-16, 3 rows, left out.
# One switch: (100 - 40) / (120 - 60) = 1.
got=$(awk -F, -v w=2 -v lo=60 -v hi=120 -f "$awk_file" "$tmp/a.csv")
[ "$got" = "40.0|1|100.0|1|1.00|1.00|1.00|1" ] ||
    { echo "step_levels.awk: two holds: got $got"; exit 1; }
# C lengthened to 5 rows, 50 46 44 40 42: settled (44 + 40 + 42) / 3 = 42;
# levels at 60 (40 + 42) / 2 = 41; switches 1 and (42 - 100) / (60 - 120)
# = 0.9667, mean 0.9833
{ cat "$tmp/a.csv"; echo "17,,60,,,,,40"; echo "18,,60,,,,,42"; } >"$tmp/b.csv"
got=$(awk -F, -v w=2 -v lo=60 -v hi=120 -f "$awk_file" "$tmp/b.csv")
[ "$got" = "41.0|2|100.0|1|0.98|0.97|1.00|2" ] ||
    { echo "step_levels.awk: three holds: got $got"; exit 1; }
# one level only (hi never held): none
got=$(head -8 "$tmp/a.csv" | awk -F, -v w=2 -v lo=60 -v hi=120 -f "$awk_file")
[ "$got" = none ] || { echo "step_levels.awk: one level: got $got"; exit 1; }
# no -v: exit 2 and a message naming what to give
if awk -F, -f "$awk_file" "$tmp/a.csv" >/dev/null 2>"$tmp/err"; then
    echo "step_levels.awk: ran without -v w/lo/hi"
    exit 1
fi
grep -q 'w=WARM' "$tmp/err" || { echo "step_levels.awk: message: $(cat "$tmp/err")"; exit 1; }
echo "step_levels.awk: ok"
