/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/qctl.h: every public header of libqctl, for a program that uses
 * much of it (pkg-config qctl). A program that embeds only the controllers
 * and the limiter includes what it uses (qctl/limiter.h, ...) and links
 * libqctl-control (pkg-config qctl-control): see docs/architecture.md for
 * which header belongs to which layer. */
#ifndef QCTL_QCTL_H
#define QCTL_QCTL_H

#include "qctl/api.h"
#include "qctl/error.h"
#include "qctl/cancel.h"
#include "qctl/rng.h"
#include "qctl/rng_gsl.h"
#include "qctl/dist.h"
#include "qctl/stats.h"
#include "qctl/hist.h"
#include "qctl/evq.h"
#include "qctl/sim.h"
#include "qctl/sched.h"
#include "qctl/energy.h"
#include "qctl/admission.h"
#include "qctl/aimd.h"
#include "qctl/arx.h"
#include "qctl/codel.h"
#include "qctl/controller.h"
#include "qctl/ctlloop.h"
#include "qctl/design.h"
#include "qctl/fleet.h"
#include "qctl/front.h"
#include "qctl/limiter.h"
#include "qctl/limiters.h"
#include "qctl/sfq.h"
#include "qctl/output.h"
#include "qctl/arx_json.h"
#include "qctl/mdp.h"
#include "qctl/removable.h"
#include "qctl/arrivals.h"
#include "qctl/copula.h"
#include "qctl/fit.h"
#include "qctl/trace.h"
#include "qctl/traffic.h"
#include "qctl/exact.h"
#include "qctl/maxusers.h"
#include "qctl/multiclass.h"
#include "qctl/network.h"
#include "qctl/pool.h"
#include "qctl/proxysim.h"
#include "qctl/queue.h"
#include "qctl/removable_sim.h"
#include "qctl/results.h"

#endif
