#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# mpi.sh QCTL HAVE_MPI: `mpirun -np 2` (a master and one worker) and -np 3
# give the same CSV and JSON bytes as a local -j 1 sweep; a qctl whose MPI
# module (qctl-mpi.so) is missing says so under mpirun. Skipped (77)
# when qctl is built without MPI or mpirun is missing.
set -u
qctl=$1 have_mpi=$2
[ "$have_mpi" = 1 ] || { echo "qctl built without MPI"; exit 77; }
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# OpenMPI refuses root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI's own allocations are not freed at exit: LeakSanitizer would
# report them in a sanitizer build (the sweep's code is checked by the
# local tests there with leak detection on).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
"$qctl" sweep "$here/small.json" -j 1 --results local --quiet || fail "local sweep exited $?"
# qctl without its MPI module beside it (and none installed): under mpirun
# it says so and fails, it does not run the sweep as if alone.
mkdir alone && cp "$qctl" alone/qctl
if [ ! -e /usr/local/lib/qctl/qctl-mpi.so ] && [ ! -e /usr/lib/qctl/qctl-mpi.so ]; then
    OMPI_COMM_WORLD_SIZE=1 alone/qctl sweep "$here/small.json" --results alone/r --quiet \
        </dev/null >alone.out 2>&1
    rc=$?
    [ $rc -eq 1 ] || { cat alone.out; fail "without the module: exit $rc, not 1"; }
    grep -q "MPI module cannot be loaded: .*qctl-mpi.so" alone.out ||
        { cat alone.out; fail "without the module: no message naming it"; }
    [ ! -e alone/r.csv ] || fail "without the module: results written"
fi
for np in 2 3; do
    timeout 120 mpirun -np $np --oversubscribe "$qctl" sweep "$here/small.json" \
        --results mpi$np --quiet </dev/null >mpi$np.out 2>&1 ||
        { cat mpi$np.out; fail "mpirun -np $np exited nonzero"; }
    cmp local.csv mpi$np.csv || fail "CSV differs between local and mpirun -np $np"
    cmp local.json mpi$np.json || fail "JSON differs between local and mpirun -np $np"
    [ "$(grep -c '"point"' mpi$np.journal)" -eq 8 ] || fail "-np $np journal lacks records"
done
exit 0
