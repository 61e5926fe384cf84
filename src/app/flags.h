/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags.h: the flags of the qctl commands, declared once (the flag engine:
 * flags.c the parser, flags_value.c a row's value, flags_config.c --config
 * and --check, flags_text.c usage and messages, flags_list.c the listing
 * and help, completion.c the shell completion and man page).
 *
 * Two ways to declare a command's flags:
 *   - a cli_flag table, one row per flag (name, type, destination, check,
 *     help): cli_flags_parse turns it into getopt, checks each value as
 *     it is read (range, path kind) and prints the usage text from the
 *     same rows, so the help, the completion and the man page cannot
 *     drift from what the parser accepts; a table may also take --config
 *     FILE.json and --check (CLI_CONFIG and CLI_CHECK rows, see
 *     cli_flags_parse);
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
#ifndef QCTL_APP_FLAGS_H
#define QCTL_APP_FLAGS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "guard.h" /* the path kinds of the shared rows below */
#include "qctl/error.h"

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
    /* appended (other tables number the values above): */
    CLI_STRS,   /* repeatable: each value appended to the cli_strs at dest,
                 * at most max of them */
    CLI_CONFIG, /* --config FILE.json: the table's flags from a file (below) */
    CLI_CHECK,  /* --check: validate, print the effective configuration as
                 * JSON and stop with 0 (below); dest is the validate ctx */
    CLI_FUNC    /* the row's parse reads the argument: lists, specs, a value
                 * that sets several fields; it checks and reports itself */
} cli_ftype;

/* The values of a CLI_STRS flag, in the order given; v is the command's
 * array of (the row's max) entries. */
typedef struct cli_strs {
    const char **v;
    unsigned n;
} cli_strs;

/* CLI_OPEN_MIN, CLI_OPEN_MAX in a row's `open`: that bound is excluded
 * ("(0, 1)", "> 0"). A bound of HUGE_VAL (-HUGE_VAL) is no bound above
 * (below): the message then says "must be > MIN" or ">= MIN". */
enum { CLI_OPEN_MIN = 1, CLI_OPEN_MAX = 2 };

/* One flag. min and max bound a number (both 0: no bound beyond the
 * type's); choices lists a CLI_CHOICE's words; path, when not 0, is the guard.h kind of a CLI_STR path; arg
 * names the value in the help ("N", "FILE"); help may hold '\n' for more
 * lines. A table ends with a row whose name is NULL. A CLI_STR path row
 * without `path` is checked by guard.h's list of path flags. */
typedef struct cli_flag {
    const char *name;
    cli_ftype type;
    void *dest;
    double min, max;
    int path;
    const char *arg;
    const char *help;
    const char *choices; /* CLI_CHOICE: "a,b,c" */
    /* appended; a table names them (.letter = 'j'): */
    int letter;          /* a one-letter form ('j': -j N), or 0 */
    const char *alias;   /* an old name also accepted; using it prints
                          * "qctl: --OLD is deprecated; use --NAME" */
    int zero_unset;      /* a number whose 0 means "not given": --check
                          * leaves it out at 0 */
    /* CLI_CHECK: the command's own validation of the parsed values (the
     * checks its run makes before any work), called with dest after every
     * parse, --check or not, so --check refuses what the run refuses with
     * the same message; it may set the destinations to the values the run
     * takes (defaults resolved), which --check then prints. Returns 0 or
     * an exit status (a message printed). */
    int (*validate)(void *ctx);
    /* CLI_FUNC: reads arg for the flag named `flag` ("--name"), typically
     * into f->dest (f->min and f->max its bounds when it has any); returns
     * 0, or the exit status after a message */
    int (*parse)(const struct cli_flag *f, const char *flag, const char *arg);
    const int *values;   /* CLI_CHOICE: the value stored for each word of
                          * choices, in order (NULL: the word's index) */
    unsigned open;       /* CLI_OPEN_MIN | CLI_OPEN_MAX: a bound excluded */
    /* appended: the descriptor's view of a row */
    const char *field;   /* the field of the command's parameters struct the
                          * row sets, as the library names it in a message
                          * ("horizon", "spec.settling"; CLI_AT sets it with
                          * dest): cli_flags_error maps it back to the flag */
    const char *unit;    /* a number's unit or kind for completion and the
                          * man page ("seconds", "samples", "fraction");
                          * NULL: "number" for a number row */
} cli_flag;

/* A row's destination and the field it names, both from one member of the
 * command's parameters struct p:
 *     {"horizon", CLI_UINT, CLI_AT(&params, horizon), .min = 10, .max = 1e7, ...}
 * (the bounds then given by name: positional members cannot follow). */
#define CLI_AT(p, member) .dest = &(p)->member, .field = #member

/* A library error for the command cmd, said in the command's words: when
 * err's message names the field of one of t's rows as one of its
 * colon-separated parts ("prediction: horizon: 5 is below 10"), the parts
 * up to it are replaced by the flag ("design: --horizon: 5 is below 10");
 * else the message is printed as it is ("design: MESSAGE", or MESSAGE
 * alone when cmd is NULL). Returns the exit status of rc (cli_exit_code). */
int cli_flags_error(const cli_flag *t, const char *cmd, int rc, const struct qc_err *err);

/* The mapping of cli_flags_error into out[0..n): 1 when a field was found
 * (out then "--flag: rest"), else 0 and out the message as it is. */
int cli_flags_map_field(const cli_flag *t, const char *msg, char *out, size_t n);

/* Parses argv (argv[0] the command's last word) against the table: each
 * value is checked as it is read, with a message naming the flag. Returns
 * 0 with *first_operand the index of the first operand, CLI_DONE_HELP
 * after --help (the command prints its usage and returns 0),
 * CLI_DONE_CHECK after --check printed the configuration (the command
 * returns 0), or an exit status (QC_EXIT_USAGE) after a message. Each
 * row's `given` (counted in given[i] when given is not NULL) says how often
 * it appeared, on the command line or in a --config file.
 *
 * A table that holds a CLI_CONFIG row ("config") reads --config FILE.json
 * before the command line: a JSON object whose keys are the table's long
 * flags (or their aliases), a value a string or a number, true for a bare
 * flag (false leaves it out), an array to repeat a flag. The file's words
 * are parsed by the same rows, ahead of the command line's, and a flag the
 * command line gives replaces the file's (a repeated one as a whole). A
 * key that is no flag, or is config, check or help, is refused naming the
 * file and the key (exit 2). The string destinations may point into the
 * file's words: they live until the process exits.
 *
 * A table that holds a CLI_CHECK row ("check") takes no operands; after
 * the table's checks it calls the row's validate (if any), and with
 * --check prints the effective configuration, a JSON object of every row
 * with a value (bare flags set, strings given, finite numbers, choices,
 * repeated flags as arrays), which loads back through --config. */
enum { CLI_DONE_HELP = -1, CLI_DONE_CHECK = -2 };

/* The words of the --config file the last parse read, detached: the next
 * parse (a reload reading the file again) leaves them alone, and the
 * string destinations that point into them stay valid until
 * cli_flags_config_release (NULL when no file was read; release(NULL)
 * does nothing). */
void *cli_flags_config_detach(void);
void cli_flags_config_release(void *held);
int cli_flags_parse(const char *cmd, const cli_flag *t, int argc, char **argv,
                    int *first_operand, unsigned *given);

/* The rows of --config FILE.json and --check, for a table that takes
 * them; ctx is what fn, the command's validate, is given. */
#define CLI_ROWS_CONFIG_CHECK(ctx, fn)                                                          \
    {"config", CLI_CONFIG, NULL, .arg = "FILE.json",                                            \
     .help = "flags from a JSON object {\"flag\": value, ...}:\ntrue for a bare flag, arrays " \
             "to repeat a flag;\nflags on the command line override its keys"},                 \
    {"check", CLI_CHECK, (ctx), .validate = (fn),                                               \
     .help = "validate everything, print the effective\nconfiguration as JSON (it loads back " \
             "with\n--config) and exit"}

/* -j, --jobs N of the commands that run replications on threads. */
#define CLI_ROW_JOBS(dest)                                                                      \
    {"jobs", CLI_UINT, (dest), 1, 256, .arg = "N",                                              \
     .help = "replications run at once, on N threads (default: the\nonline cores); the "       \
             "results are the same for any N",                                                  \
     .letter = 'j', .unit = "threads"}

/* The rows that several commands share word for word, so that one flag
 * reads the same in every command's help. */
#define CLI_ROW_HELP(dest) {"help", CLI_HELP, (dest), .help = "this text"}
#define CLI_ROW_JSON(dest) {"json", CLI_BOOL, (dest), .help = "print the summary as JSON"}
/* --quiet of a command whose only chatter is its progress line */
#define CLI_ROW_QUIET(dest) {"quiet", CLI_BOOL, (dest), .help = "no progress line"}
#define CLI_ROW_PORT_FILE(dest)                                                                 \
    {"port-file", CLI_STR, (dest), .path = CLI_PATH_OUT, .arg = "FILE",                         \
     .help = "write the bound port to FILE"}

/* The rows of the simulations that run replications (sim queue, sim pool,
 * sim admission, sim maxusers). */
#define CLI_ROW_TIME(dest)                                                                      \
    {"time", CLI_DOUBLE, (dest), .arg = "T",                                                    \
     .help = "measured simulated time per replication instead", .zero_unset = 1,      \
     .unit = "seconds (simulated)"}
#define CLI_ROW_SEED(dest)                                                                      \
    {"seed", CLI_U64, (dest), .arg = "S", .help = "seed of every random stream (default 1)",       \
     .unit = "integer seed"}
#define CLI_ROW_OUTPUT(dest)                                                                    \
    {"output", CLI_STR, (dest), .path = CLI_PATH_OUT, .arg = "FILE",                            \
     .help = "also write the JSON summary to FILE"}
#define CLI_ROW_CONFIDENCE(dest)                                                                \
    {"confidence", CLI_DOUBLE, (dest), .arg = "L",                                              \
     .help = "confidence level of the intervals (default 0.95)",               \
     .unit = "level in (0, 1)"}
#define CLI_ROW_REPORT(dest)                                                                    \
    {"report", CLI_STR, (dest), .path = CLI_PATH_OUT_DIR, .arg = "DIR",                         \
     .help = "write DIR/index.html: parameters, summary tables and the\nplots of --plot, in "  \
             "one self-contained page"}
#define CLI_ROW_SERIES_DT(dest)                                                                 \
    {"series-dt", CLI_DOUBLE, (dest), .arg = "DT",                                              \
     .help = "width of a series bin (default: run length / 2000)", .zero_unset = 1, \
     .unit = "seconds (simulated)"}

/* CLI_FUNC parsers for rows that set two values: "A..B" or "A", whole
 * numbers within [f->min, f->max], into the int[2] (cli_range_flag) or
 * unsigned[2] (cli_urange_flag) at f->dest; "U,Y" into the double[2] at
 * f->dest (cli_pair_flag). */
int cli_range_flag(const struct cli_flag *f, const char *flag, const char *s);
int cli_urange_flag(const struct cli_flag *f, const char *flag, const char *s);
int cli_pair_flag(const struct cli_flag *f, const char *flag, const char *s);

/* How often the row named name was given, from the counts cli_flags_parse
 * left in given (0 for a name not in t): a validate callback's way to
 * tell a flag given as 0 from one not given. */
unsigned cli_flag_given(const cli_flag *t, const unsigned *given, const char *name);

/* cli_flags_parse for a command that takes no operands: with --help the
 * usage (synopsis, about, the table) printed on stdout and CLI_DONE_HELP
 * returned; an operand refused (cli_extra_operand); else 0 or the exit
 * code of bad usage, its message printed. */
int cli_flags_parse_command(const char *cmd, const char *synopsis, const char *about,
                            const cli_flag *t, int argc, char **argv, unsigned *given);

/* The usage text: synopsis, then one aligned entry per row. */
void cli_flags_usage(FILE *f, const char *synopsis, const char *about, const cli_flag *t);

/* ---- commands, help, completion, man -------------------------------------- */

typedef int (*cli_cmd_fn)(int argc, char **argv);

typedef struct cli_command_row {
    const char *name;    /* "sim queue" */
    cli_cmd_fn fn;       /* called with argv[0] = the last word of name */
    const char *summary; /* one line */
} cli_command_row;

/* The row of t named by words argv[0..] ("sim", "queue"), or NULL; *used
 * is the number of words its name has. A row whose name begins other
 * rows' names ("sim") is a group. */
const cli_command_row *cli_command_find(const cli_command_row *t, int argc, char **argv,
                                        int *used);

/* The long flags of a command, "name" or "name=" (takes a value), one per
 * line in buf; found by running the command's parser in a child process
 * that reports its table and exits. Returns the count, or -1. */
int cli_list_flags(const cli_command_row *c, char *buf, size_t n);

/* qctl help [COMMAND...] and qctl completion bash|zsh|man over the
 * command table t (the rows "help" and "completion" are these two). */
int cli_help_main(const cli_command_row *t, int argc, char **argv);
int cli_completion_main(const cli_command_row *t, int argc, char **argv);

/* Removes the global flags (--progress, --force) from argv, before "--";
 * returns the new argc. */
int cli_take_global_flags(int argc, char **argv);

#endif
