/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep.c: qctl sweep: runs a qctl experiment over a grid of parameters,
 * with replications, locally in parallel or across MPI ranks: its flags,
 * then app/sweep_run.c (the journal, the runs and the outputs). */
#include <math.h>
#include <unistd.h>

#include "cli.h"
#include "sweep_master.h"

static const char sweep_synopsis[] = "qctl sweep FILE [options]";

static const char sweep_about[] =
    "Runs a qctl experiment (sim, mdp, design, sysid) over a grid of parameters\n"
    "with replications, each run a child process, and collects metrics from its\n"
    "JSON output: mean and t-interval across replications per point. Started by\n"
    "mpirun, rank 0 hands points out to the other ranks. See docs/sweep.md.\n";

static int parse_opts(int argc, char **argv, sweep_opts *o)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cpus > 0 ? (unsigned)cpus : 1;
    int help = 0, first = 0;
    o->sets.v = o->set_v;
    const cli_flag flags[] = {
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
        CLI_ROW_HELP(&help),
        {"", CLI_NOTE, NULL,
         .help = "\nA rerun of the same command resumes from the journal. A run that fails\n"
                 "makes its point an error row; the sweep goes on and exits 1."},
        {0}};
    int rc = cli_flags_parse("sweep", flags, argc, argv, &first, NULL);
    if (rc < 0)
        cli_flags_usage(stdout, sweep_synopsis, sweep_about, flags);
    if (rc != 0)
        return rc;
    if (first >= argc) {
        cli_error("sweep: a sweep FILE is required (see 'qctl sweep --help')");
        return QC_EXIT_USAGE;
    }
    o->file = argv[first++];
    if (first < argc)
        return cli_extra_operand("sweep", argv[first]);
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o = {.argc = argc, .argv = argv, .commands = cli_commands};
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    return sweep_main(&o);
}
