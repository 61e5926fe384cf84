# SPDX-License-Identifier: GPL-3.0-or-later
# free_port.sh: sourced by the live tests and the live demonstration.
# Needs QCTL (the qctl binary) and FREE_PORT_DIR (a scratch directory,
# default TMP).
# free_port VAR: sets VAR to a free port below the kernel's ephemeral range
# (net.ipv4.ip_local_port_range), for a backend a test starts later on a
# fixed port. A port got by binding port 0 and letting it go lies in that
# range, where an outgoing connection of the test (the load generator's,
# the proxy's) can take it in the meantime, and the later listen fails
# with "address already in use". Candidates start at a place drawn from
# the shell's pid and are probed by listening on them.
free_port() {
    : "${FREE_PORT_DIR:=$TMP}"
    fp_lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    fp_base=10000
    [ "$fp_lo" -gt $((fp_base + 1000)) ] || fp_base=1024
    FREE_PORT_N=$((${FREE_PORT_N:-0} + 1))
    fp_p=$((fp_base + ($$ * 97 + FREE_PORT_N * 7919) % (fp_lo - fp_base)))
    fp_tries=0
    while [ $fp_tries -lt 50 ]; do
        rm -f "$FREE_PORT_DIR/probe.port"
        "$QCTL" backend --listen "127.0.0.1:$fp_p" --port-file "$FREE_PORT_DIR/probe.port" 2>/dev/null &
        fp_pid=$!
        fp_i=0
        while [ ! -s "$FREE_PORT_DIR/probe.port" ] && kill -0 "$fp_pid" 2>/dev/null && [ $fp_i -lt 250 ]; do
            sleep 0.02; fp_i=$((fp_i + 1))
        done
        fp_ok=0
        [ -s "$FREE_PORT_DIR/probe.port" ] && fp_ok=1
        kill "$fp_pid" 2>/dev/null || :
        wait "$fp_pid" 2>/dev/null || :
        if [ $fp_ok -eq 1 ]; then
            eval "$1=$fp_p"
            return 0
        fi
        fp_p=$((fp_p + 1))
        [ $fp_p -lt "$fp_lo" ] || fp_p=$fp_base
        fp_tries=$((fp_tries + 1))
    done
    echo "free_port: no free port below $fp_lo" >&2
    return 1
}
