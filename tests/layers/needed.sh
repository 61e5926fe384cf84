#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A binary is linked only to what it uses: each library it names NEEDED
# (readelf -d) defines at least one symbol the binary imports (nm -D
# --undefined-only, matched against the library's defined dynamic
# symbols). A NEEDED library that defines none of them is loaded, with its
# own dependencies, at every start for nothing (libuv under a libqctl
# whose live code was not exported was one).
#
# usage: needed.sh BINARY...
command -v readelf >/dev/null 2>&1 || { echo "readelf not found"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "nm not found"; exit 77; }
command -v ldd >/dev/null 2>&1 || { echo "ldd not found"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

fail=0
for bin in "$@"; do
    [ -e "$bin" ] || { echo "FAIL: $bin missing"; fail=1; continue; }
    # imported names, without their version (name@VERSION)
    nm -D --undefined-only "$bin" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/imports"
    for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        path=$(ldd "$bin" | awk -v l="$lib" '$1 == l {print $3}')
        if [ -z "$path" ] || [ ! -e "$path" ]; then
            echo "FAIL: $bin: NEEDED $lib not found by ldd"
            fail=1
            continue
        fi
        nm -D --defined-only "$path" | awk '{print $NF}' | sed 's/@.*//' | sort -u >"$tmp/defs"
        n=$(comm -12 "$tmp/imports" "$tmp/defs" | wc -l)
        if [ "$n" -eq 0 ]; then
            echo "FAIL: $bin is linked to $lib but imports no symbol from it"
            fail=1
        else
            echo "${bin##*/}: $lib: $n symbols used"
        fi
    done
done
exit $fail
