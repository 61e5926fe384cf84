# SPDX-License-Identifier: GPL-3.0-or-later
# maxusers_predict_lib.sh: what bench_maxusers_predict.sh and
# bench_maxusers_predict_logged.sh share, sourced by both after QCTL and T
# are set: the Wilson interval, the agreement rule between a predicted and
# a measured step response, and the measured steps from `sim maxusers`.
wilson() { # successes trials -> "p [lo, hi]"
    awk -v x="$1" -v n="$2" 'BEGIN {
        z = 1.96; p = x / n; d = 1 + z * z / n
        c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
        printf "%.3f [%.3f, %.3f]", p, c - h, c + h }'
}
lower() { wilson "$1" "$2" | sed 's/.*\[\([0-9.]*\),.*/\1/'; }
# 1 when a prediction lies within the measured 95% interval widened by the
# larger of one sample (60 s) or 5 points of the step, and 15% of the
# measured value; "never" agrees only with a loop that does not settle in
# every replication.
agree() { # kind (s or %), predicted, measured -> 1 or 0
    awk -v kind="$1" -v p="$2" -v m="$3" 'BEGIN {
        if (p ~ /never|\// || m ~ /never|settles in/) { print ((p ~ /never|\//) == (m ~ /never|settles in/)) ? 1 : 0; exit }
        gsub(/%/, "", p); gsub(/%/, "", m)
        n = split(m, x, " "); mv = x[1] + 0; h = n >= 3 ? x[3] + 0 : 0
        tol = kind == "s" ? 60 : 5
        if (0.15 * mv > tol) tol = 0.15 * mv
        d = p - mv; if (d < 0) d = -d
        print d <= h + tol ? 1 : 0
    }'
}
# The steps 325 -> 250 and 250 -> 325 measured by `sim maxusers` around
# MaxUsers 375 (8 replications); extra flags (a sensor) after the seed.
meas() { # gain seed [flags...] -> s1|s2|o1|o2
    k=$1 s=$2
    shift 2
    "$QCTL" sim maxusers --ki "$k" --antiwindup none "$@" --maxusers 375 --warmup 7200 \
        --reference 250@0,325@10800 --duration 21600 --seed "$s" --reps 8 --quiet |
        awk '/step to/ {
                n++
                if ($0 ~ /never settles/) s[n] = "never"
                else if (match($0, /settles in [0-9]+ of [0-9]+/)) s[n] = substr($0, RSTART, RLENGTH)
                else { match($0, /settling [^s]*s/); s[n] = substr($0, RSTART + 9, RLENGTH - 11) }
                if (match($0, /overshoot [0-9.]+( \+- [0-9.]+)?%/)) o[n] = substr($0, RSTART + 10, RLENGTH - 10)
                else o[n] = "no step"
             }
             END { print s[1] "|" s[2] "|" o[1] "|" o[2] }'
}
