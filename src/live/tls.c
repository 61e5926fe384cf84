/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tls.c: TLS termination for `qctl proxy` with OpenSSL over memory BIOs.
 *
 * The idea (tls.h): OpenSSL is a pure transformer here. Its read BIO is
 * filled with what the loop received and its write BIO emptied into
 * libuv writes, so the event loop never blocks on a handshake or a
 * record, and a connection's memory is bounded by what the caller hands
 * it at once (a record each way, QC__TLS_PIECE) plus the engine's own
 * state, whose record buffers are released while idle
 * (SSL_MODE_RELEASE_BUFFERS). OpenSSL keeps an error queue per thread:
 * every call that may fail starts with it empty and leaves it empty, so
 * one connection's failure never shows as another's on the same worker. */
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/tls.h"

struct qc__tls_ctx {
    SSL_CTX *ctx;
};

struct qc__tls {
    SSL *ssl;
    BIO *rb, *wb; /* owned by ssl */
    char why[160];
};

/* OpenSSL's reason for the last failure on this thread, then a clean
 * queue. */
static void last_error(char *out, size_t size)
{
    unsigned long e = ERR_peek_last_error();
    if (e)
        ERR_error_string_n(e, out, size);
    else
        snprintf(out, size, "no reason given");
    ERR_clear_error();
}

/* ALPN (RFC 7301): http/1.1, the one protocol the proxy speaks; a client
 * that offers others only gets the fatal alert 3.2 asks for. A client
 * that offers none is served HTTP/1.1 all the same. */
static int alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned inlen, void *arg)
{
    (void)s;
    (void)arg;
    static const unsigned char h11[] = "\x08http/1.1";
    unsigned char *o = NULL;
    if (SSL_select_next_proto(&o, outlen, h11, sizeof h11 - 1, in, inlen) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = o;
    return SSL_TLSEXT_ERR_OK;
}

/* An encrypted key would make OpenSSL ask on the terminal: refused. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return 0;
}

int qc__tls_ctx_new(const char *cert, const char *key, qc__tls_ctx **out, qc_err *err)
{
    *out = NULL;
    char why[256];
    ERR_clear_error();
    qc__tls_ctx *t = calloc(1, sizeof *t);
    SSL_CTX *ctx = t ? SSL_CTX_new(TLS_server_method()) : NULL;
    if (!ctx) {
        free(t);
        ERR_clear_error();
        return qc_err_set(err, QC_ENOMEM, "--tls-cert: out of memory");
    }
    t->ctx = ctx;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
    /* no client-initiated renegotiation (a CPU sink a client could
     * repeat at will), no compression (CRIME), the server's cipher order */
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    /* TLS 1.2 session ids cached in the context: bounded (1.3 resumes
     * with tickets the client holds) */
    SSL_CTX_sess_set_cache_size(ctx, 4096);
    SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
    int rc = 0;
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        last_error(why, sizeof why);
        rc = qc_err_set(err, QC_EINVAL, "--tls-cert: %s: not a readable PEM certificate (%s)",
                        cert, why);
    } else if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        last_error(why, sizeof why);
        rc = qc_err_set(err, QC_EINVAL,
                        "--tls-key: %s: not a readable PEM private key without a passphrase (%s)",
                        key, why);
    } else if (SSL_CTX_check_private_key(ctx) != 1) {
        last_error(why, sizeof why);
        rc = qc_err_set(err, QC_EINVAL, "--tls-key: %s is not the key of --tls-cert %s (%s)", key,
                        cert, why);
    }
    if (rc != 0) {
        qc__tls_ctx_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

void qc__tls_ctx_free(qc__tls_ctx *t)
{
    if (!t)
        return;
    SSL_CTX_free(t->ctx); /* a reference: connections hold their own */
    free(t);
}

void qc__tls_slot_init(qc__tls_slot *s)
{
    pthread_mutex_init(&s->mu, NULL);
    s->ctx = NULL;
}

void qc__tls_slot_set(qc__tls_slot *s, qc__tls_ctx *ctx)
{
    pthread_mutex_lock(&s->mu);
    qc__tls_ctx *old = s->ctx;
    s->ctx = ctx;
    pthread_mutex_unlock(&s->mu);
    qc__tls_ctx_free(old);
}

void qc__tls_slot_destroy(qc__tls_slot *s)
{
    qc__tls_ctx_free(s->ctx);
    s->ctx = NULL;
    pthread_mutex_destroy(&s->mu);
}

qc__tls *qc__tls_accept(qc__tls_slot *s)
{
    qc__tls *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    ERR_clear_error();
    pthread_mutex_lock(&s->mu);
    /* SSL_new takes its own reference on the context: a reload may drop
     * the slot's while this connection runs */
    t->ssl = s->ctx ? SSL_new(s->ctx->ctx) : NULL;
    pthread_mutex_unlock(&s->mu);
    t->rb = BIO_new(BIO_s_mem());
    t->wb = BIO_new(BIO_s_mem());
    if (!t->ssl || !t->rb || !t->wb) {
        SSL_free(t->ssl);
        BIO_free(t->rb);
        BIO_free(t->wb);
        free(t);
        ERR_clear_error();
        return NULL;
    }
    /* an empty read BIO is "try again", not the end of the stream */
    BIO_set_mem_eof_return(t->rb, -1);
    BIO_set_mem_eof_return(t->wb, -1);
    SSL_set_bio(t->ssl, t->rb, t->wb);
    SSL_set_accept_state(t->ssl);
    return t;
}

void qc__tls_free(qc__tls *t)
{
    if (!t)
        return;
    SSL_free(t->ssl); /* and its BIOs, and its reference on the context */
    free(t);
}

int qc__tls_feed(qc__tls *t, const char *p, size_t n)
{
    if (n == 0)
        return 0;
    ERR_clear_error();
    int k = BIO_write(t->rb, p, (int)n);
    ERR_clear_error();
    return k == (int)n ? 0 : -1;
}

long qc__tls_read(qc__tls *t, char *buf, size_t cap)
{
    ERR_clear_error();
    int k = SSL_read(t->ssl, buf, cap > (size_t)1 << 30 ? 1 << 30 : (int)cap);
    if (k > 0)
        return k;
    switch (SSL_get_error(t->ssl, k)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: /* a memory BIO always takes: not seen */
        ERR_clear_error();
        return QC__TLS_AGAIN;
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        return QC__TLS_EOF;
    default:
        last_error(t->why, sizeof t->why);
        return QC__TLS_FAIL;
    }
}

int qc__tls_ready(const qc__tls *t)
{
    return SSL_is_init_finished(t->ssl);
}

int qc__tls_write(qc__tls *t, const char *p, size_t n)
{
    if (n == 0)
        return 0;
    ERR_clear_error();
    int k = SSL_write(t->ssl, p, (int)n);
    if (k != (int)n) {
        last_error(t->why, sizeof t->why);
        return -1;
    }
    return 0;
}

size_t qc__tls_out_pending(const qc__tls *t)
{
    return BIO_ctrl_pending(t->wb);
}

size_t qc__tls_out_take(qc__tls *t, char *buf, size_t cap)
{
    int k = BIO_read(t->wb, buf, cap > (size_t)1 << 30 ? 1 << 30 : (int)cap);
    ERR_clear_error();
    return k > 0 ? (size_t)k : 0;
}

void qc__tls_close_notify(qc__tls *t)
{
    if (!SSL_is_init_finished(t->ssl))
        return;
    ERR_clear_error();
    SSL_shutdown(t->ssl);
    ERR_clear_error();
}

const char *qc__tls_why(const qc__tls *t)
{
    return t->why;
}
