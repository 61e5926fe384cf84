# SPDX-License-Identifier: GPL-3.0-or-later
# lib.sh: what the --report browser tests share. A page written by
# `qctl ... --report DIR` is opened in headless Chromium (its own profile
# directory under $TMP, so that two tests at once share nothing), and the
# test asserts, on the DOM Chromium dumps after running the page's script
# and on Chromium's log:
#   - every plot was laid out: <body data-plots-rendered="N"> equals the
#     number of plots the command draws (the script counts inline <svg>
#     whose getBBox() has width and height > 0);
#   - no script error, console message or failed load in the log;
#   - the page is self-contained: no http(s) URI but the SVG, XLink and
#     XHTML namespaces, every href a fragment of the page, no src=;
#   - laid out in a 1280 px wide window, the page is no wider than the
#     window (data-overflow="0");
#   - in every plot whose data frame is found, no legend label meets the
#     frame (data-legend-inside="0": legends sit outside the data), no text
#     reaches outside the image (data-text-clipped="0": no label cut off)
#     and no number label has more than five decimals or an unexpanded
#     format such as "%L" (data-long-ticks="0");
#   - every heading (h1-h4, table headings, collapsed-section titles) is
#     in words: none looks like a JSON path (no "a › b" or "a > b" chain,
#     no "no. 3" element number, no snake_case key, no "[3]" or ".key.");
#   - the page tells its story before its first table, in sentences with
#     figures of the run, never "nan" or "inf", and every number in a
#     table has a unit in its row or column heading, or is a count or a
#     ratio by the declared list (page_check.py, on the page's HTML);
#   - the page is no larger than MAX bytes (check_report's third argument,
#     default 150000): a page to read, the full detail in files beside it;
#   - each plot has its PDF beside the SVG and PNG (where gnuplot has the
#     pdfcairo terminal), and its .gp script, run by gnuplot in a copy of
#     the report folder placed elsewhere, redraws the SVG there.
# Without gnuplot (or with NO_GNUPLOT set: the run was made without it)
# the page must instead hold one note per plot and no SVG.
# Sourced by tests/report/*.sh with QCTL and DATA set; exits 77 (skipped)
# when Chromium is not installed.
set -u
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "chromium not installed: skipped"; exit 77; }
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
HERE=$(cd "$(dirname "$0")" && pwd)

# run_qctl ARGS...: qctl must succeed
run_qctl() {
    "$QCTL" "$@" >"$TMP/qctl.out" 2>"$TMP/qctl.err" </dev/null ||
        { cat "$TMP/qctl.err"; fail "qctl $* exited $?"; }
}

# check_scripts DIR: every DIR/*.gp reruns in a copy of DIR elsewhere and
# redraws its SVG there; a PDF beside each SVG when gnuplot has pdfcairo.
check_scripts() {
    rm -rf "$TMP/rerun" && mkdir -p "$TMP/rerun/copy" && cp -R "$1/." "$TMP/rerun/copy/"
    pdf=$(gnuplot -e "print strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0" 2>&1)
    for gp in "$TMP"/rerun/copy/*.gp; do
        [ -e "$gp" ] || fail "no gnuplot script in $1"
        name=$(basename "$gp" .gp)
        [ "$pdf" != 1 ] || [ -s "$1/$name.pdf" ] || fail "no $name.pdf beside $name.svg"
        rm -f "$TMP/rerun/copy/$name.svg"
        (cd "$TMP/rerun" && cd copy && gnuplot "$name.gp" >/dev/null 2>"$TMP/rerun/gp.err") ||
            { cat "$TMP/rerun/gp.err"; fail "$name.gp does not rerun from its folder"; }
        [ -s "$TMP/rerun/copy/$name.svg" ] || fail "$name.gp did not redraw $name.svg"
    done
}

# check_headings PAGE: no heading of PAGE looks like a JSON path
check_headings() {
    grep -o '<\(h[1-4]\|th\|summary\)[^>]*>[^<]*<' "$1" | sed 's/^<[^>]*>//; s/<$//' \
        >"$TMP/headings"
    bad=$(grep -e '›' -e ' > ' -e ' &gt; ' -e 'no\. [0-9]' -e '[a-z][a-z]_[a-z][a-z]' \
        -e '\[[0-9][0-9]*\]' -e '[a-z]\.[a-z][a-z]*\.' "$TMP/headings" | sort -u | head -5)
    [ -z "$bad" ] || fail "headings that read as JSON paths: $bad"
}

# check_report DIR PLOTS [MAX]: the page DIR/index.html and its PLOTS
# plots, the page at most MAX bytes (default 150000)
check_report() {
    dir=$1 want=$2 max=${3:-150000}
    page=$dir/index.html
    [ -s "$page" ] || fail "no $page"
    size=$(wc -c <"$page")
    [ "$size" -le "$max" ] || fail "the page is $size bytes, more than $max"
    check_headings "$page"
    python3 "$HERE/page_check.py" "$page" >"$TMP/page_check" 2>&1 ||
        { cat "$TMP/page_check"; fail "the page's story or units (page_check.py)"; }
    if [ -n "${NO_GNUPLOT:-}" ] || ! command -v gnuplot >/dev/null; then
        notes=$(grep -c '<p class="missing">' "$page")
        [ "$notes" -eq "$want" ] || fail "without gnuplot: $notes notes, expected $want"
        want=0
    fi
    [ "$want" -eq 0 ] || grep -q "data-plots=\"$want\"" "$page" || fail "page does not hold $want plots"
    # self-contained: the only URIs are XML namespaces
    others=$(grep -o 'https\{0,1\}://[^"'"'"' <>)]*' "$page" |
        grep -v -x -e 'http://www.w3.org/2000/svg' -e 'http://www.w3.org/1999/xlink' \
            -e 'http://www.w3.org/1999/xhtml' | sort -u)
    [ -z "$others" ] || fail "external references in the page: $others"
    grep -q ' src=' "$page" && fail "a src= attribute in the page"
    grep -o "href=[\"'][^\"']" "$page" | grep -v "href=[\"']#" >/dev/null &&
        fail "an href that is not a fragment of the page"
    mkdir -p "$TMP/chrome"
    HOME=$TMP XDG_CONFIG_HOME=$TMP/xdg XDG_CACHE_HOME=$TMP/xdg \
        timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
        --disable-background-networking --disable-component-update --disable-sync \
        --no-first-run --user-data-dir="$TMP/chrome" --enable-logging=stderr --v=0 \
        --window-size=1280,900 --virtual-time-budget=2000 --dump-dom "file://$(cd "$dir" && pwd)/index.html" \
        >"$TMP/dom.html" 2>"$TMP/chrome.log" || { tail -20 "$TMP/chrome.log"; fail "chromium failed"; }
    body=$(grep -o '<body[^>]*>' "$TMP/dom.html" | head -1)
    [ -n "$body" ] || fail "no <body> in the DOM Chromium dumped"
    got=$(echo "$body" | sed -n 's/.*data-plots-rendered="\([0-9]*\)".*/\1/p')
    [ "$got" = "$want" ] || fail "plots laid out: '$got', expected $want ($body)"
    for attr in overflow legend-inside text-clipped long-ticks; do
        v=$(echo "$body" | sed -n "s/.*data-$attr=\"\([0-9]*\)\".*/\1/p")
        [ "$v" = 0 ] || fail "data-$attr is '$v', expected 0 ($body)"
    done
    if [ "$want" -gt 0 ]; then
        frames=$(echo "$body" | sed -n 's/.*data-frames="\([0-9]*\)".*/\1/p')
        [ "${frames:-0}" -gt 0 ] || fail "no plot frame found to measure ($body)"
        check_scripts "$dir"
    fi
    if grep -e 'Uncaught' -e 'CONSOLE' -e 'Failed to load' -e 'net::ERR_' "$TMP/chrome.log"; then
        fail "script error, console message or failed load in Chromium's log"
    fi
    # the tables survived the parser: as many in the DOM as in the page
    [ "$(grep -o '<table' "$TMP/dom.html" | wc -l)" -eq "$(grep -o '<table' "$page" | wc -l)" ] ||
        fail "the DOM lost tables (invalid nesting?)"
    return 0
}
