/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.c: a run's self-contained HTML report (see app/report.h).
 *
 * The page is streamed straight into a qc_ofile: the summary is walked
 * once, in the object's insertion order (jansson keeps it), so the bytes
 * depend on nothing but the inputs. Every piece of text that came from
 * outside (title, argv, JSON keys and strings, plot names) goes through
 * put_esc; the SVG files are trusted to be gnuplot's output and are copied
 * with only their prolog dropped and their ids made unique to the page. */
#include "app/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/output.h"

/* Scalar arrays longer than this are shown as their head and a count. */
#define REPORT_ARRAY_SHOWN 20

static const char page_style[] =
    "body{font-family:sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem;"
    "color:#222;line-height:1.4}\n"
    "h1{font-size:1.5rem}h2{font-size:1.25rem;border-bottom:1px solid #ccc}"
    "h3{font-size:1.05rem;margin-bottom:.3rem}\n"
    "pre.cmd{font-family:monospace;background:#f4f4f4;border:1px solid #ddd;padding:.5rem;"
    "white-space:pre-wrap;word-break:break-all}\n"
    "table{border-collapse:collapse;margin:.3rem 0 1rem}"
    "th,td{border:1px solid #999;padding:.15rem .5rem;text-align:left;vertical-align:top}\n"
    "th{background:#eee}td.num{text-align:right;font-family:monospace}\n"
    "figure{margin:1rem 0}figure svg{width:100%;height:auto;max-width:800px;display:block}\n"
    "figcaption{font-family:monospace}div.wide{overflow-x:auto}\n"
    "p.missing{border:1px solid #c90;background:#fff6e0;padding:.3rem .5rem}\n";

/* Counts the inlined plots the browser laid out: those whose bounding box
 * has an area. Kept tiny and free of any external reference. */
static const char page_script[] =
    "window.addEventListener('load',function(){\n"
    "  var s=document.querySelectorAll('figure.plot > svg'),n=0;\n"
    "  for(var i=0;i<s.length;i++){var b=s[i].getBBox();if(b.width>0&&b.height>0)n++;}\n"
    "  document.body.setAttribute('data-plots-rendered',String(n));\n"
    "});\n";

static void put_esc_n(FILE *fp, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default:
            /* control characters other than tab and newline are not
             * allowed in HTML text: shown as U+FFFD */
            if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
                fputs("&#xFFFD;", fp);
            else
                fputc(s[i], fp);
        }
    }
}

static void put_esc(FILE *fp, const char *s)
{
    put_esc_n(fp, s, strlen(s));
}

/* A word as a POSIX shell would need it to get it back unchanged. */
static void put_shell_word(FILE *fp, const char *s)
{
    static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                               "0123456789_-+=./:,@%^";
    if (*s != '\0' && strspn(s, safe) == strlen(s)) {
        put_esc(fp, s);
        return;
    }
    fputc('\'', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            fputs("&#39;\\&#39;&#39;", fp);
        else
            put_esc_n(fp, p, 1);
    }
    fputc('\'', fp);
}

static int is_ci(const json_t *v)
{
    return json_is_object(v) && json_object_get(v, "value") && json_object_get(v, "ci_low") &&
           json_object_get(v, "ci_high");
}

/* What fits in one table cell. */
static int is_cell(const json_t *v)
{
    if (json_is_object(v))
        return is_ci(v);
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if (json_is_object(e) || json_is_array(e))
                return 0;
        }
        return 1;
    }
    return 1;
}

static void put_number(FILE *fp, const json_t *v)
{
    if (json_is_integer(v))
        fprintf(fp, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(fp, "%.6g", json_real_value(v));
    else if (json_is_null(v))
        fputs("&mdash;", fp);
    else
        fputs("?", fp);
}

static void put_scalar(FILE *fp, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: put_esc_n(fp, json_string_value(v), json_string_length(v)); break;
    case JSON_TRUE: fputs("true", fp); break;
    case JSON_FALSE: fputs("false", fp); break;
    default: put_number(fp, v); break;
    }
}

static void put_cell_value(FILE *fp, const json_t *v)
{
    if (is_ci(v)) {
        put_number(fp, json_object_get(v, "value"));
        fputs(" [", fp);
        put_number(fp, json_object_get(v, "ci_low"));
        fputs(", ", fp);
        put_number(fp, json_object_get(v, "ci_high"));
        fputs("]", fp);
    } else if (json_is_array(v)) {
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n && i < REPORT_ARRAY_SHOWN; i++) {
            if (i)
                fputs(", ", fp);
            put_scalar(fp, json_array_get(v, i));
        }
        if (n > REPORT_ARRAY_SHOWN)
            fprintf(fp, ", &hellip; (%zu values)", n);
        else if (n == 0)
            fputs("(none)", fp);
    } else {
        put_scalar(fp, v);
    }
}

static void put_td(FILE *fp, const json_t *v)
{
    int num = json_is_number(v) || is_ci(v);
    fputs(num ? "<td class=\"num\">" : "<td>", fp);
    put_cell_value(fp, v);
    fputs("</td>", fp);
}

/* 1 when arr is a non-empty array of objects with the same keys (in any
 * order), every value a cell. */
static int is_row_table(const json_t *arr)
{
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return 0;
    const json_t *first = json_array_get(arr, 0);
    if (!json_is_object(first) || is_ci(first) || json_object_size(first) == 0)
        return 0;
    size_t i;
    json_t *row;
    json_array_foreach(arr, i, row)
    {
        if (!json_is_object(row) || json_object_size(row) != json_object_size(first))
            return 0;
        const char *k;
        json_t *v;
        json_object_foreach(row, k, v)
        {
            if (json_object_get(first, k) == NULL || !is_cell(v))
                return 0;
        }
    }
    return 1;
}

static void put_heading(FILE *fp, const char *path)
{
    fputs("<h3>", fp);
    put_esc(fp, path);
    fputs("</h3>\n", fp);
}

static void put_row_table(FILE *fp, const json_t *arr)
{
    const json_t *first = json_array_get(arr, 0);
    const char *k;
    json_t *v;
    fputs("<div class=\"wide\"><table>\n<tr>", fp);
    json_object_foreach((json_t *)first, k, v)
    {
        (void)v;
        fputs("<th>", fp);
        put_esc(fp, k);
        fputs("</th>", fp);
    }
    fputs("</tr>\n", fp);
    size_t i;
    json_t *row;
    json_array_foreach(arr, i, row)
    {
        /* columns in the first row's order */
        fputs("<tr>", fp);
        json_object_foreach((json_t *)first, k, v)
            put_td(fp, json_object_get(row, k));
        fputs("</tr>\n", fp);
    }
    fputs("</table></div>\n", fp);
}

static char *join_path(const char *base, const char *key)
{
    size_t n = strlen(base) + strlen(key) + 4;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s%s", base, *base ? " / " : "", key);
    return s;
}

static int put_value(FILE *fp, const char *path, const json_t *v, int depth);

/* An object: its cells as one key/value table, then each member that is
 * not a cell under its own heading. */
static int put_object(FILE *fp, const char *path, const json_t *obj, int depth)
{
    const char *k;
    json_t *v;
    int any = 0;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (!is_cell(v))
            continue;
        if (!any)
            fputs("<table>\n", fp);
        any = 1;
        fputs("<tr><th>", fp);
        put_esc(fp, k);
        fputs("</th>", fp);
        put_td(fp, v);
        fputs("</tr>\n", fp);
    }
    if (any)
        fputs("</table>\n", fp);
    json_object_foreach((json_t *)obj, k, v)
    {
        if (is_cell(v))
            continue;
        char *sub = join_path(path, k);
        if (sub == NULL)
            return QC_ENOMEM;
        int rc = put_value(fp, sub, v, depth + 1);
        free(sub);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* The columns of an object of like objects (see obj_table_keys). */
#define REPORT_MAX_COLUMNS 16

/* An object whose members (two or more) are all objects of cells, not
 * intervals, with at most REPORT_MAX_COLUMNS distinct keys among them: one
 * table, a row per member. The keys, in the order first seen, go to keys;
 * returns their count, or 0 when obj is not such an object. */
static size_t obj_table_keys(const json_t *obj, const char **keys)
{
    if (!json_is_object(obj) || is_ci(obj) || json_object_size(obj) < 2)
        return 0;
    size_t nk = 0;
    const char *name;
    json_t *row;
    json_object_foreach((json_t *)obj, name, row)
    {
        if (!json_is_object(row) || is_ci(row) || json_object_size(row) == 0)
            return 0;
        const char *k;
        json_t *v;
        json_object_foreach(row, k, v)
        {
            if (!is_cell(v))
                return 0;
            size_t j = 0;
            while (j < nk && strcmp(keys[j], k) != 0)
                j++;
            if (j == nk) {
                if (nk == REPORT_MAX_COLUMNS)
                    return 0;
                keys[nk++] = k;
            }
        }
    }
    return nk;
}

static void put_obj_table(FILE *fp, const json_t *obj, const char **keys, size_t nk)
{
    fputs("<div class=\"wide\"><table>\n<tr><th></th>", fp);
    for (size_t j = 0; j < nk; j++) {
        fputs("<th>", fp);
        put_esc(fp, keys[j]);
        fputs("</th>", fp);
    }
    fputs("</tr>\n", fp);
    const char *name;
    json_t *row;
    json_object_foreach((json_t *)obj, name, row)
    {
        fputs("<tr><th>", fp);
        put_esc(fp, name);
        fputs("</th>", fp);
        for (size_t j = 0; j < nk; j++) {
            const json_t *v = json_object_get(row, keys[j]);
            if (v)
                put_td(fp, v);
            else
                fputs("<td></td>", fp);
        }
        fputs("</tr>\n", fp);
    }
    fputs("</table></div>\n", fp);
}

static int put_value(FILE *fp, const char *path, const json_t *v, int depth)
{
    /* Summaries are a few levels deep; a runaway nesting is cut, not
     * followed down the stack. */
    if (depth > 32) {
        fputs("<p>(nested too deep)</p>\n", fp);
        return 0;
    }
    if (*path)
        put_heading(fp, path);
    const char *keys[REPORT_MAX_COLUMNS];
    size_t nk = *path ? obj_table_keys(v, keys) : 0;
    if (nk > 0) {
        put_obj_table(fp, v, keys, nk);
        return 0;
    }
    if (json_is_object(v))
        return put_object(fp, path, v, depth);
    if (is_row_table(v)) {
        put_row_table(fp, v);
        return 0;
    }
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            size_t n = strlen(path) + 32;
            char *sub = malloc(n);
            if (sub == NULL)
                return QC_ENOMEM;
            snprintf(sub, n, "%s[%zu]", path, i);
            int rc = is_cell(e) ? 0 : put_value(fp, sub, e, depth + 1);
            if (is_cell(e)) {
                put_heading(fp, sub);
                fputs("<table><tr>", fp);
                put_td(fp, e);
                fputs("</tr></table>\n", fp);
            }
            free(sub);
            if (rc != 0)
                return rc;
        }
        return 0;
    }
    fputs("<table><tr>", fp);
    put_td(fp, v);
    fputs("</tr></table>\n", fp);
    return 0;
}

/* Reads a whole file; *out NULL and 0 returned when it does not exist. */
static int read_file(const char *path, char **out, size_t *len, qc_err *err)
{
    *out = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL) {
        if (errno == ENOENT)
            return 0;
        return qc_err_set(err, QC_EIO, "%s: cannot read: %s", path, strerror(errno));
    }
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL) {
            fclose(fp);
            return qc_err_set(err, QC_ENOMEM, "%s: out of memory", path);
        }
        n += fread(buf + n, 1, cap - n - 1, fp);
        if (n < cap - 1)
            break;
        char *nb = realloc(buf, cap * 2);
        if (nb == NULL)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return qc_err_set(err, QC_EIO, "%s: read failed", path);
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

static int starts(const char *s, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - s) >= n && memcmp(s, word, n) == 0;
}

/* Copies the <svg>...</svg> element of an SVG document, prefixing every id
 * and every local reference to one (href="#x", url(#x)) with pfx. */
static void put_svg(FILE *fp, const char *s, const char *end, const char *pfx)
{
    static const char *const marks[] = {"id=\"", "id='", "href=\"#", "href='#", "url(#"};
    const char *start = s;
    while (s < end) {
        size_t m;
        for (m = 0; m < sizeof marks / sizeof marks[0]; m++)
            if (starts(s, end, marks[m]))
                break;
        /* an attribute named exactly "id": preceded by white space */
        if (m < 2 && (s == start || !(s[-1] == ' ' || s[-1] == '\t' || s[-1] == '\n')))
            m = sizeof marks / sizeof marks[0];
        if (m < sizeof marks / sizeof marks[0]) {
            fputs(marks[m], fp);
            fputs(pfx, fp);
            s += strlen(marks[m]);
        } else {
            fputc(*s++, fp);
        }
    }
}

/* Inlines DIR/NAME.svg as plot number i, or writes the note on its absence. */
static int put_plot(FILE *fp, const char *dir, const char *name, size_t i, int *inlined,
                    qc_err *err)
{
    size_t n = strlen(dir) + strlen(name) + 8;
    char *path = malloc(n);
    if (path == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    snprintf(path, n, "%s/%s.svg", dir, name);
    char *text;
    size_t len;
    int rc = read_file(path, &text, &len, err);
    free(path);
    if (rc != 0)
        return rc;
    const char *b = text ? strstr(text, "<svg") : NULL;
    const char *e = NULL;
    for (const char *p = b; p && (p = strstr(p, "</svg>")) != NULL; p += 6)
        e = p + 6;
    if (b == NULL || e == NULL) {
        fputs("<p class=\"missing\">Plot <code>", fp);
        put_esc(fp, name);
        fputs(text ? "</code> not shown: its SVG file is not an SVG image.</p>\n"
                   : "</code> not drawn: gnuplot is not installed (or the plot was not "
                     "written).</p>\n",
              fp);
        free(text);
        return 0;
    }
    char pfx[32];
    snprintf(pfx, sizeof pfx, "p%zu-", i + 1);
    fputs("<figure class=\"plot\">\n", fp);
    put_svg(fp, b, e, pfx);
    fputs("\n<figcaption>", fp);
    put_esc(fp, name);
    fputs("</figcaption>\n</figure>\n", fp);
    free(text);
    (*inlined)++;
    return 0;
}

/* Counts the plots that will be inlined, for data-plots on <body>. */
static int count_svgs(const char *dir, const char *const *plots, size_t nplots, size_t *count,
                      qc_err *err)
{
    *count = 0;
    for (size_t i = 0; i < nplots; i++) {
        size_t n = strlen(dir) + strlen(plots[i]) + 8;
        char *path = malloc(n);
        if (path == NULL)
            return qc_err_set(err, QC_ENOMEM, "out of memory");
        snprintf(path, n, "%s/%s.svg", dir, plots[i]);
        char *text;
        size_t len;
        int rc = read_file(path, &text, &len, err);
        free(path);
        if (rc != 0)
            return rc;
        if (text && strstr(text, "<svg") && strstr(text, "</svg>"))
            (*count)++;
        free(text);
    }
    return 0;
}

int qc_report_write(const char *dir, const char *title, int argc, char *const argv[],
                    const json_t *summary, const char *const *plots, size_t nplots,
                    qc_err *err)
{
    if (dir == NULL || (summary != NULL && !json_is_object(summary)) ||
        (nplots > 0 && plots == NULL))
        return qc_err_set(err, QC_EINVAL, "report: no directory, or a summary that is not an object");
    if (title == NULL)
        title = "qctl report";
    size_t n = strlen(dir) + 16;
    char *path = malloc(n);
    if (path == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    snprintf(path, n, "%s/index.html", dir);
    size_t nsvg;
    int rc = count_svgs(dir, plots, nplots, &nsvg, err);
    qc_ofile f;
    if (rc == 0)
        rc = qc_ofile_open(&f, path, err);
    if (rc != 0) {
        free(path);
        return rc;
    }
    FILE *fp = f.fp;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          fp);
    put_esc(fp, title);
    fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n", page_style);
    fprintf(fp, "<body data-plots=\"%zu\" data-plots-rendered=\"0\">\n<h1>", nsvg);
    put_esc(fp, title);
    fputs("</h1>\n<h2>Command</h2>\n<pre class=\"cmd\">", fp);
    for (int i = 0; i < argc; i++) {
        if (i)
            fputc(' ', fp);
        put_shell_word(fp, argv[i]);
    }
    fputs("</pre>\n", fp);
    if (summary != NULL) {
        fputs("<h2>Summary</h2>\n", fp);
        rc = put_value(fp, "", summary, 0);
    }
    if (rc == 0 && nplots > 0) {
        int inlined = 0;
        fputs("<h2>Plots</h2>\n", fp);
        for (size_t i = 0; i < nplots && rc == 0; i++)
            rc = put_plot(fp, dir, plots[i], i, &inlined, err);
    }
    if (rc == 0)
        fprintf(fp, "<script>\n%s</script>\n</body>\n</html>\n", page_script);
    if (rc != 0) {
        if (rc == QC_ENOMEM)
            qc_err_set(err, rc, "%s: out of memory", path);
        qc_ofile_abort(&f);
        free(path);
        return rc;
    }
    rc = qc_ofile_commit(&f, err);
    free(path);
    return rc;
}
