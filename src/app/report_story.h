/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/report_story.h (not installed): a run's report in sentences.
 *
 * A report page opens on two short texts computed from the run's summary
 * (the same JSON the command prints with --json): what was run (the model
 * and its parameters, with units) and what it shows (the key estimates
 * with their intervals, the closed form beside an estimate where the
 * summary has one, whether the run reached steady state, the fitted
 * model's R², the optimal policy, the best family per activity). Every
 * figure comes from the summary; a figure the summary lacks or holds as
 * null is said in words ("no interval", "not measured"), never as nan.
 *
 * One builder per command reads its own summary's shape; the sentences
 * are made by the shared helpers in report_story.c, so that every page
 * says an estimate, an interval and a missing value the same way. */
#ifndef QCTL_REPORT_STORY_H
#define QCTL_REPORT_STORY_H

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The story of a run of `cmd` ("sim queue", "sweep", "fit", ...) whose
 * summary is `summary`: on success *run (what was run, one paragraph)
 * and *shows (what it shows, paragraphs separated by blank lines) are
 * set to text the caller frees. Returns 0; 1 when cmd has no story of
 * its own (both set to NULL: the page falls back to its generic text);
 * QC_ENOMEM. */
int qc_report_story(const char *cmd, const json_t *summary, char **run, char **shows);

#ifdef __cplusplus
}
#endif
#endif
