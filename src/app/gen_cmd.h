/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen_cmd.h: `qctl gen` between its flags (cli/gen.c) and the library:
 * the parsed flags and what the checks read (the models, or the capture
 * compared with), their one check (the table's --check calls it, and so
 * does the run), the generation (gen_cmd.c) and the validation against
 * a capture (gen_validate.c). */
#ifndef QCTL_APP_GEN_CMD_H
#define QCTL_APP_GEN_CMD_H

#include <stdint.h>

#include "app/gen_run.h"
#include "flags.h"
#include "qctl/trace.h"
#include "qctl/traffic.h"

/* Where --report writes, and the command line it shows. */
typedef struct gen_report {
    const char *dir;
    int argc;
    char **argv;
} gen_report;

/* The models loaded and the users of each. */
typedef struct gen_mix {
    qc_traffic_model *m;
    uint32_t *users;
    size_t n;
} gen_mix;

/* The command's state: the flags' destinations (p, models, rep.dir) and
 * what the check reads before the run. */
typedef struct gen_cli {
    qc_app_gen_params p;
    cli_strs models; /* over p.models */
    gen_report rep;
    const cli_flag *flags;
    gen_mix x;
    qc_trace vtr; /* the capture of --validate */
    int vtr_loaded;
} gen_cli;

/* Every check before the work, --check or not: the library's one check,
 * then the inputs read (the models and the users given to each, the
 * estimated size of the output; or the capture and its activity), so
 * that a file the run would refuse is refused here alike. */
int gen_check(void *ctx);
/* The generation, or the validation of --validate; an exit status. */
int gen_run(void *ctx, int argc, char **argv);
/* What the check and the run held. */
void gen_cli_free(gen_cli *g);

/* Loads a model file into the mix (one user): 0 or an exit status. */
int gen_mix_add(gen_mix *x, const char *path);
void gen_mix_free(gen_mix *x);

/* The validation of --validate (gen_validate.c): the model of
 * model_file, or fitted from the capture tr (one activity, or all of
 * it), generated realisations times by each approach and compared with
 * the capture; the table, --json, --plot and --report. An exit status. */
int gen_validation(const char *capture, const qc_trace *tr, const char *model_file,
                   const char *activity, const qc_traffic_fit_params *fo, uint64_t seed,
                   unsigned realisations, unsigned jobs, int json, int quiet,
                   const char *plot_dir, const gen_report *rep);

#endif
