#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run_cli_test.sh: runs one command-line test described by a data file.
#   run_cli_test.sh CASE.t QCTL JCHECK
# A case file has lines:
#   cmd: ARGS          arguments to qctl (shell words; $TMP is a scratch dir,
#                      $DATA the tests/data directory)
#   exit: N            expected exit status (default 0)
#   stdout: TEXT       stdout contains TEXT (fixed string)
#   stderr: TEXT       stderr contains TEXT
#   no-stderr:         stderr is empty
#   json: PATH OP ARG  jcheck on stdout parsed as JSON
#   file: PATH         the file exists (and is not empty) after the run
#   sh: COMMAND        a shell assertion run after qctl ($TMP set); one
#                      that exits 77 says a tool it needs is missing
#   needs: TOOL...     the case needs these programs: without one of them
#                      it is skipped before anything runs
#   env: NAME=VALUE    set in qctl's environment (one per line)
# Blank lines and lines starting with # are ignored. Exit status: 0 passed,
# 1 failed, 77 skipped (a needed tool missing and nothing else failed;
# CTest's SKIP_RETURN_CODE), so that a missing tool never passes a test.
set -u
case_file=$1 qctl=$2 jcheck=$3
TMP=$(mktemp -d)
export TMP
DATA=$(cd "$(dirname "$case_file")/../data" && pwd)
export DATA
trap 'rm -rf "$TMP"' EXIT
for tool in $(sed -n 's/^needs: //p' "$case_file"); do
    command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool not found"; exit 77; }
done
while IFS= read -r kv; do
    [ -n "$kv" ] && export "$kv"
done <<ENV
$(sed -n 's/^env: //p' "$case_file")
ENV
cmd=$(sed -n 's/^cmd: //p' "$case_file")
want_exit=$(sed -n 's/^exit: //p' "$case_file")
[ -n "$want_exit" ] || want_exit=0
QCTL=$qctl JCHECK=$jcheck
export QCTL JCHECK
eval "set -- $cmd"
"$qctl" "$@" >"$TMP/stdout" 2>"$TMP/stderr" </dev/null
got=$?
fail=0 skip=0
if [ "$got" -ne "$want_exit" ]; then
    echo "FAIL: exit status $got, expected $want_exit"
    fail=1
fi
while IFS= read -r line; do
    case $line in
    stdout:\ *)
        t=${line#stdout: }
        grep -qF -- "$t" "$TMP/stdout" || { echo "FAIL: stdout lacks: $t"; fail=1; } ;;
    stderr:\ *)
        t=${line#stderr: }
        grep -qF -- "$t" "$TMP/stderr" || { echo "FAIL: stderr lacks: $t"; fail=1; } ;;
    no-stderr:*)
        [ -s "$TMP/stderr" ] && { echo "FAIL: stderr not empty"; fail=1; } ;;
    json:\ *)
        eval "set -- ${line#json: }"
        "$jcheck" "$TMP/stdout" "$@" || fail=1 ;;
    file:\ *)
        f=$(eval "echo ${line#file: }")
        [ -s "$f" ] || { echo "FAIL: missing or empty file $f"; fail=1; } ;;
    sh:\ *)
        sh -c "${line#sh: }"
        st=$?
        if [ "$st" -eq 77 ]; then
            echo "skip: a tool is missing for: $line"
            skip=1
        elif [ "$st" -ne 0 ]; then
            echo "FAIL: $line"
            fail=1
        fi ;;
    esac
done <"$case_file"
if [ "$fail" -ne 0 ]; then
    echo "--- command: qctl $cmd"
    echo "--- stdout:"; head -c 4000 "$TMP/stdout"
    echo "--- stderr:"; head -c 4000 "$TMP/stderr"
fi
[ "$fail" -eq 0 ] && [ "$skip" -ne 0 ] && exit 77
exit "$fail"
