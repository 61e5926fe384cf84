/* SPDX-License-Identifier: GPL-3.0-or-later */
/* io/ofile_open.h: the temporary files being written, for a process that
 * ends from a signal handler; internal to libqctl (the command uses it).
 *
 * Every qc_ofile writes under PATH.tmp-PID and renames the file into
 * place when it is complete, so a run that fails leaves no half file. A
 * process ended by a signal runs no error path, so qc_ofile_open also
 * notes the temporary name in a fixed table of the process, and the
 * commit or the abort takes it out. qc__ofile_remove_open removes every
 * name in the table with unlink alone: it is async-signal-safe and may be
 * called from a handler that then calls _exit. A name longer than the
 * table's slots, or a file opened while every slot is taken, is not
 * noted (it is still removed by the ordinary error paths). */
#ifndef QCTL_IO_OFILE_OPEN_H
#define QCTL_IO_OFILE_OPEN_H

/* Removes the temporary file of every qc_ofile open in the process.
 * Async-signal-safe. */
void qc__ofile_remove_open(void);

#endif
