#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check_parity.sh: `--check` says what the real start says. For each
# configuration of configs.txt, runs `qctl CMD ARGS --check` and the real
# start `qctl CMD ARGS`, and requires the same verdict (exit status, a
# server that came up counting as 0) and the same messages (stderr's
# "qctl: " lines) from both: a check that passes what the start refuses,
# or refuses what the start runs, is the defect this test finds.
#   check_parity.sh QCTL [CONFIGS]
# configs.txt: one configuration a line, `CMD :: ARGS` (shell words; $TMP
# a scratch directory, $EX the examples, $SW the sweep files of
# tests/parity/sweeps, $P and $Q two free ports, $BUSY
# a port another program listens on,
# $PORTFILE a file the server writes its port into once it listens). A
# line starting with `known ` is a mismatch known and reported (XFAIL; an
# XPASS when it agrees, so that the list shrinks). The real start of a
# server (a configuration naming $PORTFILE) is stopped once that file
# exists (it is up), or after 15 s; any other command runs to its end
# (the configurations are short; 20 s at most).
# Commands that have no --check are listed at the end, not tested.
# Exit status: 0 when every configuration not marked known agrees.
set -u
qctl=$1
configs=${2:-$(dirname "$0")/configs.txt}
EX=$(cd "$(dirname "$0")/../../examples" && pwd)
SW=$(cd "$(dirname "$0")/sweeps" && pwd)
TOP=$(mktemp -d)
TMP=$TOP
export TMP EX SW
trap 'rm -rf "$TOP"' EXIT
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
        echo $((20000 + $$ % 20000 + $1))
}
# $BUSY: a port another program listens on for the whole run (a start
# there fails at its bind, and so must --check)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1]); sys.stdout.flush(); time.sleep(600)' >"$TMP/busy" 2>/dev/null &
busy_pid=$!
trap 'kill $busy_pid 2>/dev/null; rm -rf "$TOP"' EXIT
i=0
while [ ! -s "$TMP/busy" ] && [ $i -lt 250 ] && kill -0 $busy_pid 2>/dev/null; do
    sleep 0.02
    i=$((i + 1))
done
BUSY=$(cat "$TMP/busy" 2>/dev/null)
if [ -z "$BUSY" ]; then
    echo "check_parity.sh: python3 cannot hold a port for the \$BUSY lines" >&2
    exit 77
fi
export BUSY

# One run: verdict into $TMP/rc.$2, the qctl: lines into $TMP/msg.$2.
run() { # mode(check|start) tag args...
    mode=$1 tag=$2
    shift 2
    rm -f "$PORTFILE"
    if [ "$mode" = check ]; then
        "$qctl" "$@" --check >/dev/null 2>"$TMP/err" </dev/null
        rc=$?
    elif ! server "$@"; then
        # not a server: the start runs to its end (bounded all the same)
        timeout -s KILL 20 "$qctl" "$@" >/dev/null 2>"$TMP/err" </dev/null
        rc=$?
        [ $rc -eq 137 ] && rc=timeout
    else
        "$qctl" "$@" >/dev/null 2>"$TMP/err" </dev/null &
        pid=$!
        rc=
        i=0
        while [ $i -lt 750 ]; do
            if ! kill -0 "$pid" 2>/dev/null; then
                wait "$pid"
                rc=$?
                break
            fi
            if [ -s "$PORTFILE" ]; then
                rc=0 # up: the start accepted the configuration
                kill -TERM "$pid" 2>/dev/null
                wait "$pid" 2>/dev/null
                break
            fi
            sleep 0.02
            i=$((i + 1))
        done
        if [ -z "$rc" ]; then
            kill -KILL "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            rc=timeout
        fi
    fi
    echo "$rc" >"$TMP/rc.$tag"
    sed -n "/^qctl: /{s#$TMP#TMP#g;p;}" "$TMP/err" >"$TMP/msg.$tag"
}

# 0 when an argument is $PORTFILE: a server (no process forked: the
# runs' own cost is what this test should spend its time on).
server() {
    for a in "$@"; do
        [ "$a" = "$PORTFILE" ] && return 0
    done
    return 1
}

# The configurations run in $jobs shards at once (a command's lines in
# one shard, in their order), each with its own scratch directory and
# ports: a run is mostly waiting (a process starting, a server coming up
# and draining), so that the shards overlap on two cores.
jobs=${QC_PARITY_JOBS:-4}
awk -v J="$jobs" '/^[ \t]*(#|$)/ { next }
    { l = $0; sub(/^known /, "", l); c = l; sub(/ :: .*/, "", c)
      if (!(c in k)) k[c] = n++
      print NR "|" $0 > (TOP "/lines." (k[c] % J)) }' TOP="$TOP" "$configs"

shard() { # shard index: the lines of $TOP/lines.$1, in $TOP/s$1
    shard=$1
    TMP=$TOP/s$shard
    mkdir -p "$TMP"
    P=$(free_port $((2 * shard))) Q=$(free_port $((2 * shard + 1)))
    PORTFILE=$TMP/port
    export TMP P Q PORTFILE
    : >"$TMP/tally"
    pass=0 fail=0 xfail=0 xpass=0 n=0
    while IFS='|' read -r lineno line; do
        known=0
        case $line in known\ *) known=1 line=${line#known } ;; esac
        cmd=${line%% :: *}
        args=${line#* :: }
        n=$((n + 1))
        # shellcheck disable=SC2086
        eval "set -- $cmd $args"
        run check c "$@"
        run start s "$@"
        read -r rcc <"$TMP/rc.c"
        read -r rcs <"$TMP/rc.s"
        if [ "$rcc" = "$rcs" ] && cmp -s "$TMP/msg.c" "$TMP/msg.s"; then
            same=1
        else
            same=0
        fi
        echo "$lineno|$cmd|$same" >>"$TMP/tally"
        if [ $same = 1 ]; then
            if [ $known = 1 ]; then
                xpass=$((xpass + 1))
                echo "XPASS (now agrees; drop 'known'): $cmd $args"
            else
                pass=$((pass + 1))
            fi
        else
            desc="check: exit $(cat "$TMP/rc.c") $(head -c 200 "$TMP/msg.c" | tr '\n' ' ')| start: exit $(cat "$TMP/rc.s") $(head -c 200 "$TMP/msg.s" | tr '\n' ' ')"
            if [ $known = 1 ]; then
                xfail=$((xfail + 1))
                echo "XFAIL (known): $cmd $args"
            else
                fail=$((fail + 1))
                echo "FAIL: $cmd $args"
            fi
            echo "    $desc"
        fi
    done <"$TOP/lines.$shard"
    echo "$pass $fail $xfail $xpass $n" >"$TMP/counts"
}

k=0 pids=
while [ $k -lt "$jobs" ]; do
    if [ -s "$TOP/lines.$k" ]; then
        shard $k >"$TOP/out.$k" 2>&1 &
        pids="$pids $!"
    fi
    k=$((k + 1))
done
for p in $pids; do # (not a bare wait: the $BUSY holder runs until the end)
    wait "$p"
done
pass=0 fail=0 xfail=0 xpass=0 n=0
k=0
while [ $k -lt "$jobs" ]; do
    if [ -s "$TOP/s$k/counts" ]; then
        cat "$TOP/out.$k"
        read -r a b c d e <"$TOP/s$k/counts"
        pass=$((pass + a)) fail=$((fail + b)) xfail=$((xfail + c)) xpass=$((xpass + d)) n=$((n + e))
        cat "$TOP/s$k/tally" >>"$TOP/tally"
    fi
    k=$((k + 1))
done
echo
echo "per command (configurations where --check and the start agree):"
sort -t'|' -k1,1n "$TOP/tally" | awk -F'|' '{ t[$2]++; a[$2] += $3; if (!($2 in o)) { o[$2] = ++k; c[k] = $2 } }
    END { for (i = 1; i <= k; i++) printf "  %-16s %d/%d\n", c[i], a[c[i]], t[c[i]] }'
missing=
for c in "mdp removable" fit gen design sysid sweep traffic proxy gate backend load control \
    "sim queue" "sim pool" "sim maxusers" "sim admission" "sim proxy" "sim network"; do
    # shellcheck disable=SC2086
    "$qctl" $c --help 2>/dev/null | grep -q -- '--check' || missing="$missing, $c"
done
[ -n "$missing" ] && echo "no --check (not tested): ${missing#, }"
echo "$n configurations: $pass agree, $fail disagree, $xfail known, $xpass known now agreeing"
[ $fail -eq 0 ]
