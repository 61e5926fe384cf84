/* SPDX-License-Identifier: GPL-3.0-or-later */
/* remote_parse.c: the parsers of haproxy's and pgbouncer's admin answers
 * (see remote.h), pure functions over bytes.
 *
 * Every parser walks its input once from the start with an index that
 * only grows and is checked against n before each read, so no input, cut
 * or hostile, can make it read outside p[0..n) or loop: a field is found
 * by its column's index in the header, a row by its key. A number must be
 * a whole field ("12", "0.5", "-3e2"), never the prefix of one ("12abc"
 * is no value), so that a changed format is refused rather than misread. */
#include "live/remote.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* p[0..n) as a whole number: 1 with *v, 0 when it is not one (empty,
 * trailing bytes, not finite). */
static int whole_number(const char *p, size_t n, double *v)
{
    char tmp[64];
    while (n > 0 && (p[0] == ' ' || p[0] == '\t'))
        p++, n--;
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    if (n == 0 || n >= sizeof tmp)
        return 0;
    memcpy(tmp, p, n);
    tmp[n] = 0;
    if (!(tmp[0] == '-' || tmp[0] == '+' || tmp[0] == '.' || (tmp[0] >= '0' && tmp[0] <= '9')))
        return 0;
    char *end;
    errno = 0;
    double x = strtod(tmp, &end);
    if (*end != 0 || !isfinite(x) || errno == ERANGE)
        return 0;
    *v = x;
    return 1;
}

static int field_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

int qc__remote_fields_parse(const char *s, qc__remote_fields *f, qc_err *err)
{
    memset(f, 0, sizeof *f);
    const char *p = s;
    for (;;) {
        size_t k = 0;
        while (field_char(p[k]))
            k++;
        if (k == 0 || k >= sizeof f->name[0])
            return qc_err_set(err, QC_EINVAL,
                              "'%s': a field is a name of letters, digits and '_' (at most 63), "
                              "several joined by '+'",
                              s);
        if (f->n == QC__REMOTE_FIELDS_MAX)
            return qc_err_set(err, QC_EINVAL, "'%s': at most %d fields summed", s,
                              QC__REMOTE_FIELDS_MAX);
        memcpy(f->name[f->n], p, k);
        f->name[f->n][k] = 0;
        f->n++;
        p += k;
        if (*p == 0)
            return 0;
        if (*p != '+')
            return qc_err_set(err, QC_EINVAL, "'%s': unexpected '%c' (fields are joined by '+')",
                              s, *p);
        p++;
    }
}

/* ---- haproxy ------------------------------------------------------------ */

int qc__haproxy_applied(const char *p, size_t n, char *why, size_t why_n)
{
    size_t i = 0;
    while (i < n && (p[i] == '\n' || p[i] == '\r' || p[i] == ' ' || p[i] == '\t'))
        i++;
    if (i == n)
        return 1;
    size_t e = i;
    while (e < n && p[e] != '\n')
        e++;
    if (why_n > 0) {
        size_t k = e - i < why_n - 1 ? e - i : why_n - 1;
        for (size_t j = 0; j < k; j++) /* printable only: it goes to a log */
            why[j] = (unsigned char)p[i + j] >= 0x20 && p[i + j] != 0x7f ? p[i + j] : '?';
        why[k] = 0;
    }
    return 0;
}

/* The line p[i..) up to its '\n' (or n): its end in *e. */
static size_t line_end(const char *p, size_t n, size_t i)
{
    while (i < n && p[i] != '\n')
        i++;
    return i;
}

/* The k-th comma-separated cell of the line p[a..e): its bounds. 0 when
 * the line has fewer cells. haproxy's CSV quotes no cell. */
static int csv_cell(const char *p, size_t a, size_t e, unsigned k, size_t *ca, size_t *ce)
{
    unsigned c = 0;
    size_t s = a;
    for (size_t i = a; i <= e; i++) {
        if (i == e || p[i] == ',') {
            if (c == k) {
                *ca = s;
                *ce = i;
                return 1;
            }
            c++;
            s = i + 1;
        }
    }
    return 0;
}

static int cell_is(const char *p, size_t a, size_t e, const char *s)
{
    size_t l = strlen(s);
    return e - a == l && memcmp(p + a, s, l) == 0;
}

/* The column of name in the header line p[a..e) (after "# "); -1 absent. */
static int csv_column(const char *p, size_t a, size_t e, const char *name)
{
    for (unsigned k = 0; k < 4096; k++) {
        size_t ca, ce;
        if (!csv_cell(p, a, e, k, &ca, &ce))
            return -1;
        if (cell_is(p, ca, ce, name))
            return (int)k;
    }
    return -1;
}

/* The header of a `show stat` answer: its bounds after "# ". */
static int stat_header(const char *p, size_t n, size_t *a, size_t *e, const char **why)
{
    if (n < 2 || p[0] != '#' || p[1] != ' ') {
        *why = "the answer to 'show stat' does not start with its header '# pxname,svname,...'";
        return 0;
    }
    *a = 2;
    *e = line_end(p, n, 2);
    size_t ca, ce;
    if (!csv_cell(p, *a, *e, 0, &ca, &ce) || !cell_is(p, ca, ce, "pxname") ||
        !csv_cell(p, *a, *e, 1, &ca, &ce) || !cell_is(p, ca, ce, "svname")) {
        *why = "the header of 'show stat' does not start with pxname,svname";
        return 0;
    }
    return 1;
}

int qc__haproxy_stat_value(const char *p, size_t n, const qc__haproxy_row *r,
                           const qc__remote_fields *f, double *v, const char **why)
{
    size_t ha, he;
    if (!stat_header(p, n, &ha, &he, why))
        return 0;
    int col[QC__REMOTE_FIELDS_MAX];
    for (unsigned k = 0; k < f->n; k++)
        if ((col[k] = csv_column(p, ha, he, f->name[k])) < 0) {
            *why = "a field is not a column of 'show stat'";
            return 0;
        }
    for (size_t i = he + 1; i < n;) {
        size_t e = line_end(p, n, i);
        size_t a0, e0, a1, e1;
        if (e > i && p[i] != '#' && csv_cell(p, i, e, 0, &a0, &e0) &&
            csv_cell(p, i, e, 1, &a1, &e1) && cell_is(p, a0, e0, r->px) &&
            cell_is(p, a1, e1, r->sv)) {
            double sum = 0;
            for (unsigned k = 0; k < f->n; k++) {
                size_t ca, ce;
                double x;
                if (!csv_cell(p, i, e, (unsigned)col[k], &ca, &ce) || ce == ca) {
                    *why = "the field is empty on that row of 'show stat'";
                    return 0;
                }
                if (!whole_number(p + ca, ce - ca, &x)) {
                    *why = "the field is not a number on that row of 'show stat'";
                    return 0;
                }
                sum += x;
            }
            *v = sum;
            return 1;
        }
        i = e + 1;
    }
    *why = "no such proxy/server row in 'show stat'";
    return 0;
}

int qc__haproxy_info_value(const char *p, size_t n, const qc__remote_fields *f, double *v,
                           const char **why)
{
    double sum = 0;
    for (unsigned k = 0; k < f->n; k++) {
        size_t l = strlen(f->name[k]);
        int found = 0;
        for (size_t i = 0; i < n && !found;) {
            size_t e = line_end(p, n, i);
            if (e - i > l && memcmp(p + i, f->name[k], l) == 0 && p[i + l] == ':') {
                double x;
                if (!whole_number(p + i + l + 1, e - i - l - 1, &x)) {
                    *why = "the field of 'show info' is not a number";
                    return 0;
                }
                sum += x;
                found = 1;
            }
            i = e + 1;
        }
        if (!found) {
            *why = "no such field in 'show info'";
            return 0;
        }
    }
    *v = sum;
    return 1;
}

static void copy_cell(char *dst, size_t dn, const char *p, size_t a, size_t e)
{
    size_t k = e - a < dn - 1 ? e - a : dn - 1;
    memcpy(dst, p + a, k);
    dst[k] = 0;
}

int qc__haproxy_servers(const char *p, size_t n, const char *px, qc__haproxy_server *s,
                        unsigned max, unsigned *count, double *queue, const char **why)
{
    size_t ha, he;
    if (!stat_header(p, n, &ha, &he, why))
        return 0;
    int cs = csv_column(p, ha, he, "scur"), cq = csv_column(p, ha, he, "qcur"),
        cst = csv_column(p, ha, he, "status");
    if (cs < 0 || cq < 0 || cst < 0) {
        *why = "'show stat' has no scur, qcur or status column";
        return 0;
    }
    unsigned c = 0;
    int backend = 0;
    for (size_t i = he + 1; i < n;) {
        size_t e = line_end(p, n, i);
        size_t a0, e0, a1, e1, a, b;
        if (e > i && p[i] != '#' && csv_cell(p, i, e, 0, &a0, &e0) &&
            csv_cell(p, i, e, 1, &a1, &e1) && cell_is(p, a0, e0, px)) {
            double sc = 0, qc = 0;
            if (!csv_cell(p, i, e, (unsigned)cs, &a, &b) || !whole_number(p + a, b - a, &sc) ||
                !csv_cell(p, i, e, (unsigned)cq, &a, &b) || !whole_number(p + a, b - a, &qc)) {
                *why = "a server's scur or qcur is not a number in 'show stat'";
                return 0;
            }
            if (cell_is(p, a1, e1, "BACKEND")) {
                *queue = qc;
                backend = 1;
            } else if (!cell_is(p, a1, e1, "FRONTEND") && c < max) {
                if (e1 - a1 >= QC__REMOTE_NAME_MAX) {
                    *why = "a server's name is too long in 'show stat'";
                    return 0;
                }
                copy_cell(s[c].name, sizeof s[c].name, p, a1, e1);
                s[c].scur = sc;
                s[c].qcur = qc;
                if (!csv_cell(p, i, e, (unsigned)cst, &a, &b)) {
                    *why = "a server's status is missing in 'show stat'";
                    return 0;
                }
                copy_cell(s[c].status, sizeof s[c].status, p, a, b);
                c++;
            }
        }
        i = e + 1;
    }
    if (!backend) {
        *why = "no such backend in 'show stat'";
        return 0;
    }
    *count = c;
    return 1;
}

/* ---- the PostgreSQL protocol ------------------------------------------- */

static uint32_t be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static unsigned be16(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (unsigned)u[0] << 8 | u[1];
}

int qc__pg_next(const char *p, size_t n, qc__pg_msg *m)
{
    if (n < 5)
        return 0;
    uint32_t len = be32(p + 1);
    if (len < 4 || len > QC__REMOTE_ANSWER_MAX)
        return -1;
    if (n < (size_t)len + 1)
        return 0;
    m->type = p[0];
    m->body = p + 5;
    m->body_len = len - 4;
    m->total = (size_t)len + 1;
    return 1;
}

void qc__pg_error_text(const qc__pg_msg *m, char *out, size_t n)
{
    out[0] = 0;
    size_t i = 0;
    while (i < m->body_len && m->body[i] != 0) {
        char code = m->body[i++];
        size_t s = i;
        while (i < m->body_len && m->body[i] != 0)
            i++;
        if (code == 'M') {
            size_t k = i - s < n - 1 ? i - s : n - 1;
            for (size_t j = 0; j < k; j++)
                out[j] = (unsigned char)m->body[s + j] >= 0x20 ? m->body[s + j] : '?';
            out[k] = 0;
            return;
        }
        i++; /* the field's terminator */
    }
}

/* The columns of a RowDescription: the index of each wanted name (-1:
 * absent). 0 when malformed. */
static int row_description(const qc__pg_msg *m, const char *key, const qc__remote_fields *f,
                           int *kcol, int *cols)
{
    if (m->body_len < 2)
        return 0;
    unsigned nf = be16(m->body);
    size_t i = 2;
    *kcol = -1;
    for (unsigned k = 0; k < f->n; k++)
        cols[k] = -1;
    for (unsigned c = 0; c < nf; c++) {
        size_t s = i;
        while (i < m->body_len && m->body[i] != 0)
            i++;
        if (i >= m->body_len)
            return 0;
        size_t l = i - s;
        if (key && strlen(key) == l && memcmp(m->body + s, key, l) == 0)
            *kcol = (int)c;
        for (unsigned k = 0; k < f->n; k++)
            if (strlen(f->name[k]) == l && memcmp(m->body + s, f->name[k], l) == 0)
                cols[k] = (int)c;
        i += 1 + 18; /* terminator, table oid 4, attnum 2, type oid 4, len 2, typmod 4, format 2 */
        if (i > m->body_len)
            return 0;
    }
    return 1;
}

/* The bounds of column c of a DataRow (len -1: NULL). 0 when malformed. */
static int data_cell(const qc__pg_msg *m, unsigned c, size_t *a, long *len)
{
    if (m->body_len < 2)
        return 0;
    unsigned nc = be16(m->body);
    if (c >= nc)
        return 0;
    size_t i = 2;
    for (unsigned k = 0;; k++) {
        if (i + 4 > m->body_len)
            return 0;
        uint32_t l = be32(m->body + i);
        i += 4;
        long ll = l == 0xffffffffu ? -1 : (long)l;
        if (ll > 0 && (size_t)ll > m->body_len - i)
            return 0;
        if (k == c) {
            *a = i;
            *len = ll;
            return 1;
        }
        if (ll > 0)
            i += (size_t)ll;
    }
}

/* largest 0: the sum over the matching rows; 1: the largest row's sum. */
static int pg_table(const char *p, size_t n, const char *key, const char *value,
                    const qc__remote_fields *f, int largest, double *v, unsigned *rows,
                    const char **why)
{
    int kcol = -1, cols[QC__REMOTE_FIELDS_MAX];
    int described = 0, complete = 0;
    double sum = 0;
    unsigned matched = 0;
    size_t i = 0;
    while (i < n) {
        qc__pg_msg m;
        int r = qc__pg_next(p + i, n - i, &m);
        if (r <= 0) {
            *why = "a malformed or cut message in the answer";
            return 0;
        }
        i += m.total;
        if (m.type == 'T') {
            if (!row_description(&m, key, f, &kcol, cols)) {
                *why = "a malformed RowDescription";
                return 0;
            }
            if (key && kcol < 0) {
                *why = "the answer has no such key column";
                return 0;
            }
            for (unsigned k = 0; k < f->n; k++)
                if (cols[k] < 0) {
                    *why = "a field is not a column of the answer";
                    return 0;
                }
            described = 1;
        } else if (m.type == 'D') {
            if (!described) {
                *why = "a DataRow before its RowDescription";
                return 0;
            }
            size_t a;
            long l;
            if (key) {
                if (!data_cell(&m, (unsigned)kcol, &a, &l)) {
                    *why = "a malformed DataRow";
                    return 0;
                }
                size_t vl = strlen(value);
                if (l < 0 || (size_t)l != vl || memcmp(m.body + a, value, vl) != 0)
                    continue;
            }
            double row = 0;
            for (unsigned k = 0; k < f->n; k++) {
                double x;
                if (!data_cell(&m, (unsigned)cols[k], &a, &l)) {
                    *why = "a malformed DataRow";
                    return 0;
                }
                if (l <= 0 || !whole_number(m.body + a, (size_t)l, &x)) {
                    *why = "a field is not a number on a matching row";
                    return 0;
                }
                row += x;
            }
            sum = !largest ? sum + row : matched == 0 || row > sum ? row : sum;
            matched++;
        } else if (m.type == 'C' && described) {
            complete = 1;
            break; /* the table ends here (a next query's answer is not ours) */
        }
    }
    if (!described) {
        *why = "the answer holds no table";
        return 0;
    }
    if (!complete) {
        *why = "the answer ends before its CommandComplete";
        return 0;
    }
    if (matched == 0) {
        *why = "no row for that database in the answer";
        return 0;
    }
    *v = sum;
    *rows = matched;
    return 1;
}

int qc__pg_table_sum(const char *p, size_t n, const char *key, const char *value,
                     const qc__remote_fields *f, double *v, unsigned *rows, const char **why)
{
    return pg_table(p, n, key, value, f, 0, v, rows, why);
}

int qc__pg_table_max(const char *p, size_t n, const qc__remote_fields *f, double *v,
                     unsigned *rows, const char **why)
{
    return pg_table(p, n, NULL, NULL, f, 1, v, rows, why);
}

size_t qc__pg_answer_len(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        qc__pg_msg m;
        if (qc__pg_next(p + i, n - i, &m) <= 0)
            return 0;
        i += m.total;
        if (m.type == 'C')
            return i;
    }
    return 0;
}

int qc__pg_table_text(const char *p, size_t n, const char *key, const char *value,
                      const char *field, char *out, size_t out_n, const char **why)
{
    qc__remote_fields f = {.n = 1};
    if (strlen(field) >= sizeof f.name[0] || out_n == 0) {
        *why = "a field name too long";
        return 0;
    }
    strcpy(f.name[0], field);
    int kcol = -1, col[QC__REMOTE_FIELDS_MAX];
    int described = 0;
    size_t i = 0;
    while (i < n) {
        qc__pg_msg m;
        if (qc__pg_next(p + i, n - i, &m) <= 0)
            break;
        i += m.total;
        if (m.type == 'T') {
            if (!row_description(&m, key, &f, &kcol, col) || kcol < 0 || col[0] < 0) {
                *why = "the answer lacks the key or the field";
                return 0;
            }
            described = 1;
        } else if (m.type == 'D' && described) {
            size_t a;
            long l;
            if (!data_cell(&m, (unsigned)kcol, &a, &l)) {
                *why = "a malformed DataRow";
                return 0;
            }
            if (l < 0 || (size_t)l != strlen(value) || memcmp(m.body + a, value, (size_t)l) != 0)
                continue;
            if (!data_cell(&m, (unsigned)col[0], &a, &l) || l < 0 || (size_t)l >= out_n) {
                *why = "the field's value is missing or too long";
                return 0;
            }
            memcpy(out, m.body + a, (size_t)l);
            out[l] = 0;
            return 1;
        } else if (m.type == 'C' && described) {
            break;
        }
    }
    *why = described ? "no row with that key" : "the answer holds no table";
    return 0;
}

/* ---- MD5 (RFC 1321), for pgbouncer's md5 authentication ------------------ */

typedef struct md5 {
    uint32_t h[4];
    unsigned char buf[64];
    uint64_t len;
} md5;

static uint32_t rotl32(uint32_t x, unsigned c) { return (x << c) | (x >> (32 - c)); }

static void md5_block(md5 *c, const unsigned char *b)
{
    static const uint32_t K[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    static const unsigned char R[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                        5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16 |
               (uint32_t)b[4 * i + 3] << 24;
    uint32_t a = c->h[0], bb = c->h[1], cc = c->h[2], d = c->h[3];
    for (unsigned i = 0; i < 64; i++) {
        uint32_t fv;
        unsigned g;
        if (i < 16) {
            fv = (bb & cc) | (~bb & d);
            g = i;
        } else if (i < 32) {
            fv = (d & bb) | (~d & cc);
            g = (5 * i + 1) % 16;
        } else if (i < 48) {
            fv = bb ^ cc ^ d;
            g = (3 * i + 5) % 16;
        } else {
            fv = cc ^ (bb | ~d);
            g = (7 * i) % 16;
        }
        uint32_t t = d;
        d = cc;
        cc = bb;
        bb = bb + rotl32(a + fv + K[i] + w[g], R[i]);
        a = t;
    }
    c->h[0] += a;
    c->h[1] += bb;
    c->h[2] += cc;
    c->h[3] += d;
}

static void md5_init(md5 *c)
{
    c->h[0] = 0x67452301;
    c->h[1] = 0xefcdab89;
    c->h[2] = 0x98badcfe;
    c->h[3] = 0x10325476;
    c->len = 0;
}

static void md5_update(md5 *c, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        c->buf[c->len % 64] = p[i];
        c->len++;
        if (c->len % 64 == 0)
            md5_block(c, c->buf);
    }
}

static void md5_hex(md5 *c, char out[33])
{
    uint64_t bits = c->len * 8;
    unsigned char pad = 0x80;
    md5_update(c, &pad, 1);
    pad = 0;
    while (c->len % 64 != 56)
        md5_update(c, &pad, 1);
    unsigned char l[8];
    for (int i = 0; i < 8; i++)
        l[i] = (unsigned char)(bits >> (8 * i));
    md5_update(c, l, 8);
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        unsigned char byte = (unsigned char)(c->h[i / 4] >> (8 * (i % 4)));
        out[2 * i] = hx[byte >> 4];
        out[2 * i + 1] = hx[byte & 15];
    }
    out[32] = 0;
}

void qc__pg_md5_password(const char *user, const char *password, const unsigned char salt[4],
                         char out[36])
{
    md5 c;
    char inner[33];
    md5_init(&c);
    md5_update(&c, password, strlen(password));
    md5_update(&c, user, strlen(user));
    md5_hex(&c, inner);
    md5_init(&c);
    md5_update(&c, inner, 32);
    md5_update(&c, salt, 4);
    memcpy(out, "md5", 3);
    md5_hex(&c, out + 3);
}
