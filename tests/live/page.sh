#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# page.sh: the live page on the admin listener (GET /), opened in headless
# Chromium at 1280 px while the proxy is under load (2x its fixed limit,
# with a queue, so requests are admitted, queued and refused):
#   - the page is self-contained (no http(s) URI, no src=, no link) and is
#     sent with a Content-Security-Policy that forbids anything else;
#   - its script polled /status several times and drew all five charts
#     with a line of two points or more (<body data-charts-drawn="5">);
#   - no script error (data-errors="0", no "Uncaught" in Chromium's log);
#   - no horizontal overflow at 1280 px (data-overflow="0").
# Skipped (77) when Chromium is not installed.
set -u
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "chromium not installed: skipped"; exit 77; }
. "$(dirname "$0")/lib.sh"
start_backend b --service det:0.02 --workers 4
start_proxy --backend 127.0.0.1:$b_PORT --limiter fixed --limit 4 --queue 8 --queue-timeout 0.05 \
    --class-header X-Class --class gold=0.2
curl -s -D "$TMP/page.head" -o "$TMP/page.html" "http://127.0.0.1:$ADMIN_PORT/" ||
    fail "GET / on the admin port failed"
grep -q '^HTTP/1.1 200' "$TMP/page.head" || fail "GET /: $(head -1 "$TMP/page.head")"
grep -qi '^Content-Type: text/html' "$TMP/page.head" || fail "GET / is not text/html"
grep -qi "^Content-Security-Policy: default-src 'none'" "$TMP/page.head" || fail "no Content-Security-Policy"
others=$(grep -o 'https\{0,1\}://[^"'"'"' <>)]*' "$TMP/page.html" | grep -v -x 'http://www.w3.org/2000/svg' | sort -u)
[ -z "$others" ] || fail "external references in the page: $others"
grep -q -e ' src=' -e '<link' "$TMP/page.html" && fail "the page loads something (src= or <link>)"

# load at twice the limit for the whole browser run
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 400 --duration 12 --json >"$TMP/load.json" 2>"$TMP/load.err" &
LOAD=$!
PIDS="$PIDS $LOAD"
sleep 1
mkdir -p "$TMP/chrome"
HOME=$TMP XDG_CONFIG_HOME=$TMP/xdg XDG_CACHE_HOME=$TMP/xdg \
    timeout 40 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
    --disable-background-networking --disable-component-update --disable-sync \
    --no-first-run --user-data-dir="$TMP/chrome" --enable-logging=stderr --v=0 \
    --window-size=1280,900 --virtual-time-budget=6000 \
    --dump-dom "http://127.0.0.1:$ADMIN_PORT/?interval=300" \
    >"$TMP/dom.html" 2>"$TMP/chrome.log" || { tail -20 "$TMP/chrome.log"; fail "chromium failed"; }
body=$(grep -o '<body[^>]*>' "$TMP/dom.html" | head -1)
[ -n "$body" ] || fail "no <body> in the DOM Chromium dumped"
attr() { echo "$body" | sed -n "s/.*data-$1=\"\([0-9]*\)\".*/\1/p"; }
polls=$(attr polls) drawn=$(attr charts-drawn) errs=$(attr errors) over=$(attr overflow)
echo "polls $polls, charts drawn $drawn, errors $errs, overflow $over"
[ -n "$polls" ] && [ "$polls" -ge 3 ] || fail "the page polled /status $polls times ($body)"
[ "$drawn" = 5 ] || fail "charts drawn: '$drawn' of 5 ($body)"
[ "$errs" = 0 ] || fail "$errs script errors"
[ "$over" = 0 ] || fail "the page is wider than 1280 px"
grep -e 'Uncaught' -e 'Refused to' "$TMP/chrome.log" && fail "script error or blocked load in Chromium's log"
grep -q '<path d="M' "$TMP/dom.html" || fail "no line in the DOM"
grep -q "$b_PORT" "$TMP/dom.html" || fail "the fleet table lacks the backend"
exit 0
