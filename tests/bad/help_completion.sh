#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# help_completion.sh QCTL SRC: every command answers 'qctl help COMMAND',
# -h and --help with its usage and exit 0; the bash completion parses and
# offers each command's flags; the man page has a section per command, and
# its generated part is what 'qctl completion man' prints now.
set -u
QCTL=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for c in "sim" "sim queue" "sim pool" "sim maxusers" "sim admission" "sim proxy" sysid design fit gen \
    "mdp" "mdp removable" sweep proxy backend load help completion; do
    for form in "help $c" "$c -h" "$c --help"; do
        # shellcheck disable=SC2086
        "$QCTL" $form >"$TMP/out" 2>"$TMP/err"
        rc=$?
        [ $rc -eq 0 ] || bad "qctl $form: exit $rc"
        grep -q "^usage: qctl" "$TMP/out" || bad "qctl $form: no usage on stdout"
    done
    grep -q "^\.SS \"qctl $c\"" "$SRC/docs/qctl.1" ||
        case $c in sim | mdp) ;; *) bad "docs/qctl.1: no section for qctl $c" ;; esac
done
"$QCTL" completion bash >"$TMP/c.bash" || bad "completion bash"
bash -n "$TMP/c.bash" || bad "the bash completion does not parse"
# the completion offers what the parser accepts: a flag of each command
for pair in "sim queue:--series-dt" "sim pool:--idle-timer" "gen:--snaplen" "load:--max-errors" \
    "mdp removable:--max-states" "proxy:--admin-public" "sweep:--results"; do
    cmd=${pair%%:*}
    flag=${pair#*:}
    set -- $cmd
    out=$(bash -c ". '$TMP/c.bash'; COMP_WORDS=(qctl $cmd ${flag%?}); COMP_CWORD=$(($# + 1)); _qctl; echo \"\${COMPREPLY[*]}\"")
    case " $out " in *" $flag "*) ;; *) bad "bash completion of 'qctl $cmd ${flag%?}' lacks $flag ($out)" ;; esac
done
"$QCTL" completion zsh >"$TMP/c.zsh" || bad "completion zsh"
if command -v zsh >/dev/null 2>&1; then zsh -n "$TMP/c.zsh" || bad "the zsh completion does not parse"; fi
grep -q "^compdef _qctl qctl" "$TMP/c.zsh" || bad "zsh completion: no compdef"
# the generated part of the man page is current
"$QCTL" completion man >"$TMP/man" || bad "completion man"
sed -n '/^\.\\" BEGIN GENERATED COMMANDS/,/^\.\\" END GENERATED COMMANDS/p' "$SRC/docs/qctl.1" |
    sed '1d;$d' >"$TMP/man.doc"
cmp -s "$TMP/man" "$TMP/man.doc" ||
    bad "docs/qctl.1 is not what 'qctl completion man' prints (scripts/update-man.sh regenerates it)"
[ $fail -eq 0 ] && echo "ok"
exit $fail
