#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# deb_chroot.sh: a minimal Debian (bookworm) in DIR, made with debootstrap
# from Debian's mirror, with the packages qctl's .deb depends on and
# pkg-config: the fresh machine tests/package/deb.sh installs the package
# on (dpkg -i, then qctl --version, pkg-config --libs qctl-control,
# python3 -c "import qctl"). Run as root, once:
#   scripts/deb_chroot.sh [DIR]     (default /var/tmp/qctl-deb/chroot)
set -eu
dir=${1:-/var/tmp/qctl-deb/chroot}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
command -v debootstrap >/dev/null || { echo "deb_chroot.sh: apt-get install debootstrap" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "deb_chroot.sh: run as root" >&2; exit 1; }
debootstrap --variant=minbase \
    --include=python3,python3-cffi-backend,python3-numpy,libgsl27,libgslcblas0,libjansson4,libuv1,libpcap0.8,libssl3,pkg-config \
    bookworm "$dir" "$mirror"
echo "$dir"
