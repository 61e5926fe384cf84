/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags.c: the parser of a flag table and cli_getopt (see flags.h): one
 * table makes the getopt options, the values' checks, the usage, --config
 * and --check, and the listing completion is generated from, so none of
 * them can drift from what the parser accepts. */
#include "flags.h"
#include "flags_int.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/config.h"
#include "cmdline.h"
#include "guard.h"
#include "qctl/output.h"
#include "result.h"

const char *cli_command = NULL;
int cli_progress_forced = 0;
int cli_force = 0;
int cli_flag_reported = 0;

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
    if (cli__listing_fd >= 0)
        cli__list_and_exit(longopts);
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
    /* a table's parser checks its paths itself (cli__table_value) */
    cli_path_kind kind = cli__table_parsing ? 0 : cli_path_flag(cli_command, name);
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

size_t cli__table_len(const cli_flag *t)
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

static int table_opts_make(const cli_flag *t, size_t n, cli__table_opts *to)
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


/* The row getopt's answer c names, or -1. */
int cli__table_row(const cli_flag *t, size_t n, int c)
{
    if (c >= 256 && c < 256 + (int)n)
        return c - 256;
    for (size_t i = 0; c > 0 && c < 256 && i < n; i++)
        if (t[i].letter == c)
            return (int)i;
    return -1;
}

int cli_flags_parse(const char *cmd, const cli_flag *t, int argc, char **argv,
                    int *first_operand, unsigned *given)
{
    size_t n = cli__table_len(t);
    cli__table_opts to;
    if (table_opts_make(t, n, &to) != 0)
        return QC_EXIT_FAIL;
    if (given)
        memset(given, 0, n * sizeof *given);
    if (cli__listing_fd >= 0)
        cli__list_table_and_exit(t, n, to.lo);
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
    if (has_config && (rc = cli__config_merge(t, n, &to, argc, argv, &margc, &margv)) != 0) {
        free(to.lo);
        return rc;
    }
    int c, idx;
    opterr = 0;
    optind = 1;
    cli__table_parsing = 1;
    while ((c = cli_getopt(margc, margv, to.shortopts, to.lo, &idx)) != -1) {
        int r = cli__table_row(t, n, c);
        if (r < 0) {
            rc = cli__bad_table_option(cmd, &to, margv[optind - 1]);
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
        else if ((rc = cli__table_value(f, optarg)) != 0)
            break;
    }
    cli__table_parsing = 0;
    free(to.lo);
    *first_operand = margv == argv ? optind : cli__config_unmerge(argc, argv, margc, margv, optind);
    if (rc != 0 || check == NULL)
        return rc;
    if (*first_operand < argc)
        return cli_extra_operand(cmd, argv[*first_operand]);
    if (check->validate && (rc = check->validate(check->dest)) != 0)
        return rc;
    return checking ? cli__check_print(t, n) : 0;
}

unsigned cli_flag_given(const cli_flag *t, const unsigned *given, const char *name)
{
    for (size_t i = 0; t[i].name; i++)
        if (strcmp(t[i].name, name) == 0)
            return given[i];
    return 0;
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
