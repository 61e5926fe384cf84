/* SPDX-License-Identifier: GPL-3.0-or-later */
/* design.c: `qctl design`, the command's flag table and one call: the
 * rows point at the fields of qc_app_design_params (app/design_run.h),
 * which holds the defaults, the one check and the run; an error that
 * names a field is said with its flag (cli_flags_error). */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/design_run.h"
#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "report_cli.h"
#include "result.h"
#include "qctl/controller.h"

static const char synopsis[] = "qctl design --model FILE [options]";

static const char about[] =
    "Designs integral control u(k) = u(k-1) + K_I e(k) and PI control\n"
    "u(k) = u(k-1) + (K_P + K_I) e(k) - K_P e(k-1) for an ARX model written by\n"
    "'qctl sysid': the range of K_I that keeps the loop stable, gains placing the\n"
    "closed-loop poles for a wanted settling time and overshoot, and the poles for\n"
    "a list of gains (root locus). With a sensor block in the model the loop that\n"
    "measures through the sensor is designed too, and both are reported.\n";

/* The command's parameters, the flags' destinations (one run a process). */
static qc_app_design_params P;
static const char *output, *plot, *report;
static int json, help;
enum { LAW_INTEGRAL, LAW_PI, LAW_BOTH };
static int law = LAW_BOTH;
static uint64_t noise_reps;
static const int laws[] = {LAW_INTEGRAL, LAW_INTEGRAL, LAW_PI, LAW_BOTH};
static const int aws[] = {QC_AW_NONE, QC_AW_CONDITIONAL, QC_AW_BACKCALC};

static const char *gains;
static unsigned given[32];
static int design_validate(void *ctx);
static qc_app_design *design; /* made by design_validate */

/* The list of --gains into P.gains. */
static int parse_gains(const char *s)
{
    char buf[64];
    P.ngains = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 0 || n >= sizeof buf) {
            cli_error("--gains: '%s': %s entry", s, n == 0 ? "empty" : "too long an");
            return QC_EXIT_USAGE;
        }
        if (P.ngains == QC_APP_DESIGN_MAX_GAINS) {
            cli_error("--gains: at most %d gains", QC_APP_DESIGN_MAX_GAINS);
            return QC_EXIT_USAGE;
        }
        memcpy(buf, s, n);
        buf[n] = '\0';
        if (cli_double("--gains", buf, &P.gains[P.ngains]) != 0)
            return QC_EXIT_USAGE;
        P.ngains++;
        s += n;
        if (*s == ',' && *++s == '\0') {
            cli_error("--gains: trailing comma");
            return QC_EXIT_USAGE;
        }
    }
    if (P.ngains == 0) {
        cli_error("--gains: empty list");
        return QC_EXIT_USAGE;
    }
    return 0;
}

static const cli_flag flags[] = {
    {"model", CLI_STR, CLI_AT(&P, model), .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
     .help = "the model JSON"},
    {"settling", CLI_DOUBLE, CLI_AT(&P, spec.settling), .min = 1, .max = HUGE_VAL, .unit = "samples", .open = CLI_OPEN_MIN, .arg = "K",
     .help = "wanted settling time, in samples (2%: pole modulus e^(-4/K))"},
    {"overshoot", CLI_DOUBLE, CLI_AT(&P, spec.overshoot), .min = 0, .max = 1, .unit = "fraction", .open = CLI_OPEN_MAX, .arg = "M",
     .help = "wanted maximum overshoot in [0, 1) (default 0)"},
    {"law", CLI_CHOICE, &law, .arg = "L", .choices = "integral,i,pi,both", .values = laws,
     .help = "integral, pi or both (default both)"},
    {"gains", CLI_STR, &gains, .field = "gains", .unit = "K_I list", .arg = "K1,K2,...",
     .help = "K_I values for the root-locus table (default: fractions\n"
             "of the stable range)"},
    {"kp", CLI_DOUBLE, CLI_AT(&P, kp), .arg = "KP",
     .help = "K_P for the table and the stable range (default 0)"},
    {"no-sensor", CLI_BOOL, CLI_AT(&P, no_sensor), .help = "ignore the model's sensor block"},
    {"reference", CLI_DOUBLE, CLI_AT(&P, reference), .unit = "plant output units", .arg = "R",
     .help = "predict the step to R (plant units) for each gain of\n"
             "--gains (or the designed K_I): the model loop run with the\n"
             "actuator limits, settling and overshoot measured as 'qctl\n"
             "sim maxusers' measures them, and a verdict. With a sensor\n"
             "that has a reach ('max'), a reference it cannot reach is\n"
             "refused (exit 2) with the bound"},
    {"from", CLI_DOUBLE, CLI_AT(&P, from), .unit = "plant output units", .arg = "Y",
     .help = "the step starts at rest at Y (default: the operating point)"},
    {"u-min", CLI_DOUBLE, CLI_AT(&P, u_min), .unit = "actuator units", .arg = "U", .help = "actuator's lower limit (default 0)"},
    {"u-max", CLI_DOUBLE, CLI_AT(&P, u_max), .unit = "actuator units", .arg = "U", .help = "actuator's upper limit (default 1e9)"},
    {"antiwindup", CLI_CHOICE, CLI_AT(&P, antiwindup), .arg = "A",
     .choices = "none,conditional,backcalc", .values = aws,
     .help = "none, conditional (default) or backcalc, as in sim"},
    {"band", CLI_DOUBLE, CLI_AT(&P, band), .min = 0, .max = 1, .unit = "fraction", .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "F",
     .help = "settling band, fraction of R (default 0.1, as in sim)"},
    {"horizon", CLI_UINT, CLI_AT(&P, horizon), .min = 10, .max = 1e7, .unit = "samples", .arg = "N",
     .help = "samples predicted (default 180)"},
    {"fall", CLI_DOUBLE, CLI_AT(&P, fall), .min = 0, .max = 1, .unit = "fraction a sample", .open = CLI_OPEN_MAX, .arg = "F",
     .help = "the input in effect falls by at most the fraction F per\n"
             "sample (MaxUsers: connections end only as sessions do);\n"
             "default: the model's input_fall ('qctl sysid --fall'),\n"
             "else 0. The model's u is then the input in effect"},
    {"noise-reps", CLI_U64, &noise_reps, .field = "noise_reps", .min = 0, .max = 10000, .unit = "realisations", .arg = "N",
     .help = "realisations of the prediction with the fits' residual\n"
             "noise added to the plant's and the sensor's outputs\n"
             "(default 20 when the model has residual variances; 0:\n"
             "one noiseless run). A loop without overshoot still\n"
             "measures the excursions of its noise; figures are means"},
    {"sensor-reference", CLI_BOOL, CLI_AT(&P, sensor_reference),
     .help = "the reference is in the sensor's units (compared with the\n"
             "measurement as is, not compensated)"},
    {"sensor-linear", CLI_BOOL, CLI_AT(&P, sensor_linear),
     .help = "predict the loop through the sensor with its linear model\n"
             "on the affine map even when the model has the sensor's\n"
             "completion-log curve ('qctl sysid --sensor-curve'; with\n"
             "the curve the sensor model's dynamics at unit DC gain\n"
             "are followed by the curve)"},
    {"steps", CLI_UINT, CLI_AT(&P, steps), .min = 2, .max = 1e7, .unit = "samples", .arg = "N",
     .help = "length of the simulated step responses (default: automatic)"},
    {"json", CLI_BOOL, &json, .help = "print the results as JSON"},
    {"output", CLI_STR, &output, .arg = "FILE", .help = "also write the JSON to FILE"},
    {"plot", CLI_STR, &plot, .arg = "DIR",
     .help = "draw the root locus and step responses into DIR (gnuplot)"},
    {"report", CLI_STR, &report, .arg = "DIR",
     .help = "write DIR/index.html: model, design tables and the plots of\n"
             "--plot, in one self-contained page"},
    {"quiet", CLI_BOOL, CLI_AT(&P, quiet),
     .help = "no notices on standard error (a specification no\ndesign meets is still "
             "said in the results)"},
    CLI_ROWS_CONFIG_CHECK(NULL, design_validate),
    CLI_ROW_HELP(&help),
    {0}};

/* The plots of the run into dir (made if missing); without gnuplot a
 * notice naming `skipped` ("--plot"), and 0. */
static int draw(const qc_app_design *d, const char *dir, const char *skipped)
{
    cli_plots pl;
    int rc = cli_plots_open(&pl, dir, skipped, 1);
    if (rc != 0)
        return rc == CLI_PLOTS_SKIPPED ? 0 : rc;
    qc_err err = {0};
    if (qc_app_design_plots(d, dir, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

/* The page: plots, design.json, index.html. */
static int write_page(const qc_app_design *d, const char *dir, int argc, char **argv)
{
    int rc = draw(d, dir, "--report plots");
    if (rc != 0)
        return rc;
    char path[4096];
    snprintf(path, sizeof path, "%s/design.json", dir);
    if ((rc = cli_json_out(qc_app_design_json(d), path)) != 0)
        return rc;
    json_t *page = qc_app_design_page(d);
    char *story = qc_app_design_story(d);
    size_t nplots;
    const char *const *plots = qc_app_design_plot_names(d, &nplots);
    if (page == NULL || story == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    } else {
        rc = cli_report_write_story(dir, "design", story, argc, argv, page, plots, nplots);
    }
    free(story);
    json_decref(page);
    return rc;
}

/* Every check before the design, --check or not: the flags' values the
 * parameters take, then qc_app_design_params_check, the run's own. */
static int design_validate(void *ctx)
{
    (void)ctx;
    int rc;
    P.ngains = 0;
    if (gains && (rc = parse_gains(gains)) != 0)
        return rc;
    P.law_i = law != LAW_PI;
    P.law_pi = law != LAW_INTEGRAL;
    P.have_spec = cli_flag_given(flags, given, "settling") > 0;
    P.have_overshoot = cli_flag_given(flags, given, "overshoot") > 0;
    if (cli_flag_given(flags, given, "noise-reps"))
        P.noise_reps = (long)noise_reps;
    if (report && (rc = cli_report_prepare(report)) != 0)
        return rc;
    qc_err err = {0};
    if ((rc = qc_app_design_params_check(&P, &err)) != 0)
        return cli_flags_error(flags, "design", rc, &err);
    /* the model is read and the design made here (milliseconds): what
     * the model file or a reference it cannot reach refuses, --check
     * refuses alike */
    gsl_set_error_handler_off(); /* a program owns GSL's handler: report, do not abort */
    if ((design = qc_app_design_run(&P, &err)) == NULL)
        return cli_flags_error(flags, NULL, err.code, &err);
    return 0;
}

static int design_run(void *ctx, int argc, char **argv)
{
    (void)ctx;
    int rc = 0;
    qc_app_design *d = design;
    design = NULL;
    fputs(qc_app_design_notices(d), stderr);
    if (json)
        rc = cli_json_out(qc_app_design_json(d), NULL);
    else
        qc_app_design_print(d);
    if (rc == 0 && output)
        rc = cli_json_out(qc_app_design_json(d), output);
    if (rc == 0 && plot)
        rc = draw(d, plot, "--plot");
    if (rc == 0 && report)
        rc = write_page(d, report, argc, argv);
    qc_app_design_free(d);
    return rc;
}

int cmd_design(int argc, char **argv)
{
    qc_app_design_params_init(&P);
    gains = NULL;
    design = NULL;
    memset(given, 0, sizeof given);
    int rc = cli_command_main("design", synopsis, about, flags, given, design_run, NULL, argc,
                              argv);
    qc_app_design_free(design); /* after --check */
    design = NULL;
    return rc;
}
