/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/sweep_exec.h (not installed): the execution of a sweep's points as
 * child processes of qctl itself, at most `jobs` at once, each point's
 * replications aggregated into its values (app/sweep.h) and handed to the
 * caller, which owns the results (the command's journal, src/cli/sweep.c;
 * an MPI rank's reply, sweep_mpi.c). */
#ifndef QCTL_APP_SWEEP_EXEC_H
#define QCTL_APP_SWEEP_EXEC_H

#include <stddef.h>

#include "app/sweep.h"
#include "qctl/cancel.h"
#include "qctl/error.h"

/* Called when every replication of a point has ended: vals (nmetrics
 * aggregated values) or error (the first failing run's message). */
typedef int (*qc_sweep_point_fn)(void *ctx, size_t point, const qc_sweep_val *vals,
                                 const char *error);

/* Runs every replication of points[0..n-1] as child processes of exe
 * (`exe ARGS --seed S --json`), at most jobs at once, the next run starting
 * as soon as one ends. *runs counts the children started. Returns 0; or
 * QC_EINVAL when a run's output lacks a metric (err says which; the other
 * children are killed); QC_ECANCELED once *cancel is set (NULL: never);
 * or the first nonzero return of done. */
int qc_sweep_run_points(const qc_sweep *sw, const char *exe, const size_t *points, size_t n,
                        unsigned jobs, const qc_cancel *cancel, qc_sweep_point_fn done,
                        void *ctx, size_t *runs, qc_err *err);

#endif
