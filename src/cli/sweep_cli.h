/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_cli.h: what the parts of `qctl sweep` share: the runner of child
 * processes (app/sweep_exec.c), the master's journal and outputs (sweep.c) and
 * the MPI master/worker loop (sweep_mpi.c).
 *
 * The master owns the results: every finished point goes through
 * sweep_master_record, which appends it to the journal (fsync'd) before
 * anything else learns of it. Workers, local or MPI ranks, only run
 * points and hand their aggregated values back. */
#ifndef QCTL_SWEEP_CLI_H
#define QCTL_SWEEP_CLI_H

#include <stddef.h>

#include "cli.h"
#include "app/sweep.h"
#include "app/sweep_exec.h"

/* The points run by app/sweep_exec.h (qc_sweep_run_points), with the
 * process's stop flag (interrupt.h). */
typedef qc_sweep_point_fn sweep_point_fn;

typedef struct sweep_master {
    const qc_sweep *sw;
    qc_sweep_point *pts;
    const char *journal; /* path */
    int fd;              /* the journal, locked */
    size_t resumed;      /* finished points read from the journal */
    size_t done_now;     /* points finished by this invocation */
    size_t pending;      /* points left when it started */
    size_t runs;         /* children started by this invocation */
    cli_progress prog;
    char what[160];
} sweep_master;

/* Opens (creates, or with fresh empties) and locks the journal, reads the
 * points it holds. Returns 0 or an exit code with the message printed. */
int sweep_master_open(sweep_master *m, const qc_sweep *sw, const char *journal, int fresh,
                      int quiet);
/* Records a finished point (a sweep_point_fn; ctx is the sweep_master). */
int sweep_master_record(void *ctx, size_t point, const qc_sweep_val *vals, const char *error);
/* Lists the points not finished yet (caller frees); *n their count. */
size_t *sweep_master_todo(const sweep_master *m, size_t *n);
void sweep_master_close(sweep_master *m);

/* 1 when this process was started by mpirun (and qctl has MPI). */
int sweep_mpi_wanted(void);
/* Runs the sweep over MPI ranks. Rank 0 calls setup to open the master
 * (returns an exit code; 0 to go on) and finish when every point is
 * back; the other ranks run points. Returns the process's exit code. */
typedef int (*sweep_master_fn)(void *ctx, sweep_master **m);
int sweep_mpi_run(const qc_sweep *sw, const char *exe, sweep_master_fn setup,
                  sweep_master_fn finish, void *ctx);

#endif
