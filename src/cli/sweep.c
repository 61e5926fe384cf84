/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep.c: qctl sweep: runs a qctl experiment over a grid of parameters,
 * with replications, locally in parallel or across MPI ranks: its flags,
 * then app/sweep_run.c (the journal, the runs and the outputs). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sweep_master.h"

static const char sweep_synopsis[] = "qctl sweep FILE [options]";

static const char sweep_about[] =
    "Runs a qctl experiment (sim, mdp, design, sysid) over a grid of parameters\n"
    "with replications, each run a child process, and collects metrics from its\n"
    "JSON output: mean and t-interval across replications per point. Started by\n"
    "mpirun, rank 0 hands points out to the other ranks. See docs/sweep.md.\n";

static int sweep_validate(void *ctx);

/* 1 when the word w is a flag of t whose value is the next word. */
static int takes_next(const cli_flag *t, const char *w)
{
    if (strcmp(w, "-j") == 0)
        return 1;
    if (strncmp(w, "--", 2) != 0 || strchr(w, '=') != NULL)
        return 0;
    for (; t->name; t++)
        if (strcmp(t->name, w + 2) == 0)
            return t->type != CLI_BOOL && t->type != CLI_HELP && t->type != CLI_CHECK &&
                   t->type != CLI_NOTE;
    return 0;
}

static int parse_opts(int argc, char **argv, sweep_opts *o)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cpus > 0 ? (unsigned)cpus : 1;
    int help = 0, first = 0;
    o->sets.v = o->set_v;
    const cli_flag flags[] = {
        {"file", CLI_STR, &o->file, .arg = "FILE",
         .help = "the sweep file (or as the word after 'sweep'): the\n"
                 "experiment, its grid and metrics (docs/sweep.md)"},
        {"set", CLI_STRS, &o->sets, 0, QC_SWEEP_SETS_MAX, .arg = "PATH=JSON",
         .help = "override a field of the file (repeatable), e.g.\n"
                 "--set reps=2 --set args.customers=20000\n"
                 "--set 'params.load=[0.5,0.9]'"},
        {"jobs", CLI_UINT, &o->jobs, 1, HUGE_VAL, .letter = 'j', .arg = "N",
         .help = "runs at once (default: online CPUs)"},
        {"results", CLI_STR, &o->results, .path = CLI_PATH_OUT_PREFIX, .arg = "BASE",
         .help = "write BASE.csv, BASE.json and the journal\n"
                 "BASE.journal (default: ./STEM-results, STEM the\n"
                 "file's name without .json)"},
        {"fresh", CLI_BOOL, &o->fresh, .help = "discard the journal and start over"},
        {"report", CLI_STR, &o->report, .arg = "DIR",
         .help = "HTML report: each metric against the first numeric\n"
                 "parameter, one line per value of the others"},
        {"quiet", CLI_BOOL, &o->quiet, .help = "no progress line and no summary line"},
        CLI_ROWS_CONFIG_CHECK(o, sweep_validate),
        CLI_ROW_HELP(&help),
        {"", CLI_NOTE, NULL,
         .help = "\nA rerun of the same command resumes from the journal. A run that fails\n"
                 "makes its point an error row; the sweep goes on and exits 1. Before any\n"
                 "run, and with --check instead of running, every point's command line\n"
                 "goes through the experiment's own --check: a point it refuses stops the\n"
                 "sweep (exit 2, naming the file and the point). --check reads the journal\n"
                 "but writes nothing. --config holds these flags (FILE as \"file\"); the\n"
                 "sweep's definition is FILE itself."},
        {0}};
    /* `sweep FILE [options]`: the operand, wherever it stands, as --file */
    char **av = calloc((size_t)argc + 2, sizeof *av);
    if (av == NULL) {
        cli_error("sweep: out of memory");
        return QC_EXIT_FAIL;
    }
    int ac = 0, moved = 0, dashes = 0;
    av[ac++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (!dashes && strcmp(w, "--") == 0) {
            dashes = 1;
            continue;
        }
        if (!moved && (dashes || w[0] != '-' || strcmp(w, "-") == 0)) {
            av[ac++] = (char *)"--file";
            av[ac++] = argv[i];
            moved = 1;
            continue;
        }
        av[ac++] = argv[i];
        if (!dashes && takes_next(flags, w) && i + 1 < argc)
            av[ac++] = argv[++i];
    }
    int rc = cli_flags_parse("sweep", flags, ac, av, &first, NULL);
    if (rc == CLI_DONE_HELP)
        cli_flags_usage(stdout, sweep_synopsis, sweep_about, flags);
    free(av);
    return rc;
}

static int sweep_validate(void *ctx)
{
    return sweep_check(ctx);
}

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o = {.argc = argc, .argv = argv, .commands = cli_commands};
    int rc = parse_opts(argc, argv, &o);
    if (rc == 0)
        rc = sweep_main(&o);
    else if (rc < 0)
        rc = 0;
    sweep_opts_free(&o);
    return rc;
}
