/* SPDX-License-Identifier: GPL-3.0-or-later */
/* replay.c: `qctl load --udp`, a packet trace replayed as UDP datagrams.
 *
 * Packet i of the trace (a pcap, pcapng or CSV file read by qctl/trace.h)
 * becomes one datagram of its size, capped at 65507 bytes (the largest
 * UDP payload over IPv4), sent at start + t_i where t_i is its time since
 * the trace's first packet. The size is the packet's IP size as the trace
 * records it, used as the payload length: the receiver sees exactly the
 * trace's sizes, not the sizes plus headers.
 *
 * Timing is the point: libuv's timers have millisecond steps, too coarse
 * for packet gaps, so the replay runs on its own thread of control with a
 * blocking socket, sleeps until shortly before a packet is due and spins
 * the rest of the way. The send-time error of a packet is the monotonic
 * time just before its sendto() minus its scheduled time; its p50, p99
 * and maximum say how faithful the replay was. A late packet is sent at
 * once (never skipped), so a trace denser than the host can send shows
 * up as a growing error, not as lost packets. */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "live/live.h"
#include "qctl/hist.h"
#include "qctl/trace.h"

#define UDP_MAX 65507

/* Waits until the monotonic clock (qc__now) reaches `due`. */
static void wait_until(double due)
{
    for (;;) {
        double left = due - qc__now();
        if (left <= 0)
            return;
        if (left > 300e-6) {
            /* sleep most of it: the scheduler wakes us up to ~100 us late */
            double s = left - 200e-6;
            struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
}

int qc_replay_run(const qc_replay_params *o, qc_replay_result *r, qc_err *err)
{
    memset(r, 0, sizeof *r);
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(o->target, &addr, err);
    if (rc)
        return rc;
    qc_trace tr = {0};
    if ((rc = qc_trace_read(&tr, o->file, err)) != 0)
        return rc;
    static char payload[UDP_MAX];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = o->pattern ? (char)(i & 0xff) : 0;
    qc_hist *h = qc_hist_alloc(err);
    int fd = socket(addr.ss_family, SOCK_DGRAM, 0);
    if (!h || fd < 0) {
        rc = h ? qc_err_set(err, QC_EIO, "socket: %s", strerror(errno))
               : qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    int sndbuf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    r->packets = tr.n;
    double start = qc__now() + 0.001; /* the first packet is due 1 ms from now */
    for (size_t i = 0; i < tr.n; i++) {
        double due = start + tr.pkt[i].t;
        wait_until(due);
        size_t len = tr.pkt[i].size;
        if (len > UDP_MAX) {
            len = UDP_MAX;
            r->capped++;
        }
        double now = qc__now();
        ssize_t got;
        do
            got = sendto(fd, payload, len, 0, (struct sockaddr *)&addr, qc__addr_len(&addr));
        while (got < 0 && errno == EINTR);
        qc_hist_add(h, now - due);
        if (got == (ssize_t)len) {
            r->sent++;
            r->bytes += len;
        } else {
            r->failed++;
        }
    }
    r->elapsed = qc__now() - start;
    r->span = tr.n ? tr.pkt[tr.n - 1].t : 0;
    r->err_p50 = qc_hist_quantile(h, 0.5);
    r->err_p99 = qc_hist_quantile(h, 0.99);
    r->err_max = qc_hist_quantile(h, 1);
out:
    if (fd >= 0)
        close(fd);
    qc_hist_free(h);
    qc_trace_free(&tr);
    return rc;
}
