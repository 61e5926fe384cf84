/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maxusers_int.h (private): the MaxUsers plant's parameter checks, shared
 * by qc_maxusers_alloc and qc_mu_run_params_check, so that a run's check
 * is the one its start makes. */
#ifndef QCTL_MODELS_MAXUSERS_INT_H
#define QCTL_MODELS_MAXUSERS_INT_H

#include "qctl/error.h"
#include "qctl/maxusers.h"

/* 0, or QC_EINVAL with the field named in err. */
int qc__maxusers_check(const qc_maxusers_params *p, qc_err *err);

#endif
