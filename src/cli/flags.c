/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags.c: the flag tables, cli_getopt, help, shell completion and the
 * man page's command sections (see flags.h).
 *
 * Completion and the man page are generated from what the parsers accept,
 * not from a second list: cli_list_flags runs a command in a child process
 * whose first call to the parser writes the parser's table to a pipe and
 * exits, so a flag added to a command appears in its completion without
 * another edit. */
#include "flags.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/config.h"
#include "cli.h"
#include "guard.h"
#include "qctl/output.h"
#include "result.h"

const char *cli_command = NULL;
int cli_progress_forced = 0;
int cli_force = 0;
int cli_flag_reported = 0;

/* >= 0 in a child of cli_list_flags: where the parser writes its table */
static int listing_fd = -1;
/* 1 while cli_flags_parse runs cli_getopt */
static int table_parsing = 0;

static void list_and_exit(const struct option *lo)
{
    for (size_t i = 0; lo[i].name; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, "%s%s\n", lo[i].name,
                         lo[i].has_arg == no_argument ? "" : "=");
        if (n > 0 && write(listing_fd, line, (size_t)n) < 0)
            break;
    }
    _exit(0);
}

/* What completion says a number row takes: its unit, or the kind of
 * number; NULL for a row that is not a number. */
static const char *row_unit(const cli_flag *f)
{
    switch (f->type) {
    case CLI_DOUBLE: return f->unit ? f->unit : "number";
    case CLI_U64:
    case CLI_UINT: return f->unit ? f->unit : "integer";
    default: return f->unit; /* a CLI_FUNC row may say what it reads */
    }
}

/* The listing of a flag table: "name" for a switch, "name=" for a flag
 * with a value, "name=a,b,c" for a choice (its words, which completion
 * offers instead of file names), "name=#unit" for a number (its unit,
 * which completion shows instead of file names). */
static void list_table_and_exit(const cli_flag *t, size_t n, const struct option *lo)
{
    for (size_t i = 0; lo[i].name; i++) {
        const char *words = "", *mark = "";
        for (size_t k = 0; k < n; k++) {
            if (strcmp(t[k].name, lo[i].name) != 0 &&
                !(t[k].alias && strcmp(t[k].alias, lo[i].name) == 0))
                continue;
            if (t[k].type == CLI_CHOICE && t[k].choices)
                words = t[k].choices;
            else if ((words = row_unit(&t[k])) != NULL)
                mark = "#";
            else
                words = "";
        }
        char line[512];
        int m = snprintf(line, sizeof line, "%s%s%s%s\n", lo[i].name,
                         lo[i].has_arg == no_argument ? "" : "=", mark, words);
        if (m > 0 && (size_t)m < sizeof line && write(listing_fd, line, (size_t)m) < 0)
            break;
    }
    _exit(0);
}

int cli_take_global_flags(int argc, char **argv)
{
    int w = 1, rest = 0;
    for (int i = 1; i < argc; i++) {
        if (!rest && strcmp(argv[i], "--") == 0)
            rest = 1;
        if (!rest && strcmp(argv[i], "--progress") == 0)
            cli_progress_forced = 1;
        else if (!rest && strcmp(argv[i], "--force") == 0)
            cli_force = 1;
        else
            argv[w++] = argv[i];
    }
    argv[w] = NULL;
    return w;
}

static int help_val(const struct option *lo)
{
    for (size_t i = 0; lo[i].name; i++)
        if (strcmp(lo[i].name, "help") == 0 && lo[i].flag == NULL)
            return lo[i].val;
    return 0;
}

int cli_getopt(int argc, char *const argv[], const char *shortopts,
               const struct option *longopts, int *longindex)
{
    if (listing_fd >= 0)
        list_and_exit(longopts);
    /* -h anywhere before "--" is --help, as in most commands people know */
    int hv = help_val(longopts);
    if (optind == 1 && hv) {
        for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
            if (strcmp(argv[i], "-h") == 0) {
                optind = argc;
                return hv;
            }
    }
    int idx = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &idx);
    if (longindex)
        *longindex = idx;
    if (c == -1 || c == '?' || c == ':' || optarg == NULL)
        return c;
    /* the short options are -o for --output (sysid) and -j for --jobs */
    const char *name = idx >= 0 ? longopts[idx].name : c == 'o' ? "output" : NULL;
    if (name == NULL)
        return c;
    /* a table's parser checks its paths itself (table_value) */
    cli_path_kind kind = table_parsing ? 0 : cli_path_flag(cli_command, name);
    if (kind) {
        char what[96];
        snprintf(what, sizeof what, idx >= 0 ? "--%s" : "-o (--%s)", name);
        const char *in = cli_input_path(what, optarg, kind);
        if (!in) {
            cli_flag_reported = 1;
            return '?';
        }
        optarg = (char *)in;
        if (cli_check_path(what, optarg, kind) != 0) {
            cli_flag_reported = 1;
            return '?';
        }
    }
    return c;
}

/* ---- the declarative table ----------------------------------------------- */

static int table_value(const cli_flag *f, const char *s)
{
    char flag[96];
    snprintf(flag, sizeof flag, "--%s", f->name);
    int bounded = f->min != 0 || f->max != 0;
    double x = 0;
    int rc = 0;
    cli_path_kind pk = f->path ? (cli_path_kind)f->path
                   : f->type == CLI_STR ? cli_path_flag(cli_command, f->name) : 0;
    if (pk && (s = cli_input_path(flag, s, pk)) == NULL) /* "-": standard input */
        return QC_EXIT_USAGE;
    if (f->path && (rc = cli_check_path(flag, s, (cli_path_kind)f->path)) != 0)
        return rc;
    switch (f->type) {
    case CLI_BOOL: *(int *)f->dest = 1; return 0;
    case CLI_HELP:
    case CLI_NOTE:
    case CLI_CHECK:
    case CLI_CONFIG: return 0; /* --config is read before the other flags */
    case CLI_STRS: {
        cli_strs *v = f->dest;
        if (v->n >= (unsigned)f->max) {
            cli_error("%s: given more than %g times", flag, f->max);
            return QC_EXIT_USAGE;
        }
        v->v[v->n++] = s;
        return 0;
    }
    case CLI_CHOICE: {
        const char *c = f->choices;
        for (int k = 0; c && *c; k++) {
            size_t n = strcspn(c, ",");
            if (strlen(s) == n && strncmp(c, s, n) == 0) {
                *(int *)f->dest = f->values ? f->values[k] : k;
                return 0;
            }
            c += n + (c[n] == ',');
        }
        /* "a,b,c" read as "a, b or c" */
        char list[256];
        size_t w = 0;
        for (c = f->choices; *c && w + 4 < sizeof list; c++) {
            if (*c != ',') {
                list[w++] = *c;
            } else if (strchr(c + 1, ',')) {
                list[w++] = ',';
                list[w++] = ' ';
            } else {
                memcpy(list + w, " or ", 4);
                w += 4;
            }
        }
        list[w] = '\0';
        const char *words[64];
        char copy[256];
        size_t nw = 0;
        snprintf(copy, sizeof copy, "%s", f->choices);
        for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && nw < 64;
             tok = strtok_r(NULL, ",", &save))
            words[nw++] = tok;
        const char *near = cli_nearest(s, words, nw);
        if (near)
            cli_error("%s: '%s' is not %s; did you mean '%s'?", flag, s, list, near);
        else
            cli_error("%s: '%s' is not %s", flag, s, list);
        return QC_EXIT_USAGE;
    }
    case CLI_STR: {
        /* a row without a kind (checked above): guard.h's list of path flags */
        cli_path_kind kind = f->path ? 0 : cli_path_flag(cli_command, f->name);
        if (kind && (rc = cli_check_path(flag, s, kind)) != 0)
            return rc;
        *(const char **)f->dest = s;
        return 0;
    }
    case CLI_FUNC: return f->parse(f, flag, s);
    case CLI_DOUBLE: rc = cli_double(flag, s, &x); break;
    case CLI_U64: {
        uint64_t u;
        if ((rc = cli_u64(flag, s, &u)) == 0)
            x = (double)u;
        break;
    }
    case CLI_UINT: {
        unsigned u;
        if ((rc = cli_uint(flag, s, &u)) == 0)
            x = (double)u;
        break;
    }
    }
    if (rc != 0)
        return rc;
    int lo_open = (f->open & CLI_OPEN_MIN) != 0, hi_open = (f->open & CLI_OPEN_MAX) != 0;
    if (bounded && !((lo_open ? x > f->min : x >= f->min) && (hi_open ? x < f->max : x <= f->max))) {
        if (f->max == HUGE_VAL)
            cli_error("%s: %s must be %s %g", flag, s, lo_open ? ">" : ">=", f->min);
        else if (f->min == -HUGE_VAL)
            cli_error("%s: %s must be %s %g", flag, s, hi_open ? "<" : "<=", f->max);
        else if (f->type != CLI_DOUBLE && !f->open) /* whole numbers: A..B */
            cli_error("%s: %s is not in %g..%g", flag, s, f->min, f->max);
        else
            cli_error("%s: %s is not in %c%g, %g%c", flag, s, lo_open ? '(' : '[', f->min,
                      f->max, hi_open ? ')' : ']');
        return QC_EXIT_USAGE;
    }
    if (f->type == CLI_DOUBLE)
        *(double *)f->dest = x;
    else if (f->type == CLI_U64)
        *(uint64_t *)f->dest = (uint64_t)x;
    else
        *(unsigned *)f->dest = (unsigned)x;
    return 0;
}

static size_t table_len(const cli_flag *t)
{
    size_t n = 0;
    while (t[n].name)
        n++;
    return n;
}

static int takes_value(const cli_flag *f)
{
    return f->type != CLI_BOOL && f->type != CLI_HELP && f->type != CLI_CHECK;
}

/* The getopt view of a table: one long option per row and alias (val:
 * 256 + the row), the letters in shortopts. */
typedef struct table_opts {
    struct option *lo;
    char shortopts[64];
} table_opts;

static int table_opts_make(const cli_flag *t, size_t n, table_opts *to)
{
    to->lo = calloc(2 * n + 1, sizeof *to->lo);
    if (to->lo == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    size_t k = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].type == CLI_NOTE)
            continue;
        int has = takes_value(&t[i]) ? required_argument : no_argument;
        to->lo[k++] = (struct option){t[i].name, has, NULL, 256 + (int)i};
        if (t[i].alias)
            to->lo[k++] = (struct option){t[i].alias, has, NULL, 256 + (int)i};
        if (t[i].letter && s + 3 < sizeof to->shortopts) {
            to->shortopts[s++] = (char)t[i].letter;
            if (has == required_argument)
                to->shortopts[s++] = ':';
        }
    }
    to->shortopts[s] = '\0';
    return 0;
}

/* What getopt refused, said precisely: a value missing, a prefix that
 * names several flags, or an unknown flag with the one it most likely
 * meant ("did you mean"). */
static int bad_table_option(const char *cmd, const table_opts *to, const char *arg)
{
    if (cli_flag_reported || strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return cli_bad_option(cmd, arg);
    char word[96];
    snprintf(word, sizeof word, "%s", arg + 2);
    char *eq = strchr(word, '=');
    if (eq)
        *eq = '\0';
    size_t len = strlen(word), n = 0, prefixed = 0;
    const char *names[256];
    for (const struct option *o = to->lo; o->name && n < 256; o++) {
        names[n++] = o->name;
        if (strcmp(o->name, word) == 0) {
            if (o->has_arg == required_argument && !eq)
                cli_error("%s: option '--%s' needs a value (see 'qctl %s --help')", cmd, word,
                          cmd);
            else if (o->has_arg == no_argument && eq)
                cli_error("%s: option '--%s' takes no value (given '%s')", cmd, word, arg);
            else
                return cli_bad_option(cmd, arg);
            return QC_EXIT_USAGE;
        }
        prefixed += strncmp(o->name, word, len) == 0;
    }
    if (prefixed > 1) {
        char list[512];
        size_t k = 0;
        for (const struct option *o = to->lo; o->name && k + 40 < sizeof list; o++)
            if (strncmp(o->name, word, len) == 0)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s--%s", k ? ", " : "",
                                      o->name);
        cli_error("%s: option '--%s' is ambiguous: %s", cmd, word, list);
        return QC_EXIT_USAGE;
    }
    const char *near = cli_nearest(word, names, n);
    if (near) {
        cli_error("%s: unknown option '--%s'; did you mean '--%s'? (see 'qctl %s --help')", cmd,
                  word, near, cmd);
        return QC_EXIT_USAGE;
    }
    cli_error("%s: unknown option '--%s' (see 'qctl %s --help')", cmd, word, cmd);
    return QC_EXIT_USAGE;
}

/* The row getopt's answer c names, or -1. */
static int table_row(const cli_flag *t, size_t n, int c)
{
    if (c >= 256 && c < 256 + (int)n)
        return c - 256;
    for (size_t i = 0; c > 0 && c < 256 && i < n; i++)
        if (t[i].letter == c)
            return (int)i;
    return -1;
}

/* --config: the file's words and the argument vector that holds them
 * (argv[0], the file's words for the flags the command line does not
 * give, the command line). String destinations point into the words, so
 * they live until the process exits. */
static qc__config_args config_words;
static char **config_argv;

static void config_free(void)
{
    qc__config_args_free(&config_words);
    free(config_argv);
    config_argv = NULL;
}

void *cli_flags_config_detach(void)
{
    if (config_words.n == 0)
        return NULL;
    qc__config_args *held = malloc(sizeof *held);
    if (!held)
        return NULL; /* they stay where they are, freed at exit */
    *held = config_words;
    memset(&config_words, 0, sizeof config_words);
    free(config_argv);
    config_argv = NULL;
    return held;
}

void cli_flags_config_release(void *held)
{
    if (!held)
        return;
    qc__config_args_free(held);
    free(held);
}

static int config_merge(const cli_flag *t, size_t n, const table_opts *to, int argc,
                        char **argv, int *margc, char ***margv)
{
    /* a first pass over a copy (getopt reorders it): the file, and which
     * rows the command line gives */
    char **copy = malloc(((size_t)argc + 1) * sizeof *copy);
    unsigned char *cmdline = calloc(n, 1);
    if (!copy || !cmdline) {
        free(copy);
        free(cmdline);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    memcpy(copy, argv, ((size_t)argc + 1) * sizeof *copy);
    const char *file = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, copy, to->shortopts, to->lo, NULL)) != -1) {
        int r = table_row(t, n, c);
        if (r < 0)
            continue;
        cmdline[r] = 1;
        if (t[r].type == CLI_CONFIG)
            file = optarg;
    }
    free(copy);
    int rc = 0;
    if (file) {
        static const char *const forbidden[] = {"config", "check", "help", NULL};
        qc_err err = {0};
        config_free();
        if ((file = cli_input_path("--config", file, CLI_PATH_IN_NONEMPTY)) == NULL ||
            cli_check_path("--config", file, CLI_PATH_IN_NONEMPTY) != 0)
            rc = QC_EXIT_USAGE;
        else if (qc__config_args_load(file, to->lo, forbidden, &config_words, &err) != 0) {
            cli_error("--config: %s", err.msg);
            rc = QC_EXIT_USAGE;
        }
        static int registered;
        if (!registered++)
            atexit(config_free);
    }
    if (rc == 0 && config_words.n > 0) {
        config_argv = malloc(((size_t)argc + (size_t)config_words.n + 1) * sizeof *config_argv);
        if (!config_argv) {
            cli_error("out of memory");
            rc = QC_EXIT_FAIL;
        }
    }
    if (rc == 0 && config_argv) {
        int k = 0;
        config_argv[k++] = argv[0];
        for (int i = 0; i < config_words.n; i++) {
            const struct option *o = to->lo;
            while (strcmp(o->name, config_words.key[i]) != 0)
                o++;
            if (!cmdline[o->val - 256])
                config_argv[k++] = config_words.word[i];
        }
        for (int i = 1; i < argc; i++)
            config_argv[k++] = argv[i];
        config_argv[k] = NULL;
        *margc = k;
        *margv = config_argv;
    }
    free(cmdline);
    return rc;
}

/* After getopt reordered the merged vector: the command line's words back
 * into argv in that order (operands last); returns the first operand. */
static int config_unmerge(int argc, char **argv, int margc, char **margv, int optind_m)
{
    int w = 1, fromfile = 0;
    for (int i = 1; i < margc; i++) {
        int own = 1;
        for (int j = 0; j < config_words.n && own; j++)
            own = margv[i] != config_words.word[j];
        if (own && w < argc)
            argv[w++] = margv[i];
        else if (!own && i < optind_m)
            fromfile++;
    }
    return optind_m - fromfile;
}

/* A double as JSON: a number when 10 digits (qc_json_write's) read back
 * to it, else the exact decimal as a string (a flag's value either way). */
static json_t *check_real(double x)
{
    char b[40];
    snprintf(b, sizeof b, "%.10g", x);
    if (strtod(b, NULL) == x)
        return json_real(x);
    for (int p = 11; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*g", p, x);
        if (strtod(b, NULL) == x)
            break;
    }
    return json_string(b);
}

/* The value of row f for --check, or NULL when it has none. A CLI_FUNC
 * row's parser may spread its argument over several fields, so a table
 * that takes --check has no such row (cli_flags_parse refuses it). */
static json_t *check_value(const cli_flag *f)
{
    switch (f->type) {
    case CLI_FUNC: return NULL;
    case CLI_BOOL: return *(const int *)f->dest ? json_true() : NULL;
    case CLI_STR: {
        const char *s = *(const char *const *)f->dest;
        return s ? json_string(s) : NULL;
    }
    case CLI_STRS: {
        const cli_strs *v = f->dest;
        if (v->n == 0)
            return NULL;
        json_t *a = json_array();
        for (unsigned i = 0; i < v->n; i++)
            json_array_append_new(a, json_string(v->v[i]));
        return a;
    }
    case CLI_DOUBLE: {
        double x = *(const double *)f->dest;
        return isfinite(x) && !(f->zero_unset && x == 0) ? check_real(x) : NULL;
    }
    case CLI_U64: {
        uint64_t u = *(const uint64_t *)f->dest;
        if (f->zero_unset && u == 0)
            return NULL;
        if (u <= INT64_MAX)
            return json_integer((json_int_t)u);
        char b[24];
        snprintf(b, sizeof b, "%llu", (unsigned long long)u);
        return json_string(b);
    }
    case CLI_UINT: {
        unsigned u = *(const unsigned *)f->dest;
        return f->zero_unset && u == 0 ? NULL : json_integer(u);
    }
    case CLI_CHOICE: {
        const char *c = f->choices;
        for (int k = *(const int *)f->dest; c && k > 0; k--)
            c = strchr(c, ',') ? strchr(c, ',') + 1 : "";
        return c && *c ? json_stringn(c, strcspn(c, ",")) : NULL;
    }
    case CLI_NOTE:
    case CLI_HELP:
    case CLI_CONFIG:
    case CLI_CHECK: return NULL;
    }
    return NULL;
}

static int check_print(const cli_flag *t, size_t n)
{
    json_t *root = json_object();
    for (size_t i = 0; i < n; i++) {
        json_t *v = check_value(&t[i]);
        if (v)
            json_object_set_new(root, t[i].name, v);
    }
    int rc = cli_json_print(root);
    return rc != 0 ? rc : CLI_DONE_CHECK;
}

int cli_flags_parse(const char *cmd, const cli_flag *t, int argc, char **argv,
                    int *first_operand, unsigned *given)
{
    size_t n = table_len(t);
    table_opts to;
    if (table_opts_make(t, n, &to) != 0)
        return QC_EXIT_FAIL;
    if (given)
        memset(given, 0, n * sizeof *given);
    if (listing_fd >= 0)
        list_table_and_exit(t, n, to.lo);
    const cli_flag *check = NULL;
    int has_config = 0;
    for (size_t i = 0; i < n; i++) {
        check = t[i].type == CLI_CHECK ? &t[i] : check;
        has_config |= t[i].type == CLI_CONFIG;
    }
    for (size_t i = 0; check && i < n; i++)
        if (t[i].type == CLI_FUNC)
            abort(); /* --check cannot print a parser row's value (check_value) */
    int margc = argc, rc = 0, checking = 0;
    char **margv = argv;
    if (has_config && (rc = config_merge(t, n, &to, argc, argv, &margc, &margv)) != 0) {
        free(to.lo);
        return rc;
    }
    int c, idx;
    opterr = 0;
    optind = 1;
    table_parsing = 1;
    while ((c = cli_getopt(margc, margv, to.shortopts, to.lo, &idx)) != -1) {
        int r = table_row(t, n, c);
        if (r < 0) {
            rc = bad_table_option(cmd, &to, margv[optind - 1]);
            break;
        }
        const cli_flag *f = &t[r];
        if (given)
            given[r]++;
        if (f->alias && idx >= 0 && strcmp(to.lo[idx].name, f->alias) == 0)
            fprintf(stderr, "qctl: --%s is deprecated; use --%s (same meaning)\n", f->alias,
                    f->name);
        if (f->type == CLI_HELP) {
            rc = CLI_DONE_HELP;
            break;
        }
        if (f->type == CLI_CHECK)
            checking = 1;
        else if ((rc = table_value(f, optarg)) != 0)
            break;
    }
    table_parsing = 0;
    free(to.lo);
    *first_operand = margv == argv ? optind : config_unmerge(argc, argv, margc, margv, optind);
    if (rc != 0 || check == NULL)
        return rc;
    if (*first_operand < argc)
        return cli_extra_operand(cmd, argv[*first_operand]);
    if (check->validate && (rc = check->validate(check->dest)) != 0)
        return rc;
    return checking ? check_print(t, n) : 0;
}

unsigned cli_flag_given(const cli_flag *t, const unsigned *given, const char *name)
{
    for (size_t i = 0; t[i].name; i++)
        if (strcmp(t[i].name, name) == 0)
            return given[i];
    return 0;
}

/* ---- row parsers shared by commands (CLI_FUNC) --------------------------- */

/* "A..B" or "A" into [lo, hi], each within [min, max]. */
static int parse_range(const char *flag, const char *s, int min, int max, int *lo, int *hi)
{
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s)
        goto bad;
    if (strncmp(end, "..", 2) == 0) {
        const char *t = end + 2;
        b = strtol(t, &end, 10);
        if (end == t)
            goto bad;
    }
    if (*end != '\0')
        goto bad;
    if (a > b || a < min || b > max) {
        cli_error("%s: '%s' must be A..B with %d <= A <= B <= %d", flag, s, min, max);
        return QC_EXIT_USAGE;
    }
    *lo = (int)a;
    *hi = (int)b;
    return 0;
bad:
    cli_error("%s: '%s' is not a range A..B of whole numbers (bad character at column %d)", flag,
              s, (int)(end - s) + 1);
    return QC_EXIT_USAGE;
}

static int parse_urange(const char *flag, const char *s, int min, int max, unsigned *lo,
                        unsigned *hi)
{
    int a, b;
    int rc = parse_range(flag, s, min, max, &a, &b);
    if (rc == 0) {
        *lo = (unsigned)a;
        *hi = (unsigned)b;
    }
    return rc;
}

static int parse_pair(const char *flag, const char *s, double *x, double *y)
{
    const char *comma = strchr(s, ',');
    if (comma == NULL || strchr(comma + 1, ',') != NULL) {
        cli_error("%s: '%s' must be two numbers U,Y", flag, s);
        return QC_EXIT_USAGE;
    }
    char first[128];
    size_t n = (size_t)(comma - s);
    if (n >= sizeof first) {
        cli_error("%s: '%s' is too long", flag, s);
        return QC_EXIT_USAGE;
    }
    memcpy(first, s, n);
    first[n] = '\0';
    if (cli_double(flag, first, x) != 0 || cli_double(flag, comma + 1, y) != 0)
        return QC_EXIT_USAGE;
    return 0;
}

int cli_range_flag(const cli_flag *f, const char *flag, const char *s)
{
    int *v = f->dest;
    return parse_range(flag, s, (int)f->min, (int)f->max, &v[0], &v[1]);
}

int cli_urange_flag(const cli_flag *f, const char *flag, const char *s)
{
    unsigned *v = f->dest;
    return parse_urange(flag, s, (int)f->min, (int)f->max, &v[0], &v[1]);
}

int cli_pair_flag(const cli_flag *f, const char *flag, const char *s)
{
    double *v = f->dest;
    return parse_pair(flag, s, &v[0], &v[1]);
}

/* A message part names the row's field: the whole field ("spec.settling")
 * or its last component ("settling"). */
static int names_field(const char *field, const char *part, size_t len)
{
    const char *dot = strrchr(field, '.');
    const char *last = dot ? dot + 1 : field;
    return (strlen(field) == len && strncmp(field, part, len) == 0) ||
           (strlen(last) == len && strncmp(last, part, len) == 0);
}

int cli_flags_map_field(const cli_flag *t, const char *msg, char *out, size_t n)
{
    /* the parts before the message's last ": " are context, the field
     * among them; the first part that names a row's field wins */
    for (const char *p = msg, *end; (end = strstr(p, ": ")) != NULL; p = end + 2)
        for (size_t i = 0; t[i].name; i++)
            if (t[i].field && names_field(t[i].field, p, (size_t)(end - p))) {
                snprintf(out, n, "--%s: %s", t[i].name, end + 2);
                return 1;
            }
    snprintf(out, n, "%s", msg);
    return 0;
}

int cli_flags_error(const cli_flag *t, const char *cmd, int rc, const qc_err *err)
{
    char msg[sizeof err->msg + 64];
    cli_flags_map_field(t, err->msg, msg, sizeof msg);
    if (cmd)
        cli_error("%s: %s", cmd, msg);
    else
        cli_error("%s", msg);
    return cli_exit_code(rc);
}

void cli_flags_usage(FILE *f, const char *synopsis, const char *about, const cli_flag *t)
{
    fprintf(f, "usage: %s\n", synopsis);
    if (about)
        fprintf(f, "\n%s", about);
    fputs("\nOptions:\n", f);
    for (size_t i = 0; t[i].name; i++) {
        if (t[i].type == CLI_NOTE) {
            fprintf(f, "%s\n", t[i].help);
            continue;
        }
        char head[64], letter[8] = "";
        if (t[i].letter)
            snprintf(letter, sizeof letter, "-%c, ", t[i].letter);
        snprintf(head, sizeof head, "%s--%s%s%s", letter, t[i].name, t[i].arg ? " " : "",
                 t[i].arg ? t[i].arg : "");
        fprintf(f, "  %-20s", head);
        if (strlen(head) > 20)
            fprintf(f, "\n  %-20s", "");
        const char *h = t[i].help ? t[i].help : "";
        for (;;) {
            const char *nl = strchr(h, '\n');
            if (nl == NULL) {
                fprintf(f, " %s\n", h);
                break;
            }
            fprintf(f, " %.*s\n  %-20s", (int)(nl - h), h, "");
            h = nl + 1;
        }
    }
}

/* ---- commands, help, completion, man -------------------------------------- */

static int cmd_sim_group(int argc, char **argv) { return cmd_sim(argc, argv); }
static int cmd_mdp_group(int argc, char **argv) { return cmd_mdp(argc, argv); }

const cli_command_row cli_commands[] = {
    {"sim", cmd_sim_group, "simulation models (queue, pool, maxusers, admission, network, proxy)"},
    {"sim queue", cmd_sim_queue, "simulate an open G/G/c/K queue (FCFS or processor sharing)"},
    {"sim pool", cmd_sim_pool, "simulate K removable servers: routing, on/off policies, energy"},
    {"sim maxusers", cmd_sim_maxusers, "MaxUsers feedback control of a closed-population server"},
    {"sim admission", cmd_sim_admission, "autonomic admission control of delay-bounded classes"},
    {"sim network", cmd_sim_network, "a network of queues from JSON, exact MVA/product form beside it"},
    {"sim proxy", cmd_sim_proxy, "the simulated twin of qctl proxy: its front before backends"},
    {"sysid", cmd_sysid, "identify an ARX model of a system from (time, u, y) data"},
    {"design", cmd_design, "integral and PI controller design from an ARX model"},
    {"fit", cmd_fit, "traffic models (per activity) from a capture: fits, copula, on/off"},
    {"gen", cmd_gen, "generate many users' traffic from models (pcap or CSV); --validate"},
    {"mdp", cmd_mdp_group, "Markov decision processes (removable)"},
    {"mdp removable", cmd_mdp_removable, "optimal on/off and speed policy of a removable server"},
    {"sweep", cmd_sweep, "run an experiment over a grid of parameters (local or MPI)"},
    {"proxy", cmd_proxy, "HTTP reverse proxy with live admission control"},
    {"gate", cmd_gate, "TCP proxy limiting the sessions connected at once (MaxUsers), live control"},
    {"control", cmd_control, "a controller driving haproxy, pgbouncer or a program from a sensor"},
    {"backend", cmd_backend, "HTTP server with a service-time distribution (demos, tests)"},
    {"load", cmd_load, "open-loop HTTP load generator"},
    {"help", cmd_help, "the help of a command: qctl help COMMAND [SUBCOMMAND]"},
    {"completion", cmd_completion, "shell completion (bash, zsh) or the man page's command sections"},
    {NULL, NULL, NULL}};

static const char *last_word(const char *name)
{
    const char *sp = strrchr(name, ' ');
    return sp ? sp + 1 : name;
}

static int is_group(const cli_command_row *c)
{
    return c->fn == cmd_sim_group || c->fn == cmd_mdp_group;
}

const cli_command_row *cli_find_command(int argc, char **argv, int *used)
{
    const cli_command_row *best = NULL;
    for (const cli_command_row *c = cli_commands; c->name; c++) {
        char w[64];
        snprintf(w, sizeof w, "%s", c->name);
        int k = 0, ok = 1;
        for (char *save = NULL, *tok = strtok_r(w, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save), k++)
            if (k >= argc || strcmp(tok, argv[k]) != 0) {
                ok = 0;
                break;
            }
        if (ok && (!best || k > *used)) {
            best = c;
            *used = k;
        }
    }
    return best;
}

/* Runs c in a child with argv {last word, extra}, its stdout into buf
 * when capture is set; in listing mode the parser writes its table. */
static int run_child(const cli_command_row *c, const char *extra, int listing, char *buf,
                     size_t n)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            dup2(fileno(null), STDERR_FILENO);
            if (listing)
                dup2(fileno(null), STDOUT_FILENO);
        }
        if (listing)
            listing_fd = fd[1];
        else
            dup2(fd[1], STDOUT_FILENO);
        char *argv[3] = {(char *)last_word(c->name), (char *)extra, NULL};
        cli_command = c->name;
        int rc = c->fn(extra ? 2 : 1, argv);
        fflush(stdout);
        _exit(listing ? 100 : rc);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t r;
    while ((r = read(fd[0], buf + len, n - 1 - len)) > 0)
        if ((len += (size_t)r) >= n - 1)
            break;
    close(fd[0]);
    buf[len] = '\0';
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || (listing && WEXITSTATUS(st) != 0))
        return -1;
    return (int)len;
}

int cli_list_flags(const cli_command_row *c, char *buf, size_t n)
{
    if (run_child(c, NULL, 1, buf, n) < 0)
        return -1;
    int count = 0;
    for (const char *p = buf; *p; p++)
        count += *p == '\n';
    return count;
}

static const char help_usage[] =
    "usage: qctl help [COMMAND [SUBCOMMAND]]\n"
    "\n"
    "Prints the help of a command (the same as 'qctl COMMAND --help'), or\n"
    "the list of commands.\n";

int cmd_help(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(help_usage, stdout);
        return 0;
    }
    if (argc < 2)
        return -1; /* main prints the list of commands */
    int used = 0;
    const cli_command_row *c = cli_find_command(argc - 1, argv + 1, &used);
    if (c == NULL || used != argc - 1) {
        cli_error("help: no command '%s' (see 'qctl --help')", argv[argc - 1]);
        return QC_EXIT_USAGE;
    }
    if (c->fn == cmd_help) {
        fputs(help_usage, stdout);
        return 0;
    }
    char *a[3] = {(char *)last_word(c->name), "--help", NULL};
    cli_command = c->name;
    return c->fn(2, a);
}

static const char completion_usage[] =
    "usage: qctl completion bash|zsh|man\n"
    "\n"
    "Prints a completion script for bash or zsh, generated from the flags\n"
    "each command's parser accepts:\n"
    "  bash: source <(qctl completion bash)\n"
    "  zsh:  source <(qctl completion zsh)   (after compinit)\n"
    "'man' prints the man page's section of every command's options (roff),\n"
    "from the same commands' help texts.\n";

#define LIST_MAX 16384

/* The words of the flags in out, "--a --b ", without the '='. */
static void flag_words(const char *buf, char *out)
{
    char *w = out;
    for (const char *r = buf; *r; r++) {
        if (r == buf || r[-1] == '\n') {
            *w++ = '-';
            *w++ = '-';
        }
        if (*r == '\n')
            *w++ = ' ';
        else if (*r == '=') /* the choices after it are not a flag */
            while (r[1] && r[1] != '\n')
                r++;
        else
            *w++ = *r;
    }
    *w = '\0';
}

/* The units of the number flags in out, "--a:seconds;--b:integer;" (for
 * bash). */
static void flag_units(const char *buf, char *out)
{
    char *w = out;
    for (const char *line = buf; *line;) {
        const char *nl = strchr(line, '\n'), *eq = strchr(line, '=');
        const char *end = nl ? nl : line + strlen(line);
        if (eq && eq + 1 < end && eq[1] == '#')
            w += sprintf(w, "--%.*s:%.*s;", (int)(eq - line), line, (int)(end - eq - 2), eq + 2);
        line = nl ? nl + 1 : end;
    }
    *w = '\0';
}

/* The choices of the flags in out, "--a:x y;--b:u v;" (for bash). */
static void flag_choices(const char *buf, char *out)
{
    char *w = out;
    for (const char *line = buf; *line;) {
        const char *nl = strchr(line, '\n'), *eq = strchr(line, '=');
        const char *end = nl ? nl : line + strlen(line);
        if (eq && eq < end && eq + 1 < end && eq[1] != '#') {
            w += sprintf(w, "--%.*s:", (int)(eq - line), line);
            for (const char *r = eq + 1; r < end; r++)
                *w++ = *r == ',' ? ' ' : *r;
            *w++ = ';';
        }
        line = nl ? nl + 1 : end;
    }
    *w = '\0';
}

static int completion_bash(void)
{
    char *buf = malloc(LIST_MAX * 2);
    if (buf == NULL)
        return QC_EXIT_FAIL;
    puts("# bash completion for qctl, generated by 'qctl completion bash'");
    puts("_qctl() {");
    puts("    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}");
    puts("    local cmd=${COMP_WORDS[1]} sub=${COMP_WORDS[2]} flags= choices= units= rest=");
    puts("    if [ \"$COMP_CWORD\" -eq 1 ]; then");
    fputs("        COMPREPLY=($(compgen -W \"", stdout);
    for (const cli_command_row *c = cli_commands; c->name; c++)
        if (!strchr(c->name, ' '))
            printf("%s ", c->name);
    puts("--help --version\" -- \"$cur\")); return");
    puts("    fi");
    puts("    case \"$cmd $sub\" in");
    for (const cli_command_row *c = cli_commands; c->name; c++) {
        if (is_group(c) || c->fn == cmd_help || c->fn == cmd_completion)
            continue;
        if (cli_list_flags(c, buf, LIST_MAX) < 0)
            continue;
        flag_words(buf, buf + LIST_MAX);
        printf("    \"%s\"%s) flags=\"%s--progress --force\"", c->name,
               strchr(c->name, ' ') ? "" : "\\ *", buf + LIST_MAX);
        flag_choices(buf, buf + LIST_MAX);
        printf(" choices=\"%s\"", buf + LIST_MAX);
        flag_units(buf, buf + LIST_MAX);
        printf(" units=\"%s\" ;;\n", buf + LIST_MAX);
    }
    /* the groups: their subcommands */
    puts("    \"sim \"*) COMPREPLY=($(compgen -W \"queue pool maxusers admission network proxy\" -- \"$cur\")); return ;;");
    puts("    \"mdp \"*) COMPREPLY=($(compgen -W \"removable\" -- \"$cur\")); return ;;");
    puts("    \"help \"*) COMPREPLY=($(compgen -W \"sim mdp sysid design fit gen sweep proxy gate backend load control completion\" -- \"$cur\")); return ;;");
    puts("    \"completion \"*) COMPREPLY=($(compgen -W \"bash zsh man\" -- \"$cur\")); return ;;");
    puts("    esac");
    /* a choice flag's words: choices holds "--flag:a b;" per flag */
    puts("    rest=\";$choices\"; rest=${rest#*;$prev:}");
    puts("    if [[ \"$prev\" == -* && \"$rest\" != \";$choices\" ]]; then");
    puts("        COMPREPLY=($(compgen -W \"${rest%%;*}\" -- \"$cur\")); return");
    puts("    fi");
    /* a number flag's unit, shown (two entries, so nothing is inserted)
     * rather than file names */
    puts("    rest=\";$units\"; rest=${rest#*;$prev:}");
    puts("    if [[ \"$prev\" == -* && \"$rest\" != \";$units\" ]]; then");
    puts("        [ -z \"$cur\" ] && COMPREPLY=(\"<${rest%%;*}>\" \"\"); return");
    puts("    fi");
    puts("    case \"$prev\" in");
    puts("    --output|--series|--plot|--report|--csv|--sensor-csv|--model|--scenario|--out|--labels|\\");
    puts("    --validate|--results|--traffic|--replay|--config|--port-file|--admin-port-file|--sensor-model)");
    puts("        COMPREPLY=($(compgen -f -- \"$cur\")); return ;;");
    puts("    esac");
    puts("    if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"));");
    puts("    else COMPREPLY=($(compgen -f -- \"$cur\")); fi");
    puts("}");
    puts("complete -F _qctl qctl");
    free(buf);
    return 0;
}

static int completion_zsh(void)
{
    char *buf = malloc(LIST_MAX * 2);
    if (buf == NULL)
        return QC_EXIT_FAIL;
    puts("#compdef qctl");
    puts("# zsh completion for qctl, generated by 'qctl completion zsh'");
    puts("_qctl() {");
    puts("    local -a cmds flags");
    fputs("    cmds=(", stdout);
    for (const cli_command_row *c = cli_commands; c->name; c++)
        if (!strchr(c->name, ' ')) {
            printf("'%s:", c->name);
            for (const char *s = c->summary; *s; s++)
                fputs(*s == '\'' ? "'\\''" : *s == ':' ? "\\:" : (char[2]){*s, 0}, stdout);
            fputs("' ", stdout);
        }
    puts(")");
    puts("    if (( CURRENT == 2 )); then _describe command cmds; return; fi");
    puts("    case \"${words[2]} ${words[3]}\" in");
    for (const cli_command_row *c = cli_commands; c->name; c++) {
        if (is_group(c) || c->fn == cmd_help || c->fn == cmd_completion)
            continue;
        if (cli_list_flags(c, buf, LIST_MAX) < 0)
            continue;
        /* a flag taking a value completes it as a file */
        fputs("    ", stdout);
        printf("\"%s\"%s) flags=(", c->name, strchr(c->name, ' ') ? "" : "\\ *");
        for (char *save = NULL, *tok = strtok_r(buf, "\n", &save); tok;
             tok = strtok_r(NULL, "\n", &save)) {
            size_t l = strlen(tok);
            const char *eq = strchr(tok, '=');
            if (eq && eq[1] == '#') /* a number: its unit, shown, nothing completed */
                printf("'--%.*s=:%s: ' ", (int)(eq - tok), tok, eq + 2);
            else if (eq && eq[1]) { /* a choice: its words */
                printf("'--%.*s=:value:(", (int)(eq - tok), tok);
                for (const char *r = eq + 1; *r; r++)
                    putchar(*r == ',' ? ' ' : *r);
                fputs(")' ", stdout);
            } else if (tok[l - 1] == '=')
                printf("'--%.*s=:value:_files' ", (int)(l - 1), tok);
            else
                printf("'--%s' ", tok);
        }
        puts("'--progress' '--force') ;;");
    }
    puts("    \"sim \"*) _values model queue pool maxusers admission network proxy; return ;;");
    puts("    \"mdp \"*) _values model removable; return ;;");
    puts("    \"help \"*) _describe command cmds; return ;;");
    puts("    \"completion \"*) _values shell bash zsh man; return ;;");
    puts("    esac");
    puts("    _arguments -s '*:file:_files' $flags");
    puts("}");
    puts("compdef _qctl qctl");
    free(buf);
    return 0;
}

/* The help text as roff: backslashes and leading dots escaped. */
static void roff_text(const char *s)
{
    int bol = 1;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", stdout);
        if (*s == '\\')
            fputs("\\e", stdout);
        else if (*s == '-')
            fputs("\\-", stdout);
        else
            putchar(*s);
        bol = *s == '\n';
    }
}

static int completion_man(void)
{
    char *buf = malloc(LIST_MAX * 4);
    if (buf == NULL)
        return QC_EXIT_FAIL;
    puts(".\\\" generated by 'qctl completion man' from each command's --help");
    for (const cli_command_row *c = cli_commands; c->name; c++) {
        if (is_group(c))
            continue;
        char *a = buf;
        if (c->fn == cmd_help)
            a = (char *)help_usage;
        else if (c->fn == cmd_completion)
            a = (char *)completion_usage;
        else if (run_child(c, "--help", 0, buf, LIST_MAX * 4) < 0)
            continue;
        printf(".SS \"qctl %s\"\n", c->name);
        roff_text(c->summary);
        putchar(10);
        puts(".PP\n.nf");
        roff_text(a);
        puts(".fi");
    }
    free(buf);
    return 0;
}

int cmd_completion(int argc, char **argv)
{
    if (argc != 2) {
        fputs(completion_usage, argc == 1 ? stderr : stdout);
        if (argc > 2 || argc == 1)
            cli_error("completion: give one of bash, zsh, man");
        return QC_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(completion_usage, stdout);
        return 0;
    }
    if (strcmp(argv[1], "bash") == 0)
        return completion_bash();
    if (strcmp(argv[1], "zsh") == 0)
        return completion_zsh();
    if (strcmp(argv[1], "man") == 0)
        return completion_man();
    cli_error("completion: '%s' is not bash, zsh or man", argv[1]);
    return QC_EXIT_USAGE;
}

int cli_flags_parse_command(const char *cmd, const char *synopsis, const char *about,
                            const cli_flag *t, int argc, char **argv, unsigned *given)
{
    int first = 0;
    int rc = cli_flags_parse(cmd, t, argc, argv, &first, given);
    if (rc == CLI_DONE_HELP) {
        cli_flags_usage(stdout, synopsis, about, t);
        return CLI_DONE_HELP;
    }
    if (rc != 0)
        return rc;
    if (first < argc)
        return cli_extra_operand(cmd, argv[first]);
    return 0;
}
