#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# deps.sh: installs the Debian packages qctl needs to build and test, or,
# when not root, prints the exact apt-get line and stops.
#   scripts/deps.sh          build and run (gnuplot is optional at run time;
#                            python3-dev, -cffi and -numpy build the Python
#                            package)
#   scripts/deps.sh --test   also what the tests need (cmocka, clang for the
#                            sanitizer and fuzzer builds, curl for the
#                            proxy's admin endpoints, chromium to check the
#                            HTML reports in a real browser engine; pytest,
#                            pandas (to_frame) and SimPy for the Python
#                            package's tests and examples;
#                            prometheus for promtool, which checks /metrics;
#                            debootstrap, to make the Debian chroot the .deb
#                            is installed in: scripts/deb_chroot.sh;
#                            haproxy, pgbouncer and postgresql-client for the
#                            tests of qctl control on real servers, postgresql
#                            for examples/postgres and examples/pgbouncer;
#                            tests/network/net_check.py needs python3 alone:
#                            its exact values are its own; octave (octave-cli) and
#                            octave-queueing for tests/network/octave_check.py,
#                            which checks them against Octave's MVA)
#   scripts/deps.sh --bench  also the references of bench/bench_live.sh
#                            (nginx-light, haproxy, wrk); valgrind for
#                            bench/bench_network_instr.sh (instruction counts)
set -eu
pkgs="build-essential cmake pkg-config libgsl-dev libjansson-dev libpcap-dev libuv1-dev libopenmpi-dev openmpi-bin tcpdump gnuplot-nox python3-dev python3-cffi python3-numpy"
# OpenSSL: TLS termination in qctl proxy (src/live/tls.c)
pkgs="$pkgs libssl-dev"
if [ "${1:-}" = "--test" ]; then
    pkgs="$pkgs libcmocka-dev clang libclang-rt-14-dev curl chromium python3-pytest python3-pandas python3-simpy3 prometheus debootstrap haproxy pgbouncer postgresql postgresql-client"
fi
if [ "${1:-}" = "--bench" ]; then
    pkgs="$pkgs nginx-light haproxy wrk"
fi
# networks against Octave's queueing package (tests/network/octave_check.py)
if [ "${1:-}" = "--test" ]; then
    pkgs="$pkgs octave octave-queueing"
fi
# instruction counts of bench_network's ratios (bench/bench_network_instr.sh)
# and bench/bench_live_cost.sh: instructions and system calls per proxied request
if [ "${1:-}" = "--bench" ]; then
    pkgs="$pkgs valgrind strace"
fi
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "qctl: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
    echo "qctl: missing Debian packages; run as root:" >&2
    echo "  apt-get install$missing" >&2
    exit 1
fi
