/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_tls.c: the TLS configuration of `qctl proxy`: its checks, the
 * context its workers share, and a reload's new certificate.
 *
 * The context is built from the files each time the configuration is
 * read (start, every reload), so that a certificate renewed in place
 * (the same path, new contents) is served after a reload; it is built
 * before anything else of the reload is taken, so a certificate that
 * does not load refuses the whole reload and the old context keeps
 * serving. The connections' own I/O is in proxy_client.c ("TLS"). */
#include "live/proxy_int.h"

int qc__proxy_tls_check(const qc_proxy_params *o, qc_err *err)
{
    if (!o->tls_cert != !o->tls_key)
        return qc_err_set(err, QC_EINVAL, "%s without %s", o->tls_cert ? "--tls-cert" : "--tls-key",
                          o->tls_cert ? "--tls-key" : "--tls-cert");
    if (!(o->tls_handshake_timeout > 0) || !isfinite(o->tls_handshake_timeout))
        return qc_err_set(err, QC_EINVAL, "--tls-handshake-timeout: %g must be > 0",
                          o->tls_handshake_timeout);
    if (!o->tls_cert)
        return 0;
    qc__tls_ctx *t;
    int rc = qc__tls_ctx_new(o->tls_cert, o->tls_key, &t, err);
    qc__tls_ctx_free(t);
    return rc;
}

int qc__proxy_tls_slot_fill(qc__tls_slot *s, const qc_proxy_params *o, qc_err *err)
{
    if (!o->tls_cert)
        return 0;
    qc__tls_ctx *t;
    int rc = qc__tls_ctx_new(o->tls_cert, o->tls_key, &t, err);
    if (rc == 0)
        qc__tls_slot_set(s, t);
    return rc;
}
