/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen_cmd.c: what `qctl gen` does once its flags are read (gen_cmd.h):
 * the models and the users of each, the size of the output estimated
 * before the run, the run under the progress line and its summary. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "gen_cmd.h"
#include "guard.h"
#include "qctl/output.h"
#include "report_cli.h"
#include "result.h"
#include "traffic_cmd.h"

void gen_mix_free(gen_mix *x)
{
    for (size_t i = 0; i < x->n; i++)
        qc_traffic_model_free(&x->m[i]);
    free(x->m);
    free(x->users);
    memset(x, 0, sizeof *x);
}

/* Applies "--users a=N,b=M" to the loaded models. */
static int apply_users(gen_mix *x, const char *spec)
{
    char buf[4096];
    if (strlen(spec) >= sizeof buf) {
        cli_error("--users: too long");
        return QC_EXIT_USAGE;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    for (size_t i = 0; i < x->n; i++)
        x->users[i] = 0;
    int col = 1;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(w, '=');
        if (eq == NULL) {
            cli_error("--users: '%s' is not NAME=COUNT (entry at column %d)", w, col);
            return QC_EXIT_USAGE;
        }
        *eq = '\0';
        unsigned cnt;
        char flag[160];
        snprintf(flag, sizeof flag, "--users %s", w);
        if (cli_uint(flag, eq + 1, &cnt) != 0)
            return QC_EXIT_USAGE;
        if (cnt >= (1u << 24)) {
            cli_error("--users %s: at most 16777215 users per activity", w);
            return QC_EXIT_USAGE;
        }
        size_t i = 0;
        while (i < x->n && strcmp(x->m[i].name, w) != 0)
            i++;
        if (i == x->n) {
            cli_error("--users: no model for activity '%s' (models given:%s%s%s)", w,
                      x->n > 0 ? " " : "", x->n > 0 ? x->m[0].name : "", x->n > 1 ? ", ..." : "");
            return QC_EXIT_USAGE;
        }
        x->users[i] = cnt;
        col += (int)(strlen(w) + strlen(eq + 1)) + 2;
    }
    return 0;
}

int gen_mix_add(gen_mix *x, const char *path)
{
    qc_traffic_model *m = realloc(x->m, (x->n + 1) * sizeof *m);
    if (m)
        x->m = m;
    uint32_t *u = realloc(x->users, (x->n + 1) * sizeof *u);
    if (u)
        x->users = u;
    if (!m || !u) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    qc_err err = {0};
    const int rc = qc_traffic_model_load(&x->m[x->n], path, &err);
    if (rc != 0) {
        cli_error("--model: %s", err.msg);
        return cli_input_exit(rc);
    }
    x->users[x->n++] = 1;
    return 0;
}

/* The temporary file the atomic writer fills (qc_ofile: OUT.tmp-PID),
 * whose size the progress line follows. SIGINT or SIGTERM ends the run
 * at once and removes it (interrupt.h: the writer has no stop flag). */
static char gen_tmp[4096];

/* The progress line: the bytes of the temporary file against the size
 * estimated before the run (check_gen_size), polled by a thread so that
 * the writer's loop stays as it is. */
static double gen_estimate;
static volatile int gen_done;

static void *gen_watch(void *ctx)
{
    while (!gen_done) {
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
        struct stat st;
        if (!gen_done && gen_estimate > 0 && stat(gen_tmp, &st) == 0)
            cli_progress_update(ctx, fmin(0.999, (double)st.st_size / gen_estimate));
    }
    return NULL;
}

static double mean_size(const qc_traffic_model *m)
{
    const qc_traffic_table *t = &m->size.emp;
    double s = 0, prev = 0;
    for (size_t j = 0; j < t->m; j++) {
        s += t->v[j] * (t->cum[j] - prev);
        prev = t->cum[j];
    }
    return t->m ? s : 1500;
}

/* The memory of the users and the size of the output, estimated from the
 * models' packet rates and mean sizes, before a run that could fill a
 * disk: about 128 bytes per user; per packet a CSV line, or a pcap
 * record of 16 bytes and the frame cut at snaplen. */
static int check_gen_size(const gen_mix *x, const qc_traffic_gen_params *o, const char *output,
                          qc_traffic_format fmt, unsigned snaplen)
{
    double users = 0, rate = 0, bytes_per = 0;
    for (size_t i = 0; i < x->n; i++) {
        double r = x->users[i] * qc_traffic_model_rate(&x->m[i], o->approach);
        users += x->users[i];
        rate += r;
        double b = fmt == QC_TRAFFIC_CSV ? 30.0 + (double)strlen(x->m[i].name)
                                         : 16.0 + fmin((double)snaplen, mean_size(&x->m[i]) + 14);
        bytes_per += r * b;
    }
    char what[160];
    snprintf(what, sizeof what, "%.0f users", users);
    int rc = cli_check_memory("--users", 128.0 * users, what, cli_force);
    if (rc != 0 || !(rate > 0))
        return rc;
    double packets = o->duration > 0 ? rate * o->duration : INFINITY;
    if (o->packets > 0 && (double)o->packets < packets)
        packets = (double)o->packets;
    double bytes = packets * bytes_per / rate;
    gen_estimate = isfinite(bytes) ? bytes : 0;
    snprintf(what, sizeof what, "the output (%.3g packets of %.0f users at %.3g packets/s)",
             packets, users, rate);
    return cli_check_output_size(o->packets > 0 && (double)o->packets == packets ? "--packets"
                                                                                 : "--duration",
                                 bytes, what, output, cli_force);
}

static int generate(gen_mix *x, const qc_traffic_gen_params *o, const char *output, qc_traffic_format fmt,
                    uint32_t snaplen, int json, int quiet, const gen_report *rep)
{
    const qc_traffic_model **mp = malloc(x->n * sizeof *mp);
    if (mp == NULL)
        return QC_EXIT_FAIL;
    for (size_t i = 0; i < x->n; i++)
        mp[i] = &x->m[i];
    qc_err err = {0};
    qc_traffic_gen *g = qc_traffic_gen_alloc(mp, x->users, x->n, o, &err);
    free(mp);
    if (g == NULL) {
        cli_error("gen: %s", err.msg);
        return cli_exit_code(err.code);
    }
    cli_progress prog;
    cli_progress_init(&prog, "gen", quiet);
    uint64_t count = 0;
    snprintf(gen_tmp, sizeof gen_tmp, "%s.tmp-%ld", output, (long)getpid());
    pthread_t watcher;
    gen_done = 0;
    int watching = prog.enabled && pthread_create(&watcher, NULL, gen_watch, &prog) == 0;
    int rc = qc_traffic_write(g, output, fmt, snaplen, &count, &err);
    gen_done = 1;
    if (watching)
        pthread_join(watcher, NULL);
    cli_progress_done(&prog);
    gen_tmp[0] = '\0';
    qc_traffic_gen_free(g);
    if (rc != 0) {
        cli_error("gen: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    const double el = cli_elapsed(&prog);
    double expected = 0;
    json_t *s = json_object(), *acts = json_array();
    for (size_t i = 0; i < x->n; i++) {
        const double r = qc_traffic_model_rate(&x->m[i], o->approach);
        expected += x->users[i] * r;
        json_t *a = json_object();
        json_object_set_new(a, "activity", json_string(x->m[i].name));
        json_object_set_new(a, "users", json_integer(x->users[i]));
        json_object_set_new(a, "packets_per_second_per_user", qc_json_real_new(r));
        json_array_append_new(acts, a);
    }
    json_object_set_new(s, "command", json_string("gen"));
    json_object_set_new(s, "output", json_string(output));
    json_object_set_new(s, "format", json_string(qc_traffic_format_name(fmt)));
    json_object_set_new(s, "approach", json_string(qc_traffic_approach_name(o->approach)));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "activities", acts);
    json_object_set_new(s, "packets", json_integer((json_int_t)count));
    json_object_set_new(s, "duration", o->duration > 0 ? json_real(o->duration) : json_null());
    json_object_set_new(s, "expected_packets_per_second", qc_json_real_new(expected));
    json_object_set_new(s, "packets_per_second",
                        o->duration > 0 ? qc_json_real_new((double)count / o->duration) : json_null());
    json_object_set_new(s, "elapsed_seconds", json_real(el));
    /* the traffic itself on standard output (--output -): the summary on
     * standard error, out of its way */
    FILE *sum = strcmp(output, "-") == 0 ? stderr : stdout;
    if (json && sum == stdout) {
        rc = cli_json_out(s, NULL);
    } else if (json) {
        json_dumpf(s, stderr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stderr);
    } else {
        fprintf(sum, "%s: %llu packets (%s, %s approach, seed %llu)\n", output,
                (unsigned long long)count, qc_traffic_format_name(fmt),
                qc_traffic_approach_name(o->approach), (unsigned long long)o->seed);
        for (size_t i = 0; i < x->n; i++)
            fprintf(sum, "  %-16s %8u users x %.6g packets/s\n", x->m[i].name, x->users[i],
                    qc_traffic_model_rate(&x->m[i], o->approach));
        if (o->duration > 0)
            fprintf(sum, "  rate: %.6g packets/s generated, %.6g expected (sum over users)\n",
                    (double)count / o->duration, expected);
    }
    if (rc == 0 && rep->dir)
        rc = cli_report_write(rep->dir, "gen", rep->argc, rep->argv, s, NULL, 0);
    json_decref(s);
    return rc;
}

int gen_check(void *ctx)
{
    gen_cli *g = ctx;
    qc_app_gen_params *P = &g->p;
    qc_err err = {0};
    int rc;
    P->nmodels = g->models.n;
    if ((rc = qc_app_gen_params_check(P, &err)) != 0)
        return cli_flags_error(g->flags, NULL, rc, &err);
    if (g->rep.dir && (rc = cli_report_prepare(g->rep.dir)) != 0)
        return rc;
    if (P->validate) {
        if (P->nmodels == 1 && (rc = gen_mix_add(&g->x, P->models[0])) != 0)
            return rc;
        gen_mix_free(&g->x); /* read again by the validation */
        if ((rc = cli_load_trace(P->validate, P->labels, P->json, &g->vtr)) != 0)
            return rc;
        g->vtr_loaded = 1;
        if (!P->activity || g->vtr.nacts == 0)
            return 0;
        for (size_t i = 0; i < g->vtr.nacts; i++)
            if (strcmp(g->vtr.acts[i], P->activity) == 0)
                return 0;
        cli_error("--activity: no activity '%s' in %s", P->activity, P->validate);
        return QC_EXIT_USAGE;
    }
    for (unsigned i = 0; i < P->nmodels; i++)
        if ((rc = gen_mix_add(&g->x, P->models[i])) != 0)
            return rc;
    if (P->users && (rc = apply_users(&g->x, P->users)) != 0)
        return rc;
    return check_gen_size(&g->x, &P->o, P->output, P->fmt, P->snaplen);
}

int gen_run(void *ctx, int argc, char **argv)
{
    gen_cli *g = ctx;
    const qc_app_gen_params *P = &g->p;
    g->rep.argc = argc;
    g->rep.argv = argv;
    if (P->validate)
        return gen_validation(P->validate, &g->vtr, P->nmodels ? P->models[0] : NULL,
                              P->activity, &P->fo, P->o.seed, P->realisations, P->jobs, P->json,
                              P->quiet, P->plot, &g->rep);
    return generate(&g->x, &P->o, P->output, P->fmt, P->snaplen, P->json, P->quiet, &g->rep);
}

void gen_cli_free(gen_cli *g)
{
    gen_mix_free(&g->x);
    if (g->vtr_loaded)
        qc_trace_free(&g->vtr);
    g->vtr_loaded = 0;
}
