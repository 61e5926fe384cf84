/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_replay.c: `qctl load --udp` replays a trace as UDP datagrams: a
 * receiver on 127.0.0.1 gets one datagram per packet, in order, of the
 * packet's size (capped at 65507), with the chosen payload; errors name
 * the file or the address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/live.h"

#define NPKT 60

typedef struct receiver {
    int fd;
    size_t want, got;
    uint32_t size[NPKT + 8];
    int pattern_ok;
} receiver;

/* Receives until `want` datagrams came or none came for 2 s. */
static void *receive(void *arg)
{
    receiver *rv = arg;
    static unsigned char buf[65536];
    rv->pattern_ok = 1;
    while (rv->got < rv->want) {
        struct pollfd p = {rv->fd, POLLIN, 0};
        if (poll(&p, 1, 2000) <= 0)
            break;
        ssize_t n = recv(rv->fd, buf, sizeof buf, 0);
        if (n < 0)
            break;
        if (rv->got < NPKT + 8)
            rv->size[rv->got] = (uint32_t)n;
        rv->got++;
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] != (unsigned char)(i & 0xff))
                rv->pattern_ok = 0;
    }
    return NULL;
}

static int bind_receiver(int *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    int rcv = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void test_replay_sizes(void **state)
{
    (void)state;
    /* a small trace as qctl gen writes it: 1 ms apart, sizes from a
     * header-only packet to above the UDP limit */
    char path[] = "/tmp/qctl_test_replay_XXXXXX";
    int tfd = mkstemp(path);
    assert_true(tfd >= 0);
    FILE *fp = fdopen(tfd, "w");
    fprintf(fp, "time,size,flow,activity\n");
    uint32_t want[NPKT];
    for (int i = 0; i < NPKT; i++) {
        uint32_t sz = i == 7 ? 65535u : i == 8 ? 65507u : i == 9 ? 9000u : 28u + (uint32_t)i * 97u;
        want[i] = sz > 65507 ? 65507 : sz;
        fprintf(fp, "%.6f,%u,1,test\n", 1000.0 + 0.001 * i, sz);
    }
    fclose(fp);
    int port;
    receiver rv = {.want = NPKT};
    rv.fd = bind_receiver(&port);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, receive, &rv), 0);
    char target[32];
    snprintf(target, sizeof target, "127.0.0.1:%d", port);
    qc_replay_params o = {.target = target, .file = path, .pattern = 1};
    qc_replay_result r;
    qc_err err = {0};
    int rc = qc_replay_run(&o, &r, &err);
    pthread_join(th, NULL);
    close(rv.fd);
    unlink(path);
    if (rc)
        fail_msg("replay: %s", err.msg);
    printf("  sent %llu, bytes %llu, capped %llu; error p50 %.1f us, p99 %.1f us, max %.1f us\n",
           (unsigned long long)r.sent, (unsigned long long)r.bytes,
           (unsigned long long)r.capped, r.err_p50 * 1e6, r.err_p99 * 1e6, r.err_max * 1e6);
    assert_int_equal(r.packets, NPKT);
    assert_int_equal(r.sent, NPKT);
    assert_int_equal(r.failed, 0);
    assert_int_equal(r.capped, 1);
    uint64_t bytes = 0;
    for (int i = 0; i < NPKT; i++)
        bytes += want[i];
    assert_int_equal(r.bytes, bytes);
    assert_int_equal(rv.got, NPKT);
    for (int i = 0; i < NPKT; i++)
        assert_int_equal(rv.size[i], want[i]);
    assert_true(rv.pattern_ok);
    /* never sent before its time */
    assert_true(r.err_p50 >= 0 && r.err_max >= r.err_p99 && r.err_p99 >= r.err_p50);
    assert_true(r.span > 0.0589 && r.span < 0.0591);
}

static void test_replay_errors(void **state)
{
    (void)state;
    qc_replay_result r;
    qc_err err = {0};
    qc_replay_params o = {.target = "127.0.0.1:9", .file = "/nonexistent/t.csv"};
    assert_true(qc_replay_run(&o, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "/nonexistent/t.csv"));
    o.target = "127.0.0.1:99999";
    assert_true(qc_replay_run(&o, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "99999"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_sizes),
        cmocka_unit_test(test_replay_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
