/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tls.h: TLS on the proxy's listening side (tls.c), internal to src/live/.
 *
 * OpenSSL never touches a socket here: each connection's TLS engine reads
 * the bytes the loop received (qc__tls_feed) and leaves the bytes to send
 * in a buffer the caller takes (qc__tls_out_take) and writes with libuv,
 * so nothing blocks and the proxy's own backpressure (its write queue
 * bounds, its reads stopped) holds over TLS as over plain TCP. The
 * caller feeds and encrypts in pieces of at most QC__TLS_PIECE bytes, so
 * each engine's buffers stay within about a TLS record each whatever the
 * client sends.
 *
 * A context (certificate, key, protocol versions, ALPN) is shared by
 * every connection and every worker: a slot holds the one in use, each
 * connection takes a reference of its own when it starts (OpenSSL counts
 * them), and a reload puts a new context in the slot for the connections
 * that start after it while those already open keep theirs. */
#ifndef QC_LIVE_TLS_H
#define QC_LIVE_TLS_H

#include <pthread.h>
#include <stddef.h>

#include "qctl/error.h"

/* Ciphertext fed, or plaintext encrypted, at once: one TLS record. */
#define QC__TLS_PIECE 16384u

typedef struct qc__tls_ctx qc__tls_ctx;
typedef struct qc__tls qc__tls;

/* The context of cert (a PEM chain, the server's first) and key (PEM,
 * not encrypted): TLS 1.2 and 1.3 only, ALPN http/1.1 (a client that
 * offers ALPN without it is refused, RFC 7301 3.2), no renegotiation, no
 * compression. 0, or QC_EINVAL naming --tls-cert or --tls-key, the file
 * and OpenSSL's reason. */
int qc__tls_ctx_new(const char *cert, const char *key, qc__tls_ctx **out, qc_err *err);
/* Drops the caller's reference (connections still open keep theirs). */
void qc__tls_ctx_free(qc__tls_ctx *t);

/* The context in use, shared by threads. */
typedef struct qc__tls_slot {
    pthread_mutex_t mu;
    qc__tls_ctx *ctx;
} qc__tls_slot;

void qc__tls_slot_init(qc__tls_slot *s);
/* Puts ctx (the caller's reference, now the slot's) in place of the one
 * before, whose reference the slot drops. */
void qc__tls_slot_set(qc__tls_slot *s, qc__tls_ctx *ctx);
void qc__tls_slot_destroy(qc__tls_slot *s);

/* A server connection on the slot's context now (NULL: out of memory). */
qc__tls *qc__tls_accept(qc__tls_slot *s);
void qc__tls_free(qc__tls *t);

/* Received ciphertext p[0..n), n <= QC__TLS_PIECE. 0, or -1 (memory). */
int qc__tls_feed(qc__tls *t, const char *p, size_t n);

enum { QC__TLS_AGAIN = 0, QC__TLS_EOF = -1, QC__TLS_FAIL = -2 };
/* Plaintext into buf[0..cap): its length, or QC__TLS_AGAIN (more
 * ciphertext is needed: the handshake or a record not whole), QC__TLS_EOF
 * (the client's close_notify) or QC__TLS_FAIL (the client's bytes are no
 * TLS this side accepts: qc__tls_why says why). Drives the handshake. */
long qc__tls_read(qc__tls *t, char *buf, size_t cap);
/* 1 once the handshake is done. */
int qc__tls_ready(const qc__tls *t);
/* Encrypts p[0..n), n <= QC__TLS_PIECE, after the handshake: 0, or -1. */
int qc__tls_write(qc__tls *t, const char *p, size_t n);
/* The ciphertext waiting to be sent, and taking it (up to cap bytes). */
size_t qc__tls_out_pending(const qc__tls *t);
size_t qc__tls_out_take(qc__tls *t, char *buf, size_t cap);
/* Queues the close_notify alert (after the handshake; else nothing). */
void qc__tls_close_notify(qc__tls *t);
/* Why the last QC__TLS_FAIL (OpenSSL's reason), or "". */
const char *qc__tls_why(const qc__tls *t);

#endif
