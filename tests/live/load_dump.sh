#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# load_dump.sh: qctl load --dump FILE against a backend of 2 workers at
# det:0.02 through a proxy with a fixed limit of 1 and no waiting room
# (so that some requests are refused with 503), over 2 threads: one line
# per request after a header, in the order due, the class the --header
# value; as many lines as requests answered, as many 200 and 503 lines as
# the JSON summary counts, every 200 at least the backend's 20 ms, and the
# mean latency of the lines the JSON's mean (an exact sum there) to the
# dump's microseconds; a dump that cannot be written: exit 2 naming the
# flag.
set -u
. "$(dirname "$0")/lib.sh"
start_backend b --service det:0.02 --workers 2
start_proxy --backend 127.0.0.1:$b_PORT --limiter fixed --limit 1 --queue 0
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --header "X-Class: gold" --rate 80 --requests 160 \
    --threads 2 --seed 3 --dump "$TMP/d.txt" --json >"$TMP/l.json" || fail "load"
conserved "$TMP/l.json"
head -n 1 "$TMP/d.txt" | grep -q '^# class send latency status$' || fail "no header line"
ans=$(num "$TMP/l.json" answered) ok=$(num "$TMP/l.json" ok) r=$(num "$TMP/l.json" refused_503)
[ "$r" -gt 0 ] || fail "nothing refused: the case does not test 503 lines"
awk -v ans="$ans" -v ok="$ok" -v r="$r" '
    /^#/ { next }
    { n++; if ($1 != "gold") bad = "class " $1
      if ($2 < prev) bad = "not in the order due at line " NR; prev = $2
      s += $3
      if ($4 == 200) { n200++; if ($3 < 0.02) bad = "a 200 in " $3 " s" }
      else if ($4 == 503) n503++ }
    END { if (bad != "") { print bad; exit 1 }
          if (n != ans || n200 != ok || n503 != r) { print n, n200, n503, "vs", ans, ok, r; exit 1 }
          printf "%.9g\n", s / n }' "$TMP/d.txt" >"$TMP/mean" || fail "dump: $(cat "$TMP/mean")"
jm=$(sed -n 's/^ *"mean": \([-0-9.e]*\),*$/\1/p' "$TMP/l.json" | head -n 1)
dm=$(cat "$TMP/mean")
echo "dump: $ans lines ($ok 200, $r 503), mean $dm s; the summary's mean $jm s"
awk -v a="$dm" -v b="$jm" 'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }' ||
    fail "the dump's mean $dm is not the summary's $jm"
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 10 --requests 2 --dump /nonexistent/d.txt \
    >/dev/null 2>"$TMP/e.txt"
[ $? -eq 2 ] || fail "an unwritable --dump did not exit 2"
grep -q -- "--dump" "$TMP/e.txt" || fail "the error does not name --dump: $(cat "$TMP/e.txt")"
echo ok
