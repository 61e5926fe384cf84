/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_master.h: what the parts of `qctl sweep` share: the runner of
 * child processes (sweep_exec.c), the master's journal (sweep_master.c),
 * the run and its outputs (sweep_run.c, sweep_report.c) and the MPI
 * master/worker loop (sweep_mpi.c); the command's flags are cli/sweep.c's.
 *
 * The master owns the results: every finished point goes through
 * sweep_master_record, which appends it to the journal (fsync'd) before
 * anything else learns of it. Workers, local or MPI ranks, only run
 * points and hand their aggregated values back. */
#ifndef QCTL_APP_SWEEP_MASTER_H
#define QCTL_APP_SWEEP_MASTER_H

#include <stddef.h>

#include <jansson.h>

#include "cmdline.h"
#include "flags.h"
#include "sweep.h"
#include "sweep_exec.h"

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
/* What sweep_master_open checks, without changing anything: the journal
 * can be opened for writing (or created in its directory), no other sweep
 * holds it, and (without fresh) it belongs to this sweep. The same
 * messages and exit codes as sweep_master_open. */
int sweep_master_probe(const qc_sweep *sw, const char *journal, int fresh);
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

/* The flags of `qctl sweep FILE` (cli/sweep.c). */
/* --set given more often than this is refused, naming the flag. */
#define QC_SWEEP_SETS_MAX 256

typedef struct sweep_opts {
    const char *file;
    cli_strs sets; /* --set, in order (in set_v) */
    const char *set_v[QC_SWEEP_SETS_MAX];
    unsigned jobs;
    const char *results;
    const char *report;
    int fresh, quiet;
    char *base;
    qc_sweep *sw; /* the file, its overrides and grid: sweep_check's */
    int argc;
    char **argv;
    const cli_command_row *commands; /* the commands an experiment may name */
} sweep_opts;

/* Every check the sweep makes before its first run, changing nothing:
 * the file, its overrides and grid, each point's flags, the --results
 * and --report paths, the journal (writable, not in use, this sweep's
 * unless --fresh), then each point's command line through the
 * experiment's own --check. Loads o->sw and o->base (freed by the next
 * call or sweep_opts_free). Returns 0 or an exit status after a message.
 * It is the validation of --check and of the start alike. */
int sweep_check(sweep_opts *o);
void sweep_opts_free(sweep_opts *o);
/* Runs the sweep o describes, after sweep_check: the exit status. */
int sweep_main(sweep_opts *o);

/* The page of --report DIR for the finished points. */
int sweep_write_report(const sweep_opts *o, const qc_sweep *sw, const qc_sweep_point *pts,
                       const json_t *summary);

/* All of fd read into a new buffer (*len its length), or NULL. */
char *sweep_read_fd(int fd, size_t *len);

#endif
