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
# The installed .pc files carry the prefix of the install, not the one
# configured: `cmake --install --prefix P` (into a DESTDIR too) writes
# prefix=P, and pkg-config without --define-prefix points at P's library.
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

# relocated: the .pc files say the prefix given to cmake --install, and
# pkg-config read without --define-prefix points at the installed library
pc_prefix() { sed -n 's/^prefix=//p' "$1"; }
for pc in qctl qctl-control; do
    got=$(pc_prefix "$tmp/p/$libdir/pkgconfig/$pc.pc")
    [ "$got" = "$tmp/p" ] || { echo "FAIL: $pc.pc installed in $tmp/p says prefix=$got"; fail=1; }
done
libs=$(PKG_CONFIG_PATH=$tmp/p/$libdir/pkgconfig pkg-config --libs qctl-control)
case " $libs " in
*" -L$tmp/p/$libdir "*) [ -e "$tmp/p/$libdir/libqctl-control.so" ] ||
    { echo "FAIL: $tmp/p/$libdir/libqctl-control.so missing"; fail=1; } ;;
*) echo "FAIL: pkg-config --libs qctl-control (installed in $tmp/p): $libs"; fail=1 ;;
esac
# the same as a package builds it: prefix /usr, staged in a DESTDIR
if ! DESTDIR=$tmp/stage "$cmake" --install "$build" --prefix /usr >"$tmp/err" 2>&1; then
    echo "FAIL: DESTDIR=... cmake --install --prefix /usr:"
    sed 's/^/    /' "$tmp/err"
    exit 1
fi
for pc in qctl qctl-control; do
    f=$(find "$tmp/stage/usr" -name "$pc.pc" | head -n 1)
    got=$([ -n "$f" ] && pc_prefix "$f")
    [ "$got" = /usr ] || { echo "FAIL: $pc.pc of a --prefix /usr install says prefix=$got"; fail=1; }
    if grep -q "$tmp\|$build" "$f" 2>/dev/null; then
        echo "FAIL: $pc.pc of a --prefix /usr install names the staging or build directory"
        fail=1
    fi
done
libs=$(PKG_CONFIG_PATH=$(dirname "$f") PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 PKG_CONFIG_SYSROOT_DIR=$tmp/stage pkg-config --libs qctl-control)
case "$libs" in
*"-L$tmp/stage/usr/"*) d=${libs#*-L}; d=${d%% *}
    [ -e "$d/libqctl-control.so" ] || { echo "FAIL: pkg-config points at $d, no libqctl-control.so there"; fail=1; } ;;
*) echo "FAIL: pkg-config --libs qctl-control (prefix /usr in a DESTDIR): $libs"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "relocated: prefix=$tmp/p and prefix=/usr (DESTDIR) written by cmake --install"

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
