/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sysid.c: `qctl sysid`, the command's flag table and one call: the rows
 * point at the fields of qc_app_sysid_params (app/sysid_run.h), which
 * holds the defaults, the one check and the run (ARX identification of a
 * system from a CSV file); an error naming a field is said with its flag. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/sysid_run.h"
#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "report_cli.h"
#include "result.h"

static const char synopsis[] = "qctl sysid --csv FILE [options]";

static const char about[] =
    "Identifies an ARX model y(k+1) = a1 y(k) + ... + b1 u(k-d) + ... of a system\n"
    "from samples of its input u and output y (offsets from an operating point),\n"
    "by least squares for every candidate order and delay, chosen by AIC, and\n"
    "validated on the last part of the data.\n";

static int fall_flag(const cli_flag *f, const char *flag, const char *s)
{
    double *fall = f->dest;
    if (strcmp(s, "auto") == 0) {
        *fall = NAN;
        return 0;
    }
    if (cli_double(flag, s, fall) != 0)
        return QC_EXIT_USAGE;
    if (!(*fall >= 0 && *fall < 1)) {
        cli_error("%s: %s is not in [0, 1) or 'auto'", flag, s);
        return QC_EXIT_USAGE;
    }
    return 0;
}


/* The command's parameters, the flags' destinations (one run a process). */
static qc_app_sysid_params P;
static const char *output, *plot, *report;
static int json, quiet, help, crit = QC_ARX_AIC;
/* the flags that set several fields, read into these first */
static double op[2];
static unsigned orders[2], na[2], nb[2], sna[2], snb[2];
static int delays[2], sdelays[2];
/* their words as given (string rows, so that --check can print them),
 * read by the rows' parsers in sysid_validate */
static const char *s_op, *s_orders, *s_na, *s_nb, *s_delays, *s_sna, *s_snb, *s_sdelays, *s_fall;
static int sysid_validate(void *ctx);
static qc_app_sysid *ident; /* made by sysid_validate */
static unsigned given[48];
static const int crits[] = {QC_ARX_AIC, QC_ARX_BIC};

static const cli_flag flags[] = {
    {"csv", CLI_STR, CLI_AT(&P, csv), .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
     .help = "the data: one row per sample interval"},
    {"columns", CLI_STR, CLI_AT(&P, columns), .arg = "T,U,Y",
     .help = "time, input and output columns: header names or\n"
             "1-based numbers (default time,u,y; columns 1,2,3 when\n"
             "the file has no header); U,Y alone: no time column"},
    {"operating-point", CLI_STR, &s_op, .field = "operating_point", .arg = "U,Y", .parse = cli_pair_flag,
     .help = "model offsets from (U, Y)"},
    {"demean", CLI_BOOL, CLI_AT(&P, demean),
     .help = "offsets from the means of the estimation part (default)"},
    {"orders", CLI_STR, &s_orders, .field = "orders", .min = 1, .max = QC_ARX_MAX_ORDER, .arg = "A..B", .parse = cli_urange_flag,
     .help = "na = nb in A..B (default 1..3)"},
    {"na", CLI_STR, &s_na, .field = "na", .min = 0, .max = QC_ARX_MAX_ORDER, .arg = "A..B", .parse = cli_urange_flag,
     .help = "na chosen independently of nb"},
    {"nb", CLI_STR, &s_nb, .field = "nb", .min = 1, .max = QC_ARX_MAX_ORDER, .arg = "A..B", .parse = cli_urange_flag,
     .help = "nb chosen independently of na"},
    {"delays", CLI_STR, &s_delays, .field = "delays", .min = -1, .max = QC_ARX_MAX_DELAY, .arg = "A..B", .parse = cli_range_flag,
     .help = "input delays d (default 0..2)"},
    {"criterion", CLI_CHOICE, &crit, .field = "criterion", .arg = "C", .choices = "aic,bic", .values = crits,
     .help = "aic (default): N ln(RSS/N) + 2p, or bic: N ln(RSS/N) + p ln N"},
    {"holdout", CLI_DOUBLE, CLI_AT(&P, plant.holdout), .min = 0, .max = 0.9, .unit = "fraction", .arg = "F",
     .help = "fraction kept at the end for validation (default 0.3)"},
    {"dt", CLI_DOUBLE, CLI_AT(&P, dt), .min = 0, .max = HUGE_VAL, .unit = "seconds", .open = CLI_OPEN_MIN, .arg = "SECONDS",
     .help = "sample interval (default: from the time column)"},
    {"skip", CLI_U64, CLI_AT(&P, skip), .unit = "rows", .arg = "N",
     .help = "drop the first N rows (a warm-up from an empty system)"},
    {"input-lag", CLI_U64, CLI_AT(&P, input_lag), .min = 0, .max = 100, .unit = "rows", .arg = "L",
     .help = "rows of the input column are L instants late: row k\n"
             "holds u(k-L) (default 0; 1 for a log whose input on\n"
             "each row is the one in force over the interval ending\n"
             "at that row). The convention is u(k) set at instant k,\n"
             "in force over (k, k+1], y(k) measured at instant k"},
    {"fall", CLI_STR, &s_fall, .field = "fall", .unit = "fraction a sample, or auto", .arg = "F", .parse = fall_flag,
     .help = "the input in effect falls by at most the fraction F\n"
             "per sample, ueff(k) = max(u(k), (1 - F) ueff(k-1)), and\n"
             "the model is fitted from ueff to y (MaxUsers: lowering\n"
             "it cuts nobody off, the connected users fall only as\n"
             "sessions end); 'auto': F chosen with the model by the\n"
             "criterion over 0..0.5. Written to the model as\n"
             "input_fall, which 'qctl design' uses (default 0: none)"},
    {"sensor-csv", CLI_STR, CLI_AT(&P, sensor_csv), .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
     .help = "also fit a sensor model: true y in, measured y out"},
    {"sensor-columns", CLI_STR, CLI_AT(&P, sensor_columns), .arg = "T,Y,M",
     .help = "its columns (default time,y,ym; 1,2,3 without header)"},
    {"sensor-na", CLI_STR, &s_sna, .field = "sensor_na", .min = 0, .max = QC_ARX_MAX_ORDER, .arg = "A..B", .parse = cli_urange_flag,
     .help = "sensor na (default 0..2)"},
    {"sensor-nb", CLI_STR, &s_snb, .field = "sensor_nb", .min = 1, .max = QC_ARX_MAX_ORDER, .arg = "A..B", .parse = cli_urange_flag,
     .help = "sensor nb (default 1..2)"},
    {"sensor-delays", CLI_STR, &s_sdelays, .field = "sensor_delays", .min = -1, .max = QC_ARX_MAX_DELAY, .arg = "A..B", .parse = cli_range_flag,
     .help = "sensor delays (default -1..1; -1: the measurement at k\n"
             "sees the true output at k)"},
    {"sensor-at", CLI_DOUBLE, CLI_AT(&P, sensor_at), .unit = "plant output units", .arg = "Y",
     .help = "also fit the sensor's affine map ym = offset + gain y\n"
             "near the true output Y (the reference the loop will\n"
             "track), for compensating the reference"},
    {"sensor-width", CLI_DOUBLE, CLI_AT(&P, sensor_width), .min = 0, .max = HUGE_VAL, .unit = "plant output units", .open = CLI_OPEN_MIN,
     .arg = "W", .help = "half-width of that neighbourhood (default 0.15 |Y|)"},
    {"sensor-curve", CLI_BOOL, CLI_AT(&P, sensor_curve),
     .help = "also fit the static curve of a sensor that reads a queue\n"
             "from its completion log, ym = f(v), f(N) = N - (N^2/S)\n"
             "(1 - exp(-S/N)), v the sensor model's output at unit DC\n"
             "gain; the scale S (throughput x interval) goes into the\n"
             "model, and 'qctl design' predicts the loop with it"},
    {"sensor-max", CLI_DOUBLE, CLI_AT(&P, sensor_max), .min = 0, .max = HUGE_VAL, .unit = "sensor units", .open = CLI_OPEN_MIN, .arg = "V",
     .help = "the most the sensor can read (default: a comment\n"
             "'# NAME_bound=V' in the sensor file, NAME its measured\n"
             "column, as 'qctl sim maxusers --series' writes)"},
    {"output", CLI_STR, &output, .letter = 'o', .arg = "FILE",
     .help = "write the model JSON (the input of 'qctl design')"},
    {"json", CLI_BOOL, &json, .help = "print the model JSON instead of the table"},
    {"plot", CLI_STR, &plot, .arg = "DIR",
     .help = "draw measured vs predicted output into DIR (gnuplot)"},
    {"report", CLI_STR, &report, .arg = "DIR",
     .help = "write DIR/index.html: the fits, the model and the plots\n"
             "of --plot, in one self-contained page"},
    {"quiet", CLI_BOOL, &quiet,
     .help = "no notices on standard error (sysid writes none but\nits errors: taken as "
             "by every command)"},
    CLI_ROWS_CONFIG_CHECK(NULL, sysid_validate),
    CLI_ROW_HELP(&help),
    {0}};

/* The values of the flags that set several fields, into P. */
static void apply(const unsigned *g)
{
    P.operating_point = cli_flag_given(flags, g, "operating-point") > 0;
    P.orders = cli_flag_given(flags, g, "orders") > 0;
    P.na_nb = cli_flag_given(flags, g, "na") + cli_flag_given(flags, g, "nb") > 0;
    if (P.operating_point) {
        P.plant.u0 = op[0];
        P.plant.y0 = op[1];
    }
    if (P.orders) {
        P.plant.na_min = P.plant.nb_min = orders[0];
        P.plant.na_max = P.plant.nb_max = orders[1];
    }
    /* each range flag given replaces its default pair */
    const struct {
        const char *flag;
        const void *v;
        void *lo, *hi;
    } ranges[] = {{"na", na, &P.plant.na_min, &P.plant.na_max},
                  {"nb", nb, &P.plant.nb_min, &P.plant.nb_max},
                  {"sensor-na", sna, &P.sensor.na_min, &P.sensor.na_max},
                  {"sensor-nb", snb, &P.sensor.nb_min, &P.sensor.nb_max},
                  {"delays", delays, &P.plant.d_min, &P.plant.d_max},
                  {"sensor-delays", sdelays, &P.sensor.d_min, &P.sensor.d_max}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cli_flag_given(flags, g, ranges[i].flag)) {
            memcpy(ranges[i].lo, ranges[i].v, sizeof(unsigned));
            memcpy(ranges[i].hi, (const char *)ranges[i].v + sizeof(unsigned), sizeof(unsigned));
        }
    P.plant.criterion = (qc_arx_criterion)crit;
}

/* The plots into dir (made if missing); without gnuplot a notice naming
 * `skipped` ("--plot"), and 0. */
static int draw(const qc_app_sysid *d, const char *dir, const char *skipped)
{
    cli_plots pl;
    int rc = cli_plots_open(&pl, dir, skipped, 1);
    if (rc != 0)
        return rc == CLI_PLOTS_SKIPPED ? 0 : rc;
    qc_err err = {0};
    if (qc_app_sysid_plots(d, dir, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

static int write_outputs(const qc_app_sysid *d, int argc, char **argv)
{
    int rc = 0;
    if (json)
        rc = cli_json_out(qc_app_sysid_json(d), NULL);
    else
        qc_app_sysid_print(d, output);
    if (rc == 0 && output)
        rc = cli_json_out(qc_app_sysid_json(d), output);
    if (rc == 0 && plot)
        rc = draw(d, plot, "--plot");
    if (rc == 0 && report && (rc = draw(d, report, "--report plots")) == 0) {
        size_t n;
        const char *const *names = qc_app_sysid_plot_names(d, &n);
        rc = cli_report_write(report, "sysid", argc, argv, qc_app_sysid_json(d), names, n);
    }
    return rc;
}

/* The rows' words read by their parsers into the fields they set. */
static int read_words(void)
{
    const struct {
        const char **word;
        void *dest;
    } words[] = {{&s_op, op},         {&s_orders, orders}, {&s_na, na},
                 {&s_nb, nb},         {&s_delays, delays}, {&s_sna, sna},
                 {&s_snb, snb},       {&s_sdelays, sdelays}, {&s_fall, &P.fall}};
    for (size_t i = 0; flags[i].name; i++)
        for (size_t k = 0; flags[i].parse && k < sizeof words / sizeof words[0]; k++)
            if (flags[i].dest == words[k].word && *words[k].word) {
                cli_flag f = flags[i];
                char flag[64];
                snprintf(flag, sizeof flag, "--%s", f.name);
                f.dest = words[k].dest;
                int rc = f.parse(&f, flag, *words[k].word);
                if (rc != 0)
                    return rc;
            }
    return 0;
}

/* Every check before the outputs, --check or not: the rows' words, the
 * library's one check, then the identification itself (it reads the
 * data: a file the start refuses, --check refuses alike). */
static int sysid_validate(void *ctx)
{
    (void)ctx;
    int rc;
    if ((rc = read_words()) != 0)
        return rc;
    apply(given);
    if (report && (rc = cli_report_prepare(report)) != 0)
        return rc;
    qc_err err = {0};
    if ((rc = qc_app_sysid_params_check(&P, &err)) != 0)
        return cli_flags_error(flags, "sysid", rc, &err);
    gsl_set_error_handler_off(); /* a program owns GSL's handler: report, do not abort */
    if ((ident = qc_app_sysid_run(&P, &err)) == NULL)
        return cli_flags_error(flags, NULL, err.code, &err);
    return 0;
}

static int sysid_run(void *ctx, int argc, char **argv)
{
    (void)ctx;
    qc_app_sysid *d = ident;
    ident = NULL;
    int rc = write_outputs(d, argc, argv);
    qc_app_sysid_free(d);
    return rc;
}

int cmd_sysid(int argc, char **argv)
{
    qc_app_sysid_params_init(&P);
    crit = P.plant.criterion;
    s_op = s_orders = s_na = s_nb = s_delays = s_sna = s_snb = s_sdelays = s_fall = NULL;
    ident = NULL;
    memset(given, 0, sizeof given);
    int rc = cli_command_main("sysid", synopsis, about, flags, given, sysid_run, NULL, argc, argv);
    qc_app_sysid_free(ident); /* after --check */
    ident = NULL;
    return rc;
}
