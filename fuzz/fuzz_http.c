/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_http.c: libFuzzer harness for qctl's HTTP head parser and chunked
 * framer. The first byte picks request or response and a split point, so
 * the incremental paths (a head or a body arriving in two reads) are
 * exercised too. Invariants checked: a complete head lies inside the
 * input, spans point inside it, the framer never claims more bytes than it
 * was given. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../src/live/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int request = !(data[0] & 1);
    size_t split = data[0] >> 1;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    qc__http_head h;
    const char *why = NULL;
    if (split < len && qc__http_parse_head(buf, split, request, &h, &why) < 0 && !why)
        abort();
    int rc = qc__http_parse_head(buf, len, request, &h, &why);
    if (rc < 0) { /* every reason maps to a status the proxy can send */
        int st = why ? qc__http_error_status(why) : 0;
        if (st != 400 && st != 414 && st != 431 && st != 501 && st != 505)
            abort();
    }
    if (rc <= 0)
        return 0;
    if ((size_t)rc > len || h.head_len != (size_t)rc)
        abort();
    for (unsigned i = 0; i < h.nhdr; i++)
        if ((size_t)h.value[i].off + h.value[i].len > len || h.name[i].off + h.name[i].len > len)
            abort();
    /* the whole message's length: within the input, at least the head */
    long whole = qc__http_message_len(buf, len, &h, 1u << 20, &why);
    if (whole > 0 && ((size_t)whole > len || (size_t)whole < h.head_len))
        abort();
    if (!h.chunked)
        return 0;
    qc__http_chunked c = {0};
    size_t pos = (size_t)rc;
    int done = 0;
    while (pos < len && !done) {
        size_t step = (len - pos) > 7 ? 7 : len - pos;
        long n = qc__http_chunked_feed(&c, buf + pos, step, &done, &why);
        if (n < 0)
            break;
        if ((size_t)n > step)
            abort();
        if ((size_t)n < step && !done)
            abort();
        pos += (size_t)n;
    }
    /* framed 7 bytes at a time or all at once, the body ends at one place */
    if (done != (whole > 0) || (done && (size_t)whole != pos))
        abort();
    return 0;
}
