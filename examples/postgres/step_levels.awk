# SPDX-License-Identifier: GPL-3.0-or-later
# step_levels.awk: the static gain measured directly from a run whose limit
# is switched between two levels and held long enough for the plant to
# settle (examples/postgres/run.sh's identification, --excite steps).
#
# Input: the series CSV run.sh writes (header; column 1 time, 3 the limit
# set at that row, 8 the true RIS averaged over the interval ending at it).
# The limit of row k is in force over (k, k+1], so row k+1's RIS belongs to
# row k's limit. Rows up to w + 1 (the warm-up) and rows without a RIS are
# left out. A hold is a run of rows under one limit; its settled level is
# the mean RIS over its second half (rows floor(m/2) + 1 .. m of its m
# rows; holds of fewer than 4 rows are left out). The gain of a switch is
# the change of settled level over the change of limit between two
# consecutive holds.
#
# Prints one line, fields separated by |:
#   mean settled level at the limit lo | holds at lo | the same at hi |
#   holds at hi | mean gain of the switches | least | largest | switches
# or "none" when a level or a switch is missing.
#
# usage: awk -F, -v w=WARM -v lo=LMIN -v hi=LMAX -f step_levels.awk series.csv
BEGIN {
    if (w == "" || lo == "" || hi == "") {
        print "step_levels.awk: give -v w=WARM -v lo=LMIN -v hi=LMAX" > "/dev/stderr"
        bad = 1
        exit 2
    }
}
function flush(   i, m, c) {
    if (nr >= 4) {
        m = 0; c = 0
        for (i = int(nr / 2) + 1; i <= nr; i++) { m += v[i]; c++ }
        m /= c; ns++; lev[ns] = m; lim[ns] = cur
        if (cur == lo) { sl += m; nl++ } else if (cur == hi) { sh += m; nh++ }
    }
    nr = 0
}
NR == 1 { next }
{ u = prev; prev = $3 }
$1 <= w + 1 || $8 == "" { next }
u != cur { flush(); cur = u }
{ v[++nr] = $8 }
END {
    if (bad) exit 2
    flush()
    gs = 0; ng = 0
    for (i = 2; i <= ns; i++) if (lim[i] != lim[i - 1]) {
        g = (lev[i] - lev[i - 1]) / (lim[i] - lim[i - 1]); gs += g; ng++
        if (ng == 1 || g < gmin) gmin = g
        if (ng == 1 || g > gmax) gmax = g
    }
    if (!nl || !nh || !ng) { print "none"; exit }
    printf "%.1f|%d|%.1f|%d|%.2f|%.2f|%.2f|%d\n", sl / nl, nl, sh / nh, nh, gs / ng, gmin, gmax, ng
}
