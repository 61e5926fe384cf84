#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# accesslog_stuck.sh: a stuck access-log file does not stall the proxy
# (127.0.0.1, < 20 s). The log is a FIFO whose reader never reads (its
# pipe shrunk to 4 KiB: stuck_reader.py), so the proxy's write to it
# blocks for good, as on a dead disk; --access-log-buffer 4096 bounds the
# lines held. 2000 requests on one connection are all answered 200 while
# the write is stuck; the lines beyond the buffers are counted in
# qctl_access_log_lines_total{result="dropped"} (written + dropped =
# 2000) and said once on stderr at level warn. Once the reader goes, the
# proxy stops at SIGTERM with exit 0.
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
start_backend B --service det:0 --workers 16
mkfifo "$TMP/log.fifo" || { echo "skip: no mkfifo"; exit 77; }
python3 "$(dirname "$0")/stuck_reader.py" "$TMP/log.fifo" "$TMP/ready" 2>"$TMP/reader.err" &
R=$!
PIDS="$PIDS $R"
wait_file "$TMP/ready"
start_proxy --backend 127.0.0.1:$B_PORT --limiter none --access-log "$TMP/log.fifo" \
    --access-log-buffer 4096 --log-format json
python3 "$(dirname "$0")/alog_client.py" "$PROXY_PORT" 2000 >"$TMP/c.out" || fail "the client failed"
[ "$(cat "$TMP/c.out")" = "200=2000" ] || fail "the client: $(cat "$TMP/c.out")"
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/m"
w=$(sed -n 's/^qctl_access_log_lines_total{result="written"} //p' "$TMP/m")
d=$(sed -n 's/^qctl_access_log_lines_total{result="dropped"} //p' "$TMP/m")
[ -n "$w" ] && [ -n "$d" ] || fail "no access log counts: $(grep access_log "$TMP/m")"
[ $((w + d)) -eq 2000 ] || fail "written $w + dropped $d != 2000"
# held at most: the pipe's 4 KiB and two buffers of 4 KiB, lines of ~60 bytes
[ "$w" -lt 400 ] || fail "written $w: more than the pipe and the buffers hold"
[ "$d" -ge 1600 ] || fail "dropped $d"
grep -q '"level":"warn".*access log: [0-9]* lines dropped' "$TMP/proxy.err" ||
    fail "no warning: $(cat "$TMP/proxy.err")"
[ "$(grep -c 'lines dropped' "$TMP/proxy.err")" -eq 1 ] || fail "more than one warning in 10 s"
echo "ok: 2000 requests answered while the log was stuck: $w lines held or written, $d dropped and warned of"
kill "$R"; wait "$R" 2>/dev/null
kill "$PROXY_PID"
i=0
while kill -0 "$PROXY_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$PROXY_PID" 2>/dev/null && fail "the proxy did not stop within 10 s of SIGTERM"
wait "$PROXY_PID" || fail "the proxy exited $?"
echo "ok"
