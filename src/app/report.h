/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/report.h (not installed): a run's HTML report, one self-contained page.
 *
 * The page is what a person opens to see a run, laid out as a short paper:
 * the title; "What was run" (the caller's one-paragraph `about`, then the
 * command line); "What it shows" (the main estimates: the confidence
 * intervals met in the first two levels of the summary, at most eight, as
 * sentences, then the summary's "warnings"); "Results" (every figure of the
 * summary as tables); "Figures" (the plots, numbered, each with a caption
 * in words and units and the names of its SVG, PNG, PDF and .gp files).
 * It references nothing outside itself (no network, no other file: the
 * style sheet and a small script are inline, the plots are inline SVG), so
 * it can be mailed, archived or opened offline and still show everything.
 *
 * Keys become words: a known symbol or acronym by its name (aic -> AIC,
 * lambda -> λ), otherwise underscores as spaces; a unit read from the key
 * (_w -> W, _s and _seconds -> s, response and waiting times -> s,
 * _percent -> %) is shown in the heading, "response time (s)". Headings are
 * paths of such words joined by " › "; an array element is named by its
 * "name" (or activity, policy, family, class, label, parameter) member,
 * else "no. i" counted from 1. Sections more than two levels down are
 * collapsed in <details>, so the page opens on what a reader looks for.
 *
 * The summary is rendered by shape, not by command, so that every command
 * (and a sweep over runs) shares one layout:
 *   - an object's flat members form one key/value table: a scalar is a
 *     row, an object of scalars is one row per member "name › member";
 *   - any other nested object has its own heading;
 *   - an array of objects whose members are flat (scalars or objects of
 *     scalars), at most 24 columns in all, is one table, a row per element
 *     and a column per key (per "key › member" for an object of scalars);
 *   - likewise a nested object whose members (two or more) are all such
 *     objects: one table, a row per member named in its first column, a
 *     missing value an empty cell;
 *   - a confidence-interval object {"value", "ci_low", "ci_high", ...}
 *     counts as a scalar: one cell "value [low, high]";
 *   - an array of scalars is one cell listing them (the first 20, then
 *     the count);
 *   - any other array: each element under its own heading.
 * Reals are shown with 6 significant digits, null as an em dash.
 *
 * Plots: the caller has drawn DIR/NAME.svg with qc_plot. Each is inlined
 * without its XML prolog and DOCTYPE, its element ids (and the references
 * to them) prefixed with the plot's index so that several gnuplot SVGs on
 * one page do not share ids. A plot whose file is missing (gnuplot not
 * installed) shows a visible one-line note instead, so the page is still
 * written and still says what it lacks.
 *
 * A small inline script measures the page once it is laid out (with the
 * collapsed sections opened for the measurement) and writes on <body>:
 * data-plots-rendered (inlined plots with a non-empty box; data-plots holds
 * the number inlined), data-overflow (pixels wider than the window),
 * data-legend-inside (legend labels meeting the frame of a plot's data
 * area), data-text-clipped (plot texts reaching outside their image),
 * data-long-ticks (plot texts that are numbers with more than five
 * decimals, or hold an unexpanded format such as "%L") and data-frames
 * (plots whose frame was found). The browser tests under tests/report
 * read them.
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

/* Writes DIR/index.html (atomically, via qc_ofile), the page described
 * above: title, about (one paragraph of plain text; NULL for a generic
 * sentence), the command line (argv, shell-quoted and HTML-escaped), the
 * main estimates, the summary as tables, then for each plots[i] the file
 * DIR/<plots[i]>.svg inlined (XML prolog and DOCTYPE removed) with its
 * caption; a plot whose file is missing (gnuplot not installed) shows a
 * visible one-line note instead. Deterministic: the same inputs give the
 * same bytes. Errors: QC_EIO naming the path.
 *
 * summary may be NULL (no tables); plots may be NULL when nplots is 0. */
int qc_report_write(const char *dir, const char *title, const char *about, int argc,
                    char *const argv[], const json_t *summary, const char *const *plots, size_t nplots,
                    qc_err *err);

/* As qc_report_write, with the run's own paragraph `run` (plain text,
 * escaped here; NULL for none) after `about` under "What was run", and
 * "What it shows" written by the caller:
 * `findings`, plain text (escaped here), paragraphs separated by a blank
 * line, in place of the automatic list of estimates; a command whose
 * results are computed rather than estimated (a controller design) says
 * in sentences what they predict. NULL: the automatic list. The run's
 * paragraph and the findings are written as <p class="story">, the
 * narrative a reader (and tests/report) finds before the first table. */
int qc_report_write_story(const char *dir, const char *title, const char *about,
                          const char *run, const char *findings, int argc, char *const argv[],
                          const json_t *summary, const char *const *plots, size_t nplots,
                          qc_err *err);

/* The unit a summary key carries by its name ("response_time" -> "s",
 * "mean_power_w" -> "W"), the one the page's headings show; NULL for
 * none known. Shared with the report's sentences (report_story.c). */
const char *qc__report_unit(const char *key);

#ifdef __cplusplus
}
#endif
#endif
