/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/api.h: what libqctl exports.
 *
 * The library is built with -fvisibility=hidden: a function is exported
 * only when its declaration is marked. Every public header (include/qctl/)
 * puts its declarations between QC_API_BEGIN and QC_API_END, so all it
 * declares is exported and nothing else is: internal functions (qc__*, and
 * those of the private headers under src/) stay inside the library. QC_API
 * marks a single declaration. */
#ifndef QCTL_API_H
#define QCTL_API_H

#if defined(__GNUC__) || defined(__clang__)
#define QC_API __attribute__((visibility("default")))
#define QC_API_BEGIN _Pragma("GCC visibility push(default)")
#define QC_API_END _Pragma("GCC visibility pop")
#else
#define QC_API
#define QC_API_BEGIN
#define QC_API_END
#endif

#endif
