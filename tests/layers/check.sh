#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers are enforced by the build: a file of a layer can include the
# headers of its own layer and of the layers below it, and an include of a
# higher (or unrelated) layer's header does not compile ("file not found").
#
# For every pair of layers (L, M) this compiles, with exactly the include
# flags the build gives layer L (LAYERS/L.flags, written by CMake), a probe
# that includes a header of layer M, and checks that it compiles when M is
# L or below L, and fails on the missing header otherwise. The allowed
# pairs below are the intended layering (docs/architecture.md), stated here
# independently of CMakeLists.txt, so a link added upward fails this test.
# Then one real source file of each layer is compiled with its layer's
# flags, alone (it must compile) and with a higher layer's header forced in
# (it must not).
#
# usage: check.sh CC LAYERS_DIR SOURCE_DIR
cc=$1
layers=$2
src=$3
[ -x "$(command -v "$cc")" ] || { echo "no compiler $cc"; exit 77; }

# layer: the layers it may include (itself and below)
sees() {
    case $1 in
    core) echo core ;;
    control) echo core control ;;
    io) echo core control io ;;
    mdp) echo core mdp ;;
    traffic) echo core control io traffic ;;
    models) echo core control io mdp traffic models ;;
    live) echo core control io mdp traffic models live ;;
    app) echo core control io mdp traffic models live app ;;
    esac
}
# layer: headers of it (public qctl/ ones and private ones)
headers() {
    case $1 in
    core) echo qctl/rng.h core/gsl_quiet.h ;;
    control) echo qctl/limiter.h ;;
    io) echo qctl/output.h ;;
    mdp) echo qctl/mdp.h ;;
    traffic) echo qctl/trace.h ;;
    models) echo qctl/queue.h models/station.h ;;
    live) echo live/live.h ;;
    app) echo app/sweep.h ;;
    esac
}
# layer: one of its source files
source_of() {
    case $1 in
    core) echo src/core/evq.c ;;
    control) echo src/control/limiter.c ;;
    io) echo src/io/output.c ;;
    mdp) echo src/mdp/mdp.c ;;
    traffic) echo src/traffic/arrivals.c ;;
    models) echo src/models/queue.c ;;
    live) echo src/live/net.c ;;
    app) echo src/app/sweep.c ;;
    esac
}
all="core control io mdp traffic models live app"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

flags() { sed 's/^/-I/' "$layers/$1.flags" | tr '\n' ' '; }
compile() { # layer file [extra...]  (errors in $w/err)
    l=$1
    f=$2
    shift 2
    # shellcheck disable=SC2046
    "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -fsyntax-only $(flags "$l") "$@" "$f" 2>"$w/err"
}

# all checks of layer $1, in a directory of its own (an empty one: quoted
# includes resolve only through -I); prints failures, then a last line
# "fail passes refusals"
check_layer() {
    l=$1
    w=$tmp/$l
    mkdir "$w" && cd "$w" || exit 1
    fail=0
    passes=0
    refusals=0
    [ -s "$layers/$l.flags" ] || { echo "FAIL: $layers/$l.flags missing"; echo "1 0 0"; return; }
    for m in $all; do
        allowed=0
        for s in $(sees "$l"); do [ "$s" = "$m" ] && allowed=1; done
        for h in $(headers "$m"); do
            printf '#include "%s"\nint qc_probe(void);\nint qc_probe(void) { return 0; }\n' "$h" >probe.c
            if compile "$l" probe.c; then
                if [ $allowed = 1 ]; then
                    passes=$((passes + 1))
                else
                    echo "FAIL: layer $l can include $h (layer $m, not below $l)"
                    fail=1
                fi
            else
                if [ $allowed = 1 ]; then
                    echo "FAIL: layer $l cannot include $h (layer $m is below it):"
                    sed 's/^/    /' "$w/err"
                    fail=1
                elif grep -q "$h.*\(No such file\|not found\)" "$w/err"; then
                    refusals=$((refusals + 1))
                else
                    echo "FAIL: layer $l including $h failed, but not for the missing header:"
                    sed 's/^/    /' "$w/err"
                    fail=1
                fi
            fi
        done
    done
    # a real file of the layer: compiles as built; not with a higher header
    f=$src/$(source_of "$l")
    if ! compile "$l" "$f"; then
        echo "FAIL: $f does not compile with layer $l's flags:"
        sed 's/^/    /' "$w/err"
        fail=1
    fi
    if [ "$l" != app ]; then
        if compile "$l" "$f" -include app/sweep.h; then
            echo "FAIL: $f compiles with app/sweep.h included"
            fail=1
        elif ! grep -q "app/sweep.h.*\(No such file\|not found\)" "$w/err"; then
            echo "FAIL: $f with app/sweep.h failed, but not for the missing header:"
            sed 's/^/    /' "$w/err"
            fail=1
        else
            refusals=$((refusals + 1))
        fi
    fi
    echo "$fail $passes $refusals"
}

# two layers at a time
set -- $all
while [ $# -gt 0 ]; do
    check_layer "$1" >"$tmp/$1.log" &
    if [ $# -gt 1 ]; then
        check_layer "$2" >"$tmp/$2.log" &
        shift
    fi
    shift
    wait
done

fail=0
passes=0
refusals=0
for l in $all; do
    sed '$d' "$tmp/$l.log"
    set -- $(tail -n 1 "$tmp/$l.log")
    [ "$1" = 0 ] || fail=1
    passes=$((passes + $2))
    refusals=$((refusals + $3))
done
echo "layers: $passes includes allowed and compiled, $refusals upward includes refused"
exit $fail
