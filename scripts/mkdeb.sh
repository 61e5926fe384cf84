#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# mkdeb.sh: a Debian package of qctl, made with dpkg-deb from a build tree
# installed under /usr (cmake --install --prefix /usr into a staging
# directory: the .pc files and the systemd units then say /usr).
#   scripts/mkdeb.sh BUILD_DIR [OUT_DIR]
# The package holds the qctl command, libqctl and libqctl-control (shared
# and static), the headers, the pkg-config files, the man pages, the
# systemd units qctl-proxy@.service and qctl-gate@.service, and the Python
# package qctl. Depends: the packages of the shared libraries the ELF
# files need (each file's NEEDED libraries resolved by ldd, the package
# owning each found by dpkg -S, at least the version installed here),
# libpcap (loaded when a capture is read), cffi and numpy, and the Python that the
# extension module was built for. The MPI module is optional (Suggests).
# `make deb` configures build-deb for /usr and calls this.
set -eu
build=$(cd "$1" && pwd)
out=${2:-$build}
src=$(cd "$(dirname "$0")/.." && pwd)
for t in dpkg-deb dpkg-query dpkg ldd objdump gzip; do
    command -v $t >/dev/null 2>&1 || { echo "mkdeb.sh: $t not found" >&2; exit 1; }
done
version=$(sed -n 's/^project(qctl VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
arch=$(dpkg --print-architecture)
stage=$build/deb-root
rm -rf "$stage"
DESTDIR=$stage cmake --install "$build" --prefix /usr --strip >/dev/null
# Debian's places: man pages compressed, the licence in the doc directory
find "$stage/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} +
mkdir -p "$stage/usr/share/doc/qctl/examples" "$stage/DEBIAN"
cp "$src/LICENSE" "$stage/usr/share/doc/qctl/copyright"
cp "$src/dist/debian/proxy.json" "$stage/usr/share/doc/qctl/examples/proxy.json"
cp "$src/dist/debian/gate.json" "$stage/usr/share/doc/qctl/examples/gate.json"
[ -f "$src/examples/live/grafana-dashboard.json" ] &&
    cp "$src/examples/live/grafana-dashboard.json" "$stage/usr/share/doc/qctl/examples/"

# Depends: the owners of the shared libraries the ELF files need
deps=""
for f in $(find "$stage" -type f \( -name '*.so*' -o -perm -u+x \) ! -name 'qctl-mpi.so'); do
    objdump -p "$f" 2>/dev/null | grep -q 'NEEDED' || continue
    LD_LIBRARY_PATH=$(find "$stage" -name 'libqctl.so*' -exec dirname {} \; | head -n 1) \
        ldd "$f" 2>/dev/null | awk '/=> \// { print $3 }'
done | sort -u >"$build/deb-libs"
while read -r lib; do
    case $lib in "$stage"/*) continue ;; esac
    real=$(readlink -f "$lib")
    pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "${lib#/usr}" 2>/dev/null || :)
    pkg=${pkg%%:*}
    [ -n "$pkg" ] || { echo "mkdeb.sh: no package owns $lib" >&2; exit 1; }
    case " $deps " in *" $pkg "*) ;; *) deps="$deps $pkg" ;; esac
done <"$build/deb-libs"
depends=""
for p in $deps libpcap0.8 python3-cffi-backend python3-numpy; do
    v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null | sed 's/-[^-]*$//')
    depends="$depends${depends:+, }$p${v:+ (>= $v)}"
done
py=$(find "$stage" -name '_ffi.cpython-*.so' | sed -n 's/.*cpython-3\([0-9]*\)-.*/3.\1/p' | head -n 1)
if [ -n "$py" ]; then
    next=$(echo "$py" | awk -F. '{ print $1 "." $2 + 1 }')
    depends="$depends, python3 (>= $py), python3 (<< $next)"
fi
size=$(du -sk "$stage/usr" | cut -f1)
cat >"$stage/DEBIAN/control" <<CTL
Package: qctl
Version: $version-1
Architecture: $arch
Maintainer: qctl maintainers <qctl@localhost>
Installed-Size: $size
Depends: $depends
Recommends: pkg-config, libgsl-dev, libjansson-dev, libuv1-dev, gnuplot-nox
Suggests: prometheus, openmpi-bin
Section: net
Priority: optional
Homepage: https://github.com/qctl/qctl
Description: queueing control: simulation, identification and control of servers
 qctl simulates queues with trustworthy intervals, designs and runs
 controllers (MaxUsers integral control, multi-class admission, an
 energy-aware fleet, concurrency limiters), and runs them live: an HTTP
 reverse proxy and a TCP gate with admission control (systemd units
 qctl-proxy@.service and qctl-gate@.service, configured from
 /etc/qctl/NAME.json), a backend and a load generator; traffic models
 are learnt from captures. Includes libqctl, libqctl-control (the
 controllers alone), their headers and pkg-config files, and the Python
 package qctl.
CTL
# the units are templates, enabled by hand: systemd only needs to re-read them
for s in postinst postrm; do
    cat >"$stage/DEBIAN/$s" <<'SH'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
SH
    chmod 755 "$stage/DEBIAN/$s"
done
case $(find "$stage/usr/lib" -name 'libqctl.so.*' | head -n 1) in
'') ;;
*) printf 'activate-noawait ldconfig\n' >"$stage/DEBIAN/triggers" ;;
esac
mkdir -p "$out"
deb=$out/qctl_${version}-1_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
