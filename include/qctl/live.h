/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/live.h: qctl's live servers as a library on a host's libuv loop:
 * the reverse proxy, the TCP gate, the test backend and the load
 * generator, each started on a loop the host owns and runs.
 *
 * Every component has the same life, libuv's:
 *
 *     qc_X_start(loop, &config, &x, &err)   listens (or starts sending) on
 *                                           the host's loop; returns at once
 *     ... the host runs its loop; qc_X_status(x, &st) reads the counters ...
 *     qc_X_drain(x, timeout)                stops taking new work, lets the
 *                                           work in progress finish, and cuts
 *                                           what is left after timeout seconds
 *                                           (0: at once); its own timer
 *     qc_X_close(x, on_closed, arg)         once x has stopped (drained, or
 *                                           ended by itself: a load at its
 *                                           bound, a gate at its duration),
 *                                           closes every handle it opened,
 *                                           calls on_closed(x, arg) -- the
 *                                           last moment x may be read -- and
 *                                           frees x. It does not stop x: a
 *                                           host that wants x gone now drains
 *                                           it with timeout 0. It may be
 *                                           called right after start, to be
 *                                           told when x ends.
 *
 * A component runs its handles on a loop of its own that the host's loop
 * drives (libuv's backend descriptor, polled from the host's loop, with a
 * timer for the inner loop's next timeout): it neither sees nor closes the
 * host's handles, several may share one host loop, and one may follow
 * another on it. All calls on a component are made from the thread that
 * runs its host loop.
 *
 * Nothing process-wide is touched: no signal handler (the host decides
 * what SIGTERM means and calls qc_X_drain), no environment variable, no
 * static buffer shared by instances, no GSL error handler left changed.
 * The host ignores SIGPIPE (a peer that goes away while a response is
 * written would otherwise end the process); qctl's commands do. A
 * backend with cpu = 1 burns its service times on libuv's thread pool,
 * whose size the host sets (UV_THREADPOOL_SIZE, before its first loop
 * runs; qctl backend sets it to its workers).
 *
 * Ownership: the config is copied by start, but the strings and
 * distributions it points to must outlive the component. Errors: 0 or a negative QC_E* code with a
 * message in err (qctl/error.h); a failed start opens nothing.
 * Events worth a line (a failed command, a drain cut short) go to the
 * config's log callback, one line each without a newline. */
#ifndef QCTL_LIVE_PUBLIC_H
#define QCTL_LIVE_PUBLIC_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "qctl/api.h"
#include "qctl/arrivals.h"
#include "qctl/controller.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/limiter.h"
#include "qctl/sched.h"

QC_API_BEGIN

/* Where a component is in its life (qc_X_status). */
typedef enum {
    QC_LIVE_RUNNING = 0, /* serving */
    QC_LIVE_DRAINING,    /* no new work; the work in progress finishing */
    QC_LIVE_STOPPED      /* drained or cut: every handle closed or closing */
} qc_live_state;

/* ---- backend: an HTTP server whose service time is a distribution ------- */

typedef struct qc_backend_params {
    const char *listen;    /* HOST:PORT */
    const char *port_file; /* NULL or where to write the bound port */
    qc_dist service;       /* service time, seconds */
    unsigned workers;      /* requests served at once (others wait FCFS) */
    int cpu;               /* 1: burn CPU for the service time; 0: sleep */
    uint64_t seed;
    const char *health; /* health path (default /health) */
    qc_dist setup;      /* health answers 503 this long after start */
    int has_setup;
    uint64_t body; /* > 0: answer with a body of this many bytes (a fixed pattern) */
    int chunked;   /* send that body chunked */
    double keepalive_timeout; /* > 0: close a kept-alive connection idle this long */
    int http10; /* answer HTTP/1.0, no Content-Length, closing after the body */
    /* events worth a line, one line each without a newline; NULL: none */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} qc_backend_params;

typedef struct qc_backend qc_backend;
typedef void (*qc_backend_close_cb)(qc_backend *b, void *arg);

typedef struct qc_backend_status {
    qc_live_state state;
    uint64_t requests;  /* requests read (health checks included) */
    uint64_t served;    /* answered after their service time */
    unsigned busy;      /* in service now (at most workers) */
    unsigned waiting;   /* waiting for a worker */
    unsigned busy_max;  /* the most in service at once so far */
    unsigned connections; /* open now */
    int port;           /* the port it listens on (0: not listening) */
} qc_backend_status;

void qc_backend_params_init(qc_backend_params *o);
/* Every check qc_backend_start makes before it opens anything. */
int qc_backend_check(const qc_backend_params *o, qc_err *err);
int qc_backend_start(uv_loop_t *loop, const qc_backend_params *o, qc_backend **out, qc_err *err);
void qc_backend_drain(qc_backend *b, double timeout);
void qc_backend_close(qc_backend *b, qc_backend_close_cb on_closed, void *arg);
void qc_backend_status_get(const qc_backend *b, qc_backend_status *st);

/* ---- load: an HTTP load generator, open or closed loop ------------------ */

typedef struct qc_load_params {
    const char *target;       /* HOST:PORT */
    const char *path;         /* request target, e.g. "/" */
    const qc_arrivals *arrival; /* when requests are due, seconds from the start */
    uint64_t requests;        /* stop issuing after this many (0: no bound) */
    double duration;          /* or after this long (0: no bound) */
    unsigned connections;     /* most connections open at once */
    double timeout;           /* a request unanswered this long is an error */
    const char *class_header; /* NULL, or "Name: value" sent with each request */
    uint64_t seed;
    /* closed loop (users > 0; arrival unused): think and off times in
     * seconds, session = requests per session (NULL: one endless session) */
    unsigned users;
    const qc_dist *think, *session, *off;
    const char *series;     /* NULL or a CSV written every series_interval s */
    double series_interval;
    /* events worth a line, one line each without a newline; NULL: none */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} qc_load_params;

typedef struct qc_load_result {
    uint64_t sent, answered, ok, refused, other, errors, timeouts;
    double elapsed, mean, p50, p90, p95, p99, p999, ok_p50, ok_p95, ok_p99, max;
    double think_mean; /* closed loop: the think times drawn, on average */
} qc_load_result;

typedef struct qc_load qc_load;
typedef void (*qc_load_close_cb)(qc_load *l, void *arg);

/* qc_load_start sends until its bound (requests or duration), waits for
 * the answers (each within the timeout) and stops by itself: its status
 * is then QC_LIVE_STOPPED and qc_load_result fills r. qc_load_drain stops
 * sending at once and waits for the answers still due, at most timeout
 * seconds. */
int qc_load_start(uv_loop_t *loop, const qc_load_params *o, qc_load **out, qc_err *err);
void qc_load_drain(qc_load *l, double timeout);
void qc_load_close(qc_load *l, qc_load_close_cb on_closed, void *arg);
qc_live_state qc_load_state(const qc_load *l);
/* The figures so far (final once stopped); 0, or QC_EIO when the series
 * file could not be written (err says why). */
int qc_load_result_get(const qc_load *l, qc_load_result *r, qc_err *err);

/* ---- proxy: the HTTP reverse proxy with admission control --------------- */

/* the fleet of backends: routing and power (see fleet.h's description) */
typedef enum { QC_FLEET_JSQ = 0, QC_FLEET_DJSQ } qc_live_routing;
typedef struct qc_live_fleet_params {
    qc_live_routing route;
    unsigned threshold;    /* djsq's T, >= 1 */
    double idle_off;       /* seconds idle before parking; INFINITY: never */
    unsigned min_on;       /* ON + SETUP kept at least (>= 1) */
    unsigned max_on;       /* ON + SETUP + PARKING at most (0: all) */
    unsigned initially_on; /* the first N are ON at start (0: all) */
} qc_live_fleet_params;

#define QC_PROXY_BACKENDS_MAX 64
#define QC_PROXY_CLASSES_MAX 8

enum { QC_QUEUE_FIFO = 0, QC_QUEUE_CODEL = 1 };

typedef struct qc_proxy_params {
    const char *listen, *admin; /* HOST:PORT; admin may be NULL */
    const char *port_file, *admin_port_file;
    int admin_public; /* admin may bind a non-loopback address */
    const char *backend[QC_PROXY_BACKENDS_MAX];
    unsigned nbackends;
    qc_limiter_params limiter;
    int control;              /* 0: no admission control at all */
    double interval;          /* control interval, seconds */
    unsigned queue;           /* waiting room */
    double queue_timeout;     /* default wait deadline, seconds */
    const char *class_header; /* NULL: one class */
    const char *class_name[QC_PROXY_CLASSES_MAX];
    double class_bound[QC_PROXY_CLASSES_MAX]; /* wait deadline per class; under the
                                                 admission limiter its delay bound */
    unsigned nclasses;                        /* named classes; best effort is extra */
    /* classes by path prefix, the longest matching wins (before the header) */
    const char *prefix[QC_PROXY_CLASSES_MAX * 4];
    unsigned prefix_class[QC_PROXY_CLASSES_MAX * 4];
    unsigned nprefixes;
    uint32_t class_candidate; /* admission: bit i, class i starts a candidate */
    double header_timeout, idle_timeout, backend_timeout;
    const char *series; /* NULL or CSV of the control loop */
    /* backend fleet power control (fleet.h) */
    qc_live_fleet_params fleet;
    const char *unpark_cmd, *park_cmd; /* /bin/sh -c, {backend} {host} {port} */
    const char *health;                /* NULL, or GET PATH until 2xx during setup */
    double health_interval;            /* seconds between health probes */
    double cmd_timeout;                /* an un/park command killed after this */
    double setup_timeout;             /* in setup this long without health: off */
    /* retries and health (see proxy.c, "retries" and "health") */
    unsigned retries;    /* sends again of one request at most (0: none) */
    double retry_budget; /* retries per admitted request, over time, in [0, 1] */
    unsigned max_fails;  /* failures in a row that take a backend out (0: never) */
    double health_check; /* probe ON backends every this many seconds (0: never) */
    /* bounds (see proxy.c, "reading requests") */
    uint64_t max_body;        /* a request body larger gets 413 */
    unsigned max_connections; /* client connections beyond get 503 (0: no cap) */
    size_t max_memory;        /* request bytes buffered beyond get 503 (0: no cap) */
    int queue_discipline;     /* QC_QUEUE_FIFO or QC_QUEUE_CODEL (see proxy.c) */
    double queue_target;      /* codel: the wait beyond which the queue is standing */
    double drain_timeout;     /* after SIGTERM, stop anyway after this many seconds */
    const char *admin_token_file; /* NULL, or a file whose first line is the admin token */
    int admin_read_only;          /* the admin port changes nothing (403) */
    /* events worth a line (a failed un/park command), one line each
     * without a newline; NULL: not reported (the counters have them) */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} qc_proxy_params;

typedef struct qc_proxy qc_proxy;
typedef void (*qc_proxy_close_cb)(qc_proxy *p, void *arg);
/* The name the embedding API gives the proxy's configuration. */
typedef qc_proxy_params qc_proxy_config;

typedef struct qc_proxy_status {
    qc_live_state state;
    double limit;          /* the limiter's limit now (NAN: no control) */
    unsigned inflight;     /* admitted, not yet answered */
    unsigned queued;       /* waiting for a slot */
    unsigned clients;      /* client connections open */
    uint64_t admitted, refused, answered; /* all classes */
    uint64_t errors502, errors504, bad_requests;
    int port, admin_port;  /* bound ports (0: none) */
} qc_proxy_status;

void qc_proxy_params_init(qc_proxy_params *o);
/* Every check qc_proxy_start makes before it opens anything (backends,
 * addresses, fleet, timeouts, the limiter's configuration), with the
 * same messages: qc_proxy_start fails on a configuration iff this does.
 * QC_EINVAL or QC_ERANGE naming the field; nothing is opened. */
int qc_proxy_check(const qc_proxy_params *o, qc_err *err);
/* Listens on o->listen (and o->admin) on loop and serves as the host runs
 * it: the control interval, health checks and the fleet on timers of the
 * proxy's own. */
int qc_proxy_start(uv_loop_t *loop, const qc_proxy_config *o, qc_proxy **out, qc_err *err);
/* Stops listening, answers 503 to every waiting request, and lets the
 * admitted ones finish; what is still in flight after timeout seconds is
 * cut (0: at once). A drain already running ends no later than before. */
void qc_proxy_drain(qc_proxy *p, double timeout);
void qc_proxy_close(qc_proxy *p, qc_proxy_close_cb on_closed, void *arg);
void qc_proxy_status_get(const qc_proxy *p, qc_proxy_status *st);
/* The proxy's /metrics text (Prometheus) into buf, NUL-terminated and
 * cut to size; its length (at most size - 1). */
size_t qc_proxy_metrics(const qc_proxy *p, char *buf, size_t size);

/* ---- gate: a TCP proxy limiting the sessions at one backend ------------- */

typedef struct qc_live_sensor_params {
    const char *cmd;     /* CMD: "PROG ARG..." */
    const char *url;     /* URL: http://HOST:PORT/PATH */
    const char *metric;  /* URL: metric name (NULL: the first number) */
    const char *log;     /* LOG: the file */
    const char *pattern; /* LOG: POSIX extended regular expression */
    double scale;        /* multiplies every value (0 is taken as 1) */
} qc_live_sensor_params;

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
    double drain_timeout;   /* after SIGTERM (or --duration), stop anyway after this */
    double duration;        /* > 0: drain after this many seconds */
    size_t buffer;          /* bytes queued toward a peer before reading from
                               the other stops (per direction) */
    const char *series;     /* NULL or a CSV, one row per interval */
    qc_live_sensor_params sensor;
    /* events worth a line, one line each without a newline; NULL: none */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} qc_gate_params;

typedef struct qc_gate qc_gate;
typedef void (*qc_gate_close_cb)(qc_gate *g, void *arg);

typedef struct qc_gate_status {
    qc_live_state state;
    double limit;           /* the session limit now */
    unsigned connected;     /* sessions relayed now */
    unsigned waiting;       /* sessions waiting for a place */
    uint64_t accepted, refused, timed_out; /* sessions */
    int port, admin_port;   /* bound ports (0: none) */
} qc_gate_status;

void qc_gate_params_init(qc_gate_params *o);
/* Every check qc_gate_start makes before it opens anything (addresses,
 * the controller's parameters, the sensor), with the same messages.
 * QC_EINVAL or QC_ERANGE naming the flag. */
int qc_gate_check(const qc_gate_params *o, qc_err *err);
/* Serves until drained (o->duration > 0: drains by itself after it):
 * the drain closes the waiting sessions and relays the connected ones
 * until they end or the timeout passes. */
int qc_gate_start(uv_loop_t *loop, const qc_gate_params *o, qc_gate **out, qc_err *err);
void qc_gate_drain(qc_gate *g, double timeout);
void qc_gate_close(qc_gate *g, qc_gate_close_cb on_closed, void *arg);
void qc_gate_status_get(const qc_gate *g, qc_gate_status *st);

QC_API_END

#endif
