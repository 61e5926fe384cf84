#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libqctl-control can be embedded without libuv, libpcap or jansson:
# examples/limiter is built with nothing but `pkg-config --cflags/--libs
# qctl-control`, from the build tree's .pc and from an installation of the
# build in a temporary prefix, and then
#  - it runs;
#  - neither it nor anything it loads (ldd) is libuv, libpcap or jansson,
#    and it calls no uv_, pcap_ or json_ function (nm -u);
#  - qctl/limiter.h pulls in no header of GSL, libuv, libpcap or jansson;
#  - the installed umbrella header qctl/qctl.h compiles on its own.
# The same checks are run on the example linked with the whole libqctl
# (pkg-config qctl), where they must find libuv: so they can fail.
#
# usage: pkgconfig.sh CC CMAKE BUILD_DIR SOURCE_DIR LIBDIR [FLAGS]
# FLAGS: what a program needs to link a sanitized build's libraries
# (-fsanitize=address,undefined), nothing otherwise.
cc=$1
cmake=$2
build=$3
src=$4
libdir=$5
san=$6
for t in pkg-config ldd nm; do
    command -v $t >/dev/null 2>&1 || { echo "$t not found"; exit 77; }
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ex=$src/examples/limiter/limiter_example.c
fail=0
bad='libuv\|libpcap\|libjansson'

# the example's dependencies; prints what it found of libuv/libpcap/jansson
foreign() { # binary library_path
    {
        LD_LIBRARY_PATH=$2 ldd "$1" | grep "$bad"
        nm -u "$1" | grep -E ' (uv|pcap|json)_'
    } | sed 's/^[[:space:]]*/    /'
}

check() { # label pkgconfig_path library_path
    label=$1
    cflags=$(PKG_CONFIG_PATH=$2 pkg-config --define-prefix --cflags qctl-control) &&
        libs=$(PKG_CONFIG_PATH=$2 pkg-config --define-prefix --libs qctl-control) || {
        echo "FAIL ($label): pkg-config qctl-control"
        fail=1
        return
    }
    # shellcheck disable=SC2086
    if ! "$cc" $san $cflags -o "$tmp/ex" "$ex" $libs 2>"$tmp/err"; then
        echo "FAIL ($label): $cc $cflags $ex $libs:"
        sed 's/^/    /' "$tmp/err"
        fail=1
        return
    fi
    if ! LD_LIBRARY_PATH=$3 "$tmp/ex" >"$tmp/out" 2>&1; then
        echo "FAIL ($label): the example exits with an error:"
        sed 's/^/    /' "$tmp/out"
        fail=1
    fi
    if ! LD_LIBRARY_PATH=$3 ldd "$tmp/ex" | grep -q 'libqctl-control\.so'; then
        echo "FAIL ($label): the example is not linked to libqctl-control.so"
        fail=1
    fi
    f=$(foreign "$tmp/ex" "$3")
    if [ -n "$f" ]; then
        echo "FAIL ($label): the example needs libuv, libpcap or jansson:"
        echo "$f"
        fail=1
    fi
    # shellcheck disable=SC2086
    hdrs=$(printf '#include <qctl/limiter.h>\n' | "$cc" $cflags -E -H -x c - 2>&1 >/dev/null |
        grep '^\.' | grep 'gsl/\|uv\.h\|uv/\|pcap\|jansson')
    if [ -n "$hdrs" ]; then
        echo "FAIL ($label): qctl/limiter.h includes:"
        echo "$hdrs"
        fail=1
    fi
    echo "$label: built with $libs; runs; links $(LD_LIBRARY_PATH=$3 ldd "$tmp/ex" | grep -c '=>') libraries, none of libuv, libpcap, jansson"
}

# from the build tree
check build "$build/pkgconfig" "$build"

# from an installation
if ! "$cmake" --install "$build" --prefix "$tmp/p" >"$tmp/err" 2>&1; then
    echo "FAIL: cmake --install:"
    sed 's/^/    /' "$tmp/err"
    exit 1
fi
check installed "$tmp/p/$libdir/pkgconfig" "$tmp/p/$libdir"

# the detector detects: the same example against the whole libqctl
cflags=$(PKG_CONFIG_PATH=$tmp/p/$libdir/pkgconfig pkg-config --define-prefix --cflags qctl)
# (and the installed headers stand alone: the umbrella compiles from them)
# shellcheck disable=SC2086
if ! printf '#include <qctl/qctl.h>\nint qc_probe(void);\nint qc_probe(void) { return 0; }\n' |
    "$cc" -std=c11 -Wall -Wextra -Werror $cflags -fsyntax-only -x c - 2>"$tmp/err"; then
    echo "FAIL: the installed qctl/qctl.h does not compile:"
    sed 's/^/    /' "$tmp/err"
    fail=1
fi
libs=$(PKG_CONFIG_PATH=$tmp/p/$libdir/pkgconfig pkg-config --define-prefix --libs qctl)
# shellcheck disable=SC2086
if "$cc" $san $cflags -o "$tmp/full" "$ex" $libs 2>"$tmp/err"; then
    if [ -z "$(foreign "$tmp/full" "$tmp/p/$libdir")" ]; then
        echo "FAIL: linked with the whole libqctl, the check finds no libuv"
        fail=1
    fi
else
    echo "FAIL: the example does not build against the whole libqctl:"
    sed 's/^/    /' "$tmp/err"
    fail=1
fi
exit $fail
