/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_remote.c: libFuzzer harness for the parsers of haproxy's and
 * pgbouncer's admin answers (src/live/remote_parse.c). The first byte
 * picks the parser; the rest is the answer, copied to a buffer of its
 * exact size so that a read past it is an ASan error. Invariants checked:
 * a value found is finite, a server list holds at most what was asked,
 * a PostgreSQL message found lies inside the input, and every refusal
 * carries a reason. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/live/remote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = size - 1;
    char *p = malloc(n ? n : 1);
    if (!p)
        return 0;
    memcpy(p, data + 1, n);
    qc__remote_fields f;
    qc_err err = {0};
    qc__remote_fields_parse(data[0] & 1 ? "qcur+scur" : "slim", &f, &err);
    double v = NAN;
    const char *why = NULL;
    int ok;
    switch (data[0] % 5) {
    case 0: {
        qc__haproxy_row r = {"b", "s1"};
        ok = qc__haproxy_stat_value(p, n, &r, &f, &v, &why);
        break;
    }
    case 1: {
        qc__remote_fields g;
        qc__remote_fields_parse("CurrConns+Maxconn", &g, &err);
        ok = qc__haproxy_info_value(p, n, &g, &v, &why);
        break;
    }
    case 2: {
        qc__haproxy_server s[4];
        unsigned c = 99;
        ok = qc__haproxy_servers(p, n, "b", s, 4, &c, &v, &why);
        if (ok && c > 4)
            abort();
        break;
    }
    case 3: {
        qc__remote_fields g;
        qc__remote_fields_parse("cl_active+cl_waiting", &g, &err);
        unsigned rows;
        ok = qc__pg_table_sum(p, n, (data[0] & 8) ? "database" : NULL, "app", &g, &v, &rows,
                              &why);
        /* the pool actuator's two answers: where the first ends, a text
         * cell of the second */
        size_t k = qc__pg_answer_len(p, n);
        if (k > n)
            abort();
        char t[8];
        if (qc__pg_table_text(p + k, n - k, "key", "server_lifetime", "value", t, sizeof t, &why) &&
            strlen(t) >= sizeof t)
            abort();
        break;
    }
    default: {
        size_t off = 0;
        qc__pg_msg m;
        while (off < n && qc__pg_next(p + off, n - off, &m) == 1) {
            if (m.total > n - off || m.body + m.body_len > p + n)
                abort();
            if (m.type == 'E') {
                char t[64];
                qc__pg_error_text(&m, t, sizeof t);
            }
            off += m.total;
        }
        char msg[32];
        qc__haproxy_applied(p, n, msg, sizeof msg);
        free(p);
        return 0;
    }
    }
    if (ok && !isfinite(v))
        abort();
    if (!ok && (!why || !why[0]))
        abort();
    free(p);
    return 0;
}
