#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# report.sh OUT REF KLO KHI R2 VAL: results.md and index.html of the
# haproxy example from its runs' series (OUT/NAME/series.csv). The window
# judged is the run after the settling the design predicts for the low
# gain (at least the second half of the run); "within 10%" compares the
# mean of the sensor over that window with the reference.
set -eu
OUT=$1 REF=$2 KLO=$3 KHI=$4 R2=$5 VAL=$6
# the predicted settling (samples) of the low gain, from qctl design
settle=$(awk -v k="$KLO" '/^prediction:/ { f = 1; next } f && $1 == k && $3 ~ /^[0-9.]+$/ { print $3; exit }' \
    "$OUT/design_noiseless.txt" 2>/dev/null)
[ -n "$settle" ] || settle=0
# the loop closes at 5 s: the predicted settling counts from there
settle=$(awk -v s="$settle" 'BEGIN { print s + 5 }')
# stats NAME: mean and sd of the sensor after the window start, the
# fraction of intervals at a limit of the setting, missing, refused
stats() {
    awk -F, -v s="$settle" -v r="$REF" '
        /^#/ || /^time/ { next }
        { t[n] = $1; y[n] = $5; u[n] = $3; miss = $7; ref = $8; n++ }
        END {
            start = s; if (start < t[n - 1] / 2) start = t[n - 1] / 2
            for (i = 0; i < n; i++) if (t[i] >= start && y[i] != "") { m += y[i]; q += y[i] * y[i]; k++
                if (u[i] <= 1 || u[i] >= 64) sat++ }
            if (k == 0) { print "no samples"; exit }
            m /= k; sd = sqrt(q / k - m * m); d = 100 * (m - r) / r
            printf "%.1f|%.1f|%+.1f%%|%s|%.0f%%|%d|%d|%.0f\n", m, sd, d, (d < 10 && d > -10) ? "yes" : "no",
                100 * sat / k, miss, ref, start }' "$OUT/$1/series.csv"
}
{
    echo "# MaxUsers on haproxy's maxconn"
    echo
    echo "Identification: R^2 = $R2 (estimation), $VAL (validation, one step)."
    echo "Design: low gain K_I = $KLO, high gain K_I = $KHI; the low gain's noiseless prediction settles by $settle s from the start (the loop closes at 5 s); the high gain is outside the stable range."
    echo
    echo "| run | K_I | mean qcur+scur | sd | vs reference $REF | within 10% | at a limit | missing | refused | window from (s) |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    for r in low high hand; do
        k=$KLO; [ $r = high ] && k=$KHI; [ $r = hand ] && k="maxconn 10"
        IFS='|' read -r m sd d w sat miss ref st <<EOF2
$(stats $r)
EOF2
        echo "| $r | $k | $m | $sd | $d | $w | $sat | $miss | $ref | $st |"
    done
} >"$OUT/results.md"
# a page: the table and, per run, the sensor and the setting over time
svg() { # NAME
    awk -F, -v r="$REF" -v name="$1" '
        /^#/ || /^time/ { next }
        { t[n] = $1; y[n] = $5; u[n] = $3; n++; if ($5 != "" && $5 > ymax) ymax = $5; if ($3 > ymax) ymax = $3 }
        END {
            if (r > ymax) ymax = r; ymax *= 1.1; W = 640; H = 240; T = t[n - 1]
            printf "<h3>%s</h3><svg width=\"%d\" height=\"%d\" style=\"border:1px solid #ccc\">", name, W, H
            printf "<line x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"4\"/>", W, H - H * r / ymax, H - H * r / ymax
            printf "<polyline fill=\"none\" stroke=\"#1565c0\" points=\""
            for (i = 0; i < n; i++) if (y[i] != "") printf "%.1f,%.1f ", W * t[i] / T, H - H * y[i] / ymax
            printf "\"/><polyline fill=\"none\" stroke=\"#c62828\" points=\""
            for (i = 0; i < n; i++) printf "%.1f,%.1f ", W * t[i] / T, H - H * u[i] / ymax
            printf "\"/><text x=\"4\" y=\"14\" font-size=\"12\">blue: qcur+scur, red: maxconn, dashed: reference (0 to %.0f, %.0f s)</text></svg>\n", ymax, T }' \
        "$OUT/$1/series.csv"
}
{
    echo "<!doctype html><meta charset=\"utf-8\"><title>MaxUsers on haproxy</title>"
    echo "<body style=\"font-family:sans-serif;max-width:760px\"><h1>MaxUsers on haproxy's maxconn</h1><pre>"
    sed 's/&/\&amp;/g; s/</\&lt;/g' "$OUT/results.md"
    echo "</pre><p><a href=\"sysid/index.html\">identification</a> · <a href=\"design/index.html\">design</a></p>"
    for r in ident low high hand; do svg $r; done
    echo "</body>"
} >"$OUT/index.html"
