/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_http.c: qctl's HTTP head parser and chunked framer on hand-written
 * messages: complete, partial, and each kind of malformed input the proxy
 * must answer 400. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "live/http.h"
#include "qctl/error.h"

static int parse(const char *s, int request, qc__http_head *h, const char **why)
{
    return qc__http_parse_head(s, strlen(s), request, h, why);
}

static void test_request(void **state)
{
    (void)state;
    qc__http_head h;
    const char *why = NULL;
    const char *s = "GET /a?b HTTP/1.1\r\nHost: x\r\nX-Class:  gold \r\n\r\nrest";
    int rc = parse(s, 1, &h, &why);
    assert_int_equal(rc, (int)strlen(s) - 4);
    assert_int_equal(h.minor, 1);
    assert_int_equal(h.keep_alive, 1);
    assert_int_equal(h.content_length, -1);
    assert_memory_equal(s + h.target.off, "/a?b", 4);
    size_t n;
    const char *v = qc__http_header(s, &h, "x-class", &n);
    assert_non_null(v);
    assert_int_equal(n, 4);
    assert_memory_equal(v, "gold", 4);
    /* every prefix is "need more" */
    for (size_t k = 0; k < strlen(s) - 4; k++)
        assert_int_equal(qc__http_parse_head(s, k, 1, &h, &why), 0);
    assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n", 1, &h, &why), 18);
    assert_int_equal(h.keep_alive, 0);
    parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 1, &h, &why);
    assert_int_equal(h.keep_alive, 0);
    parse("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n", 1, &h, &why);
    assert_int_equal(h.content_length, 12);
}

static void test_response(void **state)
{
    (void)state;
    qc__http_head h;
    const char *why;
    assert_true(parse("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\r\n", 0, &h, &why) >
                0);
    assert_int_equal(h.status, 503);
    assert_true(parse("HTTP/1.1 200\r\nTransfer-Encoding: chunked\r\n\r\n", 0, &h, &why) > 0);
    assert_int_equal(h.chunked, 1);
    assert_int_equal(parse("HTTP/1.1 2x0 OK\r\n\r\n", 0, &h, &why), QC_EPARSE);
}

static void test_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "GARBAGE\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n",
        "GET / HTTP/2.0\r\n\r\n",
        "GET / HTTP/1.1\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\r\n  folded\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "GET / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        qc__http_head h;
        const char *why = NULL;
        assert_int_equal(parse(bad[i], 1, &h, &why), QC_EPARSE);
        assert_non_null(why);
    }
    static char big[QC__HTTP_HEAD_MAX + 10];
    memset(big, 'a', sizeof big - 1);
    memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
    qc__http_head h;
    const char *why = NULL;
    assert_int_equal(parse(big, 1, &h, &why), QC_EPARSE);
    assert_string_equal(why, "header too large");
    assert_int_equal(qc__http_error_status(why), 431);
    /* a request line with no end within the bound: 414 */
    memset(big, 'a', sizeof big - 1);
    memcpy(big, "GET /", 5);
    assert_int_equal(parse(big, 1, &h, &why), QC_EPARSE);
    assert_int_equal(qc__http_error_status(why), 414);
    /* a bare LF is refused at once, before a blank line */
    assert_int_equal(parse("GET / HTTP/1.1\nHost: a\n", 1, &h, &why), QC_EPARSE);
    assert_int_equal(qc__http_error_status(why), 400);
    assert_int_equal(parse("GET / HTTP/2.0\r\n\r\n", 1, &h, &why), QC_EPARSE);
    assert_int_equal(qc__http_error_status(why), 505);
    assert_int_equal(parse("GET / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 1, &h, &why),
                     QC_EPARSE);
    assert_int_equal(qc__http_error_status(why), 501);
}

static void test_chunked(void **state)
{
    (void)state;
    const char *body = "5\r\nhello\r\na;ext=1\r\n0123456789\r\n0\r\nT: v\r\n\r\nNEXT";
    size_t len = strlen(body) - 4;
    /* fed one byte at a time, the framer ends exactly at the body's end */
    qc__http_chunked c = {0};
    int done = 0;
    const char *why;
    size_t used = 0;
    for (size_t i = 0; i < strlen(body) && !done; i++) {
        long n = qc__http_chunked_feed(&c, body + i, 1, &done, &why);
        assert_true(n == 1);
        used += (size_t)n;
    }
    assert_true(done);
    assert_int_equal(used, len);
    qc__http_chunked d = {0};
    assert_int_equal(qc__http_chunked_feed(&d, body, strlen(body), &done, &why), (long)len);
    assert_true(done);
    static const char *const bad[] = {"zz\r\n", "5\r\nhelloX", "5\nhello", "1234567890abcdef0\r\n"};
    for (size_t i = 0; i < 4; i++) {
        qc__http_chunked e = {0};
        assert_int_equal(qc__http_chunked_feed(&e, bad[i], strlen(bad[i]), &done, &why), QC_EPARSE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_response),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_chunked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
