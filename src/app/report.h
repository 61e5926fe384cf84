/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/report.h (not installed): a run's HTML report, one self-contained page.
 *
 * The page is what a person opens to see a run: its title, the command
 * line, the JSON summary laid out as tables, and the plots inlined as SVG.
 * It references nothing outside itself (no network, no other file: the
 * style sheet and a small script are inline, the plots are inline SVG), so
 * it can be mailed, archived or opened offline and still show everything.
 *
 * The summary is rendered by shape, not by command, so that every command
 * (and a sweep over runs) shares one layout:
 *   - an object's scalar members form one key/value table;
 *   - a nested object is its own table under a heading naming its path;
 *   - an array of objects that all have the same keys, each a scalar, is
 *     one table with those keys as columns (one row per element);
 *   - likewise a nested object whose members (two or more) are all
 *     objects of scalars: one table, a row per member named in its first
 *     column, the columns the keys met (at most 16; a missing one is an
 *     empty cell);
 *   - a confidence-interval object {"value", "ci_low", "ci_high", ...}
 *     counts as a scalar: one cell "value [low, high]";
 *   - an array of scalars is one cell listing them (the first 20, then
 *     the count);
 *   - any other array: each element under its own heading "path[i]".
 * Reals are shown with 6 significant digits, null as an em dash.
 *
 * Plots: the caller has drawn DIR/NAME.svg with qc_plot. Each is inlined
 * without its XML prolog and DOCTYPE, its element ids (and the references
 * to them) prefixed with the plot's index so that several gnuplot SVGs on
 * one page do not share ids. A plot whose file is missing (gnuplot not
 * installed) shows a visible one-line note instead, so the page is still
 * written and still says what it lacks.
 *
 * A small inline script counts, on load, the inlined plots the browser
 * actually laid out (getBBox() width and height > 0) and writes the count
 * into <body data-plots-rendered="N">; data-plots holds the number of SVG
 * plots inlined. A browser test compares the two.
 *
 * Determinism: the same inputs give the same bytes (no date, no host, no
 * absolute path of DIR in the page).
 *
 * Errors: 0, or QC_EIO with the path that could not be read or written,
 * QC_EINVAL for a NULL dir or summary that is not an object, QC_ENOMEM. On
 * error DIR/index.html is left as it was (the page is written to a
 * temporary name and renamed into place). */
#ifndef QCTL_REPORT_H
#define QCTL_REPORT_H

#include <jansson.h>
#include <stddef.h>

#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes DIR/index.html (atomically, via qc_ofile), one self-contained page: no
 * network, no external file; the title; the command line (argv, HTML-escaped);
 * the summary JSON rendered as tables (an object of scalars -> a key/value table;
 * a nested object -> its own titled table; an array of objects with the same
 * scalar keys -> one table with those columns; a confidence-interval object
 * {"value","ci_low","ci_high",...} -> one cell "value [low, high]"); then, for
 * each plots[i], the file DIR/<plots[i]>.svg inlined as <svg> (XML prolog and
 * DOCTYPE removed), with plots[i] as its caption; a plot whose file is missing
 * (gnuplot not installed) shows a visible one-line note instead. Deterministic:
 * the same inputs give the same bytes. Errors: QC_EIO naming the path.
 *
 * summary may be NULL (no tables); plots may be NULL when nplots is 0. */
int qc_report_write(const char *dir, const char *title, int argc, char *const argv[],
                    const json_t *summary, const char *const *plots, size_t nplots,
                    qc_err *err);

#ifdef __cplusplus
}
#endif
#endif
