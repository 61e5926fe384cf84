/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate.h: `qctl gate`, a TCP proxy that limits the client sessions
 * connected to one backend at once (MaxUsers at the session level),
 * internal to src/live/ and src/cli/.
 *
 * Each accepted client connection is a session. While fewer than the
 * limit are connected, a new session is connected to the backend and its
 * bytes are relayed both ways untouched; otherwise it waits in a FIFO of
 * at most `queue` sessions until a place frees or its deadline passes
 * (then it is closed), and with the FIFO full (or queue = 0) it is
 * refused: closed at once. Every control interval the limit is set by
 * the MaxUsers controller (qc_mu_ctl of qctl/controller.h, the object
 * `qctl sim maxusers` and the proxy's MAXUSERS limiter run) from a
 * sensor's sample (sensor.h; by default the sessions connected), held
 * fixed, or switched by a PRBS for identification. A missing or late
 * sample holds the controller for that interval. */
#ifndef QCTL_LIVE_GATE_H
#define QCTL_LIVE_GATE_H

#include <stdint.h>

#include "qctl/controller.h"
#include "qctl/error.h"
#include "qctl/sched.h"

#include "live/sensor.h"
#include "qctl/live.h"



#endif
