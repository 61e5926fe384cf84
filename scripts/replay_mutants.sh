#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# replay_mutants.sh: mutants of the proxy's core (src/live/pcore.c), each
# of which the replay test (tests/unit/live/test_front_replay.c) must
# fail. The idea: a test that compares two plants is only as good as the
# faults it is shown to catch, so the faults are kept here and re-run.
#   scripts/replay_mutants.sh [BUILD]     (BUILD: a configured build, default build)
# Each mutant is a sed script applied to a copy of pcore.c (the source is
# not touched), compiled with the library's flags and linked ahead of
# libqctl.a (whose own pcore member is then not pulled), and the test run
# on it. Prints one line per mutant; exits 1 when a mutant survives or no
# longer applies (the source moved: update its sed script), 77 without a
# configured build.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "replay_mutants: no build directory ${1:-build}"; exit 77; }
FLAGS=$B/CMakeFiles/qc_live.dir/flags.make
TO=$B/tests/CMakeFiles/test_front_replay.dir/unit/live/test_front_replay.c.o
if [ ! -f "$FLAGS" ] || [ ! -f "$B/libqctl.a" ]; then echo "replay_mutants: no configured build in $B"; exit 77; fi
[ -f "$TO" ] || { echo "replay_mutants: build test_front_replay in $B first"; exit 77; }
CC=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt")
CC=${CC:-cc}
INC=$(sed -n 's/^C_INCLUDES = //p' "$FLAGS")
DEF=$(sed -n 's/^C_DEFINES = //p' "$FLAGS")
CFL=$(sed -n 's/^C_FLAGS = //p' "$FLAGS" | sed 's/-Werror//')
LINK=$(sed 's/^.* -o test_front_replay *//' "$B/tests/CMakeFiles/test_front_replay.dir/link.txt")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0
# name|sed script on pcore.c
while IFS='|' read -r name script; do
    [ -n "$name" ] || continue
    sed "$script" "$SRC/src/live/pcore.c" >"$T/pcore.c"
    if cmp -s "$T/pcore.c" "$SRC/src/live/pcore.c"; then
        echo "NOT APPLIED  $name"
        bad=1
        continue
    fi
    # shellcheck disable=SC2086
    if ! $CC $DEF $INC -I"$SRC/src" $CFL -c "$T/pcore.c" -o "$T/pcore.o" 2>"$T/cc.err"; then
        echo "NO BUILD     $name: $(head -n 3 "$T/cc.err")"
        bad=1
        continue
    fi
    # shellcheck disable=SC2086
    (cd "$B/tests" && $CC -O2 -flto=auto "$TO" "$T/pcore.o" -o "$T/t" $LINK) 2>"$T/ld.err" || {
        echo "NO LINK      $name: $(head -n 3 "$T/ld.err")"
        bad=1
        continue
    }
    if (cd "$T" && timeout 120 ./t >"$T/out" 2>&1); then
        echo "SURVIVES     $name"
        bad=1
    else
        echo "caught       $name: $(grep -m 1 -o '[a-z0-9]*/[a-z]*/every [0-9]*: decision [0-9]* of [0-9/]*\|[^ ]* != [^ ]*\|Test failed.*' "$T/out" | head -n 1)"
    fi
done <<'EOF'
a departed client's pending decisions not voided|s/^\( *\)d->id = 0;$/\1;/
a voided wait keeps its place in the waiting room|s/qc_front_cancel(c->front, d->handle);/(void)0;/
a voided admission keeps its slot|s/if (d.id == 0 \&\& d.act == QC_FRONT_ADMIT)/if (d.id == 0 \&\& d.act == QC_FRONT_ADMIT \&\& 0)/
pending decisions carried out newest first|s/qc_front_decision d = c->pending\[c->head\];/qc_front_decision d = c->pending[(c->head + c->n - 1) % c->ndec]; c->pending[(c->head + c->n - 1) % c->ndec] = c->pending[c->head];/
a cascade's decisions carried out before those pending|s/c->pending\[(c->head + c->n) % c->ndec\] = c->scratch\[i\];/c->head = (c->head + c->ndec - 1) % c->ndec; c->pending[c->head] = c->scratch[n - 1 - i];/
every request told to the front as class 0|s/qc_front_arrive_n(c->front, now, cls, id,/qc_front_arrive_n(c->front, now, 0 * cls, id,/
deadline timers do nothing|s/run(c, qc_front_expire(c->front, now, c->scratch, c->ndec));/(void)now;/
the control tick not passed on|s/run(c, qc_front_tick(c->front, now, c->scratch, c->ndec));/(void)now;/
the gate's cap not passed on|s/run(c, qc_front_set_cap(c->front, now, cap, c->scratch, c->ndec));/(void)cap;/
EOF
exit $bad
