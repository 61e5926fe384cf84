/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_svg.c: a gnuplot SVG made lighter for a report page (see
 * app/report_svg.h). One pass over the text: tags are copied with their
 * path data and translate() numbers rewritten, white space between tags
 * folded, and empty groups taken back out of the output when their end
 * tag shows they held nothing. */
#include "app/report_svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *b;
    size_t n, cap;
    int bad;
} obuf;

static void put(obuf *o, const char *s, size_t n)
{
    if (o->bad)
        return;
    if (o->n + n + 1 > o->cap) {
        size_t cap = (o->n + n + 1) * 2;
        char *nb = realloc(o->b, cap);
        if (nb == NULL) {
            o->bad = 1;
            return;
        }
        o->b = nb;
        o->cap = cap;
    }
    memcpy(o->b + o->n, s, n);
    o->n += n;
    o->b[o->n] = '\0';
}

static void puts_(obuf *o, const char *s)
{
    put(o, s, strlen(s));
}

/* A coordinate to 0.1: "424.4", "18", never "-0". */
static void put_coord(obuf *o, double v)
{
    char t[40];
    double r = round(v * 10) / 10;
    if (r == 0)
        r = 0;
    int n = snprintf(t, sizeof t, "%.1f", r);
    if (n > 2 && t[n - 1] == '0' && t[n - 2] == '.')
        n -= 2;
    put(o, t, (size_t)n);
}

static int starts(const char *s, const char *end, const char *w)
{
    size_t n = strlen(w);
    return (size_t)(end - s) >= n && memcmp(s, w, n) == 0;
}

typedef struct {
    double x, y;
    char cmd; /* 'M', 'L' or 'Z' (no point) */
} vertex;

/* Distance from p to the segment a-b. */
static double seg_dist(const vertex *p, const vertex *a, const vertex *b)
{
    const double dx = b->x - a->x, dy = b->y - a->y, l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? ((p->x - a->x) * dx + (p->y - a->y) * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(p->x - (a->x + t * dx), p->y - (a->y + t * dy));
}

/* Vertices a run of dropped ones may span before one is kept anyway: it
 * bounds the work on a long straight line. */
#define SVG_RUN_MAX 256

/* Writes the polyline v[0..m) (v[0] its M) keeping the vertices that the
 * straight lines between kept ones do not pass within tolerance of. */
static void put_run(obuf *o, const vertex *v, size_t m)
{
    puts_(o, "M");
    put_coord(o, v[0].x);
    puts_(o, ",");
    put_coord(o, v[0].y);
    size_t a = 0;
    for (size_t j = 2; j <= m; j++) {
        int keep_prev = j == m || j - a > SVG_RUN_MAX;
        for (size_t i = a + 1; i < j && !keep_prev && j < m; i++)
            if (seg_dist(&v[i], &v[a], &v[j]) > QC_SVG_TOLERANCE)
                keep_prev = 1;
        if (!keep_prev)
            continue;
        a = j - 1;
        puts_(o, " L");
        put_coord(o, v[a].x);
        puts_(o, ",");
        put_coord(o, v[a].y);
    }
}

/* Path data of absolute M/L/Z commands into vertices; 0 when the data
 * holds anything else (then copied as it is). */
static size_t parse_path(const char *s, const char *end, vertex **out)
{
    size_t cap = 64, n = 0;
    vertex *v = malloc(cap * sizeof *v);
    char cmd = 0;
    while (v != NULL) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
            s++;
        if (s == end)
            break;
        if (n + 1 > cap) {
            vertex *nv = realloc(v, 2 * cap * sizeof *v);
            if (nv == NULL) {
                free(v);
                return 0;
            }
            v = nv;
            cap *= 2;
        }
        if (*s == 'M' || *s == 'L') {
            cmd = *s++;
            continue;
        }
        if (*s == 'Z' || *s == 'z') {
            v[n++] = (vertex){0, 0, 'Z'};
            cmd = 0;
            s++;
            continue;
        }
        char *e;
        double x = strtod(s, &e);
        if (cmd == 0 || e == s || e >= end || *e != ',')
            break;
        s = e + 1;
        double y = strtod(s, &e);
        if (e == s || e > end)
            break;
        s = e;
        v[n++] = (vertex){x, y, cmd};
        if (cmd == 'M')
            cmd = 'L'; /* pairs after an M are lines */
    }
    if (v == NULL || s != end || n == 0) {
        free(v);
        return 0;
    }
    *out = v;
    return n;
}

static void put_path(obuf *o, const char *s, const char *end)
{
    vertex *v = NULL;
    size_t n = parse_path(s, end, &v);
    if (n == 0) {
        put(o, s, (size_t)(end - s));
        return;
    }
    size_t i = 0;
    while (i < n) {
        if (i > 0)
            puts_(o, " ");
        if (v[i].cmd == 'Z') {
            puts_(o, "Z");
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && v[j].cmd == 'L')
            j++;
        put_run(o, v + i, j - i);
        i = j;
    }
    free(v);
}

/* "translate(x,y)" or "translate(x y)" with x and y to 0.1; anything else
 * copied. Returns the characters of s consumed. */
static size_t put_translate(obuf *o, const char *s, const char *end)
{
    static const char word[] = "translate(";
    const size_t wn = sizeof word - 1;
    const char *p = s + wn;
    char *e;
    double x = strtod(p, &e);
    if (e == p || e >= end || (*e != ',' && *e != ' '))
        goto copy;
    p = e + 1;
    double y = strtod(p, &e);
    if (e == p || e >= end || *e != ')')
        goto copy;
    puts_(o, word);
    put_coord(o, x);
    puts_(o, ",");
    put_coord(o, y);
    puts_(o, ")");
    return (size_t)(e + 1 - s);
copy:
    put(o, word, wn);
    return wn;
}

/* gnuplot's filled circle (pt 7): a use of the unit circle, filled. */
static const char dot_circle[] = "<circle id='gpPt5' stroke-width='0.222' stroke='currentColor' "
                                 "cx='0' cy='0' r='1'/>";
static const char dot_use[] = "<use xlink:href='#gpPt5' id='gpPt6' fill='currentColor' "
                              "stroke='none'/>";

static int holds(const char *s, const char *end, const char *w)
{
    for (; s < end; s++)
        if (*s == *w && starts(s, end, w))
            return 1;
    return 0;
}

/* One filled-circle point "<use xlink:href='#gpPt6' transform='translate(x,y)
 * scale(r)' color='C'/>" at s; its length, 0 when s holds something else. */
static size_t parse_dot(const char *s, const char *end, double *x, double *y, double *r,
                        char color[64])
{
    static const char head[] = "<use xlink:href='#gpPt6' transform='translate(";
    if (!starts(s, end, head))
        return 0;
    const char *gt = memchr(s, '>', (size_t)(end - s));
    if (gt == NULL || gt - s > 200)
        return 0;
    char tag[256];
    memcpy(tag, s, (size_t)(gt + 1 - s));
    tag[gt + 1 - s] = '\0';
    int used = -1;
    if (sscanf(tag + sizeof head - 1, "%lf,%lf) scale(%lf)' color='%63[^']'/>%n", x, y, r, color,
               &used) != 4 ||
        used < 0 || tag[sizeof head - 1 + (size_t)used] != '\0')
        return 0;
    return (size_t)(gt + 1 - s);
}

/* A run of filled-circle points of one size and colour as one path of
 * zero-length round-capped strokes: the same discs, a sixth of the text. */
static const char *put_dots(obuf *o, const char *s, const char *end)
{
    double x, y, r, x2, y2, r2;
    char color[64], color2[64];
    size_t n = parse_dot(s, end, &x, &y, &r, color);
    puts_(o, "<path fill='none' stroke='");
    puts_(o, color);
    puts_(o, "' stroke-linecap='round' stroke-width='");
    put_coord(o, 2 * r);
    puts_(o, "' d='");
    for (;;) {
        s += n;
        puts_(o, "M");
        put_coord(o, x);
        puts_(o, ",");
        put_coord(o, y);
        puts_(o, "h0");
        const char *t = s;
        while (t < end && (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r'))
            t++;
        n = parse_dot(t, end, &x2, &y2, &r2, color2);
        if (n == 0 || r2 != r || strcmp(color, color2) != 0)
            break;
        s = t;
        x = x2;
        y = y2;
    }
    puts_(o, "'/>");
    return s;
}

/* Open <g> elements whose emptiness is still undecided. */
#define SVG_G_DEPTH 64

char *qc__svg_slim(const char *s, size_t len, size_t *out_len)
{
    obuf o = {0};
    const char *end = s + len;
    size_t gstart[SVG_G_DEPTH], gend[SVG_G_DEPTH];
    int gdepth = 0, deeper = 0; /* deeper: open groups past the stack, kept */
    put(&o, "", 0);
    const int dots = holds(s, end, dot_circle) && holds(s, end, dot_use);
    while (s < end && !o.bad) {
        if (dots && *s == '<' && parse_dot(s, end, &(double){0}, &(double){0}, &(double){0},
                                           (char[64]){0}) > 0) {
            s = put_dots(&o, s, end);
            continue;
        }
        if (*s != '<') {
            const char *t = s;
            while (t < end && (*t == ' ' || *t == '\t' || *t == '\n' || *t == '\r'))
                t++;
            if (t > s && (t == end || *t == '<') && o.n > 0 &&
                (o.b[o.n - 1] == '>' || o.b[o.n - 1] == '\n')) {
                /* white space between two tags */
                /* (after a group taken out, its newline is there) */
                if (o.b[o.n - 1] != '\n') {
                    if (memchr(s, '\n', (size_t)(t - s)) != NULL)
                        puts_(&o, "\n");
                    else
                        put(&o, s, (size_t)(t - s));
                }
                s = t;
                continue;
            }
            if (t == s)
                t++;
            while (t < end && *t != '<')
                t++;
            put(&o, s, (size_t)(t - s));
            s = t;
            continue;
        }
        /* a tag: copied up to its '>' outside quotes */
        const char *tag = s;
        const size_t at = o.n;
        const int close_g = starts(s, end, "</g>");
        char q = 0;
        while (s < end) {
            const char c = *s;
            if (q == 0 && (starts(s, end, " d='") || starts(s, end, " d=\""))) {
                const char qq = s[3];
                const char *e = memchr(s + 4, qq, (size_t)(end - s - 4));
                if (e == NULL)
                    e = end;
                put(&o, s, 4);
                put_path(&o, s + 4, e);
                put(&o, e, e < end ? 1 : 0); /* the closing quote */
                s = e < end ? e + 1 : e;
                continue;
            }
            if (q != 0 && starts(s, end, "translate(")) {
                s += put_translate(&o, s, end);
                continue;
            }
            put(&o, s, 1);
            s++;
            if (q == 0 && (c == '"' || c == '\''))
                q = c;
            else if (q != 0 && c == q)
                q = 0;
            else if (q == 0 && c == '>')
                break;
        }
        if (close_g && deeper > 0) {
            deeper--;
        } else if (close_g && gdepth > 0) {
            gdepth--;
            int empty = 1;
            for (size_t i = gend[gdepth]; i < at && empty; i++)
                empty = o.b[i] == ' ' || o.b[i] == '\t' || o.b[i] == '\n' || o.b[i] == '\r';
            if (empty && !o.bad) {
                o.n = gstart[gdepth];
                o.b[o.n] = '\0';
            }
        } else if ((starts(tag, end, "<g ") || starts(tag, end, "<g>")) && o.n > 0 &&
                   o.b[o.n - 1] == '>' && o.b[o.n - 2] != '/') {
            if (gdepth < SVG_G_DEPTH) {
                gstart[gdepth] = at;
                gend[gdepth] = o.n;
                gdepth++;
            } else {
                deeper++;
            }
        }
    }
    if (o.bad) {
        free(o.b);
        return NULL;
    }
    *out_len = o.n;
    return o.b;
}
