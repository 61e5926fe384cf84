/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arx_json.c: ARX models and identification results to and from JSON
 * (see qctl/arx_json.h). */
#include "qctl/arx_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "control/arx_text.h"
#include "qctl/output.h"

/* ---- JSON --------------------------------------------------------------- */

static json_t *real_array(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, qc_json_real_new(x[i]));
    return a;
}

json_t *qc_arx_model_json(const qc_arx_model *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string("arx"));
    json_object_set_new(o, "na", json_integer(m->na));
    json_object_set_new(o, "nb", json_integer(m->nb));
    json_object_set_new(o, "delay", json_integer(m->delay));
    json_object_set_new(o, "a", real_array(m->a, m->na));
    json_object_set_new(o, "b", real_array(m->b, m->nb));
    json_t *op = json_object();
    json_object_set_new(op, "u", qc_json_real_new(m->u0));
    json_object_set_new(op, "y", qc_json_real_new(m->y0));
    json_object_set_new(o, "operating_point", op);
    json_object_set_new(o, "sample_interval", m->dt > 0 ? json_real(m->dt) : json_null());
    return o;
}

json_t *qc_arx_result_json(const qc_arx_result *r)
{
    json_t *o = qc_arx_model_json(&r->model);
    json_t *fit = json_object();
    const unsigned p = r->model.na + r->model.nb;
    json_object_set_new(fit, "method", json_string("least squares"));
    json_object_set_new(fit, "criterion", json_string(r->criterion == QC_ARX_BIC ? "bic" : "aic"));
    json_object_set_new(fit, "criterion_form", json_string(r->criterion == QC_ARX_BIC
                                                               ? "N ln(RSS/N) + p ln N"
                                                               : "N ln(RSS/N) + 2p"));
    json_object_set_new(fit, "samples", json_integer((json_int_t)r->n));
    json_object_set_new(fit, "estimation_samples", json_integer((json_int_t)r->n_est));
    json_object_set_new(fit, "validation_samples", json_integer((json_int_t)r->n_val));
    json_object_set_new(fit, "rows", json_integer((json_int_t)r->rows));
    json_object_set_new(fit, "r2", qc_json_real_new(r->r2));
    json_object_set_new(fit, "residual_variance", qc_json_real_new(r->sigma2));
    json_object_set_new(fit, "rss", qc_json_real_new(r->rss));
    json_object_set_new(fit, "aic", qc_json_real_new(r->aic));
    json_object_set_new(fit, "bic", qc_json_real_new(r->bic));
    json_object_set_new(fit, "se_a", real_array(r->se_a, r->model.na));
    {
        const double g = qc_arx_dc_gain(&r->model), se = qc_arx_dc_gain_se(r);
        json_t *dc = json_object();
        json_object_set_new(dc, "value", qc_json_real_new(g));
        json_object_set_new(dc, "se", qc_json_real_new(se));
        json_t *ci = json_array();
        json_array_append_new(ci, qc_json_real_new(g - 1.96 * se));
        json_array_append_new(ci, qc_json_real_new(g + 1.96 * se));
        json_object_set_new(dc, "ci95", isfinite(se) ? ci : (json_decref(ci), json_null()));
        json_object_set_new(fit, "dc_gain", dc);
    }
    json_object_set_new(fit, "se_b", real_array(r->se_b, r->model.nb));
    json_t *cov = json_array();
    for (unsigned i = 0; i < p; i++)
        json_array_append_new(cov, real_array(r->cov[i], p));
    json_object_set_new(fit, "covariance", cov);
    if (r->n_val >= 2) {
        json_t *v = json_object();
        json_object_set_new(v, "r2_one_step", qc_json_real_new(r->val_r2));
        json_object_set_new(v, "fit_percent", qc_json_real_new(r->val_fit));
        json_object_set_new(fit, "validation", v);
    } else {
        json_object_set_new(fit, "validation", json_null());
    }
    json_t *cands = json_array();
    for (size_t i = 0; i < r->ncand; i++) {
        const qc_arx_candidate *c = &r->cand[i];
        json_t *e = json_object();
        json_object_set_new(e, "na", json_integer(c->na));
        json_object_set_new(e, "nb", json_integer(c->nb));
        json_object_set_new(e, "delay", json_integer(c->delay));
        json_object_set_new(e, "params", json_integer(c->params));
        json_object_set_new(e, "usable", json_boolean(c->usable));
        json_object_set_new(e, "aic", qc_json_real_new(c->aic));
        json_object_set_new(e, "bic", qc_json_real_new(c->bic));
        json_object_set_new(e, "residual_variance", qc_json_real_new(c->sigma2));
        json_object_set_new(e, "r2", qc_json_real_new(c->r2));
        json_array_append_new(cands, e);
    }
    json_object_set_new(fit, "candidates", cands);
    json_object_set_new(fit, "chosen", json_integer((json_int_t)r->best));
    json_object_set_new(o, "fit", fit);
    return o;
}

/* "where.key", or "key" at the top. */
static void key_path(char *out, size_t size, const char *where, const char *key)
{
    if (where == NULL || where[0] == '\0')
        snprintf(out, size, "%s", key);
    else
        snprintf(out, size, "%s.%s", where, key);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static int get_int(const json_t *o, const char *where, const char *key, long lo, long hi,
                   long *out, qc_err *err)
{
    char p[160];
    key_path(p, sizeof p, where, key);
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return qc_err_set(err, QC_EPARSE, "%s: missing field", p);
    double x;
    if (json_is_integer(v))
        x = (double)json_integer_value(v);
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)))
        x = json_real_value(v);
    else
        return qc_err_set(err, QC_EPARSE, "%s: expected a whole number, got %s", p,
                          json_is_real(v) ? "a fraction" : type_name(v));
    if (x < (double)lo || x > (double)hi)
        return qc_err_set(err, QC_EPARSE, "%s: %.0f is out of range [%ld, %ld]", p, x, lo, hi);
    *out = (long)x;
    return 0;
}

static int get_real(const json_t *o, const char *where, const char *key, double *out,
                    qc_err *err)
{
    char p[160];
    key_path(p, sizeof p, where, key);
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return qc_err_set(err, QC_EPARSE, "%s: missing field", p);
    if (!json_is_number(v))
        return qc_err_set(err, QC_EPARSE, "%s: expected a number, got %s", p, type_name(v));
    *out = json_number_value(v);
    return 0;
}

static int get_coefs(const json_t *o, const char *where, const char *key, const char *order,
                     size_t n, double *out, qc_err *err)
{
    char p[160];
    key_path(p, sizeof p, where, key);
    const json_t *v = json_object_get(o, key);
    if (v == NULL)
        return qc_err_set(err, QC_EPARSE, "%s: missing field", p);
    if (!json_is_array(v) || json_array_size(v) != n)
        return qc_err_set(err, QC_EPARSE,
                          "%s: expected an array of %zu number%s (%s = %zu), got %s%zu", p, n,
                          n == 1 ? "" : "s", order, n, json_is_array(v) ? "" : type_name(v),
                          json_is_array(v) ? json_array_size(v) : 0);
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(v, i);
        if (!json_is_number(e))
            return qc_err_set(err, QC_EPARSE, "%s.%zu: expected a number, got %s", p, i,
                              type_name(e));
        out[i] = json_number_value(e);
        if (!isfinite(out[i]))
            return qc_err_set(err, QC_EPARSE, "%s.%zu: not a finite number", p, i);
    }
    return 0;
}

int qc_arx_model_from_json(const json_t *v, const char *where, qc_arx_model *m, qc_err *err)
{
    char p[160];
    memset(m, 0, sizeof *m);
    if (!json_is_object(v))
        return qc_err_set(err, QC_EPARSE, "%s: expected an object, got %s",
                          where && *where ? where : "model", type_name(v));
    const json_t *t = json_object_get(v, "type");
    key_path(p, sizeof p, where, "type");
    if (t == NULL)
        return qc_err_set(err, QC_EPARSE, "%s: missing field (expected \"arx\")", p);
    if (!json_is_string(t) || strcmp(json_string_value(t), "arx") != 0)
        return qc_err_set(err, QC_EPARSE, "%s: expected the string \"arx\"", p);
    long na, nb, d;
    int rc;
    if ((rc = get_int(v, where, "na", 0, QC_ARX_MAX_ORDER, &na, err)) != 0 ||
        (rc = get_int(v, where, "nb", 1, QC_ARX_MAX_ORDER, &nb, err)) != 0 ||
        (rc = get_int(v, where, "delay", -1, QC_ARX_MAX_DELAY, &d, err)) != 0)
        return rc;
    m->na = (unsigned)na;
    m->nb = (unsigned)nb;
    m->delay = (int)d;
    if ((rc = get_coefs(v, where, "a", "na", m->na, m->a, err)) != 0 ||
        (rc = get_coefs(v, where, "b", "nb", m->nb, m->b, err)) != 0)
        return rc;
    const json_t *op = json_object_get(v, "operating_point");
    key_path(p, sizeof p, where, "operating_point");
    if (op == NULL)
        return qc_err_set(err, QC_EPARSE, "%s: missing field", p);
    if (!json_is_object(op))
        return qc_err_set(err, QC_EPARSE, "%s: expected an object {\"u\": U, \"y\": Y}, got %s",
                          p, type_name(op));
    char opw[160];
    snprintf(opw, sizeof opw, "%s", p);
    if ((rc = get_real(op, opw, "u", &m->u0, err)) != 0 ||
        (rc = get_real(op, opw, "y", &m->y0, err)) != 0)
        return rc;
    const json_t *dt = json_object_get(v, "sample_interval");
    key_path(p, sizeof p, where, "sample_interval");
    if (dt != NULL && !json_is_null(dt)) {
        if (!json_is_number(dt) || !(json_number_value(dt) > 0))
            return qc_err_set(err, QC_EPARSE, "%s: expected a number > 0 or null", p);
        m->dt = json_number_value(dt);
    }
    const json_t *fit = json_object_get(v, "fit");
    key_path(p, sizeof p, where, "fit");
    if (fit != NULL && !json_is_object(fit) && !json_is_null(fit))
        return qc_err_set(err, QC_EPARSE, "%s: expected an object, got %s", p, type_name(fit));
    return 0;
}

/* fit.residual_variance of a model object, NAN when absent or not >= 0 */
static double residual_variance(const json_t *m)
{
    const json_t *fit = m ? json_object_get(m, "fit") : NULL;
    const json_t *v = fit ? json_object_get(fit, "residual_variance") : NULL;
    return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : NAN;
}

int qc_arx_system_read(const char *path, qc_arx_system *s, qc_err *err)
{
    memset(s, 0, sizeof *s);
    json_error_t e;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (root == NULL) {
        if (json_error_code(&e) == json_error_cannot_open_file)
            return qc_err_set(err, QC_EIO, "%s: cannot open: %s", path, strerror(errno));
        /* jansson quotes the offending text, raw newlines included: keep
         * the message on one line */
        char text[sizeof e.text];
        qc__field_text(text, sizeof text, e.text, strnlen(e.text, sizeof e.text));
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", path, e.line, e.column, text);
    }
    int rc = qc_arx_model_from_json(root, "", &s->plant, err);
    s->sensor_max = INFINITY;
    s->plant_noise_var = residual_variance(root);
    s->sensor_noise_var = residual_variance(json_object_get(root, "sensor"));
    const json_t *fl = json_object_get(root, "input_fall");
    if (rc == 0 && fl != NULL && !json_is_null(fl)) {
        if (!json_is_number(fl) || !(json_number_value(fl) >= 0 && json_number_value(fl) < 1))
            rc = qc_err_set(err, QC_EPARSE, "input_fall: expected a number in [0, 1)");
        else
            s->input_fall = json_number_value(fl);
    }
    if (rc == 0) {
        const json_t *sen = json_object_get(root, "sensor");
        if (sen != NULL && !json_is_null(sen)) {
            rc = qc_arx_model_from_json(sen, "sensor", &s->sensor, err);
            s->has_sensor = rc == 0;
        }
        const json_t *mx = sen ? json_object_get(sen, "max") : NULL;
        if (rc == 0 && mx != NULL && !json_is_null(mx)) {
            if (!json_is_number(mx) || !(json_number_value(mx) > 0))
                rc = qc_err_set(err, QC_EPARSE, "sensor.max: expected a positive number");
            else
                s->sensor_max = json_number_value(mx);
        }
        const json_t *af = sen ? json_object_get(sen, "affine") : NULL;
        if (rc == 0 && af != NULL && !json_is_null(af)) {
            static const char *const keys[3] = {"at", "gain", "offset"};
            double v[3];
            for (int i = 0; i < 3 && rc == 0; i++) {
                const json_t *x = json_object_get(af, keys[i]);
                if (!json_is_number(x) || !isfinite(json_number_value(x)))
                    rc = qc_err_set(err, QC_EPARSE, "sensor.affine.%s: expected a finite number",
                                    keys[i]);
                else
                    v[i] = json_number_value(x);
            }
            if (rc == 0 && !(v[1] > 0))
                rc = qc_err_set(err, QC_EPARSE, "sensor.affine.gain: %g is not positive", v[1]);
            if (rc == 0) {
                s->has_affine = 1;
                s->affine.at = v[0];
                s->affine.gain = v[1];
                s->affine.offset = v[2];
                const json_t *w = json_object_get(af, "width");
                s->affine.width = json_is_number(w) ? json_number_value(w) : NAN;
                const json_t *np = json_object_get(af, "points");
                s->affine.points = json_is_integer(np) ? (size_t)json_integer_value(np) : 0;
            }
        }
        const json_t *cv = sen ? json_object_get(sen, "curve") : NULL;
        if (rc == 0 && cv != NULL && !json_is_null(cv)) {
            const json_t *form = json_object_get(cv, "form");
            const json_t *sc = json_object_get(cv, "scale");
            const json_t *rv = json_object_get(cv, "residual_variance");
            if (!json_is_string(form) || strcmp(json_string_value(form), "completion_log") != 0)
                rc = qc_err_set(err, QC_EPARSE,
                                "sensor.curve.form: expected \"completion_log\"");
            else if (!json_is_number(sc) || !(json_number_value(sc) > 0) ||
                     !isfinite(json_number_value(sc)))
                rc = qc_err_set(err, QC_EPARSE, "sensor.curve.scale: expected a positive number");
            else if (rv != NULL && !json_is_null(rv) &&
                     (!json_is_number(rv) || !(json_number_value(rv) >= 0) ||
                      !isfinite(json_number_value(rv))))
                rc = qc_err_set(err, QC_EPARSE,
                                "sensor.curve.residual_variance: expected a number >= 0");
            else {
                s->has_curve = 1;
                s->curve.scale = json_number_value(sc);
                s->curve.residual_variance = json_is_number(rv) ? json_number_value(rv) : NAN;
                const json_t *rc_ = json_object_get(cv, "residual_cv");
                s->curve.residual_cv = json_is_number(rc_) && json_number_value(rc_) >= 0
                                           ? json_number_value(rc_)
                                           : NAN;
                const json_t *np = json_object_get(cv, "points");
                s->curve.points = json_is_integer(np) ? (size_t)json_integer_value(np) : 0;
            }
        }
    }
    json_decref(root);
    if (rc != 0)
        qc_err_prefix(err, "%s", path);
    return rc;
}

json_t *qc_arx_affine_json(const qc_arx_affine *a)
{
    json_t *o = json_object();
    json_object_set_new(o, "at", json_real(a->at));
    json_object_set_new(o, "gain", json_real(a->gain));
    json_object_set_new(o, "offset", json_real(a->offset));
    json_object_set_new(o, "value_at", json_real(a->offset + a->gain * a->at));
    json_object_set_new(o, "width", json_real(a->width));
    json_object_set_new(o, "points", json_integer((json_int_t)a->points));
    return o;
}

json_t *qc_arx_curve_json(const qc_arx_curve *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "form", json_string("completion_log"));
    json_object_set_new(o, "scale", json_real(c->scale));
    json_object_set_new(o, "residual_variance", json_real(c->residual_variance));
    json_object_set_new(o, "residual_cv", json_real(c->residual_cv));
    json_object_set_new(o, "points", json_integer((json_int_t)c->points));
    return o;
}
