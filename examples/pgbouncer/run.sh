#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh [QCTL]: the first seed's MaxUsers on PostgreSQL through
# pgbouncer's pool size, set by `qctl control` through pgbouncer's admin
# console (see README.md). It is examples/postgres/run.sh with the plant's
# limit moved from qctl gate to pgbouncer (PLANT=pgbouncer): the same
# users, server, sensors (true RIS from pg_stat_activity, logged RIS from
# the statement log), identification, design (the logged loop's gain
# designed through the sensor model) and report. About 5 minutes.
here=$(cd "$(dirname "$0")" && pwd)
PLANT=pgbouncer OUT=${OUT:-$here/../../build/examples/pgbouncer} exec sh "$here/../postgres/run.sh" "$@"
