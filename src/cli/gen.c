/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen.c: `qctl gen`, traffic from model files: a mix of users and
 * activities written as pcap or CSV; and `qctl gen --validate CAPTURE`,
 * the fitted-distribution and copula approaches compared with a real
 * capture side by side. Its flags; the work is app/gen_cmd.c's. */
#include <math.h>

#include "app/gen_cmd.h"
#include "cli.h"
#include "result.h"

static const char synopsis[] =
    "qctl gen --model FILE... (--duration T | --packets N) --output FILE [options]\n"
    "       qctl gen --validate CAPTURE [--model FILE] [options]";

static const char about[] =
    "Generates the traffic of many users from traffic models (written by\n"
    "'qctl fit --out DIR'), each user an independent random stream.\n";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_gen sets every field before the flags are read. */
static gen_cli G;
static int help;

static const int approaches[] = {QC_TRAFFIC_COPULA, QC_TRAFFIC_FITTED, QC_TRAFFIC_COPULA_FITTED};
static const cli_flag flags[] = {
    {"model", CLI_STRS, &G.models, .max = QC_APP_GEN_MAX_MODELS, .field = "models",
     .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
     .help = "a model file; repeat for a mix of activities"},
    {"users", CLI_STR, CLI_AT(&G.p, users), .arg = "LIST",
     .help = "users per activity, e.g. web=300,video=50,gaming=20\n(default 1 of each model)"},
    {"duration", CLI_DOUBLE, CLI_AT(&G.p, o.duration), .min = 0, .max = HUGE_VAL,
     .open = CLI_OPEN_MIN, .arg = "T", .unit = "seconds", .zero_unset = 1,
     .help = "seconds of traffic"},
    {"packets", CLI_U64, CLI_AT(&G.p, o.packets), .min = 1, .max = HUGE_VAL, .arg = "N",
     .unit = "packets", .zero_unset = 1, .help = "or a number of packets"},
    {"output", CLI_STR, CLI_AT(&G.p, output), .arg = "FILE",
     .help = "where to write (pcap, or CSV if it ends in .csv)"},
    {"format", CLI_CHOICE, CLI_AT(&G.p, format), .arg = "F", .choices = "pcap,csv",
     .help = "pcap or csv (overrides the file name)"},
    {"snaplen", CLI_UINT, CLI_AT(&G.p, snaplen), .min = 64, .max = 65535, .arg = "N",
     .unit = "bytes",
     .help = "bytes kept of each frame in a pcap (default 65535;\n"
             "sizes stay true in the IP length field)"},
    {"approach", CLI_CHOICE, CLI_AT(&G.p, approach), .arg = "A",
     .choices = "copula,fitted,copula-fitted", .values = approaches,
     .help = "copula (default), fitted, or copula-fitted (the copula\n"
             "over the fitted marginals)"},
    {"seed", CLI_U64, CLI_AT(&G.p, o.seed), .arg = "S", .unit = "integer seed",
     .help = "seed of every user's stream (default 1)"},
    {"quiet", CLI_BOOL, CLI_AT(&G.p, quiet),
     .help = "no progress line (shown on a terminal, or with\n--progress, during a long write)"},
    CLI_ROW_JSON(&G.p.json),
    {"report", CLI_STR, &G.rep.dir, .field = "report", .arg = "DIR",
     .help = "write DIR/index.html: the run's summary tables (and with\n"
             "--validate, the plots of --plot) in one page"},
    {"", CLI_NOTE, NULL,
     .help = "\nValidation (--validate CAPTURE): generates as many packets as the capture\n"
             "holds with the fitted and the copula approach, several times, and compares\n"
             "each with it:\n"
             "KS on size and gap, Kendall's tau, autocorrelation of counts, Hurst\n"
             "exponent (variance-time). Without --model the model is fitted from the\n"
             "capture itself (in-sample)."},
    {"validate", CLI_STR, CLI_AT(&G.p, validate), .path = CLI_PATH_IN_NONEMPTY, .arg = "CAPTURE",
     .help = "the capture to compare with"},
    {"labels", CLI_STR, CLI_AT(&G.p, labels), .path = CLI_PATH_IN, .arg = "FILE",
     .help = "with --activity NAME: compare one activity of the capture"},
    {"activity", CLI_STR, CLI_AT(&G.p, activity), .arg = "NAME", .help = "the activity compared"},
    {"gap-threshold", CLI_STR, CLI_AT(&G.p, gap_threshold), .arg = "T",
     .help = "as in 'qctl fit' (when fitting here)"},
    {"segment-gap", CLI_DOUBLE, CLI_AT(&G.p, fo.segment_gap), .min = 0, .max = HUGE_VAL,
     .open = CLI_OPEN_MIN, .arg = "T", .unit = "seconds",
     .help = "as in 'qctl fit' (default 3600 s)"},
    {"realisations", CLI_UINT, CLI_AT(&G.p, realisations), .min = 1, .max = 1000, .arg = "N",
     .unit = "realisations",
     .help = "generated sequences per approach (default 10; seeds S,\n"
             "S+1, ...): each metric's mean and 95% interval, and an\n"
             "approach called closer only when its interval of the\n"
             "distance to the capture lies wholly below the other's"},
    {"plot", CLI_STR, CLI_AT(&G.p, plot), .arg = "DIR",
     .help = "variance-time, autocorrelation and gap CDF plots (of the\nfirst realisation)"},
    {"jobs", CLI_UINT, CLI_AT(&G.p, jobs), .min = 1, .max = 256, .letter = 'j', .arg = "N",
     .unit = "threads", .zero_unset = 1,
     .help = "threads for the realisations (default: the number of\ncores); the results do not "
             "depend on it"},
    CLI_ROWS_CONFIG_CHECK(&G, gen_check),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_gen(int argc, char **argv)
{
    G = (gen_cli){.flags = flags};
    help = 0;
    qc_app_gen_params_init(&G.p);
    G.models = (cli_strs){G.p.models, 0};
    int rc = cli_command_main("gen", synopsis, about, flags, NULL, gen_run, &G, argc, argv);
    gen_cli_free(&G);
    return rc;
}
