/* SPDX-License-Identifier: GPL-3.0-or-later */
/* par.h: independent items of work (a fit's families, the starts of an
 * EM, the realisations of a validation) on several threads; internal to
 * src/traffic.
 *
 * Item i writes only its own slot of the caller's results, so the items
 * can run in any order on any number of threads and the caller, reading
 * the slots in item order afterwards, gets the same bytes as one thread
 * would. Workers take the next item not yet taken (in increasing order)
 * under a lock; the calling thread is one of them. When threads cannot
 * be started the items run on fewer (the results do not change).
 *
 * GSL's error handler is process-wide: with more than one thread it is
 * turned off once before the workers start and put back after they stop,
 * so that no worker restores the host's handler under another
 * (core/gsl_quiet.h). */
#ifndef QCTL_TRAFFIC_PAR_H
#define QCTL_TRAFFIC_PAR_H

typedef struct qc__par {
    unsigned count;                       /* items 0..count-1 */
    void (*run)(void *ctx, unsigned item); /* touches only item's slot */
    void *ctx;
    /* Called after each item, one call at a time (under the lock), with
     * the number of items finished so far; may be NULL. */
    void (*done)(void *ctx, unsigned finished);
} qc__par;

/* Runs the items on `threads` threads (at most count; 0 or 1: the
 * calling thread alone). */
void qc__par_run(const qc__par *p, unsigned threads);

/* `requested` threads, or when it is 0 one per online core; at most max. */
unsigned qc__par_threads(unsigned requested, unsigned max);

#endif
