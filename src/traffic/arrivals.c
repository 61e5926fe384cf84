/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arrivals.c: renewal, sinusoidal, curve-driven, stepped and trace arrivals.
 *
 * Thinning. For a rate lambda(t) <= lambda* the next arrival after s is
 * found by drawing candidates s + E1, s + E1 + E2, ... (E ~ Exp(lambda*))
 * and keeping the first candidate t with U <= lambda(t) / lambda*. Each
 * candidate is kept independently with that probability, so the kept
 * points are a Poisson process of intensity lambda(t) (a thinned Poisson
 * process); nothing depends on a time step.
 *
 * Curves. Points (t_0 = 0, r_0), ..., (t_{n-1} = P, r_{n-1}); between two
 * points the rate is linear, and lambda(t) = c(t mod P). The mean rate is
 * the trapezoid integral over [0, P] divided by P. Because candidates only
 * move forward, the generator keeps the segment it is in and walks
 * forward; a jump over whole periods is taken by one division.
 *
 * Steps. With a piecewise-constant rate the integrated rate
 * Lambda(t) = int_0^t lambda is piecewise linear and increasing where the
 * rate is positive; arrivals are Lambda^{-1} of a unit-rate Poisson
 * process (time rescaling). From s, draw E ~ Exp(1) and spend it step by
 * step: in step k, reaching the next step's start T_{k+1} costs
 * R_k (T_{k+1} - s); the arrival is where E runs out. Exact, no
 * rejections, and a zero rate is simply skipped.
 *
 * Files (curve and trace) are read line by line: blank lines and lines
 * starting with '#' are skipped, a UTF-8 byte order mark and CR line ends
 * are accepted, and a first line that does not start with a number is a
 * header. Every other line must hold numbers, else the error names
 * FILE:LINE. A curve file may state its time unit in a comment line
 * before its data ("# unit: h", or s, min): its times are then read in
 * that unit and its rates per that unit (curve_unit). */
#include "qctl/arrivals.h"
#include "qctl/trace.h"
#include "core/names.h"
#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TWO_PI 6.283185307179586476925286766559

/* ---- reading a file of numbers --------------------------------------- */

/* Parses the number in s[0, len) (trimmed); 0 on success. */
static int field_number(const char *s, size_t len, double *out)
{
    while (len > 0 && qc__is_blank(*s)) {
        s++;
        len--;
    }
    while (len > 0 && qc__is_blank(s[len - 1]))
        len--;
    if (len == 0 || len > 63)
        return -1;
    char buf[64];
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (*end != '\0' || !isfinite(x) || errno == ERANGE)
        return -1;
    *out = x;
    return 0;
}

/* Reads the first `ncol` comma-separated numbers of each data line of
 * path into cols[0..ncol-1], and the line number of each into lines, so
 * that a later check of a value can still name FILE:LINE; `what` names
 * the columns in messages. */
static int read_columns(const char *path, int ncol, qc__dvec *cols, qc__dvec *lines, const char *what,
                        qc_err *err)
{
    qc__lines rd;
    if (qc__lines_open(&rd, path) != 0)
        return qc_err_set(err, QC_EIO, "%s: cannot read: %s", path, strerror(errno));
    const char *line;
    size_t len, b;
    int rc = 0, first = 1;
    while (qc__lines_next(&rd, &line, &len, &b)) {
        const size_t lineno = rd.lineno;
        if (first && !qc__starts_number(line[b])) {
            first = 0; /* a header line */
            continue;
        }
        first = 0;
        size_t pos = 0;
        for (int c = 0; c < ncol; c++) {
            size_t e = pos;
            while (e < len && line[e] != ',')
                e++;
            if (pos > len || (e == len && c + 1 < ncol)) {
                rc = qc_err_set(err, QC_EPARSE, "%s:%zu: expected %s, found %d field%s", path,
                                lineno, what, c + 1, c ? "s" : "");
                goto out;
            }
            double x;
            if (field_number(line + pos, e - pos, &x) != 0) {
                int n = (int)(e - pos > 40 ? 40 : e - pos);
                rc = qc_err_set(err, QC_EPARSE, "%s:%zu: field %d ('%.*s') is not a number", path,
                                lineno, c + 1, n, line + pos);
                goto out;
            }
            if ((rc = qc__dvec_push(&cols[c], x)) != 0) {
                qc_err_set(err, rc, "%s:%zu: out of memory", path, lineno);
                goto out;
            }
            pos = e + 1;
        }
        if ((rc = qc__dvec_push(lines, (double)lineno)) != 0) {
            qc_err_set(err, rc, "%s:%zu: out of memory", path, lineno);
            goto out;
        }
    }
    if (qc__lines_error(&rd))
        rc = qc_err_set(err, QC_EIO, "%s: read error", path);
out:
    qc__lines_close(&rd);
    return rc;
}

/* ---- parsing specs ---------------------------------------------------- */

static int parse_sin(qc_arrivals *a, const char *spec, const char *s, qc_err *err)
{
    static const char *const names[3] = {"MEAN", "AMP", "PERIOD"};
    double v[3];
    const char *p = s;
    for (int i = 0; i < 3; i++) {
        const char *e = p;
        while (*e && *e != ',')
            e++;
        if (field_number(p, (size_t)(e - p), &v[i]) != 0)
            return qc_err_set(err, QC_EPARSE,
                              "\"%s\": field %d (%s) is not a number (sin takes MEAN,AMP,PERIOD)",
                              spec, i + 1, names[i]);
        if (i < 2 && *e != ',')
            return qc_err_set(err, QC_EPARSE, "\"%s\": sin takes 3 fields MEAN,AMP,PERIOD, got %d",
                              spec, i + 1);
        if (i == 2 && *e != '\0')
            return qc_err_set(err, QC_EPARSE, "\"%s\": sin takes 3 fields MEAN,AMP,PERIOD, got more",
                              spec);
        p = e + 1;
    }
    if (!(v[0] > 0))
        return qc_err_set(err, QC_ERANGE, "\"%s\": field 1 (MEAN) must be > 0", spec);
    if (!(v[1] >= 0 && v[1] <= v[0]))
        return qc_err_set(err, QC_ERANGE,
                          "\"%s\": field 2 (AMP) must be in [0, MEAN] so that the rate stays >= 0",
                          spec);
    if (!(v[2] > 0))
        return qc_err_set(err, QC_ERANGE, "\"%s\": field 3 (PERIOD) must be > 0", spec);
    a->kind = QC_ARRIVALS_SIN;
    a->mean = v[0];
    a->amp = v[1];
    a->period = v[2];
    a->peak = v[0] + v[1];
    a->avg = v[0];
    return 0;
}

/* The time unit a curve file states in its comment lines before the
 * first data line: "# unit: s", "# unit: min" or "# unit: h" (blanks
 * anywhere, the word in any case). *seconds = the unit in seconds, or 0
 * when no line states one; a unit line with another word, or two that
 * disagree, is an error naming FILE:LINE. The file's times are then read
 * in that unit, and its rates per that unit (a curve written in hours
 * was read as seconds with no hint: issue 34). */
static int curve_unit(const char *path, double *seconds, qc_err *err)
{
    *seconds = 0;
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return 0; /* read_columns says why */
    char line[512];
    size_t lineno = 0, at = 0;
    int rc = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        lineno++;
        char *s = line;
        if (lineno == 1 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
            (unsigned char)s[2] == 0xBF)
            s += 3;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '\n' || *s == '\r')
            continue;
        if (*s != '#')
            break; /* the data (or a header) begins: no unit line after it */
        s++;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncasecmp(s, "unit", 4) != 0)
            continue;
        s += 4;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s != ':')
            continue;
        s++;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, " \t\r\n");
        double u = n == 1 && strncasecmp(s, "s", 1) == 0     ? 1
                   : n == 3 && strncasecmp(s, "min", 3) == 0 ? 60
                   : n == 1 && strncasecmp(s, "h", 1) == 0   ? 3600
                                                             : 0;
        if (u == 0) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: unit '%.*s' is not s, min or h", path,
                            lineno, (int)(n > 20 ? 20 : n), s);
            break;
        }
        if (*seconds != 0 && *seconds != u) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: a second unit line disagrees with line %zu",
                            path, lineno, at);
            break;
        }
        *seconds = u;
        at = lineno;
    }
    fclose(fp);
    return rc;
}

static int parse_curve(qc_arrivals *a, const char *path, qc_err *err)
{
    qc__dvec cols[2] = {{0}, {0}}, lines = {0};
    int rc = read_columns(path, 2, cols, &lines, "2 fields time,rate", err);
    if (rc != 0)
        goto fail;
    size_t n = cols[0].n;
    if (n < 2) {
        rc = qc_err_set(err, QC_EPARSE, "%s: a curve needs at least 2 points time,rate; found %zu",
                        path, n);
        goto fail;
    }
    const double *t = cols[0].x, *r = cols[1].x;
    if (t[0] != 0) {
        rc = qc_err_set(err, QC_EPARSE, "%s:%.0f: the curve must start at time 0 (found %g)", path,
                        lines.x[0], t[0]);
        goto fail;
    }
    double peak = 0, area = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(r[i] >= 0)) {
            rc = qc_err_set(err, QC_ERANGE, "%s:%.0f: rate %g must be >= 0", path, lines.x[i],
                            r[i]);
            goto fail;
        }
        if (i > 0 && !(t[i] > t[i - 1])) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%.0f: times must increase strictly (%g after %g)",
                            path, lines.x[i], t[i], t[i - 1]);
            goto fail;
        }
        if (r[i] > peak)
            peak = r[i];
        if (i > 0)
            area += 0.5 * (r[i] + r[i - 1]) * (t[i] - t[i - 1]);
    }
    if (!(peak > 0)) {
        rc = qc_err_set(err, QC_ERANGE, "%s: every rate is 0: no arrivals", path);
        goto fail;
    }
    free(lines.x);
    a->kind = QC_ARRIVALS_CURVE;
    a->t = cols[0].x;
    a->rate = cols[1].x;
    a->n = n;
    a->period = t[n - 1];
    a->peak = peak;
    a->avg = area / a->period;
    double unit = 0;
    if ((rc = curve_unit(path, &unit, err)) != 0 ||
        (unit > 0 && (rc = qc_arrivals_set_time_unit(a, unit, err)) != 0)) {
        /* a failed parse leaves nothing for the caller to free */
        free(a->t);
        free(a->rate);
        a->t = a->rate = NULL;
        a->n = 0;
        return rc;
    }
    a->unit = unit;
    return 0;
fail:
    free(cols[0].x);
    free(cols[1].x);
    free(lines.x);
    return rc;
}

/* steps:T0:R0,T1:R1,...: one TIME:RATE pair per comma-separated field. */
static int parse_steps(qc_arrivals *a, const char *spec, const char *s, qc_err *err)
{
    size_t n = 1;
    for (const char *p = s; *p; p++)
        n += *p == ',';
    double *t = malloc(n * sizeof *t), *r = malloc(n * sizeof *r);
    int rc = 0;
    if (t == NULL || r == NULL) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto fail;
    }
    double peak = 0;
    const char *p = s;
    for (size_t k = 0; k < n; k++) {
        const char *e = p, *colon = NULL;
        while (*e && *e != ',') {
            if (*e == ':' && colon == NULL)
                colon = e;
            e++;
        }
        if (colon == NULL) {
            rc = qc_err_set(err, QC_EPARSE, "\"%s\": step %zu ('%.*s') is not TIME:RATE", spec,
                            k + 1, (int)(e - p > 40 ? 40 : e - p), p);
            goto fail;
        }
        if (field_number(p, (size_t)(colon - p), &t[k]) != 0) {
            rc = qc_err_set(err, QC_EPARSE, "\"%s\": step %zu: TIME '%.*s' is not a number", spec,
                            k + 1, (int)(colon - p > 40 ? 40 : colon - p), p);
            goto fail;
        }
        if (field_number(colon + 1, (size_t)(e - colon - 1), &r[k]) != 0) {
            rc = qc_err_set(err, QC_EPARSE, "\"%s\": step %zu: RATE '%.*s' is not a number", spec,
                            k + 1, (int)(e - colon - 1 > 40 ? 40 : e - colon - 1), colon + 1);
            goto fail;
        }
        if (k == 0 && t[0] != 0) {
            rc = qc_err_set(err, QC_ERANGE, "\"%s\": step 1: TIME must be 0 (found %g)", spec,
                            t[0]);
            goto fail;
        }
        if (k > 0 && !(t[k] > t[k - 1])) {
            rc = qc_err_set(err, QC_ERANGE,
                            "\"%s\": step %zu: TIME %g must be after step %zu's (%g)", spec, k + 1,
                            t[k], k, t[k - 1]);
            goto fail;
        }
        if (!(r[k] >= 0)) {
            rc = qc_err_set(err, QC_ERANGE, "\"%s\": step %zu: RATE %g must be >= 0", spec, k + 1,
                            r[k]);
            goto fail;
        }
        if (r[k] > peak)
            peak = r[k];
        p = e + 1;
    }
    if (!(r[n - 1] > 0)) {
        /* a stream that ends would stall a simulation waiting for its
         * customers; a load is bounded by its duration anyway */
        rc = qc_err_set(err, QC_ERANGE, "\"%s\": step %zu: the last RATE must be > 0 (it holds for ever)",
                        spec, n);
        goto fail;
    }
    a->kind = QC_ARRIVALS_STEPS;
    a->t = t;
    a->rate = r;
    a->n = n;
    a->period = t[n - 1];
    a->peak = peak;
    a->avg = r[n - 1];
    return 0;
fail:
    free(t);
    free(r);
    return rc;
}

/* 1 when the file starts with a pcap or pcapng magic number. */
static int is_capture(const char *path)
{
    unsigned char m[4];
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return 0;
    size_t got = fread(m, 1, 4, fp);
    fclose(fp);
    if (got != 4)
        return 0;
    uint32_t le = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
    return le == 0xa1b2c3d4u || le == 0xd4c3b2a1u || le == 0xa1b23c4du || le == 0x4d3cb2a1u ||
           le == 0x0a0d0d0au;
}

static int parse_trace(qc_arrivals *a, const char *path, qc_err *err)
{
    if (is_capture(path)) {
        /* a capture: its packets' times are the arrivals */
        double *t = NULL;
        size_t n = 0;
        int rc = qc_trace_times(path, &t, &n, err);
        if (rc != 0)
            return rc;
        a->kind = QC_ARRIVALS_TRACE;
        a->t = t;
        a->n = n;
        a->peak = NAN;
        a->avg = n > 1 && t[n - 1] > t[0] ? (double)(n - 1) / (t[n - 1] - t[0]) : NAN;
        return 0;
    }
    qc__dvec col = {0}, lines = {0};
    int rc = read_columns(path, 1, &col, &lines, "an arrival time", err);
    if (rc != 0)
        goto fail;
    if (col.n == 0) {
        rc = qc_err_set(err, QC_EEMPTY, "%s: no arrival times", path);
        goto fail;
    }
    for (size_t i = 1; i < col.n; i++) {
        if (!(col.x[i] >= col.x[i - 1])) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%.0f: times must not decrease (%.17g after %.17g)",
                            path, lines.x[i], col.x[i], col.x[i - 1]);
            goto fail;
        }
    }
    free(lines.x);
    double t0 = col.x[0], span = col.x[col.n - 1] - t0;
    for (size_t i = 0; i < col.n; i++)
        col.x[i] -= t0;
    a->kind = QC_ARRIVALS_TRACE;
    a->t = col.x;
    a->n = col.n;
    a->peak = NAN;
    a->avg = span > 0 ? (double)(col.n - 1) / span : NAN;
    return 0;
fail:
    free(col.x);
    free(lines.x);
    return rc;
}

int qc_arrivals_from_times(qc_arrivals *a, double *t, size_t n, qc_err *err)
{
    memset(a, 0, sizeof *a);
    if (n == 0) {
        free(t);
        return qc_err_set(err, QC_EEMPTY, "no arrival times");
    }
    for (size_t i = 1; i < n; i++)
        if (!(t[i] >= t[i - 1])) {
            double bad = t[i], prev = t[i - 1];
            free(t);
            return qc_err_set(err, QC_EPARSE, "arrival %zu: time %.17g is before %.17g", i + 1,
                              bad, prev);
        }
    double t0 = t[0], span = t[n - 1] - t0;
    for (size_t i = 0; i < n; i++)
        t[i] -= t0;
    a->kind = QC_ARRIVALS_TRACE;
    a->t = t;
    a->n = n;
    a->peak = NAN;
    a->avg = span > 0 ? (double)(n - 1) / span : NAN;
    return 0;
}

int qc_arrivals_parse(qc_arrivals *a, const char *spec, qc_err *err)
{
    memset(a, 0, sizeof *a);
    if (spec == NULL || *spec == '\0')
        return qc_err_set(err, QC_EINVAL, "empty arrival spec");
    int rc;
    if (strncmp(spec, "sin:", 4) == 0) {
        rc = parse_sin(a, spec, spec + 4, err);
    } else if (strncmp(spec, "curve:", 6) == 0) {
        if (spec[6] == '\0')
            return qc_err_set(err, QC_EPARSE, "\"%s\": curve takes FILE", spec);
        rc = parse_curve(a, spec + 6, err);
    } else if (strncmp(spec, "steps:", 6) == 0) {
        if (spec[6] == '\0')
            return qc_err_set(err, QC_EPARSE, "\"%s\": steps takes T0:R0,T1:R1,...", spec);
        rc = parse_steps(a, spec, spec + 6, err);
    } else if (strncmp(spec, "trace:", 6) == 0) {
        if (spec[6] == '\0')
            return qc_err_set(err, QC_EPARSE, "\"%s\": trace takes FILE", spec);
        rc = parse_trace(a, spec + 6, err);
    } else {
        rc = qc_dist_parse(&a->gap, spec, err);
        if (rc == 0) {
            double m = qc_dist_mean(&a->gap);
            if (!(m > 0 && isfinite(m))) {
                qc_dist_free(&a->gap);
                rc = qc_err_set(err, QC_ERANGE,
                                "\"%s\": the mean inter-arrival time is %g; it must be > 0 and "
                                "finite",
                                spec, m);
            } else {
                a->kind = QC_ARRIVALS_RENEWAL;
                a->avg = 1.0 / m;
                a->peak = NAN;
            }
        }
    }
    if (rc != 0)
        memset(a, 0, sizeof *a);
    return rc;
}

void qc_arrivals_free(qc_arrivals *a)
{
    qc_dist_free(&a->gap);
    free(a->t);
    free(a->rate);
    memset(a, 0, sizeof *a);
}

int qc_arrivals_format(const qc_arrivals *a, char *buf, size_t size)
{
    char g[128];
    switch (a->kind) {
    case QC_ARRIVALS_RENEWAL:
        qc_dist_format(&a->gap, g, sizeof g);
        return snprintf(buf, size, "%s", g);
    case QC_ARRIVALS_SIN:
        return snprintf(buf, size, "sin:%.10g,%.10g,%.10g", a->mean, a->amp, a->period);
    case QC_ARRIVALS_CURVE:
        return snprintf(buf, size, "curve:<%zu points, period %.10g>", a->n, a->period);
    case QC_ARRIVALS_TRACE:
        return snprintf(buf, size, "trace:<%zu arrivals>", a->n);
    case QC_ARRIVALS_STEPS: {
        int len = snprintf(buf, size, "steps:");
        for (size_t k = 0; k < a->n && len >= 0; k++) {
            size_t at = (size_t)len < size ? (size_t)len : size;
            int m = snprintf(buf + at, size - at, "%s%.10g:%.10g", k ? "," : "", a->t[k],
                             a->rate[k]);
            len = m < 0 ? m : len + m;
        }
        return len;
    }
    default:
        return snprintf(buf, size, "none");
    }
}

double qc_arrivals_mean_rate(const qc_arrivals *a)
{
    return a->kind == QC_ARRIVALS_NONE ? NAN : a->avg;
}

int qc_arrivals_varies(const qc_arrivals *a)
{
    return a->kind == QC_ARRIVALS_SIN || a->kind == QC_ARRIVALS_CURVE ||
           (a->kind == QC_ARRIVALS_STEPS && a->n > 1);
}

/* Linear interpolation on segment i at time u (t[i] <= u <= t[i+1]). */
static inline double curve_seg(const qc_arrivals *a, size_t i, double u)
{
    double w = (u - a->t[i]) / (a->t[i + 1] - a->t[i]);
    return a->rate[i] + w * (a->rate[i + 1] - a->rate[i]);
}

static inline double sin_rate(const qc_arrivals *a, double t)
{
    /* fmod keeps the argument small, so sin() stays exact for long runs */
    return a->mean + a->amp * sin(TWO_PI * fmod(t, a->period) / a->period);
}

double qc_arrivals_rate_at(const qc_arrivals *a, double t)
{
    switch (a->kind) {
    case QC_ARRIVALS_RENEWAL:
        return a->avg;
    case QC_ARRIVALS_SIN:
        return sin_rate(a, t);
    case QC_ARRIVALS_CURVE: {
        double u = fmod(t, a->period);
        if (u < 0)
            u += a->period;
        size_t lo = 0, hi = a->n - 1; /* t[lo] <= u < t[hi] */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (a->t[mid] <= u)
                lo = mid;
            else
                hi = mid;
        }
        return curve_seg(a, lo, u);
    }
    case QC_ARRIVALS_STEPS: {
        size_t k = 0;
        while (k + 1 < a->n && t >= a->t[k + 1])
            k++;
        return a->rate[k];
    }
    default:
        return NAN;
    }
}

void qc_arrivals_gen_init(qc_arrivals_gen *g, const qc_arrivals *a, qc_rng *r)
{
    memset(g, 0, sizeof *g);
    g->a = a;
    g->r = r;
    if (a->kind == QC_ARRIVALS_RENEWAL)
        qc_sampler_init(&g->s, &a->gap, r);
}

/* The curve's rate at t >= every earlier call's t, by the cursor. */
static inline double curve_rate_fwd(qc_arrivals_gen *g, double t)
{
    const qc_arrivals *a = g->a;
    double P = a->period;
    if (t - g->base >= P) {
        g->base += floor((t - g->base) / P) * P;
        g->i = 0;
    }
    double u = t - g->base;
    if (u >= P) /* rounding at a period's edge */
        u = P;
    while (g->i + 2 < a->n && u >= a->t[g->i + 1])
        g->i++;
    return curve_seg(a, g->i, u);
}

double qc__arrivals_next_slow(qc_arrivals_gen *g)
{
    const qc_arrivals *a = g->a;
    switch (a->kind) {
    case QC_ARRIVALS_RENEWAL:
        g->t += qc_sampler_next(&g->s);
        return g->t;
    case QC_ARRIVALS_SIN:
        for (;;) {
            g->t += qc_rng_exp(g->r, a->peak);
            if (qc_rng_u01(g->r) * a->peak < sin_rate(a, g->t))
                return g->t;
        }
    case QC_ARRIVALS_CURVE:
        for (;;) {
            g->t += qc_rng_exp(g->r, a->peak);
            if (qc_rng_u01(g->r) * a->peak < curve_rate_fwd(g, g->t))
                return g->t;
        }
    case QC_ARRIVALS_STEPS: {
        double need = qc_rng_exp(g->r, 1.0);
        for (;;) {
            double r = a->rate[g->i];
            int last = g->i + 1 >= a->n;
            double end = last ? (double)INFINITY : a->t[g->i + 1];
            if (r > 0 && (last || need < r * (end - g->t)))
                return g->t += need / r;
            if (last)
                return g->t = (double)INFINITY;
            need -= r * (end - g->t);
            g->t = end;
            g->i++;
        }
    }
    case QC_ARRIVALS_TRACE:
        if (g->i < a->n)
            return g->t = a->t[g->i++];
        return (double)INFINITY;
    default:
        return (double)INFINITY;
    }
}

static const char *const arrivals_kind_names[] = {"none", "renewal", "sin", "curve", "trace",
    "steps"};
QC__NAMES(qc_arrivals_kind, qc_arrivals_kind_name, qc_arrivals_kind_parse, arrivals_kind_names)

int qc_arrivals_set_time_unit(qc_arrivals *a, double seconds, qc_err *err)
{
    if (!(seconds > 0) || !isfinite(seconds))
        return qc_err_set(err, QC_EINVAL, "time unit: %g s is not a positive duration", seconds);
    if (a->kind != QC_ARRIVALS_CURVE && a->kind != QC_ARRIVALS_STEPS && a->kind != QC_ARRIVALS_SIN)
        return qc_err_set(err, QC_EINVAL,
                          "time unit: only a curve:, steps: or sin: arrival process has times "
                          "to give a unit to (this one is %s)", qc_arrivals_kind_name(a->kind));
    if (seconds == 1)
        return 0;
    /* times (and the period) in the unit become seconds; rates per unit
     * become per second: the same arrivals, on a clock of seconds */
    for (size_t i = 0; i < a->n; i++) {
        a->t[i] *= seconds;
        a->rate[i] /= seconds;
    }
    a->period *= seconds;
    a->mean /= seconds;
    a->amp /= seconds;
    a->peak /= seconds;
    a->avg /= seconds;
    return 0;
}

double qc_arrivals_mean_rate_over(const qc_arrivals *a, double t0, double t1)
{
    if (!(t1 > t0) || a->kind == QC_ARRIVALS_TRACE)
        return NAN;
    if (!qc_arrivals_varies(a))
        return qc_arrivals_mean_rate(a);
    /* the trapezoid rule on 4096 panels per period covered (at least
     * 4096), exact for a curve's linear pieces up to the panels that
     * straddle a point, and for steps up to the panels at a change */
    double span = t1 - t0, per = a->period > 0 ? a->period : span;
    double np = ceil(span / per) * 4096;
    if (np > 1e7)
        np = 1e7;
    size_t n = (size_t)np;
    double h = span / (double)n, sum = 0;
    for (size_t i = 0; i <= n; i++) {
        double w = (i == 0 || i == n) ? 0.5 : 1.0;
        sum += w * qc_arrivals_rate_at(a, t0 + h * (double)i);
    }
    return sum * h / span;
}
