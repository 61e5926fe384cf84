/* SPDX-License-Identifier: GPL-3.0-or-later */
/* guard.h: the checks a command makes before any long work.
 *
 * A run of hours must not end in "cannot write" or "out of memory", and a
 * typing slip must not take the machine down. So, before it starts, a
 * command checks that
 *   - every file it reads exists, is readable and is not a directory (and,
 *     where an empty file cannot be valid, is not empty);
 *   - every file and directory it writes can be created: the probe creates
 *     and removes the very temporary name the atomic writer will use, so a
 *     read-only place, a missing parent or a parent that is a file is
 *     found now, and nothing is left behind;
 *   - the memory and the output size its flags imply stay within a budget
 *     (1 GB each); above it the command refuses, with the estimate and the
 *     flag that sets it, unless --force is given; above the machine's memory
 *     or the free space of the file system it refuses even then.
 * Each refusal prints "qctl: FLAG: ..." and returns QC_EXIT_USAGE (2).
 *
 * Which flags name files is declared once: in the flag's cli_flag row
 * (flags.h), or for a command still parsed with cli_getopt in the table of
 * guard.c; either way each such flag is checked as it is parsed, so the
 * commands need no code of their own for it. */
#ifndef QCTL_CLI_GUARD_H
#define QCTL_CLI_GUARD_H

#include <stddef.h>

/* The kinds of path a flag names. */
typedef enum cli_path_kind {
    CLI_PATH_IN = 1,       /* a file read; may be empty */
    CLI_PATH_IN_NONEMPTY,  /* a file read that cannot be valid when empty */
    CLI_PATH_OUT,          /* a file written atomically ("-": stdout) */
    CLI_PATH_OUT_PREFIX,   /* BASE of files BASE.csv, BASE.json, ... */
    CLI_PATH_OUT_DIR,      /* a directory created if missing */
    CLI_PATH_APPEND        /* a file appended to, never replaced: CLI_PATH_OUT's
                              rules, and a FIFO or a device (a log shipper's
                              pipe, /dev/stdout) taken as it is */
} cli_path_kind;

/* Checks path for its kind; `what` names it in a message (a flag such as
 * "--output", or "capture"). Returns 0 or QC_EXIT_USAGE after a message. */
int cli_check_path(const char *what, const char *path, cli_path_kind kind);

/* An input path as given, or for "-" (standard input, as Unix tools read
 * it) the name of a temporary copy of standard input, removed at exit;
 * kinds other than CLI_PATH_IN* are returned as given ("-" as an output
 * is standard output: qc_ofile_open). NULL after a message (standard
 * input given twice, empty where it cannot be, or not copied). */
const char *cli_input_path(const char *what, const char *path, cli_path_kind kind);

/* The name to print for an input path: "-" for the copy of standard input
 * cli_input_path made, else path itself. */
const char *cli_input_name(const char *path);

/* The kind of path flag `name` (without "--") of command `cmd` ("sim
 * queue", "gen", ...) names, or 0 when it names none. */
cli_path_kind cli_path_flag(const char *cmd, const char *name);

/* The budgets (bytes): memory and output size a command may imply
 * without --force. */
#define CLI_MEMORY_BUDGET 1e9
#define CLI_OUTPUT_BUDGET 1e9

/* Refuses, naming `flag`, when an estimated `bytes` of memory for `what`
 * passes the budget (unless force) or the machine's memory (always). */
int cli_check_memory(const char *flag, double bytes, const char *what, int force);

/* The same for the size of an output file at `path` (its file system's
 * free space is the hard limit). */
int cli_check_output_size(const char *flag, double bytes, const char *what, const char *path,
                          int force);

/* A time series of span / dt points of point_bytes each (the bins of a
 * simulation's replication 1): refused, naming flag, when it passes the
 * memory budget (cli_force lifts that) or the machine's memory. */
int cli_check_series(const char *flag, double span, double dt, size_t point_bytes);

/* A warm-up (customers or time, `unit`) longer than the measured run it
 * precedes is almost always a slip (1e12 for 1e2): refused unless
 * cli_force. */
int cli_check_warmup(const char *flag, double warmup, double length, const char *unit);

/* "1.5 GB", "320 MB", "12 kB": bytes for a message. */
const char *cli_bytes(double bytes, char *buf, size_t n);

#endif
