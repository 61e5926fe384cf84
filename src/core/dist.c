/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dist.c: distributions named by a text spec: parsing, sampling, moments,
 * CDF and quantiles.
 *
 * A qc_dist is a tagged value: a kind and up to nine parameters (a
 * three-component lognormal mixture, as 'qctl fit' finds them), checked
 * once at parse time so that every later call may assume them valid. All
 * the kinds describe times or sizes, so every support lies in [0, inf):
 * that is why det and uniform refuse negative values, and why the parser,
 * not the sampler, is where a mistake is reported. A parse error names the
 * spec, the field (index and name) and the column of the first offending
 * character, because the spec usually arrives on a command line far from
 * the code that reads it.
 *
 * Sampling is a switch on the kind (no function pointer per draw). The
 * variates GSL has are drawn through the stream's gsl_rng view, so a
 * distribution never owns or hides randomness: the (seed, stream) pair
 * alone decides every draw. Bounded Pareto, the hyperexponential branch
 * and the empirical pick are inversions of a uniform from the stream.
 *
 * GSL and the process: GSL reports a numerical failure through its error
 * handler, whose default aborts the process. A library must not abort, and
 * must not change the process-wide handler either, so this file calls GSL
 * only where GSL cannot fail for valid parameters:
 *  - gsl_cdf_gamma_P calls the handler (an asymptotic series gives up)
 *    for shapes from about 10^6 and x above the mode, and loses accuracy
 *    well before that; shapes above QC_GAMMA_TEMME_MIN use Temme's
 *    uniform asymptotic expansion instead, which is most accurate there.
 *  - gsl_cdf_gamma_Pinv fails to converge (GSL_EFAILED) for shapes below
 *    about 1 and for large shapes, at ordinary probabilities (shape 0.1,
 *    P = 0.1 is one case). Gamma, Erlang and hyperexponential quantiles
 *    are therefore found by bisection on the CDF over the bit patterns of
 *    doubles (at most 64 CDF calls, exact to one ulp; see invert_cdf).
 *  - Moments use the C library's tgamma, which overflows to inf quietly.
 *
 * Extreme but valid parameters (a subnormal rate, a shape of 1e-300, XM
 * near DBL_MAX) still give no NaN and no negative value anywhere: formulas
 * are ordered so that an intermediate overflows only when the result does,
 * and are taken in logs where factors run off in opposite directions.
 * fuzz/fuzz_dist.c checks this on every spec it parses.
 *
 * Numbers are read with strtod and written with printf, which follow the
 * C locale's decimal point; the library never calls setlocale.
 *
 * Nothing here has static mutable state: all of it is re-entrant. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* getline */
#endif

#include "qctl/dist.h"
#include "qctl/rng_gsl.h"
#include "core/text.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include "core/gsl_quiet.h"
#include "core/names.h"
#include <gsl/gsl_randist.h>

/* Shapes above this use Temme's expansion for the gamma CDF. Measured
 * against 40-digit mpmath over x = a +- 8 sqrt(a): at a = 1e4 the two-term
 * expansion is within 2e-13 and GSL within 3e-12; at 3e4, 1.5e-14 against
 * 3e-10; at 2e5 GSL is off by 5e-6 near x = a - sqrt(a). Below 1e4 GSL
 * is the more accurate (at 1e3, 4e-14 against 5e-11). GSL was also checked
 * free of error-handler calls for shapes up to 1e5 over x in
 * [1e-300, 1e300]; its handler fires from just below 1e6. */
#define QC_GAMMA_TEMME_MIN 1e4

/* Erlang phases: enough for any practical model, and small enough that K
 * is exact in a double and the gamma sampler stays fast. */
#define QC_ERLANG_MAX_K 1000000.0

/* Hyperexponential probabilities must sum to 1 within this. */
#define QC_HYPEREXP_TOL 1e-9

/* Up to this many phases, Erlang samples are -log(product of uniforms):
 * the product of 16 uniforms >= 2^-54 cannot underflow. */
#define QC_ERLANG_PRODUCT_MAX 16

#define QC_SQRT_2PI 2.5066282746310002 /* sqrt(2 pi); M_PI is not C11 */

/* Column numbers for an empirical file are bounded to keep them ints. */
#define QC_EMPIRICAL_MAX_COL 1000000UL

/* ------------------------------------------------------------------ */
/* The table of spec names                                            */
/* ------------------------------------------------------------------ */

typedef struct dist_def {
    const char *name;
    qc_dist_kind kind;
    int nfield;           /* empirical: 0, parsed apart */
    const char *field[QC_DIST_MAXPAR]; /* names used in messages */
    const char *usage;
} dist_def;

static const dist_def dist_defs[] = {
    {"exp", QC_DIST_EXP, 1, {"RATE"}, "RATE"},
    {"det", QC_DIST_DET, 1, {"VALUE"}, "VALUE"},
    {"uniform", QC_DIST_UNIFORM, 2, {"A", "B"}, "A,B"},
    {"erlang", QC_DIST_ERLANG, 2, {"K", "RATE"}, "K,RATE"},
    {"hyperexp", QC_DIST_HYPEREXP, 4, {"P1", "R1", "P2", "R2"}, "P1,R1,P2,R2"},
    {"gamma", QC_DIST_GAMMA, 2, {"SHAPE", "SCALE"}, "SHAPE,SCALE"},
    {"lognormal", QC_DIST_LOGNORMAL, 2, {"MU", "SIGMA"}, "MU,SIGMA"},
    {"weibull", QC_DIST_WEIBULL, 2, {"SHAPE", "SCALE"}, "SHAPE,SCALE"},
    {"pareto", QC_DIST_PARETO, 2, {"ALPHA", "XM"}, "ALPHA,XM"},
    {"bpareto", QC_DIST_BPARETO, 3, {"ALPHA", "L", "H"}, "ALPHA,L,H"},
    {"empirical", QC_DIST_EMPIRICAL, 0, {"FILE", "COL"}, "FILE[,COL]"},
    /* Mixtures take 2 or 3 components: nfield is the most, parse_spec
     * also accepts two groups. */
    {"lnmix", QC_DIST_LNMIX, 9, {"W1", "MU1", "SIGMA1", "W2", "MU2", "SIGMA2", "W3", "MU3", "SIGMA3"},
     "W1,MU1,SIGMA1,W2,MU2,SIGMA2[,W3,MU3,SIGMA3]"},
    {"expmix", QC_DIST_EXPMIX, 6, {"W1", "R1", "W2", "R2", "W3", "R3"}, "W1,R1,W2,R2[,W3,R3]"},
    {"gpd", QC_DIST_GPD, 3, {"XI", "SIGMA", "U"}, "XI,SIGMA,U"},
};

/* Fields per component of a mixture (0 for other kinds). */
static int mix_group(qc_dist_kind kind)
{
    return kind == QC_DIST_LNMIX ? 3 : kind == QC_DIST_EXPMIX ? 2 : 0;
}

/* Components of a mixture: 3 when the third's SIGMA or R is set (> 0). */
static int mix_ncomp(const qc_dist *d)
{
    const int g = mix_group(d->kind);
    return d->p[2 * g + g - 1] > 0 ? 3 : 2;
}

#define QC_NDEFS (sizeof dist_defs / sizeof dist_defs[0])

static const dist_def *def_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < QC_NDEFS; i++)
        if (strlen(dist_defs[i].name) == len && memcmp(dist_defs[i].name, name, len) == 0)
            return &dist_defs[i];
    return NULL;
}

static const dist_def *def_by_kind(qc_dist_kind kind)
{
    for (size_t i = 0; i < QC_NDEFS; i++)
        if (dist_defs[i].kind == kind)
            return &dist_defs[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Error messages                                                     */
/* ------------------------------------------------------------------ */

/* Writes s into out (size >= 8) as a printable string: control and
 * non-ASCII bytes as \xNN, cut with "..." if it does not fit, so that a
 * binary or very long spec still leaves room for the detail after it. */
static void printable(char *out, size_t size, const char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char ch = (unsigned char)s[i];
        char tmp[5];
        int w;
        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
            tmp[0] = (char)ch;
            w = 1;
        } else if (ch == '"' || ch == '\\') {
            tmp[0] = '\\';
            tmp[1] = (char)ch;
            w = 2;
        } else {
            w = snprintf(tmp, sizeof tmp, "\\x%02x", ch);
        }
        if (o + (size_t)w + 4 > size) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        memcpy(out + o, tmp, (size_t)w);
        o += (size_t)w;
    }
    out[o] = '\0';
}

/* The character at s[i] for a message: 'x', or '\xNN' if not printable. */
static void char_repr(char out[8], unsigned char ch)
{
    if (ch >= 0x20 && ch < 0x7f && ch != '\'')
        snprintf(out, 8, "'%c'", ch);
    else
        snprintf(out, 8, "'\\x%02x'", ch);
}

typedef struct parse_ctx {
    const char *spec;
    qc_err *err;
    int k; /* mixtures: components, once the fields are counted */
} parse_ctx;

static int spec_error(const parse_ctx *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Every spec error reads "SPEC": detail, the spec quoted as given. */
static int spec_error(const parse_ctx *c, int code, const char *fmt, ...)
{
    char quoted[QC_ERR_MSG_MAX / 2];
    char detail[QC_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printable(quoted, sizeof quoted, c->spec, strlen(c->spec));
    return qc_err_set(c->err, code, "\"%s\": %s", quoted, detail);
}

/* ------------------------------------------------------------------ */
/* Numbers                                                            */
/* ------------------------------------------------------------------ */

/* What went wrong reading a number from s[0, len). */
typedef enum num_status {
    NUM_OK = 0,
    NUM_EMPTY,
    NUM_BADCHAR, /* *bad is the offset of the first bad character */
    NUM_NONFINITE,
    NUM_OVERFLOW
} num_status;

/* Reads the whole of s[0, len) as one finite double. strtod alone would
 * accept leading blanks, stop early without complaint and return nan, inf
 * or an overflowed HUGE_VAL; each of those is a distinct error here. The
 * text must be followed by a character strtod stops at (',', NUL, blank):
 * that is true of every caller. */
static num_status read_number(const char *s, size_t len, double *out, size_t *bad)
{
    if (len == 0)
        return NUM_EMPTY;
    if (isspace((unsigned char)s[0])) {
        *bad = 0;
        return NUM_BADCHAR;
    }
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    const size_t used = (size_t)(end - s);
    if (used == 0) {
        *bad = 0;
        return NUM_BADCHAR;
    }
    if (used < len) {
        *bad = used;
        return NUM_BADCHAR;
    }
    if (used > len) {
        /* Only with a locale whose decimal point is ','. */
        *bad = len;
        return NUM_BADCHAR;
    }
    if (isnan(v) || (isinf(v) && errno != ERANGE))
        return NUM_NONFINITE;
    if (isinf(v))
        return NUM_OVERFLOW;
    *out = v; /* underflow to 0 or a subnormal is left to the range checks */
    return NUM_OK;
}

/* Field idx (1-based) of a spec, spec[beg, end). */
static int parse_field(const parse_ctx *c, size_t beg, size_t end, int idx, const char *name,
                       double *out)
{
    const char *s = c->spec + beg;
    const int n = (int)(end - beg);
    size_t bad = 0;
    char ch[8];
    switch (read_number(s, end - beg, out, &bad)) {
    case NUM_OK:
        return 0;
    case NUM_EMPTY:
        return spec_error(c, QC_EPARSE, "field %d (%s) is empty at column %zu", idx, name,
                          beg + 1);
    case NUM_BADCHAR:
        char_repr(ch, (unsigned char)s[bad]);
        return spec_error(c, QC_EPARSE, "field %d (%s): bad character %s at column %zu", idx,
                          name, ch, beg + bad + 1);
    case NUM_NONFINITE:
        return spec_error(c, QC_EPARSE, "field %d (%s): \"%.*s\" is not a finite number", idx,
                          name, n > 40 ? 40 : n, s);
    case NUM_OVERFLOW:
        return spec_error(c, QC_ERANGE, "field %d (%s): %.*s is too large for a double", idx,
                          name, n > 40 ? 40 : n, s);
    }
    return spec_error(c, QC_EPARSE, "field %d (%s): unreadable", idx, name);
}

/* ------------------------------------------------------------------ */
/* Range checks                                                       */
/* ------------------------------------------------------------------ */

static int need_positive(const parse_ctx *c, const dist_def *def, const double *p, int i)
{
    if (p[i] > 0)
        return 0;
    return spec_error(c, QC_ERANGE, "field %d (%s) must be > 0, got %.17g", i + 1,
                      def->field[i], p[i]);
}

static int need_probability(const parse_ctx *c, const dist_def *def, const double *p, int i)
{
    if (p[i] >= 0 && p[i] <= 1)
        return 0;
    return spec_error(c, QC_ERANGE, "field %d (%s) must be in [0, 1], got %.17g", i + 1,
                      def->field[i], p[i]);
}

/* The invariants every other function assumes; one place states them. */
static int check_range(const parse_ctx *c, const dist_def *def, const double *p)
{
    int rc;
    switch (def->kind) {
    case QC_DIST_EXP:
        return need_positive(c, def, p, 0);
    case QC_DIST_DET:
        if (p[0] >= 0)
            return 0;
        return spec_error(c, QC_ERANGE, "field 1 (VALUE) must be >= 0, got %.17g", p[0]);
    case QC_DIST_UNIFORM:
        if (!(p[0] >= 0))
            return spec_error(c, QC_ERANGE, "field 1 (A) must be >= 0, got %.17g", p[0]);
        if (!(p[1] > p[0]))
            return spec_error(c, QC_ERANGE, "field 2 (B) must be > A (%.17g), got %.17g", p[0],
                              p[1]);
        return 0;
    case QC_DIST_ERLANG:
        if (!(p[0] >= 1 && p[0] <= QC_ERLANG_MAX_K && p[0] == floor(p[0])))
            return spec_error(c, QC_ERANGE,
                              "field 1 (K) must be a positive integer <= %.0f, got %.17g",
                              QC_ERLANG_MAX_K, p[0]);
        return need_positive(c, def, p, 1);
    case QC_DIST_HYPEREXP:
        if ((rc = need_probability(c, def, p, 0)) || (rc = need_positive(c, def, p, 1)) ||
            (rc = need_probability(c, def, p, 2)) || (rc = need_positive(c, def, p, 3)))
            return rc;
        if (fabs(p[0] + p[2] - 1) > QC_HYPEREXP_TOL)
            return spec_error(c, QC_ERANGE,
                              "fields 1 and 3 (P1 + P2) must sum to 1 (within %g), got %.17g",
                              QC_HYPEREXP_TOL, p[0] + p[2]);
        return 0;
    case QC_DIST_GAMMA:
    case QC_DIST_WEIBULL:
    case QC_DIST_PARETO:
        if ((rc = need_positive(c, def, p, 0)))
            return rc;
        return need_positive(c, def, p, 1);
    case QC_DIST_LOGNORMAL:
        return need_positive(c, def, p, 1); /* MU: any finite number */
    case QC_DIST_BPARETO:
        if ((rc = need_positive(c, def, p, 0)) || (rc = need_positive(c, def, p, 1)))
            return rc;
        if (!(p[2] > p[1]))
            return spec_error(c, QC_ERANGE, "field 3 (H) must be > L (%.17g), got %.17g", p[1],
                              p[2]);
        return 0;
    case QC_DIST_LNMIX:
    case QC_DIST_EXPMIX: {
        const int g = mix_group(def->kind), k = c->k;
        double wsum = 0;
        for (int j = 0; j < k; j++) {
            if ((rc = need_probability(c, def, p, g * j)))
                return rc;
            wsum += p[g * j];
            /* lnmix: MU any finite number, SIGMA > 0; expmix: R > 0 */
            if ((rc = need_positive(c, def, p, g * j + g - 1)))
                return rc;
        }
        if (fabs(wsum - 1) > QC_HYPEREXP_TOL)
            return spec_error(c, QC_ERANGE, "the weights must sum to 1 (within %g), got %.17g",
                              QC_HYPEREXP_TOL, wsum);
        return 0;
    }
    case QC_DIST_GPD:
        if ((rc = need_positive(c, def, p, 1)))
            return rc;
        if (!(p[2] >= 0))
            return spec_error(c, QC_ERANGE, "field 3 (U) must be >= 0, got %.17g", p[2]);
        return 0;
    case QC_DIST_NONE:
    case QC_DIST_EMPIRICAL:
        break;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Empirical samples                                                  */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Which column of the file to read: a 1-based number, or a header name. */
typedef struct col_sel {
    size_t num;       /* 1-based; 0 while a name is still unresolved */
    const char *name; /* NULL when chosen by number */
    size_t name_len;
} col_sel;

/* A field of a CSV line: [beg, end) offsets into the line. */
typedef struct span {
    size_t beg, end;
} span;

/* The idx-th (1-based) comma-separated field of line[0, len), trimmed of
 * blanks and of one pair of surrounding double quotes. Returns the number
 * of fields if there are fewer than idx (then *f is untouched), else 0. */
static size_t nth_field(const char *line, size_t len, size_t idx, span *f)
{
    size_t k = 1, beg = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ',')
            continue;
        if (k == idx) {
            f->beg = beg;
            f->end = i;
            qc__field_trim(line, &f->beg, &f->end);
            return 0;
        }
        k++;
        beg = i + 1;
    }
    return k - 1;
}

/* Finds the header column named sel->name; sets sel->num. */
static int resolve_header(const char *path, size_t lineno, const char *line, size_t len,
                          col_sel *sel, qc_err *err)
{
    for (size_t k = 1;; k++) {
        span f;
        if (nth_field(line, len, k, &f) != 0)
            break;
        if (f.end - f.beg == sel->name_len && memcmp(line + f.beg, sel->name, sel->name_len) == 0) {
            sel->num = k;
            return 0;
        }
    }
    char name[128], head[192];
    printable(name, sizeof name, sel->name, sel->name_len);
    printable(head, sizeof head, line, len);
    return qc_err_set(err, QC_EPARSE, "%s:%zu: no column named \"%s\" in header \"%s\"", path,
                      lineno, name, head);
}

/* Reads one sample from field f of a data line. */
static int read_sample(const char *path, size_t lineno, const char *line, span f, size_t col,
                       qc__dvec *v, qc_err *err)
{
    const int n = (int)(f.end - f.beg);
    const char *s = line + f.beg;
    double x = 0;
    size_t bad = 0;
    char ch[8];
    switch (read_number(s, f.end - f.beg, &x, &bad)) {
    case NUM_OK:
        break;
    case NUM_EMPTY:
        return qc_err_set(err, QC_EPARSE, "%s:%zu: column %zu is empty", path, lineno, col);
    case NUM_BADCHAR:
        char_repr(ch, (unsigned char)s[bad]);
        return qc_err_set(err, QC_EPARSE,
                          "%s:%zu: column %zu: bad character %s at column %zu of the line", path,
                          lineno, col, ch, f.beg + bad + 1);
    case NUM_NONFINITE:
        return qc_err_set(err, QC_EPARSE, "%s:%zu: column %zu: \"%.*s\" is not a finite number",
                          path, lineno, col, n > 40 ? 40 : n, s);
    case NUM_OVERFLOW:
        return qc_err_set(err, QC_ERANGE, "%s:%zu: column %zu: %.*s is too large for a double",
                          path, lineno, col, n > 40 ? 40 : n, s);
    }
    if (x < 0)
        return qc_err_set(err, QC_ERANGE,
                          "%s:%zu: column %zu: sample %.17g is negative (times and sizes are >= 0)",
                          path, lineno, col, x);
    if (qc__dvec_push(v, x) != 0)
        return qc_err_set(err, QC_ENOMEM, "%s:%zu: out of memory for %zu samples", path, lineno,
                          v->n + 1);
    return 0;
}

/* Reads column sel of the file at path into v.
 *
 * Lines that are empty, blank or start with '#' (after blanks) are skipped.
 * The first other line is a header when a column is chosen by name, and
 * also when its selected field starts with something no number starts with
 * (a letter, a quote): so a one-number-per-line file and a CSV with a
 * header both work, while "1x" on line 1 is still reported as a bad number
 * rather than quietly taken for a header. */
static int read_samples(const char *path, col_sel sel, qc__dvec *v, qc_err *err)
{
    qc__lines rd;
    if (qc__lines_open(&rd, path) != 0)
        return qc_err_set(err, QC_EIO, "%s: cannot open: %s", path, strerror(errno));
    const char *line;
    size_t len, start;
    int rc = 0, seen_first = 0;
    while (qc__lines_next(&rd, &line, &len, &start)) {
        const size_t lineno = rd.lineno;
        const int first = !seen_first;
        seen_first = 1;
        if (first && sel.name != NULL) {
            rc = resolve_header(path, lineno, line, len, &sel, err);
            if (rc != 0)
                break;
            continue;
        }
        span f;
        const size_t nf = nth_field(line, len, sel.num, &f);
        if (nf != 0) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: %zu field%s, column %zu requested", path,
                            lineno, nf, nf == 1 ? "" : "s", sel.num);
            break;
        }
        if (first && f.end > f.beg && !qc__starts_number(line[f.beg]))
            continue; /* a header line */
        rc = read_sample(path, lineno, line, f, sel.num, v, err);
        if (rc != 0)
            break;
    }
    if (rc == 0 && qc__lines_error(&rd))
        rc = qc_err_set(err, QC_EIO, "%s: read error: %s", path, strerror(errno));
    qc__lines_close(&rd);
    if (rc == 0 && v->n == 0)
        rc = qc_err_set(err, QC_EEMPTY, "%s: no samples", path);
    return rc;
}

/* Sorts the samples and hands them to d. */
static void empirical_adopt(qc_dist *d, double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    memset(d, 0, sizeof *d);
    d->kind = QC_DIST_EMPIRICAL;
    d->samples = x;
    d->n = n;
}

/* "empirical:FILE[,COL]": the text after the colon is spec[beg, end).
 * COL is what follows the last comma, so a file name may hold commas only
 * when a column is given after it. */
static int parse_empirical(const parse_ctx *c, size_t beg, size_t end, qc_dist *d)
{
    const char *spec = c->spec;
    if (beg == end)
        return spec_error(c, QC_EPARSE, "empirical takes FILE[,COL], got nothing after ':'");
    size_t comma = end;
    for (size_t i = beg; i < end; i++)
        if (spec[i] == ',')
            comma = i;
    col_sel sel = {1, NULL, 0};
    if (comma < end) {
        const size_t cb = comma + 1;
        if (cb == end)
            return spec_error(c, QC_EPARSE, "trailing comma at column %zu", comma + 1);
        size_t i = cb;
        while (i < end && isdigit((unsigned char)spec[i]))
            i++;
        if (i == end) {
            /* All digits: a column number. Accumulation stops once past
             * the limit, so a long run of digits cannot overflow. */
            unsigned long col = 0;
            for (size_t j = cb; j < end && col <= QC_EMPIRICAL_MAX_COL; j++)
                col = col * 10 + (unsigned long)(spec[j] - '0');
            if (col < 1 || col > QC_EMPIRICAL_MAX_COL)
                return spec_error(c, QC_ERANGE,
                                  "field 2 (COL) must be a column number in [1, %lu] or a "
                                  "header name, got \"%.*s\"",
                                  QC_EMPIRICAL_MAX_COL, (int)(end - cb > 40 ? 40 : end - cb),
                                  spec + cb);
            sel.num = (size_t)col;
        } else {
            sel.num = 0;
            sel.name = spec + cb;
            sel.name_len = end - cb;
        }
    }
    if (comma == beg)
        return spec_error(c, QC_EPARSE, "field 1 (FILE) is empty at column %zu", beg + 1);

    /* The path is the one part of a spec that must be a C string. */
    const size_t plen = comma - beg;
    char *path = malloc(plen + 1);
    if (path == NULL)
        return spec_error(c, QC_ENOMEM, "out of memory");
    memcpy(path, spec + beg, plen);
    path[plen] = '\0';
    qc__dvec v = {NULL, 0, 0};
    const int rc = read_samples(path, sel, &v, c->err);
    free(path);
    if (rc != 0) {
        free(v.x);
        return rc;
    }
    empirical_adopt(d, v.x, v.n);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Construction                                                       */
/* ------------------------------------------------------------------ */

static void known_names(char *out, size_t size)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < QC_NDEFS && o < size; i++) {
        const int w = snprintf(out + o, size - o, "%s%s", i ? ", " : "", dist_defs[i].name);
        if (w < 0)
            break;
        o += (size_t)w;
    }
}

static int parse_spec(parse_ctx *c, qc_dist *d)
{
    const char *spec = c->spec;
    const size_t len = strlen(spec);
    if (len == 0)
        return spec_error(c, QC_EPARSE, "empty distribution spec");
    const char *colon = memchr(spec, ':', len);
    const size_t nlen = colon ? (size_t)(colon - spec) : len;
    if (nlen == 0)
        return spec_error(c, QC_EPARSE, "missing distribution name before ':' at column 1");
    const dist_def *def = def_by_name(spec, nlen);
    if (def == NULL) {
        char name[64], known[160];
        printable(name, sizeof name, spec, nlen);
        known_names(known, sizeof known);
        return spec_error(c, QC_EPARSE, "unknown distribution \"%s\" at column 1 (known: %s)",
                          name, known);
    }
    if (colon == NULL)
        return spec_error(c, QC_EPARSE, "missing ':' after \"%s\" at column %zu (usage: %s:%s)",
                          def->name, nlen + 1, def->name, def->usage);
    const size_t beg = nlen + 1;
    if (def->kind == QC_DIST_EMPIRICAL)
        return parse_empirical(c, beg, len, d);

    if (len > beg && spec[len - 1] == ',')
        return spec_error(c, QC_EPARSE, "trailing comma at column %zu", len);
    int nf = 0;
    if (len > beg) {
        nf = 1;
        for (size_t i = beg; i < len; i++)
            nf += spec[i] == ',';
    }
    const int grp = mix_group(def->kind);
    if (grp > 0 ? nf != 2 * grp && nf != 3 * grp : nf != def->nfield) {
        if (grp > 0)
            return spec_error(c, QC_EPARSE, "%s takes %d or %d fields (%s), got %d", def->name,
                              2 * grp, 3 * grp, def->usage, nf);
        return spec_error(c, QC_EPARSE, "%s takes %d field%s (%s), got %d", def->name,
                          def->nfield, def->nfield == 1 ? "" : "s", def->usage, nf);
    }
    c->k = grp > 0 ? nf / grp : 0;
    double p[QC_DIST_MAXPAR] = {0};
    size_t fb = beg;
    for (int i = 0; i < nf; i++) {
        const char *comma = memchr(spec + fb, ',', len - fb);
        const size_t fe = comma ? (size_t)(comma - spec) : len;
        const int rc = parse_field(c, fb, fe, i + 1, def->field[i], &p[i]);
        if (rc != 0)
            return rc;
        if (p[i] == 0)
            p[i] = 0; /* "-0" is 0: no negative zero to print or to sample */
        fb = fe + 1;
    }
    const int rc = check_range(c, def, p);
    if (rc != 0)
        return rc;
    memset(d, 0, sizeof *d);
    d->kind = def->kind;
    memcpy(d->p, p, sizeof p);
    return 0;
}

int qc_dist_parse(qc_dist *d, const char *spec, qc_err *err)
{
    if (d == NULL)
        return qc_err_set(err, QC_EINVAL, "qc_dist_parse: no qc_dist to fill");
    memset(d, 0, sizeof *d);
    if (spec == NULL)
        return qc_err_set(err, QC_EINVAL, "qc_dist_parse: no spec");
    parse_ctx c = {spec, err, 0};
    const int rc = parse_spec(&c, d);
    if (rc != 0)
        memset(d, 0, sizeof *d); /* parse_spec fills d only on success */
    return rc;
}

int qc_dist_empirical(qc_dist *d, const double *x, size_t n, qc_err *err)
{
    if (d == NULL)
        return qc_err_set(err, QC_EINVAL, "qc_dist_empirical: no qc_dist to fill");
    memset(d, 0, sizeof *d);
    if (n == 0)
        return qc_err_set(err, QC_EEMPTY, "empirical distribution: no samples");
    if (x == NULL)
        return qc_err_set(err, QC_EINVAL, "empirical distribution: %zu samples at NULL", n);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return qc_err_set(err, QC_ERANGE, "empirical distribution: sample %zu is not finite",
                              i + 1);
        if (x[i] < 0)
            return qc_err_set(err, QC_ERANGE,
                              "empirical distribution: sample %zu is negative (%.17g)", i + 1,
                              x[i]);
    }
    if (n > SIZE_MAX / sizeof *x)
        return qc_err_set(err, QC_ENOMEM, "empirical distribution: %zu samples is too many", n);
    double *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        return qc_err_set(err, QC_ENOMEM, "empirical distribution: out of memory for %zu samples",
                          n);
    memcpy(copy, x, n * sizeof *copy);
    empirical_adopt(d, copy, n);
    return 0;
}

void qc_dist_free(qc_dist *d)
{
    if (d == NULL)
        return;
    free(d->samples);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------------ */
/* Formatting                                                         */
/* ------------------------------------------------------------------ */

/* The shortest %.Ng (N = 15..17) that reads back as exactly v: the spec
 * round-trips bit for bit, yet 0.1 prints as "0.1". */
static void shortest(char out[32], double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, 32, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

int qc_dist_format(const qc_dist *d, char *buf, size_t size)
{
    const dist_def *def = d ? def_by_kind(d->kind) : NULL;
    if (buf != NULL && size > 0)
        buf[0] = '\0';
    if (def == NULL)
        return QC_EINVAL;
    int w;
    if (d->kind == QC_DIST_EMPIRICAL) {
        w = snprintf(buf, size, "empirical:%zu samples", d->n);
    } else if (mix_group(d->kind) > 0) {
        const int nf = mix_group(d->kind) * mix_ncomp(d);
        size_t o = 0;
        w = snprintf(buf, size, "%s:", def->name);
        for (int i = 0; i < nf && w >= 0; i++) {
            char num[32];
            shortest(num, d->p[i]);
            o += (size_t)w;
            w = snprintf(o < size ? buf + o : NULL, o < size ? size - o : 0, "%s%s",
                         i ? "," : "", num);
        }
        if (w >= 0)
            w += (int)o;
    } else {
        char num[4][32];
        for (int i = 0; i < def->nfield; i++)
            shortest(num[i], d->p[i]);
        switch (def->nfield) {
        case 1:
            w = snprintf(buf, size, "%s:%s", def->name, num[0]);
            break;
        case 2:
            w = snprintf(buf, size, "%s:%s,%s", def->name, num[0], num[1]);
            break;
        case 3:
            w = snprintf(buf, size, "%s:%s,%s,%s", def->name, num[0], num[1], num[2]);
            break;
        default:
            w = snprintf(buf, size, "%s:%s,%s,%s,%s", def->name, num[0], num[1], num[2], num[3]);
            break;
        }
    }
    if (w < 0)
        return QC_EINVAL;
    return (size_t)w < size ? 0 : QC_ERANGE;
}

/* ------------------------------------------------------------------ */
/* Gamma CDF                                                          */
/* ------------------------------------------------------------------ */

/* log(1 + e) - e, accurately also for small e (> -1). */
static double log1p_minus(double e)
{
    if (fabs(e) >= 0.1)
        return log1p(e) - e;
    /* -e^2/2 + e^3/3 - ...: |e| < 0.1 makes each term < 1/10 the last. */
    double sum = 0, pw = -e * e;
    for (int k = 2; k < 40; k++) {
        const double t = pw / k;
        sum += t;
        if (fabs(t) <= 1e-17 * fabs(sum))
            break;
        pw *= -e;
    }
    return sum;
}

/* P(a, y), the regularized lower incomplete gamma function, for large a by
 * Temme's uniform asymptotic expansion (DLMF 8.12.3, 8.12.4, two terms):
 *   Q(a, y) = erfc(eta sqrt(a/2)) / 2 + R,
 *   R ~ exp(-a eta^2 / 2) / sqrt(2 pi a) (c0(eta) + c1(eta) / a),
 *   lambda = y / a, eta^2 / 2 = lambda - 1 - log(lambda), sign of lambda - 1,
 * so P = erfc(-eta sqrt(a/2)) / 2 - R keeps relative accuracy in the lower
 * tail. Outside lambda in (1/2, 2), a (lambda - 1 - log lambda) > 0.19 a >
 * 1900 for a > 1e4: P is 0 or 1 to double precision. */
static double gamma_p_temme(double a, double y)
{
    const double lambda = y / a;
    if (lambda <= 0.5)
        return 0.0;
    if (lambda >= 2.0)
        return 1.0;
    const double e = (y - a) / a; /* not lambda - 1: y - a is exact near y = a */
    const double half_eta2 = -log1p_minus(e);
    const double eta = copysign(sqrt(2.0 * half_eta2), e);
    double c0, c1;
    if (fabs(e) < 1e-3) {
        /* Near lambda = 1 both closed forms cancel; their series in e
         * (as in GSL's gamma_inc_Q_asymp_unif) is exact to 1e-17 here. */
        c0 = -1.0 / 3.0 +
             e * (1.0 / 12.0 - e * (23.0 / 540.0 - e * (353.0 / 12960.0 - e * 589.0 / 30240.0)));
        c1 = -1.0 / 540.0 - e / 288.0;
    } else {
        c0 = 1.0 / e - 1.0 / eta;
        c1 = 1.0 / (eta * eta * eta) - (12.0 + 12.0 * e + e * e) / (12.0 * e * e * e);
    }
    const double r = exp(-a * half_eta2) / (QC_SQRT_2PI * sqrt(a)) * (c0 + c1 / a);
    const double p = 0.5 * erfc(-eta * sqrt(a / 2.0)) - r;
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* P(a, y), y = x / scale (gamma) or x * rate (Erlang), with ly = log(y)
 * computed by the caller from the logs of the factors. The log matters
 * when y underflows: for a small shape P(a, y) is far from 0 even at
 * y = 1e-600 (P(3e-7, 1e-600) = 0.9996), and there the leading term of
 * the series, y^a / Gamma(a + 1), is exact to within y < DBL_MIN. */
static double gamma_p(double a, double y, double ly)
{
    if (!(y >= DBL_MIN)) {
        const double p = exp(a * ly - log(tgamma(a + 1)));
        return p < 1 ? p : 1;
    }
    if (isinf(y))
        return 1.0;
    if (a > QC_GAMMA_TEMME_MIN)
        return gamma_p_temme(a, y);
    gsl_error_handler_t *h = qc__gsl_quiet(); /* never reached below the Temme cut */
    double p = gsl_cdf_gamma_P(y, a, 1.0);
    qc__gsl_restore(h);
    return p;
}

/* ------------------------------------------------------------------ */
/* Bounded Pareto                                                     */
/* ------------------------------------------------------------------ */

/* For X ~ bpareto(alpha, L, H), with l = log(H/L), al = alpha l and
 * C = 1 - e^-al (the Pareto mass that falls in [L, H]):
 *   F(x) = (1 - e^(-alpha s)) / C,  s = log(x/L),          on [L, H]
 *   E[X^k] = L^k (al / C) g(t),  g(t) = (e^t - 1) / t,  t = (k - alpha) l
 * which needs no special case at alpha = k (g(0) = 1 gives the log(H/L)
 * term of the textbook formula, for alpha = 1 resp. alpha = 2).
 *
 * Every piece is kept finite over all valid parameters: the moments are
 * evaluated in logs (L^k and g can overflow and underflow apart while
 * their product does not), and when al < 1e-8 (alpha -> 0: the law tends
 * to log-uniform on [L, H]) C underflows or loses all its digits, so F, its
 * inverse and al / C use their expansions to first order in al, whose
 * error O(al^2) is below rounding. */
#define QC_BPARETO_SMALL_AL 1e-8

static double bpareto_logr(const double *p)
{
    const double q = (p[2] - p[1]) / p[1]; /* H - L <= H is finite */
    return isfinite(q) ? log1p(q) : log(p[2]) - log(p[1]);
}

/* log(al / C). */
static double bpareto_log_rho(double alpha, double lr)
{
    const double al = alpha * lr;
    if (al < QC_BPARETO_SMALL_AL)
        return log1p(al / 2);
    return log(alpha) + log(lr) - log(-expm1(-al)); /* al may be inf */
}

static double bpareto_moment(const double *p, int k)
{
    const double alpha = p[0], lr = bpareto_logr(p);
    const double t = (k - alpha) * lr;
    double log_g;
    if (fabs(t) <= 1)
        log_g = t == 0 ? 0 : log(expm1(t) / t);
    else if (t > 1)
        log_g = t + log1p(-exp(-t)) - log(t);
    else /* log(-t) in two parts: t = -inf when alpha lr overflows */
        log_g = log1p(-exp(t)) - log(alpha - k) - log(lr);
    return exp(k * log(p[1]) + bpareto_log_rho(alpha, lr) + log_g);
}

static double bpareto_cdf(const double *p, double x)
{
    if (x <= p[1])
        return 0.0;
    if (x >= p[2])
        return 1.0;
    const double alpha = p[0], lr = bpareto_logr(p);
    const double q = (x - p[1]) / p[1];
    const double s = isfinite(q) ? log1p(q) : log(x) - log(p[1]);
    const double al = alpha * lr;
    double f;
    if (al < QC_BPARETO_SMALL_AL)
        f = s / lr * (1 + (al - alpha * s) / 2);
    else
        f = -expm1(-alpha * s) / -expm1(-al);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Inversion of F: x = L e^s, s = -log(1 - u C) / alpha, clamped to [L, H]
 * against rounding. */
static double bpareto_inv(const double *p, double u)
{
    const double alpha = p[0], lr = bpareto_logr(p);
    const double al = alpha * lr;
    double s;
    if (al < QC_BPARETO_SMALL_AL)
        s = u * lr * (1 - al * (1 - u) / 2);
    else
        s = -log1p(u * expm1(-al)) / alpha;
    const double x = p[1] * exp(s);
    return x < p[1] ? p[1] : x > p[2] ? p[2] : x;
}

/* ------------------------------------------------------------------ */
/* Moments                                                            */
/* ------------------------------------------------------------------ */

static double empirical_mean(const qc_dist *d)
{
    const double n = (double)d->n;
    double s = 0;
    for (size_t i = 0; i < d->n; i++)
        s += d->samples[i];
    if (isfinite(s))
        return s / n;
    /* The sum of samples near DBL_MAX overflows; their mean does not. */
    s = 0;
    for (size_t i = 0; i < d->n; i++)
        s += d->samples[i] / n;
    return s;
}

/* Mixtures and the GPD, for the fitted models of traffic and of
 * latency logs (qctl fit). Component j of a mixture has weight p[g j]
 * and its parameters after it (g = 3 for lnmix, 2 for expmix). */
static double mix_mean(const qc_dist *d)
{
    const double *p = d->p;
    double m = 0;
    for (int j = 0; j < mix_ncomp(d); j++)
        if (p[mix_group(d->kind) * j] > 0)
            m += d->kind == QC_DIST_LNMIX
                     ? p[3 * j] * exp(p[3 * j + 1] + p[3 * j + 2] * p[3 * j + 2] / 2)
                     : p[2 * j] / p[2 * j + 1];
    return m;
}

static double mix_var(const qc_dist *d)
{
    const double *p = d->p;
    double m2 = 0;
    for (int j = 0; j < mix_ncomp(d); j++)
        if (p[mix_group(d->kind) * j] > 0)
            m2 += d->kind == QC_DIST_LNMIX
                  ? p[3 * j] * exp(2 * p[3 * j + 1] + 2 * p[3 * j + 2] * p[3 * j + 2])
                  : 2 * p[2 * j] / (p[2 * j + 1] * p[2 * j + 1]);
    if (isinf(m2))
        return INFINITY;
    const double m = mix_mean(d), v = m2 - m * m;
    return v > 0 ? v : 0;
}

static double mix_cdf(const qc_dist *d, double x)
{
    const double *p = d->p;
    if (!(x > 0))
        return 0.0;
    double f = 0;
    for (int j = 0; j < mix_ncomp(d); j++)
        if (p[mix_group(d->kind) * j] > 0)
            f += d->kind == QC_DIST_LNMIX
                     ? p[3 * j] * gsl_cdf_lognormal_P(x, p[3 * j + 1], p[3 * j + 2])
                     : p[2 * j] * -expm1(-p[2 * j + 1] * x);
    return f < 1 ? f : 1.0;
}

static double mix_sample(const qc_dist *d, qc_rng *r)
{
    const double *p = d->p;
    const int g = mix_group(d->kind);
    const double u = qc_rng_u01(r);
    double acc = 0;
    const int k = mix_ncomp(d);
    int j = k - 1; /* the last takes what rounding leaves */
    for (int i = 0; i < k - 1; i++)
        if (u < (acc += p[g * i])) {
            j = i;
            break;
        }
    if (d->kind == QC_DIST_LNMIX)
        return gsl_ran_lognormal(qc_rng_gsl(r), p[3 * j + 1], p[3 * j + 2]);
    return qc_rng_exp(r, p[2 * j + 1]);
}

/* GPD quantile: U + SIGMA ((1 - q)^-XI - 1) / XI, as -log1p for XI = 0. */
static double gpd_inv(const double *p, double q)
{
    if (p[0] == 0)
        return p[2] - p[1] * log1p(-q);
    return p[2] + p[1] * expm1(-p[0] * log1p(-q)) / p[0];
}

static double gpd_cdf(const double *p, double x)
{
    const double y = x - p[2];
    if (!(y > 0))
        return 0.0;
    if (p[0] == 0)
        return -expm1(-y / p[1]);
    const double t = 1 + p[0] * y / p[1];
    if (!(t > 0))
        return 1.0; /* beyond the end of a bounded support (XI < 0) */
    return -expm1(-log(t) / p[0]);
}

double qc_dist_mean(const qc_dist *d)
{
    const double *p = d->p;
    switch (d->kind) {
    case QC_DIST_EXP:
        return 1.0 / p[0];
    case QC_DIST_DET:
        return p[0];
    case QC_DIST_UNIFORM:
        return p[0] / 2 + p[1] / 2;
    case QC_DIST_ERLANG:
        return p[0] / p[1];
    case QC_DIST_HYPEREXP:
        /* The sampler takes branch 2 with probability 1 - P1; so do the
         * moments, so that they agree when P1 + P2 is 1 only within 1e-9. */
        return (p[0] > 0 ? p[0] / p[1] : 0) + (p[0] < 1 ? (1 - p[0]) / p[3] : 0);
    case QC_DIST_GAMMA:
        return p[0] * p[1];
    case QC_DIST_LOGNORMAL:
        return exp(p[0] + p[1] * p[1] / 2);
    case QC_DIST_WEIBULL:
        return p[1] * tgamma(1 + 1 / p[0]);
    case QC_DIST_PARETO:
        /* XM (ALPHA / (ALPHA - 1)): ALPHA XM alone may overflow. */
        return p[0] > 1 ? p[1] * (p[0] / (p[0] - 1)) : INFINITY;
    case QC_DIST_BPARETO:
        return bpareto_moment(p, 1);
    case QC_DIST_EMPIRICAL:
        return d->n ? empirical_mean(d) : NAN;
    case QC_DIST_LNMIX:
    case QC_DIST_EXPMIX:
        return mix_mean(d);
    case QC_DIST_GPD:
        return p[0] < 1 ? p[2] + p[1] / (1 - p[0]) : INFINITY;
    case QC_DIST_NONE:
        break;
    }
    return NAN;
}

double qc_dist_var(const qc_dist *d)
{
    const double *p = d->p;
    switch (d->kind) {
    case QC_DIST_EXP:
        return 1.0 / (p[0] * p[0]);
    case QC_DIST_DET:
        return 0.0;
    case QC_DIST_UNIFORM: {
        const double w = p[1] - p[0];
        return w * w / 12;
    }
    case QC_DIST_ERLANG:
        return p[0] / (p[1] * p[1]);
    case QC_DIST_HYPEREXP: {
        /* E[X^2] = 2 sum P_i / R_i^2; a branch of probability 0 adds 0
         * even when R_i^2 underflows, and E[X^2] = inf is the answer
         * rather than inf - inf. */
        const double q = 1 - p[0];
        const double m2 = 2 * ((p[0] > 0 ? p[0] / (p[1] * p[1]) : 0) +
                               (q > 0 ? q / (p[3] * p[3]) : 0));
        if (isinf(m2))
            return INFINITY;
        const double m = qc_dist_mean(d);
        const double v = m2 - m * m;
        return v > 0 ? v : 0;
    }
    case QC_DIST_GAMMA:
        return p[0] * p[1] * p[1];
    case QC_DIST_LOGNORMAL: {
        /* (e^s2 - 1) e^(2 mu + s2), in logs: the factors can be inf and 0
         * (huge SIGMA, very negative MU) while their product is not NaN. */
        const double s2 = p[1] * p[1];
        const double log_em1 = s2 > 1 ? s2 + log1p(-exp(-s2)) : log(expm1(s2));
        return exp((p[0] + s2) + (p[0] + log_em1));
    }
    case QC_DIST_WEIBULL: {
        const double g1 = tgamma(1 + 1 / p[0]), g2 = tgamma(1 + 2 / p[0]);
        if (!isfinite(g2))
            return INFINITY; /* Gamma(1+2/k) >= Gamma(1+1/k)^2: g1 is finite else */
        const double v = p[1] * p[1] * (g2 - g1 * g1);
        return v > 0 ? v : 0;
    }
    case QC_DIST_PARETO:
        if (p[0] <= 2)
            return INFINITY;
        /* XM^2 ALPHA / ((ALPHA-1)^2 (ALPHA-2)), in factors that cannot
         * overflow unless the result does. */
        return (p[1] / (p[0] - 1)) * (p[1] / (p[0] - 2)) * (p[0] / (p[0] - 1));
    case QC_DIST_BPARETO: {
        /* E[X^2] - E[X]^2 cancels when H/L is near 1; the clamp keeps the
         * result a variance (>= 0) there, at absolute accuracy ~ eps L^2. */
        const double m = bpareto_moment(p, 1);
        const double v = bpareto_moment(p, 2) - m * m;
        return v > 0 ? v : 0;
    }
    case QC_DIST_EMPIRICAL: {
        /* Dividing by n, not n - 1: this is the variance of the empirical
         * distribution itself (what the sampler draws from), not an
         * estimate of the variance the samples came from. Two passes,
         * for accuracy when the mean is large; each deviation is scaled
         * by 1/sqrt(n) before squaring. */
        if (d->n == 0)
            return NAN;
        const double m = empirical_mean(d), k = 1 / sqrt((double)d->n);
        double s = 0;
        for (size_t i = 0; i < d->n; i++) {
            const double t = (d->samples[i] - m) * k; /* squares to inf only if s would */
            s += t * t;
        }
        return s;
    }
    case QC_DIST_LNMIX:
    case QC_DIST_EXPMIX:
        return mix_var(d);
    case QC_DIST_GPD:
        if (p[0] >= 0.5)
            return INFINITY;
        return p[1] * p[1] / ((1 - p[0]) * (1 - p[0]) * (1 - 2 * p[0]));
    case QC_DIST_NONE:
        break;
    }
    return NAN;
}

/* ------------------------------------------------------------------ */
/* CDF and quantiles                                                  */
/* ------------------------------------------------------------------ */

/* Number of samples <= x (samples sorted ascending). */
static size_t count_le(const qc_dist *d, double x)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (d->samples[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double qc_dist_cdf(const qc_dist *d, double x)
{
    const double *p = d->p;
    if (isnan(x) || d->kind == QC_DIST_NONE)
        return NAN;
    /* Every support lies in [0, inf): the ends need no formula (and some
     * formulas would make inf / inf of them). */
    if (x < 0)
        return 0.0;
    if (x == INFINITY)
        return 1.0;
    switch (d->kind) {
    case QC_DIST_EXP:
        return gsl_cdf_exponential_P(x, 1.0 / p[0]);
    case QC_DIST_DET:
        return x >= p[0] ? 1.0 : 0.0;
    case QC_DIST_UNIFORM:
        return gsl_cdf_flat_P(x, p[0], p[1]);
    case QC_DIST_ERLANG:
        return gamma_p(p[0], x * p[1], log(x) + log(p[1]));
    case QC_DIST_HYPEREXP:
        if (!(x > 0))
            return 0.0;
        return p[0] * -expm1(-p[1] * x) + (1 - p[0]) * -expm1(-p[3] * x);
    case QC_DIST_GAMMA:
        return gamma_p(p[0], x / p[1], log(x) - log(p[1]));
    case QC_DIST_LOGNORMAL:
        return x > 0 ? gsl_cdf_lognormal_P(x, p[0], p[1]) : 0.0;
    case QC_DIST_WEIBULL:
        return x > 0 ? gsl_cdf_weibull_P(x, p[1], p[0]) : 0.0;
    case QC_DIST_PARETO:
        return gsl_cdf_pareto_P(x, p[0], p[1]);
    case QC_DIST_BPARETO:
        return bpareto_cdf(p, x);
    case QC_DIST_EMPIRICAL:
        return d->n ? (double)count_le(d, x) / (double)d->n : NAN;
    case QC_DIST_LNMIX:
    case QC_DIST_EXPMIX:
        return mix_cdf(d, x);
    case QC_DIST_GPD:
        return gpd_cdf(p, x);
    case QC_DIST_NONE:
        break;
    }
    return NAN;
}

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double double_of(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The smallest double x >= 0 with cdf(x) >= q, for q in (0, 1), where
 * cdf(+inf) = 1. Bisection over the bit patterns of non-negative doubles,
 * which are ordered as the values are: every step halves the count of
 * doubles left, so 63 steps pin x to one ulp whatever its magnitude, with
 * no tolerance to choose and no starting guess to go wrong. */
static double invert_cdf(const qc_dist *d, double q)
{
    uint64_t lo = bits_of(0.0), hi = bits_of(INFINITY);
    if (qc_dist_cdf(d, 0.0) >= q)
        return 0.0;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (qc_dist_cdf(d, double_of(mid)) >= q)
            hi = mid;
        else
            lo = mid;
    }
    return double_of(hi);
}

/* The rank k in [1, n] with k/n >= q > (k-1)/n, computed with the same
 * division as qc_dist_cdf so that quantile(cdf(x)) is x for every sample. */
static double empirical_quantile(const qc_dist *d, double q)
{
    const double n = (double)d->n;
    double k = ceil(q * n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    while (k > 1 && (k - 1) / n >= q)
        k--;
    while (k < n && k / n < q)
        k++;
    return d->samples[(size_t)k - 1];
}

/* The ends of the support: the answers for q = 0 and q = 1. */
static double support_end(const qc_dist *d, int upper)
{
    const double *p = d->p;
    switch (d->kind) {
    case QC_DIST_DET:
        return p[0];
    case QC_DIST_UNIFORM:
        return upper ? p[1] : p[0];
    case QC_DIST_PARETO:
        return upper ? INFINITY : p[1];
    case QC_DIST_BPARETO:
        return upper ? p[2] : p[1];
    case QC_DIST_EMPIRICAL:
        return d->n ? d->samples[upper ? d->n - 1 : 0] : NAN;
    case QC_DIST_GPD:
        return upper ? (p[0] < 0 ? p[2] - p[1] / p[0] : INFINITY) : p[2];
    case QC_DIST_NONE:
        return NAN;
    default:
        return upper ? INFINITY : 0.0;
    }
}

double qc_dist_quantile(const qc_dist *d, double q)
{
    const double *p = d->p;
    if (!(q >= 0 && q <= 1) || d->kind == QC_DIST_NONE)
        return NAN;
    if (q == 0 || q == 1)
        return support_end(d, q == 1);
    switch (d->kind) {
    case QC_DIST_EXP:
        return gsl_cdf_exponential_Pinv(q, 1.0 / p[0]);
    case QC_DIST_DET:
        return p[0];
    case QC_DIST_UNIFORM:
        return gsl_cdf_flat_Pinv(q, p[0], p[1]);
    case QC_DIST_ERLANG:
    case QC_DIST_GAMMA:
    case QC_DIST_HYPEREXP:
    case QC_DIST_LNMIX:
    case QC_DIST_EXPMIX:
        return invert_cdf(d, q);
    case QC_DIST_GPD:
        return gpd_inv(p, q);
    case QC_DIST_LOGNORMAL:
        return gsl_cdf_lognormal_Pinv(q, p[0], p[1]);
    case QC_DIST_WEIBULL:
        return gsl_cdf_weibull_Pinv(q, p[1], p[0]);
    case QC_DIST_PARETO:
        return gsl_cdf_pareto_Pinv(q, p[0], p[1]);
    case QC_DIST_BPARETO:
        return bpareto_inv(p, q);
    case QC_DIST_EMPIRICAL:
        return d->n ? empirical_quantile(d, q) : NAN;
    case QC_DIST_NONE:
        break;
    }
    return NAN;
}

/* ------------------------------------------------------------------ */
/* Sampling                                                           */
/* ------------------------------------------------------------------ */

/* Erlang(K, rate): for few phases, -log of a product of K uniforms (one
 * log instead of K); beyond, GSL's gamma sampler (Marsaglia-Tsang), whose
 * cost does not grow with K. */
static double erlang_sample(const double *p, qc_rng *r)
{
    const int k = (int)p[0];
    if (k <= QC_ERLANG_PRODUCT_MAX) {
        double prod = 1.0;
        for (int i = 0; i < k; i++)
            prod *= qc_rng_u01_open(r);
        return -log(prod) / p[1];
    }
    return gsl_ran_gamma(qc_rng_gsl(r), p[0], 1.0) / p[1];
}

void qc__sampler_refill(qc_sampler *s)
{
    if (s->d->kind == QC_DIST_EXP) {
        /* the stream's state in a local the calls to log() cannot see,
         * so that it stays in registers through the loop */
        const double rate = s->d->p[0];
        uint64_t st[4] = {s->r->s[0], s->r->s[1], s->r->s[2], s->r->s[3]};
        for (unsigned k = 0; k < QC_SAMPLER_BATCH; k++)
            s->buf[k] = qc__exp_of(qc__xoshiro(st), rate);
        for (int j = 0; j < 4; j++)
            s->r->s[j] = st[j];
    } else {
        for (unsigned k = 0; k < QC_SAMPLER_BATCH; k++)
            s->buf[k] = qc_dist_sample(s->d, s->r);
    }
    s->i = 0;
}

double qc__dist_sample_slow(const qc_dist *d, qc_rng *r)
{
    const double *p = d->p;
    switch (d->kind) {
    case QC_DIST_EXP:
        return qc_rng_exp(r, p[0]);
    case QC_DIST_DET:
        return p[0];
    case QC_DIST_UNIFORM:
        return p[0] + (p[1] - p[0]) * qc_rng_u01(r);
    case QC_DIST_ERLANG:
        return erlang_sample(p, r);
    case QC_DIST_HYPEREXP:
        return qc_rng_exp(r, qc_rng_u01(r) < p[0] ? p[1] : p[3]);
    case QC_DIST_GAMMA:
        /* Scaled here, not by GSL: for SHAPE < 1 GSL forms
         * gamma(1 + SHAPE, SCALE) u^(1/SHAPE), which is inf * 0 = NaN
         * when SCALE is huge. */
        return gsl_ran_gamma(qc_rng_gsl(r), p[0], 1.0) * p[1];
    case QC_DIST_LOGNORMAL:
        return gsl_ran_lognormal(qc_rng_gsl(r), p[0], p[1]);
    case QC_DIST_WEIBULL:
        return gsl_ran_weibull(qc_rng_gsl(r), p[1], p[0]); /* GSL: (scale, shape) */
    case QC_DIST_PARETO:
        return gsl_ran_pareto(qc_rng_gsl(r), p[0], p[1]);
    case QC_DIST_BPARETO:
        return bpareto_inv(p, qc_rng_u01(r));
    case QC_DIST_EMPIRICAL: {
        if (d->n == 0)
            return NAN;
        /* u < 1 makes the index < n; the test guards the rounding of u n. */
        size_t i = (size_t)(qc_rng_u01(r) * (double)d->n);
        if (i >= d->n)
            i = d->n - 1;
        return d->samples[i];
    }
    case QC_DIST_LNMIX:
    case QC_DIST_EXPMIX:
        return mix_sample(d, r);
    case QC_DIST_GPD:
        return gpd_inv(p, qc_rng_u01(r));
    case QC_DIST_NONE:
        break;
    }
    return NAN;
}

/* In the order of qc_dist_kind. */
static const char *const dist_kind_names[] = {"none", "exp", "det", "uniform", "erlang", "hyperexp",
    "gamma", "lognormal", "weibull", "pareto", "bpareto", "empirical", "lnmix", "expmix", "gpd"};
QC__NAMES(qc_dist_kind, qc_dist_kind_name, qc_dist_kind_parse, dist_kind_names)
