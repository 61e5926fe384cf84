/* SPDX-License-Identifier: GPL-3.0-or-later */
/* limiter_example.c: a qctl limiter in front of a toy server.
 *
 * Eight worker threads each take requests as fast as they can; a request
 * "runs" for a time that grows with the requests in flight (a server that
 * slows down when crowded). The limiter admits or refuses each one, and a
 * control thread ticks it every 10 ms with the MaxUsers integral
 * controller holding about 4 requests in the server. Build with CMake
 * (target limiter_example) or against the control library alone (no
 * libuv, libpcap or jansson):
 *   cc limiter_example.c $(pkg-config --cflags --libs qctl-control) -o limiter_example
 */
#include <qctl/limiter.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static atomic_int stop;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
    qc_limiter *l = arg;
    while (!atomic_load(&stop)) {
        qc_limiter_token tok;
        if (qc_limiter_acquire(l, 0, &tok) != 0) { /* 0: admitted */
            sleep_s(0.0005); /* refused: a real server would answer 503 */
            continue;
        }
        double t0 = now_s();
        sleep_s(0.001 * tok.inflight); /* the work */
        qc_limiter_release(l, &tok, now_s() - t0, QC_LIMITER_OK);
    }
    return NULL;
}

int main(void)
{
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_MAXUSERS);
    cfg.initial_limit = 8;
    cfg.reference = 4; /* requests in the server to hold */
    cfg.ki = 0.3;
    qc_limiter *l;
    qc_err err = {0};
    if ((l = qc_limiter_alloc(&cfg, now_s(), &err)) == NULL) {
        fprintf(stderr, "limiter_example: %s\n", err.msg);
        return 1;
    }
    pthread_t th[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&th[i], NULL, worker, l);
    for (int k = 0; k < 50; k++) {
        sleep_s(0.01);
        qc_limiter_tick(l, now_s());
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    printf("limit %.2f (reference %g in the server, last measured %.2f)\n", st.limit, cfg.reference,
           st.last_y);
    printf("admitted %llu, refused %llu, in flight now %u\n", (unsigned long long)st.admitted,
           (unsigned long long)st.refused, st.inflight);
    qc_limiter_free(l);
    return 0;
}
