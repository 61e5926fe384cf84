/* SPDX-License-Identifier: GPL-3.0-or-later */
/* energy.c: validation and unit conversion of the energy cost model. */
#include "qctl/energy.h"
#include "core/names.h"

#include <math.h>

static int nonneg(double x)
{
    return x >= 0 && isfinite(x);
}

int qc_energy_check(const qc_energy_cost *c, qc_err *err)
{
    if (c->nrates < 1 || c->nrates > QC_ENERGY_MAX_RATES)
        return qc_err_set(err, QC_EINVAL, "rates: %zu given, need 1 to %d", c->nrates,
                          QC_ENERGY_MAX_RATES);
    for (size_t i = 0; i < c->nrates; i++) {
        if (!(c->rate[i] > 0 && isfinite(c->rate[i])))
            return qc_err_set(err, QC_ERANGE, "rates: rate %zu is %g; it must be > 0", i + 1,
                              c->rate[i]);
        if (i > 0 && !(c->rate[i] > c->rate[i - 1]))
            return qc_err_set(err, QC_ERANGE,
                              "rates: must increase strictly (rate %zu = %g after %g)", i + 1,
                              c->rate[i], c->rate[i - 1]);
        if (!nonneg(c->power[i]))
            return qc_err_set(err, QC_ERANGE, "power: power at rate %zu is %g; must be >= 0",
                              i + 1, c->power[i]);
    }
    if (!nonneg(c->holding))
        return qc_err_set(err, QC_ERANGE, "holding cost %g must be >= 0", c->holding);
    if (!nonneg(c->idle_power))
        return qc_err_set(err, QC_ERANGE, "idle power %g must be >= 0", c->idle_power);
    if (!nonneg(c->setup_power))
        return qc_err_set(err, QC_ERANGE, "setup power %g must be >= 0", c->setup_power);
    if (!nonneg(c->off_power))
        return qc_err_set(err, QC_ERANGE, "off power %g must be >= 0", c->off_power);
    if (!nonneg(c->switch_cost))
        return qc_err_set(err, QC_ERANGE, "switch-on cost %g must be >= 0", c->switch_cost);
    if (!(c->setup_rate > 0 && isfinite(c->setup_rate)))
        return qc_err_set(err, QC_ERANGE, "setup rate %g must be > 0", c->setup_rate);
    return 0;
}

void qc_energy_scale_power(qc_energy_cost *c, double price)
{
    for (size_t i = 0; i < c->nrates && i < QC_ENERGY_MAX_RATES; i++)
        c->power[i] *= price;
    c->idle_power *= price;
    c->setup_power *= price;
    c->off_power *= price;
}

static const char *const server_state_names[] = {"off", "setup", "on"};
QC__NAMES(qc_server_state, qc_server_state_name, qc_server_state_parse, server_state_names)
