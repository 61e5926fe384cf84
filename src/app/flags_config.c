/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags_config.c: --config FILE.json and --check of a flag table (see
 * flags.h): the file's words are parsed by the same rows as the command
 * line's, ahead of it, and --check prints every row's value as the JSON
 * object --config reads back, so the two cannot disagree. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/config.h"
#include "cmdline.h"
#include "flags.h"
#include "flags_int.h"
#include "guard.h"
#include "result.h"


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

int cli__config_merge(const cli_flag *t, size_t n, const cli__table_opts *to, int argc,
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
        int r = cli__table_row(t, n, c);
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
int cli__config_unmerge(int argc, char **argv, int margc, char **margv, int optind_m)
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

int cli__check_print(const cli_flag *t, size_t n)
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
