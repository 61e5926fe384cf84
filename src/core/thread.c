/* SPDX-License-Identifier: GPL-3.0-or-later */
/* thread.c: worker threads started away from their creator's CPU
 * (thread.h). */
#define _GNU_SOURCE /* sched_getcpu, cpu_set_t, pthread_attr_setaffinity_np */
#include "core/thread.h"

#include <pthread.h>
#include <stdlib.h>

#ifdef __linux__
#include <sched.h>

typedef struct start {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t all; /* the CPUs the process may use */
} start;

static void *trampoline(void *p)
{
    start s = *(start *)p;
    free(p);
    (void)pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all);
    return s.fn(s.arg);
}

int qc__thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    start *s = malloc(sizeof *s);
    if (s == NULL)
        return pthread_create(t, NULL, fn, arg); /* no hint */
    s->fn = fn;
    s->arg = arg;
    const int here = sched_getcpu();
    pthread_attr_t attr;
    if (sched_getaffinity(0, sizeof s->all, &s->all) == 0 && here >= 0 && here < CPU_SETSIZE &&
        CPU_ISSET(here, &s->all) && CPU_COUNT(&s->all) >= 2 && pthread_attr_init(&attr) == 0) {
        cpu_set_t others = s->all;
        CPU_CLR(here, &others);
        int rc = pthread_attr_setaffinity_np(&attr, sizeof others, &others);
        if (rc == 0)
            rc = pthread_create(t, &attr, trampoline, s);
        pthread_attr_destroy(&attr);
        if (rc == 0)
            return 0;
        /* the hint refused (a CPU set changed meanwhile, say): none */
    }
    free(s);
    return pthread_create(t, NULL, fn, arg);
}
#else
int qc__thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
    return pthread_create(t, NULL, fn, arg);
}
#endif
