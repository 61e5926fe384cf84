/* SPDX-License-Identifier: GPL-3.0-or-later */
/* host.h: the host's side of the embed tests (test_embed, test_gate_embed,
 * test_load, test_control_embed): a live component on a loop the test owns
 * must leave the process as it found it, and must let the host's own
 * handles run beside it. So: a snapshot of the process-wide state it could
 * change (every signal's disposition and flags, the environment, in
 * order), compared after; a timer of the host's own that counts its ticks;
 * and the loop run one turn at a time until a condition holds, failing
 * after a bound instead of hanging. Included after <cmocka.h> and <uv.h>. */
#ifndef QC_TEST_LIVE_HOST_H
#define QC_TEST_LIVE_HOST_H

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#define HOST_NSIGS 65 /* Linux's signals 1..64 */

typedef struct host_snapshot {
    struct sigaction sa[HOST_NSIGS];
    char *env; /* every variable, NUL-separated, in order */
    size_t envlen;
} host_snapshot;

static inline void host_snap(host_snapshot *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 1; i < HOST_NSIGS; i++)
        sigaction(i, NULL, &s->sa[i]);
    size_t n = 0;
    for (char **e = environ; *e; e++)
        n += strlen(*e) + 1;
    s->env = malloc(n + 1);
    assert_non_null(s->env);
    for (char **e = environ; *e; e++) {
        size_t k = strlen(*e) + 1;
        memcpy(s->env + s->envlen, *e, k);
        s->envlen += k;
    }
}

/* a and b the same (each signal's handler, or SIG_DFL / SIG_IGN, and its
 * flags; the environment byte for byte). */
static inline void host_same(const host_snapshot *a, const host_snapshot *b)
{
    for (int i = 1; i < HOST_NSIGS; i++) {
        assert_ptr_equal((void *)(uintptr_t)a->sa[i].sa_handler,
                         (void *)(uintptr_t)b->sa[i].sa_handler);
        assert_int_equal(a->sa[i].sa_flags, b->sa[i].sa_flags);
    }
    assert_int_equal(a->envlen, b->envlen);
    assert_memory_equal(a->env, b->env, a->envlen);
}

/* The host's own timer: it ticks every ms milliseconds beside the
 * component (host_ticks counts), and keeps the loop alive. */
static uv_timer_t host_timer;
static uint64_t host_ticks;

static inline void host_on_timer(uv_timer_t *t)
{
    (void)t;
    host_ticks++;
}

static inline void host_timer_start(uv_loop_t *loop, uint64_t ms)
{
    uv_timer_init(loop, &host_timer);
    uv_timer_start(&host_timer, host_on_timer, ms, ms);
}

static inline double host_now(void)
{
    return (double)uv_hrtime() * 1e-9;
}

/* A component's close callback that counts: HOST_CLOSED(name, T, ST,
 * get) declares the type name (done, and st: the status get(obj, &st)
 * read at the close) and name_on(T *obj, void *arg) to pass with a name
 * to the component's close. */
#define HOST_CLOSED(name, T, ST, get)                                                              \
    typedef struct name {                                                                          \
        int done;                                                                                  \
        ST st;                                                                                     \
    } name;                                                                                        \
    static void name##_on(T *obj, void *arg)                                                       \
    {                                                                                              \
        name *c = arg;                                                                             \
        get(obj, &c->st);                                                                          \
        c->done++;                                                                                 \
    }

/* Runs loop one turn at a time until *flag is at least want; fails after
 * seconds. */
static inline void host_run_until(uv_loop_t *loop, const int *flag, int want, double seconds)
{
    double t0 = host_now();
    while (*flag < want) {
        uv_run(loop, UV_RUN_ONCE);
        assert_true(host_now() - t0 < seconds);
    }
}

#endif
