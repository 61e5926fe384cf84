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

/* QC_HOT marks the small inline functions of the simulation's hot path
 * (qc_sim_next, the one-event heap, the FCFS station): they are inlined
 * into every caller whatever the compiler's size budget, so that a model
 * that instantiates its event loop more than once (queue.c) still has no
 * call per event. */
#if defined(__GNUC__) || defined(__clang__)
#define QC_HOT static inline __attribute__((always_inline))
#define QC_API __attribute__((visibility("default")))
#define QC_API_BEGIN _Pragma("GCC visibility push(default)")
#define QC_API_END _Pragma("GCC visibility pop")
#else
#define QC_HOT static inline
#define QC_API
#define QC_API_BEGIN
#define QC_API_END
#endif

#endif
