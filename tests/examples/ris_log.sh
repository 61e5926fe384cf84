#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# examples/postgres/ris_log.awk against RIS worked out by hand: three
# statements over three 1 s intervals, one of them spanning all three, a
# statement of another kind that the pattern leaves out, lines out of
# order and a line that is not a duration line; and the usage error.
set -eu
awk_file=${1:?usage: ris_log.sh path/to/ris_log.awk}
command -v awk >/dev/null 2>&1 || exit 77
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/log" <<'LOG'
101.500 [2] pgbench LOG:  duration: 1000.000 ms  statement: select rpc(1);
100.500 [1] pgbench LOG:  duration: 500.000 ms  statement: select rpc(1);
103.000 [3] pgbench LOG:  duration: 2500.000 ms  statement: select rpc(1);
102.000 [4] psql LOG:  duration: 1000.000 ms  statement: select ris_sample(1, 0);
102.000 [5]  LOG:  checkpoint starting: time
LOG
# A = [100, 100.5], B = [100.5, 101.5], C = [100.5, 103]:
#   exact:     (0.5 + 0.5 + 0.5), (0.5 + 1), 1
#   logged:    A's 0.5 in (100, 101]; B's 101.5 - 101; C's 103 - 102
#   completed: A 0.5, B 1, C 2.5 (whole durations)
cat >"$tmp/want" <<'WANT'
k,time,ris_exact,ris_logged,ris_completed,completed,latency_ms
1,101.000,1.5000,0.5000,0.5000,1,500.000
2,102.000,1.5000,0.5000,1.0000,1,1000.000
3,103.000,1.0000,1.0000,2.5000,1,2500.000
4,104.000,0.0000,0.0000,0.0000,0,
WANT
awk -v t0=100 -v dt=1 -v n=4 -v pat='^select rpc' -f "$awk_file" "$tmp/log" >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
    echo "ris_log.awk: wrong RIS; want, got:"
    diff "$tmp/want" "$tmp/got" || true
    exit 1
fi
# without the pattern the psql statement counts too: 1 more in (101, 102]
awk -v t0=100 -v dt=1 -v n=4 -f "$awk_file" "$tmp/log" | sed -n 3p >"$tmp/got2"
echo "2,102.000,2.5000,1.5000,2.0000,2,1000.000" | cmp -s - "$tmp/got2" ||
    { echo "ris_log.awk: without a pattern: got $(cat "$tmp/got2")"; exit 1; }
# a missing grid: exit 2 and a message naming what to give
if awk -f "$awk_file" "$tmp/log" >/dev/null 2>"$tmp/err"; then
    echo "ris_log.awk: ran without -v t0/dt/n"
    exit 1
fi
grep -q 't0=EPOCH' "$tmp/err" || { echo "ris_log.awk: message: $(cat "$tmp/err")"; exit 1; }
echo "ris_log.awk: ok"
