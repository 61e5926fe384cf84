/* SPDX-License-Identifier: GPL-3.0-or-later */
/* http.c: the strict HTTP/1.1 head parser and chunked framer of http.h.
 *
 * A head is complete at the first CRLF CRLF; nothing is interpreted
 * before that, so a partial head never yields a partial answer. Each
 * line is then checked against RFC 9112's grammar, narrowed: token
 * characters in methods and field names, visible characters in the
 * target, no control characters but HTAB in values. Framing follows
 * RFC 9112 section 6.3: a Transfer-Encoding other than chunked, or one
 * next to a Content-Length, is refused rather than guessed at. */
#include "live/http.h"

#include <string.h>
#include <strings.h>

#include "qctl/error.h"

/* RFC 9110's tchar: a table, since every byte of every header name is
 * looked up (a strchr per byte was a tenth of a proxied request's
 * parsing). */
#define TC_AZ(b) [b] = 1, [b + 1] = 1, [b + 2] = 1, [b + 3] = 1, [b + 4] = 1, [b + 5] = 1, \
    [b + 6] = 1, [b + 7] = 1, [b + 8] = 1, [b + 9] = 1, [b + 10] = 1, [b + 11] = 1, [b + 12] = 1, \
    [b + 13] = 1, [b + 14] = 1, [b + 15] = 1, [b + 16] = 1, [b + 17] = 1, [b + 18] = 1,          \
    [b + 19] = 1, [b + 20] = 1, [b + 21] = 1, [b + 22] = 1, [b + 23] = 1, [b + 24] = 1, [b + 25] = 1
static const unsigned char tchar[256] = {
    TC_AZ('a'), TC_AZ('A'), ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
    ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1,
    ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1,
    ['`'] = 1, ['|'] = 1, ['~'] = 1};
#undef TC_AZ

static int is_tchar(unsigned char c)
{
    return tchar[c];
}

static int fail(const char **why, const char *msg)
{
    if (why)
        *why = msg;
    return QC_EPARSE;
}

static int eq_nocase(const char *a, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(a, lit, n) == 0;
}

/* End of the head (index just past CRLF CRLF), or 0. A bare LF is an
 * error found later by the line checks, not a terminator. */
static size_t head_end(const char *buf, size_t len)
{
    /* from LF to LF (memchr, not a byte loop: this was a third of the
     * parse's cost) */
    size_t i = 3;
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        if (!nl)
            return 0;
        i = (size_t)(nl - buf);
        if (buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
            return i + 1;
        i++;
    }
    return 0;
}

static int parse_version(const char *p, size_t n, int *minor)
{
    if (n != 8 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9')
        return -1;
    *minor = p[7] - '0';
    return 0;
}

static int start_line(const char *buf, size_t n, int request, qc__http_head *h, const char **why)
{
    if (request) {
        size_t i = 0;
        while (i < n && is_tchar((unsigned char)buf[i]))
            i++;
        if (i == 0 || i > 32 || i >= n || buf[i] != ' ')
            return fail(why, "bad method in request line");
        h->method = (qc__http_span){0, (uint32_t)i};
        size_t t = ++i;
        while (i < n && (unsigned char)buf[i] > 0x20 && (unsigned char)buf[i] < 0x7f)
            i++;
        if (i == t || i >= n || buf[i] != ' ')
            return fail(why, "bad target in request line");
        h->target = (qc__http_span){(uint32_t)t, (uint32_t)(i - t)};
        if (parse_version(buf + i + 1, n - i - 1, &h->minor) != 0) {
            const char *v = buf + i + 1;
            if (n - i - 1 == 8 && memcmp(v, "HTTP/", 5) == 0 && v[5] >= '0' && v[5] <= '9' &&
                v[6] == '.' && v[7] >= '0' && v[7] <= '9')
                return fail(why, QC__HTTP_WHY_VERSION);
            return fail(why, "bad HTTP version in request line");
        }
        return 0;
    }
    if (n < 12 || parse_version(buf, 8, &h->minor) != 0 || buf[8] != ' ')
        return fail(why, "bad status line");
    int st = 0;
    for (int i = 9; i < 12; i++) {
        if (buf[i] < '0' || buf[i] > '9')
            return fail(why, "bad status code");
        st = st * 10 + (buf[i] - '0');
    }
    if (st < 100 || (n > 12 && buf[12] != ' '))
        return fail(why, "bad status code");
    for (size_t i = 13; i < n; i++)
        if ((unsigned char)buf[i] < 0x20 && buf[i] != '\t')
            return fail(why, "control character in reason phrase");
    h->status = st;
    return 0;
}

static int content_length(const char *v, size_t n, int64_t *out)
{
    if (n == 0 || n > 15)
        return -1;
    int64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        x = x * 10 + (v[i] - '0');
    }
    *out = x;
    return 0;
}

/* Connection: a comma list; "close" and "keep-alive" matter. */
static void connection(const char *v, size_t n, qc__http_head *h)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',' && v[i] != ' ' && v[i] != '\t')
            i++;
        if (eq_nocase(v + s, i - s, "close"))
            h->keep_alive = 0;
        else if (eq_nocase(v + s, i - s, "keep-alive"))
            h->keep_alive = 1;
    }
}

static int field(const char *buf, size_t off, size_t n, qc__http_head *h, int *saw_te,
                 const char **why)
{
    const char *p = buf + off;
    size_t i = 0;
    while (i < n && is_tchar((unsigned char)p[i]))
        i++;
    if (i == 0 || i >= n || p[i] != ':')
        return fail(why, (n && (p[0] == ' ' || p[0] == '\t')) ? "folded header line"
                                                              : "bad header name");
    size_t name_len = i++;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    size_t vs = i, ve = n;
    while (ve > vs && (p[ve - 1] == ' ' || p[ve - 1] == '\t'))
        ve--;
    for (size_t k = vs; k < ve; k++)
        if (((unsigned char)p[k] < 0x20 && p[k] != '\t') || p[k] == 0x7f)
            return fail(why, "control character in header value");
    if (h->nhdr >= QC__HTTP_HDR_MAX)
        return fail(why, "too many header fields");
    h->name[h->nhdr] = (qc__http_span){(uint32_t)off, (uint32_t)name_len};
    h->value[h->nhdr] = (qc__http_span){(uint32_t)(off + vs), (uint32_t)(ve - vs)};
    h->nhdr++;
    const char *v = p + vs;
    size_t vn = ve - vs;
    if (eq_nocase(p, name_len, "content-length")) {
        int64_t cl;
        if (content_length(v, vn, &cl) != 0)
            return fail(why, "bad Content-Length");
        if (h->content_length >= 0 && h->content_length != cl)
            return fail(why, "conflicting Content-Length");
        h->content_length = cl;
    } else if (eq_nocase(p, name_len, "transfer-encoding")) {
        if (*saw_te || !eq_nocase(v, vn, "chunked"))
            return fail(why, QC__HTTP_WHY_CODING);
        *saw_te = 1;
        h->chunked = 1;
    }
    return 0;
}

int qc__http_parse_head(const char *buf, size_t len, int request, qc__http_head *h,
                        const char **why)
{
    size_t lim = len < QC__HTTP_HEAD_MAX ? len : QC__HTTP_HEAD_MAX;
    size_t end = head_end(buf, lim);
    if (end == 0) {
        /* a bare LF ends no head here: say so now rather than wait */
        for (size_t i = 0; i < lim; i++)
            if (buf[i] == '\n' && (i == 0 || buf[i - 1] != '\r'))
                return fail(why, "line not ended by CRLF");
        if (len < QC__HTTP_HEAD_MAX)
            return 0;
        return fail(why, memchr(buf, '\n', lim) ? QC__HTTP_WHY_HEAD : QC__HTTP_WHY_LINE);
    }
    memset(h, 0, offsetof(qc__http_head, name));
    h->request = request;
    h->content_length = -1;
    size_t pos = 0;
    int line = 0, saw_te = 0;
    while (pos < end - 2) {
        const char *nl = memchr(buf + pos, '\n', end - pos);
        size_t n = (size_t)(nl - (buf + pos));
        if (n == 0 || buf[pos + n - 1] != '\r')
            return fail(why, "line not ended by CRLF");
        n--;
        if (memchr(buf + pos, '\r', n) || memchr(buf + pos, '\0', n))
            return fail(why, "stray CR or NUL in head");
        int rc = line == 0 ? start_line(buf + pos, n, request, h, why)
                           : field(buf, pos, n, h, &saw_te, why);
        if (rc)
            return rc;
        pos += n + 2;
        line++;
    }
    if (line == 0)
        return fail(why, "empty request line");
    if (h->chunked && h->content_length >= 0)
        return fail(why, "both Content-Length and Transfer-Encoding");
    if (h->minor == 0 && h->chunked)
        return fail(why, "chunked body in HTTP/1.0");
    /* HTTP/1.1 keeps the connection unless told to close; 1.0 the reverse. */
    h->keep_alive = h->minor >= 1;
    for (unsigned i = 0; i < h->nhdr; i++)
        if (eq_nocase(buf + h->name[i].off, h->name[i].len, "connection"))
            connection(buf + h->value[i].off, h->value[i].len, h);
    h->head_len = end;
    return (int)end;
}

const char *qc__http_header(const char *buf, const qc__http_head *h, const char *name, size_t *n)
{
    for (unsigned i = 0; i < h->nhdr; i++)
        if (eq_nocase(buf + h->name[i].off, h->name[i].len, name)) {
            *n = h->value[i].len;
            return buf + h->value[i].off;
        }
    return NULL;
}

enum {
    CH_SIZE,
    CH_EXT,
    CH_SIZE_LF,
    CH_DATA,
    CH_DATA_CR,
    CH_DATA_LF,
    CH_TRAILER,
    CH_TRAILER_LF,
    CH_DONE
};

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long qc__http_chunked_feed(qc__http_chunked *c, const char *buf, size_t len, int *done,
                           const char **why)
{
    size_t i = 0;
    *done = c->state == CH_DONE;
    while (i < len && c->state != CH_DONE) {
        char ch = buf[i];
        switch (c->state) {
        case CH_SIZE: {
            int v = hexval(ch);
            if (v >= 0) {
                if (++c->digits > 15)
                    return fail(why, "chunk size too large");
                c->left = c->left * 16 + (uint64_t)v;
            } else if (c->digits && (ch == ';' || ch == ' ' || ch == '\t')) {
                c->state = CH_EXT;
            } else if (c->digits && ch == '\r') {
                c->state = CH_SIZE_LF;
            } else {
                return fail(why, "bad chunk size");
            }
            i++;
            break;
        }
        case CH_EXT:
            if (ch == '\r')
                c->state = CH_SIZE_LF;
            else if (((unsigned char)ch < 0x20 && ch != '\t') || ++c->line > 1024)
                return fail(why, "bad chunk extension");
            i++;
            break;
        case CH_SIZE_LF:
            if (ch != '\n')
                return fail(why, "chunk size line not ended by CRLF");
            i++;
            c->line = 0;
            c->state = c->left ? CH_DATA : CH_TRAILER;
            break;
        case CH_DATA: {
            size_t take = len - i;
            if (take > c->left)
                take = (size_t)c->left;
            c->left -= take;
            i += take;
            if (c->left == 0)
                c->state = CH_DATA_CR;
            break;
        }
        case CH_DATA_CR:
            if (ch != '\r')
                return fail(why, "chunk data not followed by CRLF");
            c->state = CH_DATA_LF;
            i++;
            break;
        case CH_DATA_LF:
            if (ch != '\n')
                return fail(why, "chunk data not followed by CRLF");
            c->state = CH_SIZE;
            c->digits = 0;
            i++;
            break;
        case CH_TRAILER:
            if (ch == '\r') {
                c->state = CH_TRAILER_LF;
            } else if (((unsigned char)ch < 0x20 && ch != '\t') || ++c->line > 4096) {
                return fail(why, "bad trailer");
            }
            i++;
            break;
        case CH_TRAILER_LF:
            if (ch != '\n')
                return fail(why, "trailer not ended by CRLF");
            i++;
            c->state = c->line == 0 ? CH_DONE : CH_TRAILER;
            c->line = 0;
            break;
        }
    }
    *done = c->state == CH_DONE;
    return (long)i;
}

long qc__http_message_len(const char *buf, size_t len, const qc__http_head *h,
                          uint64_t max_body, const char **why)
{
    size_t total = h->head_len;
    if (h->chunked) {
        qc__http_chunked ch = {0};
        int done = 0;
        long n = qc__http_chunked_feed(&ch, buf + total, len - total, &done, why);
        if (n < 0)
            return n;
        return done ? (long)(total + (size_t)n) : 0;
    }
    if (h->content_length > 0) {
        if ((uint64_t)h->content_length > max_body) {
            *why = "body too large";
            return QC_EPARSE;
        }
        if (len - total < (size_t)h->content_length)
            return 0;
        total += (size_t)h->content_length;
    }
    return (long)total;
}

int qc__http_is_head(const char *buf, const qc__http_head *h)
{
    return h->method.len == 4 && memcmp(buf + h->method.off, "HEAD", 4) == 0;
}

int qc__http_error_status(const char *why)
{
    if (strcmp(why, QC__HTTP_WHY_HEAD) == 0 || strcmp(why, "too many header fields") == 0)
        return 431;
    if (strcmp(why, QC__HTTP_WHY_LINE) == 0)
        return 414;
    if (strcmp(why, QC__HTTP_WHY_CODING) == 0)
        return 501;
    if (strcmp(why, QC__HTTP_WHY_VERSION) == 0)
        return 505;
    return 400;
}
