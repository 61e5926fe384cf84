#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sensor.sh: the true RIS of the PostgreSQL plant, for `qctl gate
# --sensor-cmd` (run without a shell): prints the number in FILE, which
# ris_sampler() (run.sh) rewrites 20 times a second with the mean of the
# last interval's samples of pg_stat_activity. The server's COPY empties
# the file before it writes it, and on a loaded machine the server can be
# descheduled in between: an empty read is tried again, 4 times 30 ms
# apart. Prints nothing when the file stays empty or is missing (the gate
# then counts the sample missing).
# usage: sensor.sh FILE
i=0
while [ $i -lt 5 ]; do
    v=$(cat "$1" 2>/dev/null) || v=""
    if [ -n "$v" ]; then
        echo "$v"
        exit 0
    fi
    i=$((i + 1))
    [ $i -lt 5 ] && sleep 0.03
done
exit 1
