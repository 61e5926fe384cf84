#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The shared library exports its public API and nothing else: it is built
# with -fvisibility=hidden and the public headers (include/qctl/) export
# what they declare (qctl/api.h).
#
#  1. every symbol the shared library exports is declared in include/qctl/;
#  2. the library's internal functions (qc__*, defined and global in the
#     static library, declared in no public header) are not exported;
#  3. with --all: every function declared in include/qctl/ is exported
#     (a header without QC_API_BEGIN would fail here).
#
# usage: exports.sh SHARED_LIB STATIC_LIB INCLUDE_DIR [--all]
so=$1
ar=$2
inc=$3
all=$4
command -v nm >/dev/null 2>&1 || { echo "nm not found"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# names declared in the public headers: functions (not static inline, nor
# QC_HOT, which is static inline) and
# extern variables, at the start of a line
cat "$inc"/qctl/*.h |
    grep -E '^[A-Za-z_].*\bqc_[a-z0-9_]+ *\(|^extern [^"]*\bqc_[a-z0-9_]+;' |
    grep -v 'static inline\|^QC_HOT \|^#\|^typedef' |
    grep -oE '\bqc_[a-z0-9_]+ *(\(|;)' | sed 's/ *[(;]$//' | sort -u >"$tmp/declared"
# exported: defined dynamic symbols (not the linker's own, which start with _)
nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^_' | sort -u >"$tmp/exported"
# global functions of the static library
nm --defined-only "$ar" 2>/dev/null | awk '$2 == "T" {print $3}' | sort -u >"$tmp/global"

fail=0
[ -s "$tmp/declared" ] || { echo "FAIL: no declarations found in $inc/qctl"; exit 1; }
[ -s "$tmp/exported" ] || { echo "FAIL: $so exports nothing"; exit 1; }

comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
    echo "FAIL: exported by $so but declared in no public header:"
    sed 's/^/    /' "$tmp/extra"
    fail=1
fi

grep '^qc__' "$tmp/global" | sort >"$tmp/internal"
comm -23 "$tmp/internal" "$tmp/declared" >"$tmp/internal_only"
ninternal=$(wc -l <"$tmp/internal_only")
comm -12 "$tmp/internal_only" "$tmp/exported" >"$tmp/leaked"
if [ -s "$tmp/leaked" ]; then
    echo "FAIL: internal functions exported:"
    sed 's/^/    /' "$tmp/leaked"
    fail=1
fi

if [ "$all" = --all ]; then
    comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
    if [ -s "$tmp/missing" ]; then
        echo "FAIL: declared in include/qctl but not exported by $so:"
        sed 's/^/    /' "$tmp/missing"
        fail=1
    fi
fi
echo "$(basename "$so"): $(wc -l <"$tmp/exported") symbols exported, all declared in" \
    "include/qctl; $ninternal internal qc__ functions of the library, none exported" \
    "(qc__ exported because a public inline calls it: $(grep -c '^qc__' "$tmp/exported"))"
exit $fail
