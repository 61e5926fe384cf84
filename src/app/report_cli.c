/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_cli.c: --report DIR, shared by the experiment commands (see
 * report_cli.h). */
#include "report_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmdline.h"
#include "qctl/output.h"
#include "app/report.h"
#include "app/report_story.h"

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

/* What each command does, in a reader's words: the first paragraph of its
 * report. */
static const char *const report_about[][2] = {
    {"sim queue",
     "A discrete-event simulation of a queue: jobs arrive by the given arrival process, wait "
     "and are served by the given service distribution and discipline. Each figure is an "
     "estimate over independent replications (or batch means) after the warm-up cut "
     "(the start of each run discarded as not yet stationary), with its confidence "
     "interval; where a closed form exists it is printed beside the estimate. Times are in "
     "seconds."},
    {"sim pool",
     "A simulation of K parallel servers that can be switched off: jobs are routed on "
     "arrival by the named policy, an idle server may switch off, and a server switched on "
     "passes through a setup time before it serves. Power is counted with the busy, idle, "
     "setup and off figures given (watts). Each figure is an estimate over replications "
     "after the warm-up cut, with its confidence interval. Times are in seconds."},
    {"sim maxusers",
     "A simulation of a server whose MaxUsers limit (most users connected at once) is set "
     "every control interval by an integral controller tracking a reference for RIS, the "
     "RPCs in server, after Parekh, Gandhi, Hellerstein et al. (ACC 2001; Real-Time "
     "Systems 23, 2002). Times are in seconds."},
    {"sim admission",
     "A simulation of one server shared by classes with delay bounds and a best-effort "
     "class: each class measures its own mean delay over a busy cycle and sets its own "
     "priority, admitted classes tracking (1 - epsilon) times their bound and candidates "
     "raising theirs in slow start. Delays are in seconds."},
    {"sim proxy",
     "A simulation of qctl proxy: the proxy's limiter, waiting rooms, deadlines, queue "
     "discipline and class scheduling in front of simulated backends of c workers, fed by "
     "simulated clients. Latencies are the admitted requests' own, from arrival at the "
     "proxy to the answer; refusals are the 503s the proxy would send, by reason. Each "
     "figure is an estimate over replications with its confidence interval. Times are in "
     "seconds."},
    {"mdp removable",
     "The optimal on/off and speed policy of an M/M/1 queue with a removable server "
     "(switching on takes an exponential setup time), solved exactly as an average-cost "
     "Markov decision process by uniformization (after Badian-Pessot, Lewis and Down). "
     "The figures are exact for the truncated chain, not estimates."},
    {"sweep",
     "A sweep: one qctl command run at every point of a grid of parameters, each point "
     "with its replications; the tables list every point and the figures plot each metric "
     "against the parameter with the most values, one line per value of the others, with "
     "the confidence intervals as error bars."},
    {"fit",
     "A traffic model fitted to a capture: per group (activity or flow), the packet sizes "
     "(bytes) and gaps (seconds) fitted by candidate distributions chosen by AIC, the "
     "dependence between them as an empirical copula, and on/off periods where the capture "
     "shows them (after Stoudt, Badian-Pessot et al., American Journal of Undergraduate "
     "Research 13(3), 2016). The tables show the selected model of each part and how the "
     "candidates compare; fit.json beside this page holds every candidate's parameters, "
     "standard errors and intervals."},
    {"gen",
     "Traffic generated from a fitted model, per user and activity; with --validate, the "
     "generated traffic compared with the capture it was fitted to."},
    {"sysid",
     "A first-order ARX model y(k+1) = a y(k) + b u(k) identified by least squares from a "
     "logged experiment, in offsets from the operating point, with its fit and residuals."},
    {"design",
     "A controller designed for an identified model: the gain chosen for the stated "
     "settling time and overshoot, with the closed-loop poles, margins and the predicted "
     "step response."},
};

int cli_report_write(const char *dir, const char *cmd, int argc, char **argv,
                     const json_t *summary, const char *const *plots, size_t nplots)
{
    return cli_report_write_story(dir, cmd, NULL, argc, argv, summary, plots, nplots);
}

int cli_report_write_story(const char *dir, const char *cmd, const char *findings, int argc,
                           char **argv, const json_t *summary, const char *const *plots,
                           size_t nplots)
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
    /* the run's own story, from its summary, where the caller has none */
    char *run = NULL, *shows = NULL;
    if (findings == NULL && qc_report_story(cmd, summary, &run, &shows) < 0) {
        free(full);
        free(cmdcopy);
        free(title);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    qc_err err = {0};
    const char *about = NULL;
    for (size_t i = 0; i < sizeof report_about / sizeof report_about[0]; i++)
        if (strcmp(cmd, report_about[i][0]) == 0)
            about = report_about[i][1];
    int rc = qc_report_write_story(dir, title, about, run, shows ? shows : findings, (int)k, full,
                                   summary, plots, nplots, &err);
    if (rc != 0)
        cli_error("--report: %s", err.msg);
    free(run);
    free(shows);
    free(full);
    free(cmdcopy);
    free(title);
    return rc == 0 ? 0 : QC_EXIT_FAIL;
}
