/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_cli.c: --report DIR, shared by the experiment commands (see
 * report_cli.h). */
#include "report_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "qctl/output.h"
#include "app/report.h"

int cli_report_prepare(const char *dir)
{
    struct stat st;
    if (*dir == '\0') {
        cli_error("--report: empty directory name");
        return QC_EXIT_USAGE;
    }
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        cli_error("--report: '%s' exists and is not a directory", dir);
        return QC_EXIT_USAGE;
    }
    /* a parent that is a file is the same mistake, one level up */
    int bad = 0;
    char *p = malloc(strlen(dir) + 1);
    if (p == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    strcpy(p, dir);
    for (size_t i = strlen(p); i-- > 1 && !bad;) {
        if (p[i] != '/')
            continue;
        p[i] = '\0';
        if (stat(p, &st) == 0) { /* the deepest existing parent */
            bad = !S_ISDIR(st.st_mode);
            break;
        }
    }
    if (bad)
        cli_error("--report: '%s' is not a directory (in '%s')", p, dir);
    free(p);
    if (bad)
        return QC_EXIT_USAGE;
    qc_err err = {0};
    if (qc_mkdir_p(dir, &err) != 0) {
        cli_error("--report: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

int cli_report_write(const char *dir, const char *cmd, int argc, char **argv,
                     const json_t *summary, const char *const *plots, size_t nplots)
{
    /* "qctl" + the words of cmd + the options (argv[0] is cmd's last word) */
    size_t words = 1;
    for (const char *p = cmd; *p; p++)
        words += *p == ' ';
    size_t nfull = 1 + words + (argc > 1 ? (size_t)argc - 1 : 0);
    char **full = calloc(nfull, sizeof *full);
    char *cmdcopy = malloc(strlen(cmd) + 1);
    size_t tlen = strlen(cmd) + 8;
    char *title = malloc(tlen);
    if (full == NULL || cmdcopy == NULL || title == NULL) {
        free(full);
        free(cmdcopy);
        free(title);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    strcpy(cmdcopy, cmd);
    snprintf(title, tlen, "qctl %s", cmd);
    size_t k = 0;
    full[k++] = "qctl";
    for (char *w = strtok(cmdcopy, " "); w; w = strtok(NULL, " "))
        full[k++] = w;
    for (int i = 1; i < argc; i++)
        full[k++] = argv[i];
    if (nplots > 0 && !qc_plot_available())
        fprintf(stderr, "qctl: gnuplot not found; the report in %s has tables only\n", dir);
    qc_err err = {0};
    int rc = qc_report_write(dir, title, (int)k, full, summary, plots, nplots, &err);
    if (rc != 0)
        cli_error("--report: %s", err.msg);
    free(full);
    free(cmdcopy);
    free(title);
    return rc == 0 ? 0 : QC_EXIT_FAIL;
}
