#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sensor.sh: the true RIS of the PostgreSQL plant, for `qctl gate
# --sensor-cmd` (run without a shell, so the query lives here): the client
# backends executing a statement (pg_stat_activity, state 'active'), this
# query's own backend excluded, counted SAMPLES times GAP seconds apart
# (fresh snapshots) and averaged. Prints one number.
# usage: sensor.sh PSQL PORT [SAMPLES [GAP]]
psql=$1 port=$2
exec "$psql" -X -q -A -t -h 127.0.0.1 -p "$port" -U postgres -d postgres \
    -c "select ris_sample(${3:-3}, ${4:-0.1})"
