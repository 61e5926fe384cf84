#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# deb.sh: the service units and the Debian package.
#  1. make install's units (a --prefix /usr install into a staging
#     directory) pass `systemd-analyze verify` with no message, ExecStart
#     pointed at this build's qctl (skipped without systemd-analyze).
#  2. scripts/mkdeb.sh makes a .deb of this build: its control file names
#     the libraries' packages, and it holds the binary, both libraries,
#     the headers, the .pc files (prefix=/usr), the man pages, the units
#     and the Python package.
#  3. On a fresh Debian made by scripts/deb_chroot.sh (QCTL_DEB_CHROOT,
#     default /var/tmp/qctl-deb/chroot; root needed): dpkg -i, then
#     qctl --version, pkg-config --libs qctl-control (and a program linked
#     with it runs), python3 -c "import qctl"; then dpkg -r.
# Exit 77 when nothing could be checked for want of a tool; the parts
# that could not run are named.
#   deb.sh SOURCE_DIR BUILD_DIR
set -u
src=$1
build=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
ran=0 skipped=""
DESTDIR=$TMP/stage cmake --install "$build" --prefix /usr >"$TMP/install.log" 2>&1 ||
    fail "cmake --install: $(tail -n 3 "$TMP/install.log")"
units=$TMP/stage/usr/lib/systemd/system
for u in qctl-proxy@.service qctl-gate@.service; do
    [ -f "$units/$u" ] || fail "make install put no $u in /usr/lib/systemd/system"
    grep -q '^ExecStart=/usr/bin/qctl ' "$units/$u" || fail "$u: ExecStart is not /usr/bin/qctl: $(grep ExecStart= "$units/$u")"
    grep -q '^ExecReload=/bin/kill -HUP $MAINPID$' "$units/$u" || fail "$u: no ExecReload sending SIGHUP"
    for k in DynamicUser=yes ProtectSystem=strict NoNewPrivileges=yes PrivateTmp=yes; do
        grep -q "^$k$" "$units/$u" || fail "$u: no $k"
    done
done
if command -v systemd-analyze >/dev/null 2>&1; then
    mkdir -p "$TMP/units"
    for u in qctl-proxy@.service qctl-gate@.service; do
        sed "s|/usr/bin/qctl|$build/qctl|g" "$units/$u" >"$TMP/units/$u"
    done
    (cd "$TMP/units" && systemd-analyze verify --man=no ./qctl-proxy@web.service ./qctl-gate@pg.service) \
        >"$TMP/verify.out" 2>&1 || fail "systemd-analyze verify: $(cat "$TMP/verify.out")"
    [ -s "$TMP/verify.out" ] && fail "systemd-analyze verify has something to say: $(cat "$TMP/verify.out")"
    echo "systemd-analyze verify: both units clean"
    ran=1
else
    skipped="$skipped systemd-analyze"
fi

if ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "dpkg-deb not found: no package made"
    [ $ran -eq 1 ] && exit 0 || exit 77
fi
deb=$("$src/scripts/mkdeb.sh" "$build" "$TMP/out" 2>"$TMP/mkdeb.err") || fail "mkdeb.sh: $(cat "$TMP/mkdeb.err")"
dpkg-deb -f "$deb" Depends >"$TMP/depends"
for p in libgsl27 libjansson4 libuv1 python3-cffi-backend python3-numpy; do
    grep -q "$p" "$TMP/depends" || fail "Depends lacks $p: $(cat "$TMP/depends")"
done
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$TMP/list"
for f in ./usr/bin/qctl ./usr/lib/libqctl.so ./usr/lib/libqctl-control.so ./usr/include/qctl/limiter.h \
    ./usr/lib/pkgconfig/qctl.pc ./usr/lib/pkgconfig/qctl-control.pc ./usr/share/man/man1/qctl.1.gz \
    ./usr/share/man/man3/qctl_limiter.3.gz ./usr/lib/systemd/system/qctl-proxy@.service \
    ./usr/lib/systemd/system/qctl-gate@.service; do
    grep -qx "$f" "$TMP/list" || fail "the package has no $f"
done
# a sanitizer or fuzzing build has no Python module (python/CMakeLists.txt):
# its package is checked without one
haspy=0
find "$build/python" -name '_ffi.cpython-*.so' 2>/dev/null | grep -q . && haspy=1
if [ $haspy -eq 1 ]; then
    grep -q '/dist-packages/qctl/__init__.py$' "$TMP/list" || fail "the package has no Python package"
else
    echo "this build has no Python module (a sanitizer or fuzzing build): the package's Python part not checked"
fi
dpkg-deb -x "$deb" "$TMP/x"
[ "$(sed -n 's/^prefix=//p' "$TMP/x/usr/lib/pkgconfig/qctl-control.pc")" = /usr ] || fail "qctl-control.pc: prefix not /usr"
echo "package: $(basename "$deb"), $(wc -l <"$TMP/list") entries; Depends: $(cat "$TMP/depends")"

root=${QCTL_DEB_CHROOT:-/var/tmp/qctl-deb/chroot}
if [ $haspy -eq 0 ]; then
    echo "a sanitizer or fuzzing build: its package is not installed in a chroot (its binaries need the sanitizer's runtime)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || [ ! -x "$root/usr/bin/dpkg" ] || ! command -v chroot >/dev/null 2>&1; then
    echo "no Debian chroot at $root (scripts/deb_chroot.sh makes one, as root): package not installed"
    exit 0
fi
cp "$deb" "$root/tmp/qctl.deb"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
in_root dpkg -r qctl >/dev/null 2>&1
in_root dpkg -i /tmp/qctl.deb >"$TMP/dpkg.out" 2>&1 || fail "dpkg -i in $root: $(tail -n 5 "$TMP/dpkg.out")"
v=$(in_root qctl --version) || fail "qctl --version in the chroot"
libs=$(in_root pkg-config --libs qctl-control) || fail "pkg-config --libs qctl-control in the chroot"
[ $haspy -eq 0 ] || in_root python3 -c "import qctl" 2>"$TMP/py.err" ||
    fail "import qctl in the chroot: $(cat "$TMP/py.err")"
# a program linked as pkg-config says finds the installed library
in_root ldd /usr/bin/qctl | grep -q 'not found' && fail "qctl in the chroot misses a library"
in_root dpkg -r qctl >/dev/null 2>&1 || fail "dpkg -r in the chroot"
rm -f "$root/tmp/qctl.deb"
echo "installed on a fresh Debian ($root): $v; pkg-config --libs qctl-control: $libs; import qctl: ok; removed"
echo ok
