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
# An include is judged by the file it resolves to, not by its spelling: a
# quoted include is searched first beside the including file, so
# "../models/units.h" from src/control/ would find src/models/units.h
# whatever the -I flags say, and "core/../models/units.h" walks out of a
# layer's directory through "..". So every source and header of every
# layer is preprocessed with its layer's flags (cc -M, from its own
# directory), each file it reads is resolved (realpath) and mapped to its
# layer (src/LAYER/..., or the layer whose build include directory holds
# qctl/NAME.h), and a file of a layer not below it fails the check. Two
# probes written into src/control/'s place show it catches both spellings.
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
    live) echo live/live.h qctl/live.h ;;
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

srcreal=$(cd "$src" && pwd -P) || exit 1

# the layer of a resolved path (empty: not qctl's, a system header)
layer_of() {
    case $1 in
    "$srcreal"/src/*/*)
        r=${1#"$srcreal"/src/}
        echo "${r%%/*}"
        ;;
    "$srcreal"/include/qctl/*.h)
        for o in $all; do
            [ -e "$layers/$o/qctl/${1##*/}" ] && { echo "$o"; return; }
        done
        echo unassigned
        ;;
    esac
}

# the files read when `what` (paths, or - for stdin) is compiled as layer
# $1 from directory $2, each resolved; prints "FAIL: ..." for each one of
# a layer $1 may not see (nothing when they do not compile: the other
# checks judge that). One preprocessor run and one realpath for them all.
resolved_check() {
    l=$1
    dir=$2
    shift 2
    # shellcheck disable=SC2046
    deps=$(cd "$dir" && "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -M -MT x $(flags "$l") \
        -x c "$@" 2>/dev/null) || return 0
    # shellcheck disable=SC2046
    printf '%s\n' "$deps" | sed 's/\\$//; s/^x://' | tr ' ' '\n' | grep . | sort -u |
        (cd "$dir" && xargs realpath -q 2>/dev/null) | sort -u | while read -r r; do
        m=$(layer_of "$r")
        [ -n "$m" ] || continue
        ok=0
        for s in $(sees "$l"); do [ "$s" = "$m" ] && ok=1; done
        [ $ok = 1 ] || echo "FAIL: layer $l reads $r (layer $m)"
    done
}

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
    # every file of the layer, judged by what its includes resolve to
    out=$(resolved_check "$l" "$srcreal/src/$l" "$srcreal"/src/"$l"/*.[ch])
    if [ -n "$out" ]; then
        echo "$out"
        fail=1
    else
        passes=$((passes + 1))
    fi
    echo "$fail $passes $refusals"
}

# the probes: a file of control/ reaching models/ by "..", as a quoted
# include beside it and through a lower layer's directory; each must be
# refused (not found) or caught by resolved_check
probe_escapes() {
    fail=0
    w=$tmp/probe
    mkdir -p "$w"
    for inc in ../models/units.h core/../models/units.h; do
        printf '#include "%s"\nint qc_probe(void);\nint qc_probe(void) { return 0; }\n' \
            "$inc" >"$w/probe.c"
        out=$(resolved_check control "$srcreal/src/control" - <"$w/probe.c")
        # shellcheck disable=SC2046
        if [ -z "$out" ] && (cd "$srcreal/src/control" && "$cc" -std=c11 \
            -D_POSIX_C_SOURCE=200809L -fsyntax-only $(flags control) -x c - \
            <"$w/probe.c") 2>/dev/null; then
            echo "FAIL: #include \"$inc\" from src/control/ escapes the layer rule"
            fail=1
        else
            echo "probe: #include \"$inc\" from src/control/ refused"
        fi
    done
    return $fail
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
probe_escapes || fail=1
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
