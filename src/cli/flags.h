/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags.h: the flags of the qctl commands, declared once.
 *
 * Two ways to declare a command's flags:
 *   - a cli_flag table, one row per flag (name, type, destination, check,
 *     help): cli_flags_parse turns it into getopt, checks each value as
 *     it is read (range, path kind) and prints the usage text from the
 *     same rows, so the help, the completion and the man page cannot
 *     drift from what the parser accepts;
 *   - a getopt `struct option` table parsed with cli_getopt, a drop-in for
 *     getopt_long that adds -h as --help and checks each flag that names a
 *     file (guard.h) as it is parsed.
 * Either way the flags are listed by the same route (cli_list_flags), which
 * generates `qctl completion bash|zsh` and the option lists of the man
 * page.
 *
 * Global flags, taken out of the command line before a command sees it:
 *   --progress   show the progress line even when stderr is not a terminal
 *   --force      run although the memory or output size estimated from the
 *                flags passes its budget (guard.h) */
#ifndef QCTL_CLI_FLAGS_H
#define QCTL_CLI_FLAGS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The command being run ("sim queue", "gen", ...), set by main. */
extern const char *cli_command;
/* --progress and --force (see above). */
extern int cli_progress_forced;
extern int cli_force;

/* getopt_long with -h meaning --help and the path checks of guard.h.
 * A failed check prints its message and returns '?'; the command's
 * cli_bad_option then returns QC_EXIT_USAGE without a second message. */
int cli_getopt(int argc, char *const argv[], const char *shortopts,
               const struct option *longopts, int *longindex);

/* 1 once a message for a bad flag was printed by cli_getopt. */
extern int cli_flag_reported;

/* ---- the declarative table ----------------------------------------------- */

typedef enum cli_ftype {
    CLI_BOOL,   /* no argument; *(int *)dest = 1 */
    CLI_STR,    /* *(const char **)dest = the argument */
    CLI_DOUBLE, /* *(double *)dest, finite, in [min, max] */
    CLI_U64,    /* *(uint64_t *)dest, whole, in [min, max] */
    CLI_UINT,   /* *(unsigned *)dest, whole, in [min, max] */
    CLI_CHOICE, /* *(int *)dest = the index of the argument in choices */
    CLI_NOTE,   /* not a flag: a heading in the usage text (name "") */
    CLI_HELP,   /* prints the usage text and stops with 0 */
    CLI_FUNC,   /* the row's parse reads the argument: lists, specs, a value
                 * that sets several fields; it checks and reports itself */
    CLI_STRS    /* repeatable: each argument appended to the cli_strs at dest */
} cli_ftype;

/* The arguments of a repeatable flag (CLI_STRS), in order; v is
 * allocated by the parser, the caller frees it. */
typedef struct cli_strs {
    const char **v;
    size_t n;
} cli_strs;

/* CLI_OPEN_MIN, CLI_OPEN_MAX in a row's `open`: that bound is excluded
 * ("(0, 1)", "> 0"). A bound of HUGE_VAL (-HUGE_VAL) is no bound above
 * (below): the message then says "must be > MIN" or ">= MIN". */
enum { CLI_OPEN_MIN = 1, CLI_OPEN_MAX = 2 };

/* One flag. min and max bound a number (both 0: no bound beyond the
 * type's); choices lists a CLI_CHOICE's words; path, when not 0, is the
 * guard.h kind of the path the argument names (checked before the row's
 * type reads it); arg names the value in the help ("N", "FILE"); help may
 * hold '\n' for more
 * lines. A table ends with a row whose name is NULL.
 *
 * The fields after `choices` are optional (zero: unused):
 *   parse     CLI_FUNC: reads arg for the flag named `flag` ("--name"),
 *             typically into f->dest (f->min and f->max are its bounds when
 *             it has any); returns 0, or the exit status after a message
 *   values    CLI_CHOICE: the value stored for each word of choices, in
 *             order (NULL: the word's index)
 *   alias     this row is an old name of the flag named alias: accepted,
 *             with a note on stderr, and left out of the usage text (only
 *             name and alias are read from it)
 *   shortopt  a one-letter form of the flag ('j' for -j N), or 0
 *   open      CLI_OPEN_MIN | CLI_OPEN_MAX: the bound is excluded */
typedef struct cli_flag {
    const char *name;
    cli_ftype type;
    void *dest;
    double min, max;
    int path;
    const char *arg;
    const char *help;
    const char *choices; /* CLI_CHOICE: "a,b,c" */
    int (*parse)(const struct cli_flag *f, const char *flag, const char *arg);
    const int *values;
    const char *alias;
    int shortopt;
    unsigned open;
} cli_flag;

/* Parses argv (argv[0] the command's last word) against the table: each
 * value is checked as it is read, with a message naming the flag. Returns
 * 0 with *first_operand the index of the first operand, -1 after --help
 * printed the usage (the command returns 0), or QC_EXIT_USAGE. Each
 * row's `given` (counted in given[i] when given is not NULL) says how often
 * it appeared. */
int cli_flags_parse(const char *cmd, const cli_flag *t, int argc, char **argv,
                    int *first_operand, unsigned *given);

/* How often the flag `name` of t appeared: given[] as cli_flags_parse
 * filled it (an old name counts as its flag). */
unsigned cli_flag_given(const cli_flag *t, const unsigned *given, const char *name);

/* The usage text: synopsis, then one aligned entry per row. */
void cli_flags_usage(FILE *f, const char *synopsis, const char *about, const cli_flag *t);

/* ---- commands, help, completion, man -------------------------------------- */

typedef int (*cli_cmd_fn)(int argc, char **argv);

typedef struct cli_command_row {
    const char *name;    /* "sim queue" */
    cli_cmd_fn fn;       /* called with argv[0] = the last word of name */
    const char *summary; /* one line */
} cli_command_row;

/* Every command, in the order of the top-level help. */
extern const cli_command_row cli_commands[];

/* The command named by words argv[0..] ("sim", "queue"), or NULL; *used is
 * the number of words its name has. */
const cli_command_row *cli_find_command(int argc, char **argv, int *used);

/* The long flags of a command, "name" or "name=" (takes a value), one per
 * line in buf; found by running the command's parser in a child process
 * that reports its table and exits. Returns the count, or -1. */
int cli_list_flags(const cli_command_row *c, char *buf, size_t n);

/* qctl help [COMMAND...] and qctl completion bash|zsh|man. */
int cmd_help(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* Removes the global flags (--progress, --force) from argv, before "--";
 * returns the new argc. */
int cli_take_global_flags(int argc, char **argv);

#endif
