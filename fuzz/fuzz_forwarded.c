/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_forwarded.c: libFuzzer harness for the forwarding headers of
 * `qctl proxy` (src/live/forwarded.c) on any request head: the first
 * byte picks the headers switched on. Invariants checked: what is added
 * is bounded by the head (every value copied once, plus a fixed amount
 * per header), the request id sent is a kept plain token of at most 128
 * characters or 32 hex digits, and no line added holds a CR or LF
 * inside it (nothing injected into the request sent on). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../src/live/forwarded.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    qc__fwd f = {data[0] & 1, data[0] >> 1 & 1, data[0] >> 2 & 1, data[0] >> 3 & 1};
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    qc__http_head h;
    const char *why = NULL;
    if (qc__http_parse_head(buf, len, 1, &h, &why) <= 0)
        return 0;
    qc__buf out = {0};
    char id[QC_FWD_ID_MAX + 1] = "";
    const char *peer = data[0] & 16 ? "2001:db8::1" : "127.0.0.1";
    if (qc__fwd_append(&f, &out, buf, &h, peer, data[0] >> 5 & 1, id) != 0)
        abort(); /* out of memory on a bounded head: not expected */
    if (out.len > 2 * h.head_len + 512)
        abort();
    for (size_t i = 0; i < out.len; i++) /* CR only before LF, LF only after CR */
        if ((out.data[i] == '\r' && (i + 1 >= out.len || out.data[i + 1] != '\n')) ||
            (out.data[i] == '\n' && (i == 0 || out.data[i - 1] != '\r')))
            abort();
    if (f.request_id) {
        size_t n = strlen(id);
        if (!qc__fwd_request_id_ok(id, n))
            abort();
    } else if (id[0]) {
        abort();
    }
    qc__buf_free(&out);
    return 0;
}
