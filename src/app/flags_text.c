/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags_text.c: what a flag table says to its user: the usage text from
 * the rows, a refused flag with "did you mean", and a library message
 * naming a field said with the field's flag instead. */
#include <string.h>

#include "cmdline.h"
#include "flags.h"
#include "flags_int.h"


/* What getopt refused, said precisely: a value missing, a prefix that
 * names several flags, or an unknown flag with the one it most likely
 * meant ("did you mean"). */
int cli__bad_table_option(const char *cmd, const cli__table_opts *to, const char *arg)
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
