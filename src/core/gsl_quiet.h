/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gsl_quiet.h: the library's calls into GSL run with GSL's error handler
 * off, and the host's handler back afterwards.
 *
 * GSL reports a numerical failure through a process-wide error handler
 * whose default aborts the process. A library must neither abort its host
 * nor change a handler the host chose, so each call that can reach the
 * handler is bracketed:
 *
 *     gsl_error_handler_t *h = qc__gsl_quiet();
 *     int rc = gsl_...(...);      (the code it returns is checked)
 *     qc__gsl_restore(h);
 *
 * The handler is process-wide: a host that calls GSL from other threads
 * while qctl runs should turn it off itself (qctl's command does). */
#ifndef QCTL_CORE_GSL_QUIET_H
#define QCTL_CORE_GSL_QUIET_H

#include <gsl/gsl_errno.h>

static inline gsl_error_handler_t *qc__gsl_quiet(void)
{
    return gsl_set_error_handler_off();
}

static inline void qc__gsl_restore(gsl_error_handler_t *h)
{
    gsl_set_error_handler(h);
}

#endif
