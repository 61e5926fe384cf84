/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit.c: `qctl fit`, traffic models from a capture (or the families of one
 * sample, --column). Its flags; the work is app/fit_cmd.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/fit_cmd.h"
#include "cli.h"
#include "result.h"

static const char synopsis[] =
    "qctl fit CAPTURE [options]\n"
    "       qctl fit --column FILE[:COL] [--families LIST] [--criterion C] [--spec]";

static const char about[] =
    "Learns traffic models from a capture (pcap, pcapng, or CSV time,size[,flow][,activity]):\n"
    "maximum-likelihood fits of packet size and gap, on/off sessions, and the\n"
    "empirical copula of (size, gap) and of consecutive packets.\n";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_fit sets every field before the flags are read. */
static fit_cli F;
static int help;

static const int splits[] = {QC_SPLIT_NONE, QC_SPLIT_FLOW, QC_SPLIT_HOST, QC_SPLIT_ACTIVITY};
static const int crits[] = {QC_FIT_BIC, QC_FIT_AIC};
static const cli_flag flags[] = {
    {"capture", CLI_STR, CLI_AT(&F.p, capture), .arg = "FILE",
     .help = "the capture (or as the first word after 'fit')"},
    {"labels", CLI_STR, CLI_AT(&F.p, labels), .path = CLI_PATH_IN, .arg = "FILE",
     .help = "rules mapping flows or time ranges to activities"},
    {"split", CLI_CHOICE, CLI_AT(&F.p, split), .arg = "MODE", .choices = "none,flow,host,activity",
     .values = splits,
     .help = "none, flow, host or activity (default: activity when\n"
             "packets are labelled, else none)"},
    {"activity", CLI_STR, CLI_AT(&F.p, activity), .arg = "NAME",
     .help = "fit only this group (with --split none: the model's name,\ndefault 'all')"},
    {"gap-threshold", CLI_STR, CLI_AT(&F.p, gap_threshold), .arg = "T",
     .help = "idle gap threshold: auto (default), none, or seconds"},
    {"families", CLI_STR, CLI_AT(&F.p, families), .arg = "LIST",
     .help = "families to try, comma-separated (default all: exp,gamma,\n"
             "lognormal,weibull,pareto,lnmix2,lnmix3,expmix2,expmix3)"},
    {"criterion", CLI_CHOICE, CLI_AT(&F.p, criterion), .arg = "C", .choices = "bic,aic",
     .values = crits, .help = "bic (default) or aic"},
    {"confidence", CLI_DOUBLE, CLI_AT(&F.p, fo.fit.level), .min = 0, .max = 1,
     .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "L", .unit = "level in (0, 1)",
     .help = "level of the parameter intervals (default 0.95)"},
    {"gpd-quantile", CLI_DOUBLE, CLI_AT(&F.p, fo.fit.gpd_quantile), .min = 0, .max = 1,
     .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "Q", .unit = "probability",
     .help = "threshold of the generalized Pareto tail (default 0.9)"},
    {"copula-points", CLI_U64, CLI_AT(&F.p, copula_points), .min = 10, .max = 1e7, .arg = "N",
     .unit = "transitions", .help = "transitions kept in the copula (default 10000)"},
    {"min-packets", CLI_U64, CLI_AT(&F.p, min_packets), .min = 10, .max = HUGE_VAL, .arg = "N",
     .unit = "packets", .help = "skip groups with fewer packets (default 50)"},
    {"out", CLI_STR, CLI_AT(&F.p, out), .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "write one model file per group, DIR/NAME.json"},
    {"csv", CLI_STR, CLI_AT(&F.p, csv), .path = CLI_PATH_OUT, .arg = "FILE",
     .help = "also write the decoded packets as CSV"},
    {"report", CLI_STR, CLI_AT(&F.p, report), .arg = "DIR",
     .help = "densities over histograms, Q-Q plots, copula scatter\n"
             "(SVG and PNG; needs gnuplot), and DIR/index.html: the\n"
             "capture, the fits and these plots in one page"},
    {"segment-gap", CLI_DOUBLE, CLI_AT(&F.p, fo.segment_gap), .min = 0, .max = HUGE_VAL,
     .open = CLI_OPEN_MIN, .arg = "T", .unit = "seconds",
     .help = "longer gaps split the capture into segments (default\n"
             "3600 s: concatenated captures); the model keeps neither\n"
             "as a gap nor as an idle period"},
    CLI_ROW_JSON(&F.p.json),
    {"quiet", CLI_BOOL, CLI_AT(&F.p, quiet), .help = "no warnings about the capture and no progress line"},
    {"jobs", CLI_UINT, CLI_AT(&F.p, fo.fit.threads), .min = 1, .max = 256, .letter = 'j', .arg = "N",
     .zero_unset = 1,
     .unit = "threads",
     .help = "threads for the families and the EM starts (default: the\nnumber of cores); the "
             "results do not depend on it"},
    {"", CLI_NOTE, NULL,
     .help = "\nAny sample (--column FILE[:COL]): fits the families to the numbers in column\n"
             "COL of FILE (1-based number or header name; default 1; one value a line or\n"
             "CSV) and prints the ranking and the best model as a distribution spec that\n"
             "every 'qctl sim' command takes (e.g. --service), such as\n"
             "lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2."},
    {"column", CLI_STR, CLI_AT(&F.p, column), .arg = "FILE[:COL]", .help = "the sample to fit"},
    {"spec", CLI_BOOL, CLI_AT(&F.p, spec),
     .help = "print only that spec (for $(qctl fit --column ... --spec))"},
    CLI_ROWS_CONFIG_CHECK(&F, fit_check),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_fit(int argc, char **argv)
{
    cli_batch_memory();
    F = (fit_cli){.flags = flags};
    help = 0;
    qc_app_fit_params_init(&F.p);
    /* `fit CAPTURE [options]`: the first word as --capture */
    char **av = calloc((size_t)argc + 2, sizeof *av);
    if (av == NULL) {
        cli_error("fit: out of memory");
        return QC_EXIT_FAIL;
    }
    int ac = 0, i = 1;
    av[ac++] = argv[0];
    if (argc > 1 && (argv[1][0] != '-' || strcmp(argv[1], "-") == 0)) { /* "-": standard input */
        av[ac++] = (char *)"--capture";
        av[ac++] = argv[i++];
    }
    while (i < argc)
        av[ac++] = argv[i++];
    int rc = cli_command_main("fit", synopsis, about, flags, NULL, fit_run, &F, ac, av);
    free(av);
    fit_cli_free(&F);
    return rc;
}
