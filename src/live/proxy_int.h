/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_int.h: what the files of `qctl proxy` share (not installed).
 *
 * The proxy is one loop over client connections (proxy_client.c), backend
 * links (proxy_upstream.c), the backend fleet (proxy_fleet.c) and the admin
 * listener (proxy_admin.c), with the setup, the control interval and the
 * queue in proxy.c; proxy.c's opening comment gives the invariant they keep
 * together. Functions one file calls in another are named qc__proxy_. */
#ifndef QC_LIVE_PROXY_INT_H
#define QC_LIVE_PROXY_INT_H

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "live/accesslog.h"
#include "live/http.h"
#include "live/live.h"
#include "live/pcore.h"
#include "live/tls.h"
#include "qctl/front.h"
#include "qctl/hist.h"

typedef struct cconn cconn;

/* What the access log says of a request, kept from its head to its
 * answer (allocated only while the log is on). */
typedef struct alog_rec {
    char request[1024], referer[512], agent[512];
    size_t request_len, referer_len, agent_len;
    int has_request, has_referer, has_agent;
    int status;           /* the backend's status (0: none yet) */
    uint64_t sent, head;  /* bytes sent to the client, the head's of them */
    const char *decision; /* the front's: "admitted" or a reason; NULL: none yet */
    double t_admit;
    int backend; /* its index + 1 (0: none): a name is looked up when the line
                    is written, since a reload may free the names of before */
} alog_rec;
typedef struct uconn uconn;
typedef struct proxy proxy;

/* A client's request bytes (its req buffer) while writes to a backend
 * read them where they are: refs counts those writes, and one more while
 * the client still holds the buffer. A client that lets the buffer go
 * (qc__proxy_req_release) with writes still out leaves it to the last of
 * them, counted in *mem (--max-memory) until then. */
typedef struct reqpin {
    unsigned refs;
    int orphan; /* the client let go: the last write frees data */
    char *data;
    size_t cap;
    atomic_size_t *mem;
} reqpin;

typedef struct probe probe;
typedef struct fcmd fcmd;

/* A backend: its address and links; its power state and counts are in
 * P->fleet (fleet.h), at the same index. */
typedef struct pbackend {
    int kind, what; /* K_FLEET, F_BACKEND: see close_walk */
    struct sockaddr_storage addr;
    const char *name;
    char host[64];
    int port;
    unsigned index;
    proxy *P;
    uconn *idle;
    uconn *wait_head, *wait_tail; /* requests waiting for its setup */
    fcmd *cmd;                    /* its un/park command running, or NULL */
    probe *probe;                 /* its health probe in flight, or NULL */
    uv_timer_t health;            /* polls the health path while SETUP, probes
                                     an ON one (out of rotation, or --health-check) */
    unsigned fails;               /* failures in a row (passive health) */
    int out;                      /* taken out of rotation: see backend_failed */
    uint64_t ejections;
} pbackend;

enum { K_CLIENT = 1, K_UPSTREAM = 2, K_FLEET = 3 };
enum { F_BACKEND = 1, F_PROBE, F_CMD };

/* One GET of the health path of a SETUP backend. */
struct probe {
    int kind, what; /* K_FLEET, F_PROBE */
    uv_tcp_t tcp;
    uv_connect_t connect;
    pbackend *b;
    char buf[64];
    size_t len;
    int closing;
};

/* An un/park command running through /bin/sh -c. */
struct fcmd {
    int kind, what; /* K_FLEET, F_CMD */
    uv_process_t proc;
    uv_timer_t timer; /* its time bound */
    pbackend *b;
    int park, spawned, exited, timed_out, closing, handles_open;
};

struct cconn {
    int kind; /* K_CLIENT: first, see close_walk */
    cconn *all_prev, *all_next; /* P's clients (see qc__proxy_stop) */
    uv_tcp_t tcp;
    uv_timer_t timer;
    qc__deadline dl; /* its header and idle timeouts, kept lazily */
    proxy *P;
    qc__buf in;
    qc__buf req; /* the request being carried */
    struct reqpin *pin; /* req's bytes in writes to a backend (NULL: none): see
                           "the request written in place" in proxy_upstream.c */
    int admin, closing, handles_open;
    int state; /* C_READ, C_QUEUED, C_UPSTREAM */
    int keep;
    int head_timer_on;
    int head_method; /* the request is HEAD: its response has no body */
    int processing;  /* client_process's loop is running: see there */
    int rpaused;     /* reading stopped: see client_flow */
    int ending;      /* its last answer is written: closes after it */
    int idem;        /* the request's method is idempotent (RFC 9110 9.2.2) */
    int minor;       /* the request's HTTP/1.minor */
    int continued;   /* 100 Continue sent for the request being read */
    size_t mem;      /* its buffers' bytes counted in P->mem */
    size_t wpending; /* bytes of its answers written and not yet called back:
                        uv_write may hand them all to the kernel at once and
                        still hold each request until the next loop turn */
    /* a request body streamed to the backend as it arrives (see
     * "streaming the request body" in proxy_upstream.c): the head is in
     * req, the body's next bytes at the front of in */
    int body_stream;          /* body bytes are still to be sent */
    int body_chunked;         /* framed by chunked coding (else by length) */
    uint64_t body_left;       /* by length: bytes still to send */
    uint64_t body_sent;       /* bytes sent to the backend so far */
    qc__http_chunked body_ch; /* chunked: the framer */
    /* a body read whole before its request goes to the front (see
     * body_buffer in proxy_client.c): in holds the request once it has
     * this many bytes (0: none being buffered) */
    size_t body_need;
    double mem_wait; /* since when its body waits for --max-memory room (0: not) */
    unsigned tries;  /* times the request was sent again: see retry */
    unsigned cls;
    double t_arrive;
    uconn *up;
    qc_front_handle fh; /* C_QUEUED: its place in the front's waiting room */
    /* workers (see "workers" in proxy.c): a decision on c taken by another
     * worker's event comes through its proxy's mailbox */
    qc_front_decision ho; /* the decision handed over */
    cconn *ho_next;       /* the mailbox's link */
    unsigned worker;      /* its proxy's index in the group (P is not read by others) */
    int zombie;           /* closed while a decision on it was on its way:
                             freed when it comes */
    char peer[48];      /* the client's numeric address (forwarded.c, the access log) */
    char reqid[129];    /* the X-Request-Id sent with the request (empty: none) */
    alog_rec *lr;       /* the access log's record (NULL: no log) */
    /* TLS (see "TLS" in proxy_client.c): NULL on plain TCP */
    qc__tls *tls;
    int tls_up; /* its handshake is done */
};

enum { C_READ = 0, C_QUEUED, C_UPSTREAM };
/* uconn.placed: see "backend fleet" */
enum { PLACED_NONE = 0, PLACED_WAITING, PLACED_SENT };

struct uconn {
    int kind; /* K_UPSTREAM */
    uconn *all_prev, *all_next; /* P's backend links (see qc__proxy_stop) */
    uv_tcp_t tcp;
    uv_connect_t connect;
    uv_timer_t timer;
    qc__deadline dl; /* its backend timeout, kept lazily */
    const char *phead; /* a response head not yet written (upstream_feed) */
    size_t phn;
    proxy *P;
    pbackend *b;
    cconn *client;
    qc__buf in;
    qc_front_token tok; /* its slot (tok.live: held) */
    unsigned cls;
    int head_method; /* answering a HEAD request: no body follows the head */
    double t_admit;
    double t_arrive; /* its client's request arrived (the delay ADMISSION measures) */
    double t_sent;   /* the request was whole at the backend (0: not yet) */
    double t_first;  /* the response's first byte came (0: not yet): see backend_time */
    double t_first_seen; /* ... and was read */
    /* the response being streamed (see response_end) */
    int rstate, framing, keep_resp, head_sent, paused;
    uint64_t left; /* F_LENGTH: body bytes still to come */
    qc__http_chunked ch;
    int busy, closing, handles_open, to_close; /* to_close: body ends at EOF */
    int reframe; /* a body to the close, sent to the client chunked */
    uconn *next_idle;
    int placed;       /* PLACED_*: waiting at a backend in setup, or sent */
    int connected;    /* the link to b is up or being made */
    int link_up;      /* the connect succeeded (a kept link: before) */
    int reused;       /* the link carried a request before this one */
    uconn *next_wait; /* b's list of requests waiting for its setup */
};

/* The counters the lead worker's /metrics and /status add up while the
 * other workers run (proxy_admin.c, group_view): each is written by its
 * own worker's thread only and read by the lead's, so they are atomics
 * (a plain counter read from another thread is a data race, whatever
 * the hardware does). Written as plain `x++`; read as they stand. */
typedef _Atomic uint64_t qc__ctr64;
typedef _Atomic unsigned qc__ctru;

/* Latency histogram buckets of /metrics (seconds; +Inf implied). */
#define LAT_BUCKETS 13
extern const double qc__proxy_lat_le[LAT_BUCKETS];
/* A class: its counts and its requests waiting (the waiting room and the
 * order it is served in are the front's: qctl/front.h). */
typedef struct pclass {
    const char *name;
    double bound;
    qc__ctr64 admitted, refused, answered;
    qc_hist *lat;
    qc__ctr64 lat_bucket[LAT_BUCKETS + 1];
    _Atomic double lat_sum;
    qc__ctru qlen;
} pclass;

_Static_assert(QC_PROXY_CLASSES_MAX + 1 <= QC_FRONT_CLASSES_MAX, "a front class per class");

/* One worker of a group: its proxy, and the mailbox through which the
 * other workers hand it the decisions on its requests. */
typedef struct pworker {
    proxy *P;          /* NULL before start and after its close */
    uv_async_t *async; /* P's wakeup; NULL once closing */
    cconn *mb_head, *mb_tail;
    const qc_proxy_params *reload; /* a configuration the first worker took, for this one */
    int reopen;                    /* the access log to open again (SIGUSR1) */
} pworker;

/* Proxies on several threads sharing one admission front (qc_proxy_group). */
struct qc_proxy_group {
    qc_proxy_params o;
    qc_front *front;
    pthread_mutex_t mu; /* the mailboxes, the workers' P and async */
    int port;           /* the port the first worker bound (the others join it) */
    qc__tls_slot tls;     /* TLS: the context the workers share (ctx NULL: none) */
    atomic_uint nclients; /* --max-connections over all workers */
    atomic_size_t mem;    /* --max-memory over all workers */
    /* passive health, one state per backend for the whole group (see
     * "health" in proxy_fleet.c): failures in a row over all workers,
     * and out of rotation; each worker follows it at its control tick */
    _Atomic unsigned hfails[QC_PROXY_BACKENDS_MAX];
    atomic_int hout[QC_PROXY_BACKENDS_MAX];
    unsigned n;
    pworker w[];
};

struct proxy {
    uv_loop_t *loop; /* the host's: the proxy closes only its own handles */
    qc_proxy_params o_copy; /* start's copy of the caller's configuration */
    const qc_proxy_params *o; /* &o_copy */
    uv_tcp_t listener, admin;
    int admin_on;
    int listener_open, admin_open; /* not yet closed (drain closes them) */
    uv_timer_t control;
    /* the waiting room's one timer: armed at the earliest deadline the
     * front gave (room_due; INFINITY: not armed), see qc__proxy_room_arm */
    uv_timer_t room;
    double room_due;
    /* the lifecycle (see "lifecycle" in proxy.c): every handle the proxy
     * opens is counted in handles until its close callback; its clients
     * and backend links are on these lists, so that it closes them and
     * nothing else on the host's loop */
    uv_timer_t drain_timer; /* the drain's checks and deadline; closed last */
    unsigned handles;
    cconn *clients_head, *clients_tail;
    uconn *ups_head, *ups_tail;
    int stopped;          /* every handle but drain_timer closed or closing */
    int close_requested;  /* qc_proxy_close was called */
    void (*on_closed)(struct proxy *P, void *arg);
    void *on_closed_arg;
    int port, admin_port; /* the bound ports */
    char slab[65536];     /* read buffer of this proxy's loop: on_read copies out */
    qc_front *front;  /* every admission decision: see "the admission front" */
    qc_limiter *lim;  /* the front's limiter (statistics, admin changes) */
    qc__pcore core;   /* the events in, the decisions out: pcore.h */
    pbackend backend[QC_PROXY_BACKENDS_MAX];
    unsigned nb, rr;
    qc__fleet fleet;
    uint64_t unpark_failures, park_failures, setup_timeouts;
    pclass cls[QC_PROXY_CLASSES_MAX + 1];
    unsigned ncls;
    qc__ctru qlen; /* waiting, all classes */
    qc__ctru inflight;
    int draining;
    qc__ctr64 bad_requests, errors502, errors504, conns;
    double retry_tokens, retry_t; /* the retry budget: see retry_allowed */
    qc__ctr64 retries, retries_denied;
    atomic_size_t *mem; /* bytes in the clients' request buffers (--max-memory), the
                           proxy's or its group's */
    qc__ctr64 q_shed;  /* requests refused by the short deadline (codel) */
    /* requests answered 503, by reason: the front's (qc_front_reason),
     * then REFUSED_NO_BACKEND */
    qc__ctr64 refused_why[QC_FRONT_REASONS + 1];
    char token[256];   /* the admin token (read or generated), or empty */
    char token_out[4096]; /* where a generated token was written (removed at exit), or empty */
    qc__ctr64 admin_browser, admin_token; /* state changes refused: from a browser, no token */
    double drain_until; /* draining: stop at this time (--drain-timeout) */
    int drain_shortened; /* a later qc_proxy_drain brought the deadline nearer */
    unsigned cut;       /* requests in flight when stop_now cut them */
    atomic_uint nclients_own, *nclients; /* client connections open (--max-connections):
                                            the proxy's, or its group's */
    atomic_size_t mem_own;               /* see mem */
    qc_proxy_group *g;                   /* NULL: a proxy alone; else its group */
    unsigned index;                      /* its worker's (0: the lead: admin, series, ticks) */
    uv_async_t async;                    /* a group's: its mailbox has decisions */
    qc__ctr64 refused_conns, refused_mem, too_large;
    double t0;
    FILE *series;
    /* the event loop's own delay: see qc__proxy_ready_time */
    uv_prepare_t prep;
    uv_check_t check;
    double now_c; /* qc__proxy_now's, when now_ok */
    int now_ok;
    /* reloads (proxy_reload.c): SIGHUP and POST /reload */
    uint64_t reloads, reload_failed;
    char reload_error[256]; /* why the last reload was refused, or empty */
    /* the access log (proxy_log.c) and SIGUSR1, which reopens it */
    qc__alog alog;
    int alog_on;
    uint64_t alog_warned; /* lines dropped when the last warning said so */
    double alog_warn_t;   /* that warning's time */
    /* TLS (tls.h): the slot of the context in use, P's own or its group's
     * (NULL: plain TCP), and the handshakes done, failed, timed out */
    qc__tls_slot *tls, tls_own;
    uint64_t tls_ok, tls_failed, tls_timeouts;
    double t_prep, t_ret, lag;
    int polled;
};

/* Buffers larger than this are given back once their request is over: a
 * large body is not kept while its connection idles. */
#define BUF_KEEP (64u << 10)
/* The largest body read whole before its request enters the front (a
 * larger one, or one past --max-memory, streams: see body_buffer). */
#define BODY_BUFFER_MAX (16u << 20)

/* Writes to a client go through one path (client_write) whose completion
 * (on_client_write) resumes whatever waited for the client's write queue
 * to drain: an upstream streaming to it (see stream_out) or the client's
 * own pipelined requests (see client_process). WQ_HIGH bounds the unsent
 * bytes held for one client; WQ_LOW is where waiting ends. */
#define WQ_HIGH (256u << 10)
#define WQ_LOW (64u << 10)
/* Request bytes read ahead while a request is being carried: beyond it the
 * client is not read until its current request is answered. */
#define IN_HIGH (64u << 10)
/* The admin port's requests carry no body of use: one over this many
 * bytes (or chunked) is answered 413, so that an admin client holds what
 * a public one holds at most (the public port streams its bodies). */
#define ADMIN_BODY_MAX 4096u
/* Unsent answers beyond which a client's pipelined requests wait: small
 * answers cost several times their size in write requests. */
#define WQ_REPLIES (32u << 10)

enum { R_HEAD = 0, R_BODY };
enum { F_LENGTH = 0, F_CHUNKED, F_CLOSE };

typedef struct cwrite {
    uv_write_t req;
    cconn *c;
    size_t n; /* counted in c->wpending until called back */
    char data[];
} cwrite;

/* The retry budget's tokens: see "retries" in proxy_upstream.c. */
#define RETRY_FLOOR 5.0
#define RETRY_CAP 20.0

/* proxy_client.c */
void qc__proxy_accept_client(uv_stream_t *server, int status, int admin);
void qc__proxy_client_close(cconn *c);
void qc__proxy_client_close_after_write(cconn *c);
void qc__proxy_client_idle(cconn *c);
uint64_t qc__proxy_client_step(const proxy *P);
/* The time of this turn of P's loop (read once a turn: see proxy.c). */
double qc__proxy_now(proxy *P);
void qc__proxy_client_process(cconn *c);
void qc__proxy_client_reply(cconn *c, int status, const char *reason, const char *extra,
                            const char *ctype, const char *body, size_t blen);
size_t qc__proxy_client_wq(cconn *c);
int qc__proxy_client_write(cconn *c, const char *p, size_t n);
/* p[0..n) then q[0..m), in one write where it can. */
int qc__proxy_client_write2(cconn *c, const char *p, size_t n, const char *q, size_t m);
void qc__proxy_on_connection(uv_stream_t *server, int status);
void qc__proxy_record_latency(pclass *k, double s);
/* 503 for c: why is a qc_front_reason, or REFUSED_NO_BACKEND. */
void qc__proxy_refuse_why(cconn *c, unsigned why);
#define REFUSED_NO_BACKEND ((unsigned)QC_FRONT_REASONS)
/* 503 for c: no backend to send it to (REFUSED_NO_BACKEND). */
void qc__proxy_refuse(cconn *c);
void qc__proxy_too_large(cconn *c);

/* proxy_upstream.c */
void qc__proxy_forward(cconn *c, uconn *tok_holder, int avoid);
int qc__proxy_hop_by_hop(const char *buf, const qc__http_head *h, unsigned i, int reframe);
int qc__proxy_method_idempotent(const char *m, size_t n);
void qc__proxy_on_upstream_timer(uv_timer_t *t);
void qc__proxy_retry_deposit(proxy *P);
void qc__proxy_send_request(uconn *u);
void qc__proxy_upstream_close(uconn *u);
void qc__proxy_upstream_done(uconn *u, int outcome);
void qc__proxy_upstream_resume(uconn *u);
void qc__proxy_body_pump(uconn *u);
void qc__proxy_body_abandon(uconn *u);
/* c's req buffer is about to change or be freed: writes still reading it
 * take it with them (c->req is then empty). */
void qc__proxy_req_release(cconn *c);

/* proxy_fleet.c */
void qc__proxy_backend_answered(pbackend *b);
void qc__proxy_backend_failed(pbackend *b);
int qc__proxy_backend_is_on(const pbackend *b);
void qc__proxy_fleet_handle_close(uv_handle_t *h);
void qc__proxy_fleet_request_done(uconn *u, int ok);
void qc__proxy_fleet_tick(proxy *P, double now);
void qc__proxy_health_schedule(pbackend *b);
void qc__proxy_place(uconn *u, int i, int unparked);
void qc__proxy_unpark_start(pbackend *b);
void qc__proxy_unwait(uconn *u);
void qc__proxy_setup_deadline(uconn *u);

/* proxy_admin.c */
int qc__proxy_admin_authorized(const proxy *P, const char *buf, const qc__http_head *h);
const char *qc__proxy_admin_browser(const char *buf, const qc__http_head *h);
void qc__proxy_admin_request(cconn *c, const char *target, size_t tlen, int post, int authorized,
                             const char *browser);
void qc__proxy_on_admin_connection(uv_stream_t *server, int status);
int qc__proxy_read_token(const char *path, char *out, size_t size, qc_err *err);
int qc__proxy_admin_token_start(proxy *P, qc_err *err);
void qc__proxy_admin_token_end(proxy *P);

/* proxy_log.c */
void qc__proxy_log_head(cconn *c, const char *buf, const qc__http_head *h);
void qc__proxy_log_answer(cconn *c, int status, uint64_t body, double upstream_time);
/* c closes: a request of it read and not answered gets its line (499). */
void qc__proxy_log_gone(cconn *c);

/* proxy_reload.c */
int qc__proxy_reload_request(proxy *P, const char *why, qc_err *err);
void qc__proxy_reload_local(proxy *P, const qc_proxy_params *n);

/* proxy_tls.c */
int qc__proxy_tls_check(const qc_proxy_params *o, qc_err *err);
int qc__proxy_tls_slot_fill(qc__tls_slot *s, const qc_proxy_params *o, qc_err *err);

/* proxy.c */
void qc__proxy_handle_closed(proxy *P);
void qc__proxy_own_closed(uv_handle_t *h);
void qc__proxy_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf);
void qc__proxy_arrive(cconn *c);
void qc__proxy_done(proxy *P, qc_front_token *tok, double service, int outcome);
void qc__proxy_carry(proxy *P, qc_front_token *tok, int on);
void qc__proxy_forget(cconn *c);
void qc__proxy_plog(const proxy *P, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double qc__proxy_queue_target(proxy *P);
int qc__proxy_standing(proxy *P);
double qc__proxy_ready_time(proxy *P);

#endif
