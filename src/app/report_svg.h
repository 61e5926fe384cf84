/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/report_svg.h (not installed): a gnuplot SVG made lighter for
 * inlining in a report page, drawing the same picture.
 *
 * gnuplot writes every coordinate with two decimals, one vertex per data
 * point even where a curve is straight, each element on its own indented
 * line and an empty <g> per style change. The page shows the plot at most
 * 800 px wide in an 800 x 500 user space, so:
 *   - path vertices (absolute M/L, as gnuplot writes them) that lie
 *     within QC_SVG_TOLERANCE px of the straight line between the kept
 *     vertices around them are dropped (every dropped vertex is checked,
 *     not only the last, so the error never accumulates along a gentle
 *     curve), the rest rounded to 0.1 px;
 *   - the numbers of translate(...) (points, text positions) are rounded
 *     to 0.1 px;
 *   - white space between two tags becomes one newline (or nothing);
 *   - a <g> with nothing inside is dropped.
 * Text, ids, styles and the order of elements are kept, so the page's
 * measuring script (frames, legend groups) sees the same structure. The
 * SVG file beside the page is not touched: it keeps gnuplot's precision.
 * A path with a command other than M, L and Z is copied unchanged. */
#ifndef QCTL_APP_REPORT_SVG_H
#define QCTL_APP_REPORT_SVG_H

#include <stddef.h>

/* Largest distance (user units, px at full size) of a dropped vertex
 * from the line that replaces it. */
#define QC_SVG_TOLERANCE 0.2

/* Returns a malloc'ed, NUL-terminated slim copy of s[0, n) (its length in
 * *out_len), or NULL when out of memory. */
char *qc__svg_slim(const char *s, size_t n, size_t *out_len);

#endif
