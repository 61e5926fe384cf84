/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/cancel.h: asking a long run to stop.
 *
 * A caller that may want to stop a simulation before its end (Ctrl-C in
 * a command, KeyboardInterrupt in Python, a GUI's stop button) gives the
 * run a qc_cancel it owns, through the run's parameters (`cancel`), and
 * later calls qc_cancel_request on it, from any thread or from a signal
 * handler. The run checks it between chunks of work (every few thousand
 * events, between control intervals and between replications), so it
 * stops within a fraction of a second of work: it frees what it
 * allocated and returns QC_ECANCELED, its result left empty (as after
 * any failure). A run given no qc_cancel (NULL) is never cancelled, and
 * checking costs one load every few thousand events, so the results of
 * a run that is not cancelled are the same bytes as without it.
 *
 * The flag is read and written with atomic operations (relaxed order:
 * it carries no data, only "stop"), which are lock-free on every target
 * qctl builds for, hence safe in a signal handler. Use the functions, not
 * the field. Zero-initialized (or qc_cancel_clear) means "go on". */
#ifndef QCTL_CANCEL_H
#define QCTL_CANCEL_H

#include "qctl/api.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_cancel {
    int flag; /* 0: go on; touched only through the functions below */
} qc_cancel;

/* Asks every run given c to stop at its next check. Async-signal-safe. */
void qc_cancel_request(qc_cancel *c);

/* Back to "go on", for the next run. */
void qc_cancel_clear(qc_cancel *c);

/* 1 when c (not NULL) was asked to stop, else 0. */
int qc_cancel_requested(const qc_cancel *c);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
