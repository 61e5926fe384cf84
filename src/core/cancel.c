/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cancel.c: the stop flag of a run (qctl/cancel.h). A relaxed atomic int:
 * the flag orders nothing else, it only has to be seen, and the run reads
 * it at its next check. */
#include "qctl/cancel.h"

#include <stddef.h>

void qc_cancel_request(qc_cancel *c)
{
    if (c)
        __atomic_store_n(&c->flag, 1, __ATOMIC_RELAXED);
}

void qc_cancel_clear(qc_cancel *c)
{
    if (c)
        __atomic_store_n(&c->flag, 0, __ATOMIC_RELAXED);
}

int qc_cancel_requested(const qc_cancel *c)
{
    return c != NULL && __atomic_load_n(&c->flag, __ATOMIC_RELAXED) != 0;
}
