# SPDX-License-Identifier: GPL-3.0-or-later
# ris_log.awk: requests in the server (RIS) per control interval, rebuilt
# from PostgreSQL's statement log.
#
# With log_min_duration_statement = 0 and log_line_prefix = '%n ...' each
# statement leaves one line when it completes:
#
#     1796099751.400 [25170] pgbench LOG:  duration: 20.512 ms  statement: select rpc(20000);
#
# so statement i occupied the server over [a_i, c_i], c_i the line's epoch
# time and a_i = c_i - duration. On the grid t_k = t0 + k dt (k = 1 .. n)
# this prints, per interval (t_{k-1}, t_k]:
#
#   ris_exact   (1/dt) sum_i |[a_i, c_i] cap (t_{k-1}, t_k]|: the time average
#               of statements in the server, known only after the run (a
#               statement still running at t_k is counted from the lines
#               written later), the true RIS of the seed;
#   ris_logged  (1/dt) sum_{i: c_i in (t_{k-1}, t_k]} (c_i - max(a_i, t_{k-1})):
#               what a monitor reading the log at t_k can compute, the seed's
#               logged RIS (a statement is seen only once it completes, and the
#               time it spent in earlier intervals is never added back);
#   ris_completed (1/dt) sum_{i: c_i in (t_{k-1}, t_k]} (c_i - a_i): the whole
#               durations of the statements completed in the interval, what
#               'qctl gate --sensor-log LOG --sensor-pattern' computes when its
#               group captures the duration (Little's law on completions: its
#               mean is the true RIS's, each statement seen only once done);
#   completed   statements completed in the interval;
#   latency_ms  their mean duration (empty when none completed).
#
# Usage: awk -v t0=EPOCH -v dt=SECONDS -v n=COUNT [-v pat=REGEX] -f ris_log.awk LOG...
# Only lines whose statement matches `pat` (default: any) count. Lines in
# any order; lines that are not duration lines are ignored. Exit 2 with a
# message when t0, dt or n is missing or not positive.
# k with t_{k-1} < t <= t_k
function interval(t,    k) {
    k = int((t - t0) / dt)
    if (t0 + k * dt < t) k++
    return k
}
BEGIN {
    if (t0 == "" || dt == "" || n == "" || t0 + 0 <= 0 || dt + 0 <= 0 || n + 0 < 1) {
        print "ris_log.awk: give -v t0=EPOCH -v dt=SECONDS -v n=COUNT (positive)" > "/dev/stderr"
        bad = 1
        exit 2
    }
    t0 += 0; dt += 0; n = int(n + 0)
    for (k = 1; k <= n; k++) { busy[k] = 0; logged[k] = 0; whole[k] = 0; done[k] = 0; lat[k] = 0 }
}
/ duration: [0-9.]+ ms  statement: / {
    c = $1 + 0
    if (c <= 0) next
    if (!match($0, / duration: [0-9.]+ ms  statement: /)) next
    stmt = substr($0, RSTART + RLENGTH)
    if (pat != "" && stmt !~ pat) next
    d = substr($0, RSTART + 11)
    d = substr(d, 1, index(d, " ") - 1) / 1000
    a = c - d
    # exact: the overlap with every interval the statement spans
    k1 = interval(a)
    k2 = interval(c)
    if (k1 < 1) k1 = 1
    if (k2 > n) k2 = n
    for (k = k1; k <= k2; k++) {
        lo = t0 + (k - 1) * dt; hi = lo + dt
        s = a > lo ? a : lo
        e = c < hi ? c : hi
        if (e > s) busy[k] += e - s
    }
    # logged: in the interval where it completes, from its start or the
    # interval's beginning, whichever is later
    k = interval(c)
    if (c > t0 && k >= 1 && k <= n) {
        lo = t0 + (k - 1) * dt
        logged[k] += c - (a > lo ? a : lo)
        whole[k] += d
        done[k]++
        lat[k] += d * 1000
    }
}
END {
    if (bad) exit 2
    print "k,time,ris_exact,ris_logged,ris_completed,completed,latency_ms"
    for (k = 1; k <= n; k++) {
        l = done[k] ? sprintf("%.3f", lat[k] / done[k]) : ""
        printf "%d,%.3f,%.4f,%.4f,%.4f,%d,%s\n", k, t0 + k * dt, busy[k] / dt, logged[k] / dt, whole[k] / dt, done[k], l
    }
}
