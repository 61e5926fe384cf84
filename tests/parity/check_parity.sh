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
# a scratch directory, $EX the examples, $P and $Q two free ports,
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
TMP=$(mktemp -d)
export TMP EX
trap 'rm -rf "$TMP"' EXIT
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
        echo $((20000 + $$ % 20000 + $1))
}
P=$(free_port 0) Q=$(free_port 1)
PORTFILE=$TMP/port
export P Q PORTFILE

# One run: verdict into $TMP/rc.$2, the qctl: lines into $TMP/msg.$2.
run() { # mode(check|start) tag args...
    mode=$1 tag=$2
    shift 2
    rm -f "$PORTFILE"
    if [ "$mode" = check ]; then
        "$qctl" "$@" --check >/dev/null 2>"$TMP/err" </dev/null
        rc=$?
    elif ! printf '%s\n' "$@" | grep -qxF -- "$PORTFILE"; then
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
    grep '^qctl: ' "$TMP/err" | sed "s#$TMP#TMP#g" >"$TMP/msg.$tag"
}

pass=0 fail=0 xfail=0 xpass=0 n=0
: >"$TMP/tally"
while IFS= read -r line; do
    case $line in '' | '#'*) continue ;; esac
    known=0
    case $line in known\ *) known=1 line=${line#known } ;; esac
    cmd=${line%% :: *}
    args=${line#* :: }
    n=$((n + 1))
    # shellcheck disable=SC2086
    eval "set -- $cmd $args"
    run check c "$@"
    run start s "$@"
    if [ "$(cat "$TMP/rc.c")" = "$(cat "$TMP/rc.s")" ] && cmp -s "$TMP/msg.c" "$TMP/msg.s"; then
        same=1
    else
        same=0
    fi
    echo "$cmd|$same" >>"$TMP/tally"
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
done <"$configs"

echo
echo "per command (configurations where --check and the start agree):"
awk -F'|' '{ t[$1]++; a[$1] += $2; if (!($1 in o)) { o[$1] = ++k; c[k] = $1 } }
    END { for (i = 1; i <= k; i++) printf "  %-16s %d/%d\n", c[i], a[c[i]], t[c[i]] }' "$TMP/tally"
missing=
for c in "mdp removable" fit gen design sysid sweep traffic proxy gate backend load control \
    "sim queue" "sim pool" "sim maxusers" "sim admission" "sim proxy" "sim network"; do
    # shellcheck disable=SC2086
    "$qctl" $c --help 2>/dev/null | grep -q -- '--check' || missing="$missing, $c"
done
[ -n "$missing" ] && echo "no --check (not tested): ${missing#, }"
echo "$n configurations: $pass agree, $fail disagree, $xfail known, $xpass known now agreeing"
[ $fail -eq 0 ]
