/* SPDX-License-Identifier: GPL-3.0-or-later */
/* evlog.h: the levels of the live servers' event lines (internal to
 * src/live/ and the commands): each line is given its level where it is
 * written, by what it means for the operator, never guessed from its
 * words. info: a change the operator asked for or expects (a reload
 * taken, a backend back); warn: something went wrong and the server
 * coped (a backend out of rotation, requests cut, log lines dropped);
 * error: something the operator asked for or relies on did not happen
 * (a reload refused, an un/park command failed). */
#ifndef QC_LIVE_EVLOG_H
#define QC_LIVE_EVLOG_H

enum { QC_LOG_INFO = 0, QC_LOG_WARN = 1, QC_LOG_ERROR = 2 };

/* "info", "warn" or "error". */
static inline const char *qc__log_level_name(int level)
{
    return level == QC_LOG_ERROR ? "error" : level == QC_LOG_WARN ? "warn" : "info";
}

#endif
