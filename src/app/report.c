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
#include "app/report_svg.h"

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
    "h3{font-size:1.05rem;margin-bottom:.3rem}h4{font-size:1rem;margin-bottom:.2rem}\n"
    "pre.cmd{font-family:monospace;background:#f4f4f4;border:1px solid #ddd;padding:.5rem;"
    "white-space:pre-wrap;word-break:break-all}\n"
    "table{border-collapse:collapse;margin:.3rem 0 1rem}"
    "th,td{border:1px solid #999;padding:.15rem .5rem;text-align:left;vertical-align:top}\n"
    "th{background:#eee;font-weight:600}td.num{text-align:right;font-family:monospace}\n"
    "th.group{background:#ddd;text-align:center}tr>th.sub{padding-left:1.2rem;font-weight:500}\n"
    "figure{margin:1.5rem 0}figure svg{width:100%;height:auto;max-width:800px;display:block}\n"
    "figcaption{font-size:.95rem}figcaption .files{font-family:monospace;color:#555}\n"
    "div.wide{overflow-x:auto;max-width:100%}\n"
    "details{margin:.3rem 0 .6rem;border-left:3px solid #ddd;padding-left:.6rem}"
    "summary{cursor:pointer;font-weight:600}\n"
    "p.missing,p.warn{border:1px solid #c90;background:#fff6e0;padding:.3rem .5rem}\n"
    "ul.key li{margin:.15rem 0}\n";

/* Runs once the page is laid out, with every collapsed section opened for
 * the measurement (and closed again), and writes what it measured on
 * <body> for a test (or a curious reader) to read:
 *   data-plots-rendered  inlined plots with a non-empty bounding box;
 *   data-overflow        pixels the page is wider than the window (0: none);
 *   data-legend-inside   legend labels (the text of a gnuplot plot group)
 *                        whose box meets the frame of the data area;
 *   data-text-clipped    texts of a plot that reach outside its image;
 *   data-long-ticks      texts of a plot that are numbers with more than
 *                        five decimals (unreadable tick labels), or that
 *                        hold a format directive gnuplot did not expand
 *                        ("10^%L");
 *   data-frames          plots in which a frame was found to measure. */
static const char page_script[] =
    "window.addEventListener('load',function(){\n"
    "  var d=document.querySelectorAll('details'),i,j;\n"
    "  for(i=0;i<d.length;i++)d[i].open=true;\n"
    "  var s=document.querySelectorAll('figure.plot > svg'),n=0,leg=0,clip=0,ticks=0,fr=0;\n"
    "  function meet(a,b){return a.left<b.right-1&&b.left<a.right-1&&"
    "a.top<b.bottom-1&&b.top<a.bottom-1;}\n"
    "  var frameRe=/^M[-\\d.]+,[-\\d.]+( L[-\\d.]+,[-\\d.]+){4} Z\\s*$/;\n"
    "  for(i=0;i<s.length;i++){\n"
    "    var b=s[i].getBBox();if(b.width>0&&b.height>0)n++;\n"
    "    var box=s[i].getBoundingClientRect(),t=s[i].querySelectorAll('text');\n"
    "    for(j=0;j<t.length;j++){var r=t[j].getBoundingClientRect();\n"
    "      if(r.width==0)continue;\n"
    "      if(r.left<box.left-1||r.right>box.right+1||r.top<box.top-1||r.bottom>box.bottom+1)clip++;\n"
    "      if(/^\\s*-?\\d*\\.\\d{6,}\\s*$/.test(t[j].textContent)||"
    "/%[a-zA-Z]/.test(t[j].textContent))ticks++;}\n"
    "    var p=s[i].querySelectorAll('path'),frame=null,area=0;\n"
    "    for(j=0;j<p.length;j++){if(p[j].closest('[id*=\"gnuplot_plot_\"]'))continue;\n"
    "      if(!frameRe.test(p[j].getAttribute('d')||''))continue;\n"
    "      var q=p[j].getBoundingClientRect();if(q.width*q.height>area){area=q.width*q.height;frame=q;}}\n"
    "    if(!frame)continue;fr++;\n"
    "    var k=s[i].querySelectorAll('[id*=\"gnuplot_plot_\"] text');\n"
    "    for(j=0;j<k.length;j++){var r2=k[j].getBoundingClientRect();\n"
    "      if(r2.width>0&&meet(r2,frame))leg++;}\n"
    "  }\n"
    "  var over=document.documentElement.scrollWidth-window.innerWidth;\n"
    "  for(i=0;i<d.length;i++)d[i].open=false;\n"
    "  var B=document.body;B.setAttribute('data-plots-rendered',String(n));\n"
    "  B.setAttribute('data-overflow',String(over>0?over:0));\n"
    "  B.setAttribute('data-legend-inside',String(leg));\n"
    "  B.setAttribute('data-text-clipped',String(clip));\n"
    "  B.setAttribute('data-long-ticks',String(ticks));\n"
    "  B.setAttribute('data-frames',String(fr));\n"
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

/* An object (not an interval) with members, each of which passes `member`. */
static int is_obj_of(const json_t *v, int (*member)(const json_t *))
{
    if (!json_is_object(v) || is_ci(v) || json_object_size(v) == 0)
        return 0;
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)v, k, m)
    {
        if (!member(m))
            return 0;
    }
    return 1;
}

/* An object whose members are all cells: it folds into its parent's table
 * as rows or columns "name › member". */
static int is_cell_obj(const json_t *v)
{
    return is_obj_of(v, is_cell);
}

/* A cell, or an object of cells (shown flattened). */
static int is_flat(const json_t *v)
{
    return is_cell(v) || is_cell_obj(v);
}

/* ---- human names ------------------------------------------------------ */

/* Whole keys with a name of their own (symbols, acronyms). */
static const char *const key_names[][2] = {
    {"N", "N"}, {"ad", "Anderson-Darling"}, {"aic", "AIC"}, {"bic", "BIC"},
    {"ks", "Kolmogorov-Smirnov"}, {"r2", "R\xc2\xb2"}, {"r2_one_step", "R\xc2\xb2 (one step)"},
    {"se", "standard error"}, {"ci", "confidence interval"}, {"ci95", "95% interval"},
    {"p95", "95th percentile"}, {"p0", "p0"}, {"k_i", "K_I"}, {"ki", "K_I"},
    {"k_p", "K_P"}, {"kp", "K_P"}, {"pki", "pole (K_I)"}, {"pkp", "pole (K_P)"},
    {"loglik", "log-likelihood"}, {"lambda", "\xce\xbb (arrival rate)"},
    {"mu", "\xce\xbc"}, {"sigma", "\xcf\x83"}, {"tau", "\xcf\x84"}, {"xi", "\xce\xbe"},
    {"alpha", "\xce\xb1"}, {"epsilon", "\xce\xb5"}, {"params", "parameters"},
    {"lo", "low"}, {"hi", "high"}, {"rss", "residual sum of squares"}, {"re", "real part"},
    {"im", "imaginary part"}, {"gpd_tail", "generalised Pareto tail"},
    {"mean_power", "power cost"}, {"energy_per_job", "energy cost"},
    {"frac_idle", "fraction idle"}, {"frac_off", "fraction off"},
    {"frac_serving", "fraction serving"}, {"frac_setup", "fraction in setup"},
    {"util", "utilization"}, {"reps", "replications"}, {"onoff", "on/off"},
    {"mass_at_N", "mass at N"}, {"ris_mean_second_half", "RIS mean (second half)"},
    {"maxusers_mean_second_half", "MaxUsers mean (second half)"}, {"na", "n_a"},
    {"nb", "n_b"}, {"w1", "w1"}, {"w2", "w2"}, {"w3", "w3"},
};

/* Units by the key's ending or by the whole key; simulated and measured
 * time is in seconds throughout qctl. */
static const char *const key_units[][2] = {
    {"mean_power", "per s"}, {"energy_per_job", "per job"}, {"_power_w", "W"}, {"_w", "W"}, {"_watts", "W"}, {"_seconds", "s"}, {"_s", "s"},
    {"_percent", "%"}, {"_per_hour", "1/h"}, {"packets_per_second_per_user", "packets/s per user"},
    {"packets_per_second", "packets/s"}, {"response_time_p50", "s"},
    {"response_time_p95", "s"}, {"response_time_p99", "s"}, {"response_time", "s"},
    {"response_mean", "s"}, {"response_p95", "s"}, {"mean_response", "s"},
    {"waiting_time", "s"}, {"settling_time", "s"}, {"admit_time", "s"}, {"time_cut", "s"},
    {"simulated_time", "s"}, {"relaxation_time", "s"}, {"duration", "s"}, {"idle_timer", "s"},
    {"sample_interval", "s"}, {"admitted_delay", "s"}, {"throughput", "jobs/s"},
    {"mean_arrival_rate", "1/s"}, {"switch_ons_per_time", "1/s"}, {"mean_jobs", "jobs"},
    {"overshoot_percent", "%"}, {"fit_percent", "%"}, {"number_in_system", "jobs"},
    {"_power", "W"}, {"average_cost", "per s"},
    {"holding_cost", "per s"}, {"setup_cost", "per s"}, {"power_cost", "per s"},
    {"switching_cost", "per s"}, {"holding", "per job per s"}, {"switch_cost", "per switch-on"},
    {"price", "per J"}, {"setup_rate", "1/s"}, {"lambda", "1/s"}, {"segment_gap", "s"},
    {"t_start", "s"}, {"interval", "s"}, {"time", "s"}, {"warmup", "s"}, {"window", "s"},
    {"bound", "s"}, {"target", "s"}, {"least_delay", "s"}, {"start", "s"}, {"cycle_max", "s"},
    {"reference", "RPCs"}, {"reference_measured", "RPCs"}, {"steady_state_error", "RPCs"},
    {"logged_ris_bound", "RPCs"}, {"population", "users"}, {"offered", "jobs/s"},
    {"best_effort_offered", "jobs/s"}, {"best_effort_throughput", "jobs/s"},
    {"expected_packets_per_second", "packets/s"}, {"bin_seconds", "s"},
    {"mean_size", "bytes"}, {"resolution", "s"}, {"sensor_offset", "RPCs"},
    {"settling_time_ci", "s"}, {"overshoot_percent_ci", "%"}, {"steady_state_error_ci", "RPCs"},
};

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

const char *qc__report_unit(const char *key)
{
    for (size_t i = 0; i < sizeof key_units / sizeof key_units[0]; i++)
        if (key_units[i][0][0] == '_' ? ends_with(key, key_units[i][0])
                                      : strcmp(key, key_units[i][0]) == 0)
            return key_units[i][1];
    return NULL;
}

/* A key as words: a known name, else underscores as spaces with the unit
 * suffix dropped (the unit is shown apart). */
static void put_key(FILE *fp, const char *key)
{
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
        if (strcmp(key, key_names[i][0]) == 0) {
            put_esc(fp, key_names[i][1]);
            return;
        }
    size_t n = strlen(key);
    static const char *const drop[] = {"_power_w", "_watts", "_seconds", "_percent", "_w", "_s"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        if (ends_with(key, drop[i]) && n > strlen(drop[i])) {
            n -= strlen(drop[i]);
            if (strcmp(drop[i], "_power_w") == 0)
                n += strlen("_power");
            break;
        }
    /* a key with a space is already words ("K_I of the design"):
     * its underscores are notation, kept */
    const int words = strchr(key, ' ') != NULL;
    for (size_t i = 0; i < n; i++) {
        if (key[i] == '_' && !words)
            fputc(' ', fp);
        else
            put_esc_n(fp, key + i, 1);
    }
}

/* " (unit)" after a name; nothing when u is NULL. */
static void put_unit(FILE *fp, const char *u)
{
    if (u != NULL) {
        fputs(" (", fp);
        put_esc(fp, u);
        fputc(')', fp);
    }
}

/* The unit of a member: its own, else its owner's. */
static const char *member_unit(const char *outer, const char *inner)
{
    return qc__report_unit(inner) ? qc__report_unit(inner) : qc__report_unit(outer);
}

/* The key with its unit, for a table heading: "response time (s)". */
static void put_key_unit(FILE *fp, const char *key)
{
    put_key(fp, key);
    put_unit(fp, qc__report_unit(key));
}

/* A member named with its owner, "inner, outer" (inner's unit, else
 * outer's): for a sentence or a list, where no grouped heading holds the
 * owner's name. */
static void put_key2(FILE *fp, const char *outer, const char *inner)
{
    put_key(fp, inner);
    fputs(", ", fp);
    put_key(fp, outer);
    put_unit(fp, member_unit(outer, inner));
}

/* The heading of a member under its owner's grouped heading: the
 * member's name with its unit, else, for a statistic of the owner, the
 * owner's unit. */
static void put_member_head(FILE *fp, const char *outer, const char *inner)
{
    put_key(fp, inner);
    /* a statistic of its owner (its mean, its interval) has the owner's
     * unit; any other member (a count of samples, a method) its own */
    static const char *const stats[] = {"value", "mean", "lo", "hi", "ci_low", "ci_high",
                                        "half_width", "median", "min", "max", "se"};
    int stat = 0;
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        stat |= strcmp(inner, stats[i]) == 0;
    put_unit(fp, stat ? member_unit(outer, inner) : qc__report_unit(inner));
}

/* ---- cells ------------------------------------------------------------- */

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

/* ---- headings ---------------------------------------------------------- */

/* A path of human names, each level " › "-separated; built as the summary
 * is walked. An array element is named by its "name" (or "activity",
 * "policy", "family", "class", "label") member when it has one, else by
 * its number from 1. */
static const char *element_label(const json_t *e)
{
    static const char *const tags[] = {"name", "activity", "policy", "family",
                                       "class", "label",    "parameter"};
    if (!json_is_object(e))
        return NULL;
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        const json_t *t = json_object_get(e, tags[i]);
        if (json_is_string(t))
            return json_string_value(t);
    }
    return NULL;
}

typedef struct {
    char *buf;
    size_t len, cap;
} strbuf;

static int sb_put(strbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *nb = realloc(b->buf, cap);
        if (nb == NULL)
            return QC_ENOMEM;
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
    return 0;
}

/* An array element's name: its label, else the array's name (the
 * heading it sits under, `outer`) and its number from 1, "interval 2". */
static void put_element_name(FILE *fp, const char *outer, size_t index, const json_t *elem)
{
    const char *lab = element_label(elem);
    if (lab != NULL)
        put_esc(fp, lab);
    else if (outer != NULL && *outer)
        fprintf(fp, "%s %zu", outer, index + 1);
    else
        fprintf(fp, "item %zu", index + 1);
}

/* Sets the heading to one level's name (escaped, ready for the page): a
 * section is titled by its own name, its place shown by the nesting of
 * the headings around it, never by a path of keys. */
static int sb_level(strbuf *b, const char *key, size_t index, const json_t *elem)
{
    char *mem = NULL;
    size_t mlen = 0;
    FILE *fp = open_memstream(&mem, &mlen);
    if (fp == NULL)
        return QC_ENOMEM;
    if (key != NULL)
        put_key(fp, key);
    else
        put_element_name(fp, b->buf, index, elem);
    if (fclose(fp) != 0) {
        free(mem);
        return QC_ENOMEM;
    }
    b->len = 0;
    int rc = sb_put(b, mem, mlen);
    free(mem);
    return rc;
}

/* ---- tables ------------------------------------------------------------ */

/* The columns of a table of like rows: each a key, or a key and a member
 * of its object of cells. */
#define REPORT_MAX_COLUMNS 24
#define REPORT_OBJ_COLUMNS 16
typedef struct {
    const char *k, *sub;
} column;

static size_t add_column(column *cols, size_t nc, const char *k, const char *sub)
{
    for (size_t j = 0; j < nc; j++)
        if (strcmp(cols[j].k, k) == 0 &&
            ((sub == NULL && cols[j].sub == NULL) ||
             (sub && cols[j].sub && strcmp(cols[j].sub, sub) == 0)))
            return nc;
    if (nc == REPORT_MAX_COLUMNS)
        return nc + 1;
    cols[nc].k = k;
    cols[nc].sub = sub;
    return nc + 1;
}

/* Adds the flattened columns of one row; returns the new count (more than
 * REPORT_MAX_COLUMNS when there are too many). */
static size_t row_columns(const json_t *row, column *cols, size_t nc, int scalar_only)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)row, k, v)
    {
        if (is_cell(v)) {
            nc = add_column(cols, nc, k, NULL);
        } else if (!scalar_only) {
            const char *k2;
            json_t *v2;
            json_object_foreach(v, k2, v2)
            {
                (void)v2;
                nc = add_column(cols, nc, k, k2);
                if (nc > REPORT_MAX_COLUMNS)
                    return nc;
            }
        }
        if (nc > REPORT_MAX_COLUMNS)
            return nc;
    }
    return nc;
}

static const json_t *column_value(const json_t *row, const column *c)
{
    const json_t *v = json_object_get(row, c->k);
    if (v == NULL || c->sub == NULL)
        return v && is_cell(v) ? v : NULL;
    return is_cell_obj(v) ? json_object_get(v, c->sub) : NULL;
}

/* The heading rows of a table of columns, `corner` an empty first
 * heading (a table whose rows are named): one row when no column is a
 * member of an object, else two, an object's name spanning its members'
 * columns above their names, as a published table groups its columns. */
static void put_heads(FILE *fp, const column *cols, size_t nc, int corner)
{
    int grouped = 0;
    for (size_t j = 0; j < nc; j++)
        grouped |= cols[j].sub != NULL;
    const char *span = grouped ? " rowspan=\"2\"" : "";
    fputs("<tr>", fp);
    if (corner)
        fprintf(fp, "<th%s></th>", span);
    for (size_t j = 0; j < nc;) {
        if (cols[j].sub == NULL) {
            fprintf(fp, "<th%s>", span);
            put_key_unit(fp, cols[j].k);
            fputs("</th>", fp);
            j++;
            continue;
        }
        size_t e = j + 1;
        while (e < nc && cols[e].sub != NULL && strcmp(cols[e].k, cols[j].k) == 0)
            e++;
        fprintf(fp, "<th colspan=\"%zu\" class=\"group\">", e - j);
        put_key(fp, cols[j].k);
        fputs("</th>", fp);
        j = e;
    }
    fputs("</tr>\n", fp);
    if (!grouped)
        return;
    fputs("<tr>", fp);
    for (size_t j = 0; j < nc; j++)
        if (cols[j].sub != NULL) {
            fputs("<th>", fp);
            put_member_head(fp, cols[j].k, cols[j].sub);
            fputs("</th>", fp);
        }
    fputs("</tr>\n", fp);
}

/* Rows "member: value" of one object under a heading row with its name. */
static void put_group_rows(FILE *fp, const char *k, const json_t *obj)
{
    fputs("<tr><th colspan=\"2\" class=\"group\">", fp);
    put_key(fp, k);
    fputs("</th></tr>\n", fp);
    const char *k2;
    json_t *v2;
    json_object_foreach((json_t *)obj, k2, v2)
    {
        fputs("<tr><th class=\"sub\">", fp);
        put_member_head(fp, k, k2);
        fputs("</th>", fp);
        put_td(fp, v2);
        fputs("</tr>\n", fp);
    }
}

/* A row of a table of columns: an object whose members are all flat. */
static int is_flat_row(const json_t *row)
{
    return is_obj_of(row, is_flat);
}

/* A row's cells under cols, an empty cell where it has no such member,
 * and the row's end. */
static void put_row_cells(FILE *fp, const json_t *row, const column *cols, size_t nc)
{
    for (size_t j = 0; j < nc; j++) {
        const json_t *v = column_value(row, &cols[j]);
        if (v)
            put_td(fp, v);
        else
            fputs("<td></td>", fp);
    }
    fputs("</tr>\n", fp);
}

/* An array of objects whose members are flat, with at most
 * REPORT_MAX_COLUMNS columns in all: one table, a row per element. */
static size_t row_table_columns(const json_t *arr, column *cols, int scalar_only)
{
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return 0;
    size_t i, nc = 0;
    json_t *row;
    json_array_foreach(arr, i, row)
    {
        if (!is_flat_row(row))
            return 0;
        nc = row_columns(row, cols, nc, scalar_only);
        if (nc > REPORT_MAX_COLUMNS)
            return 0;
    }
    return nc;
}

static void put_row_table(FILE *fp, const json_t *arr, const column *cols, size_t nc)
{
    fputs("<div class=\"wide\"><table>\n", fp);
    put_heads(fp, cols, nc, 0);
    size_t i;
    json_t *row;
    json_array_foreach(arr, i, row)
    {
        fputs("<tr>", fp);
        put_row_cells(fp, row, cols, nc);
    }
    fputs("</table></div>\n", fp);
}

/* An object whose members (two or more) are all flat objects: one table, a
 * row per member named in its first column. */
static size_t obj_table_columns(const json_t *obj, column *cols)
{
    if (!json_is_object(obj) || is_ci(obj) || json_object_size(obj) < 2)
        return 0;
    size_t nc = 0;
    const char *name;
    json_t *row;
    json_object_foreach((json_t *)obj, name, row)
    {
        if (!is_flat_row(row))
            return 0;
        nc = row_columns(row, cols, nc, 0);
        if (nc > REPORT_OBJ_COLUMNS)
            return 0;
    }
    /* rows that share few columns (an input, its exact figures and its
     * metrics) read better as sections of their own */
    json_object_foreach((json_t *)obj, name, row)
    {
        column own[REPORT_MAX_COLUMNS];
        if (2 * row_columns(row, own, 0, 0) < nc)
            return 0;
    }
    return nc;
}

static void put_obj_table(FILE *fp, const json_t *obj, const column *cols, size_t nc)
{
    fputs("<div class=\"wide\"><table>\n", fp);
    put_heads(fp, cols, nc, 1);
    const char *name;
    json_t *row;
    json_object_foreach((json_t *)obj, name, row)
    {
        fputs("<tr><th>", fp);
        put_key_unit(fp, name); /* a row's unit: its members are its statistics */
        fputs("</th>", fp);
        put_row_cells(fp, row, cols, nc);
    }
    fputs("</table></div>\n", fp);
}

/* The members of obj that are objects of cells, as a new object (borrowed
 * values), or NULL when there are fewer than two. */
static json_t *cell_objects(const json_t *obj)
{
    size_t n = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
        n += is_cell_obj(v);
    if (n < 2)
        return NULL;
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (is_cell_obj(v))
            json_object_set(o, k, v);
    }
    return o;
}

/* ---- estimates --------------------------------------------------------- */

/* An interval whose value is a number (a metric the run measured). */
static int ci_has_value(const json_t *v)
{
    return is_ci(v) && json_is_number(json_object_get(v, "value"));
}

/* The interval's cell: "[lo, hi]", else why there is none, in words. */
static void put_ci_interval(FILE *fp, const json_t *v)
{
    const json_t *lo = json_object_get(v, "ci_low"), *hi = json_object_get(v, "ci_high");
    const json_t *why = json_object_get(v, "reason");
    if (json_is_number(lo) && json_is_number(hi)) {
        fputs("<td class=\"num\">[", fp);
        put_number(fp, lo);
        fputs(", ", fp);
        put_number(fp, hi);
        fputs(json_is_true(json_object_get(v, "unreliable")) ? "] unreliable</td>" : "]</td>",
              fp);
        return;
    }
    fputs("<td>no interval: ", fp);
    if (json_is_string(why))
        put_esc(fp, json_string_value(why));
    else
        fputs("too few independent values", fp);
    fputs("</td>", fp);
}

/* The intervals among obj's members as one table: estimate, interval and
 * (when any has one) the exact value, each in its own column. A metric the
 * run did not measure (null value) is left out of the table and named in a
 * sentence after it. Returns whether anything was written. */
static int put_ci_table(FILE *fp, const json_t *obj)
{
    const char *k;
    json_t *v;
    int exact = 0, rows = 0, missing = 0;
    const json_t *level = NULL;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (!ci_has_value(v)) {
            missing += is_ci(v) && !json_is_number(json_object_get(v, "value"));
            continue;
        }
        exact |= json_object_get(v, "exact") != NULL;
        if (level == NULL)
            level = json_object_get(v, "level");
        rows++;
    }
    if (rows > 0) {
        fputs("<div class=\"wide\"><table>\n<tr><th>estimate of</th><th>value</th><th>", fp);
        if (json_is_number(level))
            fprintf(fp, "%g%% ", 100 * json_number_value(level));
        fputs("confidence interval</th>", fp);
        if (exact)
            fputs("<th>exact</th>", fp);
        fputs("</tr>\n", fp);
        json_object_foreach((json_t *)obj, k, v)
        {
            if (!ci_has_value(v))
                continue;
            fputs("<tr><th>", fp);
            put_key_unit(fp, k);
            fputs("</th>", fp);
            put_td(fp, json_object_get(v, "value"));
            put_ci_interval(fp, v);
            if (exact) {
                const json_t *e = json_object_get(v, "exact");
                if (json_is_number(e))
                    put_td(fp, e);
                else
                    fputs("<td>none known</td>", fp);
            }
            fputs("</tr>\n", fp);
        }
        fputs("</table></div>\n", fp);
    }
    if (missing > 0) {
        int i = 0;
        fputs("<p>Not measured in this run: ", fp);
        json_object_foreach((json_t *)obj, k, v)
        {
            if (!is_ci(v) || json_is_number(json_object_get(v, "value")))
                continue;
            if (i++)
                fputs(i == missing ? " and " : ", ", fp);
            put_key(fp, k);
            const json_t *why = json_object_get(v, "reason");
            if (json_is_string(why)) {
                fputs(" (", fp);
                put_esc(fp, json_string_value(why));
                fputc(')', fp);
            }
        }
        fputs(".</p>\n", fp);
    }
    return rows > 0 || missing > 0;
}

/* An object's flat members: its cells as one two-column table; its objects
 * of cells as rows "name › member" of the same table when there is one,
 * else as one table of their own, a row per object and a column per
 * member (parameters, their standard errors and intervals side by side). */
static int put_flat_members(FILE *fp, const json_t *obj, int cells_only)
{
    const char *k;
    json_t *v;
    int any = 0;
    json_t *group = cells_only ? NULL : cell_objects(obj);
    json_object_foreach((json_t *)obj, k, v)
    {
        if (!is_flat(v) || ((group || cells_only) && !is_cell(v)) || is_ci(v))
            continue;
        if (!any)
            fputs("<div class=\"wide\"><table>\n", fp);
        any = 1;
        if (is_cell(v)) {
            fputs("<tr><th>", fp);
            put_key_unit(fp, k);
            fputs("</th>", fp);
            put_td(fp, v);
            fputs("</tr>\n", fp);
            continue;
        }
        put_group_rows(fp, k, v);
    }
    if (any)
        fputs("</table></div>\n", fp);
    any |= put_ci_table(fp, obj);
    if (group != NULL) {
        column cols[REPORT_MAX_COLUMNS];
        size_t nc = obj_table_columns(group, cols);
        if (nc > 0) {
            put_obj_table(fp, group, cols, nc);
            any = 1;
        } else {
            /* too many columns: each object's members as rows under
             * its name */
            fputs("<div class=\"wide\"><table>\n", fp);
            json_object_foreach(group, k, v) put_group_rows(fp, k, v);
            fputs("</table></div>\n", fp);
        }
        json_decref(group);
    }
    return any;
}

/* Rows whose objects of cells did not fit as columns: after the table of
 * their scalars, each row's objects collapsed under the row's name. */
static void put_row_details(FILE *fp, const json_t *arr, const strbuf *path)
{
    size_t i;
    json_t *row;
    json_array_foreach(arr, i, row)
    {
        int has = 0;
        const char *k;
        json_t *v;
        json_object_foreach(row, k, v)
            has |= is_cell_obj(v);
        if (!has)
            continue;
        json_t *only = json_object();
        if (only == NULL)
            return;
        json_object_foreach(row, k, v)
        {
            if (is_cell_obj(v))
                json_object_set(only, k, v);
        }
        fputs("<details><summary>", fp);
        put_element_name(fp, path->buf, i, row);
        fputs("</summary>\n", fp);
        put_flat_members(fp, only, 0);
        fputs("</details>\n", fp);
        json_decref(only);
    }
}

/* An array of arrays of scalars (a covariance matrix, a list of
 * intervals), at most REPORT_MAX_COLUMNS wide: one table, as printed. */
static int is_matrix(const json_t *v)
{
    if (!json_is_array(v) || json_array_size(v) == 0)
        return 0;
    size_t i;
    json_t *row;
    json_array_foreach(v, i, row)
    {
        if (!json_is_array(row) || json_array_size(row) == 0 ||
            json_array_size(row) > REPORT_MAX_COLUMNS || !is_cell(row))
            return 0;
    }
    return 1;
}

static void put_matrix(FILE *fp, const json_t *v)
{
    fputs("<div class=\"wide\"><table>\n", fp);
    size_t i, j;
    json_t *row, *e;
    json_array_foreach(v, i, row)
    {
        fputs("<tr>", fp);
        json_array_foreach(row, j, e) put_td(fp, e);
        fputs("</tr>\n", fp);
    }
    fputs("</table></div>\n", fp);
}

/* ---- the walk ---------------------------------------------------------- */

/* Sections two levels down and deeper are collapsed (<details>): the page
 * opens on the figures a reader looks for, the rest is a click away. */
#define REPORT_OPEN_DEPTH 2

/* What the walk carries down: the whole summary, to compare a section
 * with the estimates found elsewhere in it. */
typedef struct walk {
    const json_t *root;
    int estimates; /* the summary holds intervals */
} walk;

static int put_value(FILE *fp, const walk *w, strbuf *path, const json_t *v, int depth);

/* Whether v holds an interval with a value, at any depth (bounded). */
static int has_ci(const json_t *v, int depth)
{
    if (depth > 32)
        return 0;
    if (ci_has_value(v))
        return 1;
    const char *k;
    size_t i;
    json_t *m;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, m)
            if (has_ci(m, depth + 1))
                return 1;
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, m)
            if (has_ci(m, depth + 1))
                return 1;
    }
    return 0;
}

/* Whether x is the value of an interval somewhere in v (bounded depth). */
static int is_estimate_value(const json_t *v, const json_t *x, int depth)
{
    if (depth > 32)
        return 0;
    if (ci_has_value(v))
        return json_equal(json_object_get(v, "value"), x);
    const char *k;
    json_t *m;
    if (json_is_object(v))
        json_object_foreach((json_t *)v, k, m)
            if (is_estimate_value(m, x, depth + 1))
                return 1;
    return 0;
}

/* A section of two or more numbers, every one of which is the value of an
 * estimate shown elsewhere (the pool's energy report beside its metrics):
 * a copy without the intervals, said in words rather than shown twice. */
static int copies_estimates(const walk *w, const json_t *v)
{
    if (!w->estimates || !json_is_object(v) || is_ci(v) || json_object_size(v) < 2)
        return 0;
    const char *k;
    json_t *m;
    json_object_foreach((json_t *)v, k, m)
        if (!json_is_number(m) || !is_estimate_value(w->root, m, 0))
            return 0;
    return 1;
}

/* A section is collapsed two levels down and deeper, and, on a page of
 * estimates, at the top when it holds none (the model, the costs, the
 * run's facts: inputs the story has told). */
static int collapsed(const walk *w, const json_t *v, int depth)
{
    return depth > REPORT_OPEN_DEPTH || (depth == 1 && w->estimates && !has_ci(v, 0));
}

static void open_section(FILE *fp, const strbuf *path, int depth, int fold)
{
    if (fold) {
        fputs("<details><summary>", fp);
        fputs(path->buf, fp);
        fputs("</summary>\n", fp);
    } else {
        fprintf(fp, "<h%d>", depth <= 1 ? 3 : 4);
        fputs(path->buf, fp);
        fprintf(fp, "</h%d>\n", depth <= 1 ? 3 : 4);
    }
}

static void close_section(FILE *fp, int fold)
{
    if (fold)
        fputs("</details>\n", fp);
}

static int put_child(FILE *fp, const walk *w, strbuf *path, const char *key, size_t index, const json_t *v,
                     int depth)
{
    char *keep = path->buf ? strdup(path->buf) : NULL;
    if (path->buf && keep == NULL)
        return QC_ENOMEM;
    int rc = sb_level(path, key, index, v);
    if (rc == 0)
        rc = put_value(fp, w, path, v, depth + 1);
    path->len = 0;
    if (rc == 0 && keep)
        rc = sb_put(path, keep, strlen(keep));
    free(keep);
    return rc;
}

static int put_value(FILE *fp, const walk *w, strbuf *path, const json_t *v, int depth)
{
    /* Summaries are a few levels deep; a runaway nesting is cut, not
     * followed down the stack. */
    if (depth > 32) {
        fputs("<p>(nested too deep)</p>\n", fp);
        return 0;
    }
    const int fold = depth > 0 && collapsed(w, v, depth);
    if (depth > 0)
        open_section(fp, path, depth, fold);
    column cols[REPORT_MAX_COLUMNS];
    size_t nc;
    int rc = 0;
    if (depth > 0 && copies_estimates(w, v)) {
        fputs("<p>The values of estimates shown above, without their intervals.</p>\n", fp);
    } else if (depth > 0 && (nc = obj_table_columns(v, cols)) > 0) {
        put_obj_table(fp, v, cols, nc);
    } else if (json_is_object(v) && !is_ci(v)) {
        /* at the top, an object of cells is a section of its own */
        put_flat_members(fp, v, depth == 0);
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m)
        {
            if (depth == 0 ? is_cell(m) : is_flat(m))
                continue;
            if ((rc = put_child(fp, w, path, k, 0, m, depth)) != 0)
                break;
        }
    } else if ((nc = row_table_columns(v, cols, 0)) > 0) {
        put_row_table(fp, v, cols, nc);
    } else if ((nc = row_table_columns(v, cols, 1)) > 0) {
        put_row_table(fp, v, cols, nc);
        put_row_details(fp, v, path);
    } else if (is_matrix(v)) {
        put_matrix(fp, v);
    } else if (json_is_array(v) && !is_cell(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if ((rc = put_child(fp, w, path, NULL, i, e, depth)) != 0)
                break;
        }
    } else {
        fputs("<table><tr>", fp);
        put_td(fp, v);
        fputs("</tr></table>\n", fp);
    }
    if (depth > 0)
        close_section(fp, fold);
    return rc;
}

/* ---- the narrative ----------------------------------------------------- */

/* The main estimates, as a list a reader takes in at a glance: the
 * intervals found in the first two levels of the summary (at most eight),
 * then the summary's warnings. */
#define REPORT_KEY_FIGURES 8

static int key_figures(FILE *fp, const char *outer, const json_t *obj, int depth, int shown)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        if (shown >= REPORT_KEY_FIGURES)
            return shown;
        if (is_ci(v)) {
            const json_t *lv = json_object_get(v, "level");
            if (shown == 0)
                fputs("<ul class=\"key\">\n", fp);
            fputs("<li>", fp);
            /* "metrics › x" says no more than "x" */
            if (outer && strcmp(outer, "metrics") != 0)
                put_key2(fp, outer, k);
            else
                put_key_unit(fp, k);
            fputs(": <strong>", fp);
            put_number(fp, json_object_get(v, "value"));
            fputs("</strong>", fp);
            if (json_is_number(json_object_get(v, "ci_low"))) {
                fputs(", ", fp);
                if (json_is_number(lv))
                    fprintf(fp, "%.0f%% ", 100 * json_number_value(lv));
                fputs("confidence interval [", fp);
                put_number(fp, json_object_get(v, "ci_low"));
                fputs(", ", fp);
                put_number(fp, json_object_get(v, "ci_high"));
                fputs("]", fp);
            } else {
                fputs(" (no interval: too few independent samples)", fp);
            }
            fputs("</li>\n", fp);
            shown++;
        } else if (depth == 0 && json_is_object(v)) {
            shown = key_figures(fp, k, v, depth + 1, shown);
        }
    }
    return shown;
}

static void put_paragraphs(FILE *fp, const char *text, const char *cls);

/* "What was run": the command's paragraph, then the run's own (its model
 * and parameters, from the summary) when the caller has one. */
static void put_narrative(FILE *fp, const char *about, const char *run)
{
    fputs("<h2>What was run</h2>\n<p>", fp);
    if (about != NULL && *about)
        put_esc(fp, about);
    else
        fputs("The command below was run.", fp);
    fputs(" It can be repeated exactly with the same command line (every random stream "
          "derives from its seed).</p>\n",
          fp);
    if (run != NULL)
        put_paragraphs(fp, run, "story");
}

/* Plain text as paragraphs, one per run of lines between blank lines,
 * of class cls (NULL: none). */
static void put_paragraphs(FILE *fp, const char *text, const char *cls)
{
    while (*text) {
        const char *e = strstr(text, "\n\n");
        size_t n = e ? (size_t)(e - text) : strlen(text);
        if (n > 0) {
            if (cls != NULL)
                fprintf(fp, "<p class=\"%s\">", cls);
            else
                fputs("<p>", fp);
            put_esc_n(fp, text, n);
            fputs("</p>\n", fp);
        }
        text += n;
        while (*text == '\n')
            text++;
    }
}

static void put_findings(FILE *fp, const char *findings, const json_t *summary, int folded,
                         size_t nplots, size_t nsvg)
{
    fputs("<h2>What it shows</h2>\n", fp);
    if (findings != NULL)
        put_paragraphs(fp, findings, "story");
    int shown = summary && !findings ? key_figures(fp, NULL, summary, 0, 0) : 0;
    int exact = 0;
    if (shown == 0 && summary != NULL && !findings) {
        /* no estimate with an interval: the summary's top-level numbers,
         * exact figures (a solver's gain, an identified coefficient) */
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)summary, k, v)
        {
            if (!json_is_number(v) || exact >= REPORT_KEY_FIGURES)
                continue;
            fputs(exact == 0 ? "<ul class=\"key\">\n<li>" : "<li>", fp);
            put_key_unit(fp, k);
            fputs(": <strong>", fp);
            put_number(fp, v);
            fputs("</strong></li>\n", fp);
            exact++;
        }
    }
    if (shown > 0 || exact > 0)
        fputs("</ul>\n", fp);
    fputs("<p>", fp);
    if (shown > 0)
        fputs("Above, the main estimates with their confidence intervals. ", fp);
    else if (exact > 0)
        fputs("Above, the main figures; they are computed, not estimated, so they have "
              "no confidence interval. ",
              fp);
    if (summary != NULL)
        fprintf(fp,
                "Every figure of the run is in the tables under <a href=\"#results\">Results"
                "</a>%s. ",
                folded ? "; the inputs and deeper details are collapsed and open with a click"
                       : "");
    if (nplots > 0)
        fprintf(fp,
                "%zu figure%s follow%s (%zu drawn); each is also saved beside this page as "
                "SVG, PNG and (where gnuplot has pdfcairo) PDF, with the gnuplot script that "
                "redraws it from this folder.",
                nplots, nplots == 1 ? "" : "s", nplots == 1 ? "s" : "", nsvg);
    fputs("</p>\n", fp);
    const json_t *w = summary ? json_object_get(summary, "warnings") : NULL;
    if (json_is_array(w) && json_array_size(w) > 0) {
        size_t i;
        json_t *e;
        json_array_foreach(w, i, e)
        {
            fputs("<p class=\"warn\">Warning: ", fp);
            put_cell_value(fp, e);
            fputs("</p>\n", fp);
        }
    }
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

/* What a plot shows, with its units, by the names the commands give their
 * plots; a name not listed is shown as words. */
static const char *const plot_captions[][2] = {
    {"number_in_system", "Number in system over simulated time (s): the time average per bin."},
    {"response_time_hist", "Histogram of the response time (s), as a density."},
    {"response_time_ccdf", "Tail of the response time: P(T > t) against t (s), log scale."},
    {"costs", "Average cost per unit time of each policy, split into holding, power and switching."},
    {"policy", "The optimal policy: service rate when on and the switch-on decision against the number of jobs."},
    {"ris", "RPCs in server (RIS) and its reference over time (s)."},
    {"maxusers", "MaxUsers (the control input) and users connected over time (s)."},
    {"policy_comparison", "Average cost per unit time of each routing and on/off policy, with 95% intervals."},
    {"servers", "Servers on and in setup, demand (arrival rate times mean service time) and jobs over time (s); a long run is drawn as the means of at most 500 consecutive spans (--series writes every point)."},
    {"weights", "Scheduling weight of each class over time (s)."},
    {"variance_time", "Variance-time plot of the packet counts, real against generated (log-log)."},
    {"acf_counts", "Autocorrelation of the packet counts per bin, real against generated."},
    {"gap_cdf", "Distribution of the gaps between packets (s), real against generated, log time axis."},
};

static void put_caption(FILE *fp, const char *name)
{
    for (size_t i = 0; i < sizeof plot_captions / sizeof plot_captions[0]; i++)
        if (strcmp(name, plot_captions[i][0]) == 0) {
            put_esc(fp, plot_captions[i][1]);
            return;
        }
    static const char *const ends[][2] = {
        {"_size_density", "Packet size (bytes): histogram of the capture against the fitted density, log scale."},
        {"_gap_density", "Gap between packets (s): histogram of the capture against the fitted density, log scale."},
        {"_size_qq", "Q-Q plot of packet size (bytes): fitted quantiles against the capture's."},
        {"_gap_qq", "Q-Q plot of the gap between packets (s): fitted quantiles against the capture's."},
        {"_copula_lag1", "Copula of consecutive packet sizes (ranks)."},
        {"_copula", "Copula of packet size and gap (ranks)."},
        {"_step", "Step response of the closed loop."},
        {"_fit", "Identified model against the measured output."},
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (ends_with(name, ends[i][0])) {
            put_esc_n(fp, name, strlen(name) - strlen(ends[i][0]));
            fputs(": ", fp);
            put_esc(fp, ends[i][1]);
            return;
        }
    put_key(fp, name);
    fputc('.', fp);
}

static int file_exists(const char *dir, const char *name, const char *ext)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s%s", dir, name, ext) >= sizeof path)
        return 0;
    FILE *fp = fopen(path, "rb");
    if (fp)
        fclose(fp);
    return fp != NULL;
}

/* Reads DIR/NAME.svg into *text (NULL when there is no such file). */
static int read_svg(const char *dir, const char *name, char **text, qc_err *err)
{
    size_t n = strlen(dir) + strlen(name) + 8, len;
    char *path = malloc(n);
    if (path == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    snprintf(path, n, "%s/%s.svg", dir, name);
    int rc = read_file(path, text, &len, err);
    free(path);
    return rc;
}

/* Inlines DIR/NAME.svg as plot number i, or writes the note on its absence. */
static int put_plot(FILE *fp, const char *dir, const char *name, size_t i, int *inlined,
                    qc_err *err)
{
    char *text;
    int rc = read_svg(dir, name, &text, err);
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
    size_t slen;
    char *slim = qc__svg_slim(b, (size_t)(e - b), &slen);
    if (slim == NULL) {
        free(text);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    fputs("<figure class=\"plot\">\n", fp);
    put_svg(fp, slim, slim + slen, pfx);
    free(slim);
    fprintf(fp, "\n<figcaption><strong>Figure %zu.</strong> ", i + 1);
    put_caption(fp, name);
    fputs(" <span class=\"files\">(", fp);
    put_esc(fp, name);
    fputs(".svg, .png, ", fp);
    if (file_exists(dir, name, ".pdf"))
        fputs(".pdf, ", fp);
    fputs(".gp)</span>", fp);
    if (!file_exists(dir, name, ".pdf"))
        fputs(" No PDF: this gnuplot has no pdfcairo terminal.", fp);
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
        char *text;
        int rc = read_svg(dir, plots[i], &text, err);
        if (rc != 0)
            return rc;
        if (text && strstr(text, "<svg") && strstr(text, "</svg>"))
            (*count)++;
        free(text);
    }
    return 0;
}

int qc_report_write(const char *dir, const char *title, const char *about, int argc,
                    char *const argv[], const json_t *summary, const char *const *plots, size_t nplots,
                    qc_err *err)
{
    return qc_report_write_story(dir, title, about, NULL, NULL, argc, argv, summary, plots, nplots,
                                 err);
}

int qc_report_write_story(const char *dir, const char *title, const char *about,
                          const char *run, const char *findings, int argc, char *const argv[],
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
    fputs("</h1>\n", fp);
    put_narrative(fp, about, run);
    fputs("<pre class=\"cmd\">", fp);
    for (int i = 0; i < argc; i++) {
        if (i)
            fputc(' ', fp);
        put_shell_word(fp, argv[i]);
    }
    fputs("</pre>\n", fp);
    /* the results first, in memory: the findings say whether any part
     * of them is collapsed */
    char *results = NULL;
    size_t results_len = 0;
    if (summary != NULL) {
        FILE *mem = open_memstream(&results, &results_len);
        strbuf hp = {0};
        walk w = {summary, has_ci(summary, 0)};
        rc = mem ? put_value(mem, &w, &hp, summary, 0) : QC_ENOMEM;
        if (mem && fclose(mem) != 0 && rc == 0)
            rc = QC_ENOMEM;
        free(hp.buf);
    }
    if (rc == 0) {
        put_findings(fp, findings, summary, results && strstr(results, "<details>") != NULL,
                     nplots, nsvg);
        if (summary != NULL) {
            fputs("<h2 id=\"results\">Results</h2>\n", fp);
            fwrite(results, 1, results_len, fp);
        }
    }
    free(results);
    if (rc == 0 && nplots > 0) {
        int inlined = 0;
        fputs("<h2>Figures</h2>\n", fp);
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
