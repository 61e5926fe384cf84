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

#include "live/evlog.h"
#include "live/live.h"
#include "live/sensor.h"

enum { QC_GATE_STATIC = 0, QC_GATE_INTEGRAL, QC_GATE_PI, QC_GATE_OPEN };
enum { QC_GATE_PRBS = 0, QC_GATE_STEPS };
#define QC_GATE_REF_MAX 64

typedef struct qc_gate_params {
    const char *listen, *backend; /* HOST:PORT */
    const char *port_file;        /* NULL or where to write the bound port */
    const char *admin, *admin_port_file; /* loopback HOST:PORT for /status, /metrics */
    int controller;    /* QC_GATE_* */
    double limit;      /* STATIC: the limit; INTEGRAL/PI: the first one */
    qc_sched_point ref[QC_GATE_REF_MAX]; /* r: the sensor value to hold, a */
    size_t nref;                         /* schedule from the start (0: none) */
    double control_from; /* INTEGRAL/PI/OPEN: the limit held at `limit` (OPEN
                            without it: levels[0]) until this many seconds
                            from the start, then the loop or excitation */
    double ki, kp;     /* gains (INTEGRAL: kp = 0) */
    double min_limit, max_limit;
    qc_antiwindup aw;
    double k_aw;
    int excite;        /* OPEN: QC_GATE_PRBS or QC_GATE_STEPS */
    double levels[2];  /* OPEN: the two limits */
    unsigned hold;     /* OPEN: intervals between (possible) switches */
    uint64_t seed;     /* OPEN: the PRBS's seed */
    double interval;   /* control interval, seconds */
    unsigned queue;    /* waiting sessions at most (0: refuse at once) */
    double queue_timeout;   /* a session waits this long at most */
    double connect_timeout; /* the backend must accept within this */
    double drain_timeout;   /* the command's: after SIGTERM (or --duration), stop anyway after this */
    double duration;        /* the command's: > 0, drain after this many seconds */
    size_t buffer;          /* bytes queued toward a peer before reading from
                               the other stops (per direction) */
    double idle_timeout;    /* a connected session with no byte either way for
                               this long is closed, its place given back
                               (haproxy's client timeout; 0: never) */
    double max_session;     /* > 0: a session is closed this many seconds after
                               it got its place (0: no bound) */
    uint64_t max_bytes;     /* > 0: a session is closed once it has relayed this
                               many bytes, both ways (0: no bound) */
    const char *series;     /* NULL or a CSV, one row per interval */
    qc__sensor_params sensor;
    /* qc_gate_reload_request (the command's SIGHUP): the caller's configuration anew (--config and the command
     * line read again) into *next, kept alive by the caller until
     * reload_done says whether it was taken (the previous one is then no
     * longer used) or refused (next is not used); NULL: SIGHUP is
     * logged and ignored. log: the gate's event lines (reloads), NULL:
     * none. */
    int (*reload)(void *ctx, const struct qc_gate_params **next, qc_err *err);
    void (*reload_done)(void *ctx, const struct qc_gate_params *next, int taken);
    void *reload_ctx;
    void (*log)(void *ctx, int level, const char *line); /* level: QC_LOG_* (evlog.h) */
    void *log_ctx;
} qc_gate_params;

void qc_gate_params_init(qc_gate_params *o);

/* Every check qc_gate_start makes before it opens anything (addresses, the
 * controller's parameters, the sensor), with the same messages.
 * QC_EINVAL or QC_ERANGE naming the flag. */
int qc_gate_check(const qc_gate_params *o, qc_err *err);
/* The one validation of a start, --check's: qc_gate_check, then the dry
 * run of the listening socket's and the admin endpoint's binds
 * (qc__bind_probe), named as the start names them. Not for a reload. */
int qc_gate_params_check(const qc_gate_params *o, qc_err *err);

/* ---- the gate on a host's loop ---------------------------------------------
 *
 * As the proxy's (live.h): qc_gate_start(loop, &params, &g, &err) listens
 * on the host's loop and returns at once; the host runs its loop
 * (qc_gate_status_get, qc_gate_metrics read the gate from the loop's
 * thread); qc_gate_drain(g, timeout) closes the listener, refuses the
 * waiting sessions, lets the connected ones run until they end and cuts
 * what is left after timeout seconds (0: at once; a timer of its own,
 * whatever the control interval; a later call may only bring the deadline
 * nearer); qc_gate_close(g, on_closed, arg) once the drain is over (a gate
 * not draining is drained with timeout 0) closes its last handle, calls
 * on_closed(g, arg) from the loop -- the last moment g may be read -- and
 * frees g. The gate closes only the handles it opened; nothing
 * process-wide is touched: no signal handler (the host decides what
 * SIGTERM and SIGHUP mean: qc_gate_drain, qc_gate_reload_request), no
 * environment variable, no buffer shared between gates. The host ignores
 * SIGPIPE. params is copied, its strings must outlive the gate.
 * --duration is the command's (it drains then), not the library's. A
 * failed start returns the error with *g NULL; what it had opened closes
 * on the loop's next turn. */
typedef struct gate qc_gate;
typedef struct qc_gate_group qc_gate_group;

typedef struct qc_gate_status {
    int state;            /* QC_LIVE_RUNNING, _DRAINING, _STOPPED (live.h) */
    int port, admin_port; /* bound ports (admin 0: none, or not the lead) */
    unsigned limit;       /* the limit applied (the group's) */
    unsigned connected, waiting, cut; /* this gate's sessions; cut: by the drain's deadline */
    unsigned long long accepted, admitted, refused, expired, left, backend_errors, done;
    unsigned long long bytes_up, bytes_down, reloads, reloads_refused;
} qc_gate_status;

int qc_gate_start(uv_loop_t *loop, const qc_gate_params *o, qc_gate **g, qc_err *err);
void qc_gate_drain(qc_gate *g, double timeout);
void qc_gate_close(qc_gate *g, void (*on_closed)(qc_gate *g, void *arg), void *arg);
void qc_gate_status_get(const qc_gate *g, qc_gate_status *st);
/* The /metrics text (Prometheus, the group's sums) into buf[0..size);
 * its length (snprintf's rule). */
size_t qc_gate_metrics(const qc_gate *g, char *buf, size_t size);
/* The configuration g runs now (a reload replaces the lead's). */
const qc_gate_params *qc_gate_params_get(const qc_gate *g);

/* Workers: N gates on N loops (one thread each) sharing one admission
 * front -- one limit, one waiting room -- each accepting on its own
 * SO_REUSEPORT socket of params->listen. Worker 0, the lead, alone has
 * the admin port (its /metrics and /status count every worker's
 * sessions), the series, the port file, the sensor and the controller;
 * it is started first, the others join its port. Each worker is driven
 * like a gate alone from its own loop's thread; qc_gate_group_free once
 * every worker is closed. */
int qc_gate_group_alloc(const qc_gate_params *o, unsigned workers, qc_gate_group **g,
                        qc_err *err);
int qc_gate_group_start(uv_loop_t *loop, qc_gate_group *g, unsigned index, qc_gate **out,
                        qc_err *err);
unsigned qc_gate_group_size(const qc_gate_group *g);
void qc_gate_group_free(qc_gate_group *g);

/* A reload asked for (SIGHUP: why names it in the log line): the lead
 * reads the configuration again through params->reload and takes it
 * (qc_gate_reload) or logs why not. 0 or the refusal's code. */
int qc_gate_reload_request(qc_gate *g, const char *why);

/* Takes the configuration o in place of the running one, or refuses it
 * and changes nothing (QC_EINVAL or QC_ERANGE: qc_gate_check's message,
 * or the flag that cannot change while the gate runs: --listen,
 * --backend, --admin, --controller, --interval, --series, the sensor,
 * --duration, the excitation's kind and seed). Taken: the listener and
 * every session stay, the waiting ones keep their places; a static limit
 * moves to the new one; the integral and PI controllers keep their state
 * when their gains and range are unchanged (a new reference schedule is
 * read from the next interval on), and otherwise restart bumplessly at
 * the limit in force; the queue's bound and the timeouts and budgets
 * apply from now on. o must live until the next reload or the end of
 * the gate. The lead's, on its loop's thread; the other workers take the
 * session bounds through their mailboxes. --queue may rise to the places
 * allocated at the start (at least 1024): beyond, QC_ERANGE. */
int qc_gate_reload(qc_gate *g, const qc_gate_params *o, qc_err *err);

#endif
