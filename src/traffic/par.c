/* SPDX-License-Identifier: GPL-3.0-or-later */
/* par.c: independent items of work on several threads (par.h). Every
 * shared counter is touched only under `mu`. */
#include "traffic/par.h"

#include <pthread.h>
#include <unistd.h>

#include "core/gsl_quiet.h"
#include "core/thread.h"

typedef struct shared {
    const qc__par *p;
    pthread_mutex_t mu;
    int threaded;
    unsigned next, finished;
} shared;

static void *work(void *arg)
{
    shared *s = arg;
    const qc__par *p = s->p;
    for (;;) {
        if (s->threaded)
            pthread_mutex_lock(&s->mu);
        const unsigned i = s->next < p->count ? s->next++ : p->count;
        if (s->threaded)
            pthread_mutex_unlock(&s->mu);
        if (i >= p->count)
            return NULL;
        p->run(p->ctx, i);
        if (p->done == NULL)
            continue;
        if (s->threaded)
            pthread_mutex_lock(&s->mu);
        p->done(p->ctx, ++s->finished);
        if (s->threaded)
            pthread_mutex_unlock(&s->mu);
    }
}

void qc__par_run(const qc__par *p, unsigned threads)
{
    enum { MAX_THREADS = 256 };
    shared s = {.p = p};
    if (threads > p->count)
        threads = p->count;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if (threads < 2 || pthread_mutex_init(&s.mu, NULL) != 0) {
        work(&s);
        return;
    }
    s.threaded = 1;
    pthread_t th[MAX_THREADS];
    unsigned started = 0;
    gsl_error_handler_t *h = qc__gsl_quiet();
    for (unsigned t = 1; t < threads; t++)
        if (qc__thread_start(&th[started], work, &s) == 0)
            started++;
    work(&s);
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    qc__gsl_restore(h);
    pthread_mutex_destroy(&s.mu);
}

unsigned qc__par_threads(unsigned requested, unsigned max)
{
    unsigned t = requested;
    if (t == 0) {
        const long c = sysconf(_SC_NPROCESSORS_ONLN);
        t = c < 1 ? 1 : (unsigned long)c > max ? max : (unsigned)c;
    }
    return t > max ? max : t < 1 ? 1 : t;
}
