#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sensor.sh: the true RIS of the PostgreSQL plant, for `qctl gate
# --sensor-cmd` (run without a shell, so the query lives here): the mean of
# the samples ris_sampler() took over the last DT seconds, each the number
# of the users' backends (role bench) executing a statement in
# pg_stat_activity, 20 a second: the time average of requests in the server
# over the interval, the seed's RIS. Prints one number, or nothing when
# there is no sample (the gate then counts the sample missing).
# usage: sensor.sh PSQL PORT DT
psql=$1 port=$2 dt=$3
exec "$psql" -X -q -A -t -h 127.0.0.1 -p "$port" -U postgres -d postgres -c \
    "select round(avg(n), 3) from ris_samples where t > clock_timestamp() - interval '1 s' * $dt"
