#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# update-man.sh QCTL: regenerates the command reference of docs/qctl.1
# (between the BEGIN/END GENERATED COMMANDS markers) from
# 'qctl completion man', i.e. from every command's --help.
set -eu
QCTL=${1:-build/qctl}
MAN=$(dirname "$0")/../docs/qctl.1
TMP=$(mktemp)
trap 'rm -f "$TMP" "$TMP.gen"' EXIT
"$QCTL" completion man >"$TMP.gen"
awk -v gen="$TMP.gen" '
/^\.\\" BEGIN GENERATED COMMANDS/ { print; while ((getline l < gen) > 0) print l; skip = 1; next }
/^\.\\" END GENERATED COMMANDS/ { skip = 0 }
!skip { print }' "$MAN" >"$TMP"
cp "$TMP" "$MAN"
