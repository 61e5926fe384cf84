/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live.h: qctl's live programs on libuv (backend, load generator, proxy)
 * and the small pieces they share, internal to src/live/ and src/cli/.
 *
 * Each program runs one libuv loop on the calling thread until it is done
 * (load) or told to stop by SIGTERM or SIGINT (backend, proxy). Buffers
 * are owned by the connection they belong to and freed in its close
 * callback, libuv's ownership rule. */
#ifndef QCTL_LIVE_LIVE_H
#define QCTL_LIVE_LIVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/limiter.h"

#include "live/evlog.h"
#include "live/fleet.h"
#include "live/http.h"

/* A growable byte buffer. */
typedef struct qc__buf {
    char *data;
    size_t len, cap;
} qc__buf;

int qc__buf_append(qc__buf *b, const char *p, size_t n);
void qc__buf_consume(qc__buf *b, size_t n);
void qc__buf_free(qc__buf *b);

/* Parses an address into addr: "1.2.3.4:PORT", "[::1]:PORT" or
 * "NAME:PORT" (port 0..65535). A name is resolved here with getaddrinfo,
 * which blocks: call it before the event loop serves anything; the first
 * answer is taken. QC_EINVAL with a message quoting s; addr is then
 * unspecified. */
int qc__addr_parse(const char *s, struct sockaddr_storage *addr, qc_err *err);
/* 1 if addr is a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104). */
int qc__addr_is_loopback(const struct sockaddr_storage *addr);
/* 1 if binding a and b both would fail with "address already in use":
 * the same port (not 0, the kernel's choice), the same family, and the
 * same address or either the wildcard one (0.0.0.0, ::). */
int qc__addr_clash(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/* addr's port, its numeric host (n >= 46 for IPv6) and its sockaddr length. */
int qc__addr_port(const struct sockaddr_storage *addr);
void qc__addr_host(const struct sockaddr_storage *addr, char *host, size_t n);
unsigned qc__addr_len(const struct sockaddr_storage *addr);

/* Writes a copy of p[0..n) to stream (the copy is freed when written). */
int qc__write_copy(uv_stream_t *stream, const char *p, size_t n);

/* Stops reading stream, lets its pending writes go out (uv_close would
 * cancel them) and half-closes it, then calls close(arg); at once when the
 * shutdown cannot be started. */
void qc__close_after_write(uv_stream_t *stream, void (*close)(void *), void *arg);

/* The proxy's live page (page.c) when target[0..tlen) asks for it ("/" or
 * "/?..."), its length in *len; NULL otherwise. The page is a constant. */
const char *qc__admin_page(const char *target, size_t tlen, size_t *len);
/* The headers it is sent with: not cached; no script, style, image or
 * connection from anywhere but the page itself and its own origin. */
#define QC_ADMIN_PAGE_HEADERS                                                                      \
    "Cache-Control: no-store\r\nContent-Security-Policy: default-src 'none'; script-src "         \
    "'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'\r\n"

/* Parses the head of the request at the start of in (qc__http_parse_head
 * with request = 1): its length when complete, 0 when more bytes are
 * needed, or QC_EPARSE with *why a short static reason ("malformed
 * request" when the parser names none). */
int qc__http_request_head(const qc__buf *in, qc__http_head *h, const char **why);

/* Seconds on the monotonic clock. */
double qc__now(void);

/* A connection's timeout kept lazily: a per-request deadline (header,
 * backend) moves with every request, and re-arming a libuv timer each
 * time (a heap removal and insertion) was a tenth of the proxy's work per
 * request. The deadline is a number (due, in loop milliseconds); the timer
 * is armed at most `step` ahead and only when it would fire after the new
 * deadline or is not running, and when it fires before the deadline it
 * re-arms for the rest (qc__deadline_due). A timeout still fires on the
 * loop's clock as uv_timer_start's would: at due, not later. */
typedef struct qc__deadline {
    uint64_t due;   /* UINT64_MAX: none */
    uint64_t armed; /* when the timer fires, 0: the timer is not this one's */
} qc__deadline;
/* The deadline ms from the loop's now, t's callback cb; step (ms, > 0):
 * how far ahead the timer is armed at most. */
void qc__deadline_set(qc__deadline *d, uv_timer_t *t, uv_timer_cb cb, uint64_t ms, uint64_t step);
/* No deadline (the timer may still fire once, and find none). */
void qc__deadline_clear(qc__deadline *d);
/* The timer is used for something else now (started with another time or
 * callback): until the next qc__deadline_set, its firings are not lazy. */
void qc__deadline_drop(qc__deadline *d);
/* In cb: 1 when the deadline has passed (or the timer was not lazy), 0
 * when it fired early (re-armed for the rest) or there is none. */
int qc__deadline_due(qc__deadline *d, uv_timer_t *t, uv_timer_cb cb, uint64_t step);

/* The port on a line into path (written to path.tmp, then renamed: a
 * reader never sees half of it), "-": standard output. */
int qc__port_file_write(const char *path, int port, qc_err *err);
/* Writes the bound port of a TCP handle to path (for tests using port 0). */
int qc__write_port(uv_tcp_t *tcp, const char *path, qc_err *err);

/* Initializes a connection's socket and timer on loop, the data of both
 * its owner; returns 2, the handles the owner's close callback waits for. */
int qc__conn_init(uv_loop_t *loop, uv_tcp_t *tcp, uv_timer_t *timer, void *owner);

/* Opens the --series file at path for writing, its rows written as the
 * run goes. 0, or QC_EIO naming the flag and the file (*f is then NULL). */
int qc__series_open(FILE **f, const char *path, qc_err *err);

/* Writes the process metrics of /metrics (procstat.c: CPU seconds,
 * resident and virtual memory, open and maximum file descriptors, start
 * time; the Prometheus client libraries' names, each with its HELP and
 * TYPE) into buf[0..size); returns the length they need (snprintf's
 * rule: more than size when cut). */
size_t qc__process_metrics(char *buf, size_t size);

/* Initializes t on loop (t->data = data), binds it to `where` (host:port)
 * and listens with cb, then writes the port to port_file when not NULL.
 * 0, or the error (QC_EIO naming where) with t initialized: the caller
 * closes it as any of its handles. */
int qc__listen(uv_loop_t *loop, uv_tcp_t *t, void *data, const char *where,
               const char *port_file, uv_connection_cb cb, qc_err *err);

/* Binds t (initialized on its loop) to addr on a socket with SO_REUSEPORT,
 * so that the N workers of one proxy, gate or backend share the port.
 * 0, or QC_EIO naming where with libuv's words for the error (those of
 * qc__listen, so that one worker and N say the same). */
int qc__bind_reuseport(uv_tcp_t *t, const struct sockaddr_storage *addr, const char *where,
                       qc_err *err);

/* The dry run of a start's bind, for --check: binds and listens on a
 * socket of `where` as qc__listen and qc__bind_reuseport would, then
 * closes it. 0, or the start's own error (QC_EIO, "where: reason"): an
 * address not on this machine, a port in use, a port denied. */
int qc__bind_probe(const char *where, qc_err *err);

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
    /* several backends on one port (qctl backend --threads): each listens
     * with SO_REUSEPORT, the kernel spreading the connections over them;
     * stream: the index of this one's service-time draws (0 alone) */
    int reuseport;
    unsigned stream;
} qc_backend_params;

/* The backend on a host's loop: the proxy's life and rules (below, "the
 * proxy on a host's loop"): start listens and returns; drain stops
 * listening and lets the requests in service finish within timeout
 * seconds, then closes every connection; close (a backend not draining
 * is drained with timeout 0: its requests in service are cut) calls
 * on_closed from the loop once every handle and thread-pool burst is
 * done, and frees it. With cpu = 1 the service times burn on libuv's
 * thread pool, whose size is the host's (UV_THREADPOOL_SIZE, set before
 * the process's first loop runs: qctl backend sets it to its workers). */
typedef struct backend qc_backend;

typedef struct qc_backend_status {
    int state;               /* QC_LIVE_* */
    int port;                /* the bound port */
    uint64_t requests;       /* read (health checks included) */
    uint64_t served;         /* answered after their service time */
    unsigned busy, waiting;  /* in service now, waiting for a worker */
    unsigned busy_max;       /* the most in service at once so far */
    unsigned connections;    /* open now */
} qc_backend_status;

int qc_backend_start(uv_loop_t *loop, const qc_backend_params *o, qc_backend **b, qc_err *err);
/* The one validation of a start, --check's: workers >= 1, the health
 * path, the address, then the dry run of its bind (qc__bind_probe) with
 * the start's message. QC_EINVAL naming the field, or QC_EIO. */
int qc_backend_params_check(const qc_backend_params *o, qc_err *err);
void qc_backend_drain(qc_backend *b, double timeout);
void qc_backend_close(qc_backend *b, void (*on_closed)(qc_backend *b, void *arg), void *arg);
void qc_backend_status_get(const qc_backend *b, qc_backend_status *st);

typedef struct load qc_load;

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
    /* NULL, or a file written by qc_load_run at the end: one line per
     * request answered or failed, in the order they were due, "CLASS SEND
     * LATENCY STATUS": CLASS the value of class_header (else the path),
     * SEND when it was due (seconds from the start), LATENCY from then to
     * its answer or failure, STATUS the HTTP status (0: connection error);
     * timeouts are not in it (the counts have them) */
    const char *dump;
    /* qc_load_run: the loops (each on a thread of its own, the first on
     * the caller's) the load is spread over; 0 or 1: one. At most the
     * requests, connections (open loop) or users (closed) to share; not
     * with series. See load.c for how the parts share the load. */
    unsigned threads;
    /* events worth a line (the first failed connect, a series file that
     * could not be written), without a newline; NULL: not reported */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
    /* called from the loop once the load has ended (its bound reached and
     * its answers in or timed out, or drained); the result is then final */
    void (*done)(qc_load *l, void *ctx);
    void *done_ctx;
} qc_load_params;

typedef struct qc_load_result {
    uint64_t sent, answered, ok, refused, other, errors, timeouts;
    double elapsed, mean, p50, p90, p95, p99, p999, ok_p50, ok_p95, ok_p99, max;
    double think_mean; /* closed loop: the think times drawn, on average */
    unsigned threads;  /* qc_load_run: the loops it ran on */
} qc_load_result;

/* Runs the load on loops of its own (o->threads) and returns when it is
 * over; fills r, the parts' counts added and their histograms merged.
 * Fails only on bad options or a setup error. */
int qc_load_run(const qc_load_params *o, qc_load_result *r, qc_err *err);

/* The load on a host's loop, the proxy's life and rules (below, "the
 * proxy on a host's loop"): start opens its timers and returns; the load
 * issues its requests as the host runs the loop and ends by itself (its
 * bound reached, its answers in or timed out: o->done is called); drain
 * stops issuing and waits for the answers at most timeout seconds (0: at
 * once; those left count as timeouts), a later call only bringing the
 * deadline nearer; close ends a load not ended as drain(0) does, closes
 * the last of its handles, calls on_closed(l, arg) from the loop -- the
 * last moment l may be read -- and frees l. Status and result read the
 * counts so far from the loop's thread. Nothing process-wide is touched
 * (the host ignores SIGPIPE); o is copied, its strings and distributions
 * must outlive the load. */
typedef struct qc_load_status {
    int state; /* QC_LIVE_RUNNING issuing, DRAINING awaiting answers, STOPPED ended */
    uint64_t sent, answered, ok, refused, errors, timeouts;
    unsigned connections, waiting; /* open now; due and waiting for a connection */
} qc_load_status;

int qc_load_start(uv_loop_t *loop, const qc_load_params *o, qc_load **l, qc_err *err);
void qc_load_drain(qc_load *l, double timeout);
void qc_load_close(qc_load *l, void (*on_closed)(qc_load *l, void *arg), void *arg);
void qc_load_status_get(const qc_load *l, qc_load_status *st);
/* The result so far (final once done was called; threads 1). */
void qc_load_result_get(const qc_load *l, qc_load_result *r);
/* Starts part `part` of `parts` of o (load.c, the top), its clock's zero
 * t0 (0: now), a closed loop's requests counted in *issued shared by the
 * parts; qc_load_start is part 0 of 1. */
int qc__load_start_part(uv_loop_t *loop, const qc_load_params *o, unsigned part, unsigned parts,
                        double t0, atomic_uint_fast64_t *issued, qc_load **l, qc_err *err);

/* The arrival times of requests drawn from a traffic model (qctl gen's
 * JSON): `users` users of the model generated with the copula approach
 * from `seed`; each packet a user sends (direction 0) is a request, or,
 * with per_session, only the first packet of each of its sessions. Times
 * up to `duration` (0: no limit) and at most `max` of them (0: no limit;
 * one of the two is needed) fill a as a trace (qc_arrivals_free). */
int qc_load_traffic_arrivals(qc_arrivals *a, const char *model, uint32_t users, int per_session,
                             uint64_t seed, double duration, uint64_t max, qc_err *err);

/* `qctl load --udp`: one datagram per packet of a trace, at its time. */
typedef struct qc_replay_params {
    const char *target; /* HOST:PORT */
    const char *file;   /* pcap, pcapng or CSV (qctl/trace.h) */
    int pattern;        /* payload: 0 zeros, 1 the bytes 0, 1, ..., 255, 0, ... */
} qc_replay_params;

typedef struct qc_replay_result {
    uint64_t packets, sent, failed, bytes, capped; /* capped: cut to 65507 */
    double span, elapsed;            /* the trace's and the replay's duration */
    double err_p50, err_p99, err_max; /* send time - scheduled time, s */
} qc_replay_result;

/* Replays o->file to o->target; fills r. Fails on a bad address, an
 * unreadable trace or no socket. */
int qc_replay_run(const qc_replay_params *o, qc_replay_result *r, qc_err *err);

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
    qc__fleet_params fleet;
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
    unsigned sample_every;    /* the limiter's sampler (qctl/front.h): 0, per interval */
    unsigned sample_least;    /* sample_every 0: completions a window holds at least (32) */
    double drain_timeout;     /* after SIGTERM, stop anyway after this many seconds */
    const char *admin_token_file; /* NULL, or a file whose first line is the admin token */
    /* Without admin_token_file, a token is generated at start and written
     * (mode 0600, removed at exit) to admin_token_out, by default
     * $RUNTIME_DIRECTORY/admin-token (systemd) or else
     * ${XDG_RUNTIME_DIR:-/tmp}/qctl-admin-PORT.token; admin_no_token: none
     * (state changes from any local program that is not a browser). */
    const char *admin_token_out;
    int admin_no_token;
    int admin_read_only;          /* the admin port changes nothing (403) */
    /* forwarding headers added to each request (forwarded.c): 1 adds
     * X-Forwarded-For (the client appended to the values sent),
     * X-Forwarded-Proto, Forwarded (RFC 7239, appended) and X-Request-Id
     * (the client's kept when a plain token, else generated) */
    int fwd_xff, fwd_xfp, fwd_forwarded, fwd_request_id;
    /* NULL, or the access log's file ("-": standard output), a line per
     * request answered; its format 0 combined (nginx's), 1 JSON */
    const char *access_log;
    int access_log_format;
    /* bytes of lines held in each of the log's two buffers while its file
     * is slow (0: 1 MiB); lines beyond are dropped, counted and warned of */
    size_t access_log_buffer;
    /* TLS on the listening side (tls.c): both NULL, or a PEM certificate
     * chain and its key, read again at each reload (a new certificate
     * serves the connections that start after it); a handshake not done
     * within tls_handshake_timeout seconds is closed */
    const char *tls_cert, *tls_key;
    double tls_handshake_timeout;
    /* Reload (SIGHUP, POST /reload on the admin port): reload asks the
     * caller for its configuration anew (the --config file and the
     * command line read again) into *next, which the caller keeps alive
     * until reload_done(ctx, next, taken) says whether the proxy took it
     * (the previous one is then no longer used) or refused it (next is
     * not used). NULL: a reload is refused ("nothing to read again"). */
    int (*reload)(void *ctx, const struct qc_proxy_params **next, qc_err *err);
    void (*reload_done)(void *ctx, const struct qc_proxy_params *next, int taken);
    void *reload_ctx;
    /* events worth a line (a failed un/park command), one line each
     * without a newline, with its level (QC_LOG_*, evlog.h); NULL: not
     * reported (the counters have them) */
    void (*log)(void *ctx, int level, const char *line);
    void *log_ctx;
} qc_proxy_params;

void qc_proxy_params_init(qc_proxy_params *o);
/* Every check qc_proxy_run makes before it opens anything (backends,
 * addresses, fleet, timeouts, the limiter's configuration), with the
 * same messages: qc_proxy_run fails on a configuration iff this does.
 * QC_EINVAL or QC_ERANGE naming the field; nothing is opened. */
int qc_proxy_check(const qc_proxy_params *o, qc_err *err);
/* The one validation of a start, --check's: qc_proxy_check, then the
 * dry run of the listening socket's and the admin endpoint's binds
 * (qc__bind_probe) with the start's messages. Not for a reload (the
 * running proxy holds those ports). */
int qc_proxy_params_check(const qc_proxy_params *o, qc_err *err);
/* ---- the proxy on a host's loop --------------------------------------------
 *
 * The proxy's life is libuv's:
 *
 *     qc_proxy_start(loop, &params, &p, &err)  listens on the host's loop
 *                                              and returns at once
 *     ... the host runs its loop; qc_proxy_status_get and qc_proxy_metrics
 *         read the proxy from the loop's thread ...
 *     qc_proxy_drain(p, timeout)  closes the listeners, refuses what waits,
 *                                 lets the requests in flight finish, and
 *                                 cuts what is left after timeout seconds
 *                                 (0: at once): a timer of its own, checked
 *                                 every 10 ms whatever the control interval;
 *                                 a later call may only bring the deadline
 *                                 nearer (a second signal)
 *     qc_proxy_close(p, on_closed, arg)  once the drain is over (a proxy not
 *                                 draining is drained with timeout 0),
 *                                 closes the last of its handles, calls
 *                                 on_closed(p, arg) from the loop -- the
 *                                 last moment p may be read -- and frees p
 *
 * The proxy closes only the handles it opened (it never walks or stops the
 * host's loop), so the host's own handles are untouched and several
 * proxies may share one loop, one after another or at once. Nothing
 * process-wide is touched: no signal handler (the host decides what
 * SIGTERM means and calls qc_proxy_drain), no environment variable, no
 * buffer shared between proxies. The host ignores SIGPIPE (a peer that
 * goes away while a response is written would otherwise end the process;
 * qctl's commands do). params is copied, but the strings it points to
 * must outlive the proxy. A failed start returns the error with *p NULL;
 * the handles it had opened close on the loop's next turn. */
typedef struct proxy qc_proxy;
typedef struct qc_proxy_group qc_proxy_group;

enum { QC_LIVE_RUNNING = 0, QC_LIVE_DRAINING, QC_LIVE_STOPPED };

typedef struct qc_proxy_status {
    int state;            /* QC_LIVE_*: STOPPED once every handle but the last closes */
    int port, admin_port; /* bound ports (admin 0: none) */
    unsigned inflight, queued, clients, cut; /* cut: requests the drain deadline cut */
    double limit;         /* the limiter's (NaN without admission control) */
    uint64_t admitted, refused, answered, connections, errors502, errors504, bad_requests;
} qc_proxy_status;

int qc_proxy_start(uv_loop_t *loop, const qc_proxy_params *params, qc_proxy **p, qc_err *err);
void qc_proxy_drain(qc_proxy *p, double timeout);
void qc_proxy_close(qc_proxy *p, void (*on_closed)(qc_proxy *p, void *arg), void *arg);
void qc_proxy_status_get(const qc_proxy *p, qc_proxy_status *st);
/* The configuration p runs now (a reload replaces it; the one given to
 * start may be gone by then). From p's loop's thread. */
const qc_proxy_params *qc_proxy_params_get(const qc_proxy *p);
/* Workers: N proxies on N loops (one thread each) that share one
 * admission front -- one limiter, one waiting room -- each accepting on
 * its own SO_REUSEPORT socket of params->listen. Worker 0, the lead,
 * alone has the admin port (its /metrics and /status count every
 * worker's requests), the series, the port file and the control
 * interval's tick; it is started first, the others join its port. Each
 * worker is driven like a proxy alone (drain, close, status: its own
 * counters) from its own loop's thread; qc_proxy_group_free once every
 * worker is closed. Not with a fleet (--route djsq, un/park commands). */
int qc_proxy_group_alloc(const qc_proxy_params *params, unsigned workers, qc_proxy_group **g,
                         qc_err *err);
int qc_proxy_group_start(uv_loop_t *loop, qc_proxy_group *g, unsigned index, qc_proxy **p,
                         qc_err *err);
unsigned qc_proxy_group_size(const qc_proxy_group *g);
void qc_proxy_group_free(qc_proxy_group *g);

/* The proxy's /metrics text (Prometheus) into buf[0..size); its length
 * (snprintf's rule: more than size when cut). */
size_t qc_proxy_metrics(qc_proxy *p, char *buf, size_t size);

/* A running proxy (its handle inside the run; see proxy_reload.c). */
typedef struct proxy qc_proxy;

/* Takes the configuration o in place of the running one, or refuses it
 * and changes nothing: QC_EINVAL or QC_ERANGE with the message of
 * qc_proxy_check, or naming the field that cannot change while running
 * (the listening and admin addresses, the backends, the classes' names,
 * the limiter's algorithm, the waiting room's size and discipline, the
 * control interval, the fleet, the series file, the token file's name).
 * Taken: every listener and connection stays open, the requests in
 * flight and waiting keep their places, and the limiter keeps its state
 * where its parameters are unchanged (qc_limiter_reconfigure). o must
 * live until the next reload or the end of the run. On the loop's
 * thread. */
int qc_proxy_reload(qc_proxy *p, const qc_proxy_params *o, qc_err *err);

/* Asks o->reload for the configuration anew and takes it (qc_proxy_reload)
 * or refuses it, logging either (why: what asked, e.g. "SIGHUP"). In a
 * group, on the first worker's loop: it hands the configuration to the
 * others. The host's SIGHUP handler calls this. */
int qc_proxy_reload_request(qc_proxy *p, const char *why, qc_err *err);

/* Opens the access log's path again (logrotate's create: the file was
 * moved away), after the write in flight; no line is lost. On the loop's
 * thread; in a group, on the first worker's, which tells the others. */
void qc_proxy_reopen_logs(qc_proxy *p);

#endif
