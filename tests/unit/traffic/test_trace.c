/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_trace.c: reading captures and CSV traces: the loopback captures
 * shipped in tests/data/captures (counts checked against tcpdump), every
 * link layer and IP variant on captures built here byte by byte, damaged
 * captures, CSV, labels and splitting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qctl/trace.h"

#define CAP QC_TEST_DATA "/captures/"

static void read_ok(qc_trace *tr, const char *path)
{
    qc_err err = {0};
    const int rc = qc_trace_read(tr, path, &err);
    if (rc != 0)
        print_error("%s: %d %s\n", path, rc, err.msg);
    assert_int_equal(rc, 0);
}

/* Packet counts are those `tcpdump -r FILE | wc -l` prints. */
static void test_shipped(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        size_t n, flows;
        int link;
        qc_trace_format fmt;
    } c[] = {
        {CAP "web.pcap", 1668, 45, 1, QC_TRACE_PCAP},
        {CAP "video.pcap", 1095, 1, 1, QC_TRACE_PCAP},
        {CAP "gaming.pcap", 891, 1, 1, QC_TRACE_PCAP},
        {CAP "gaming.pcapng", 300, 1, 1, QC_TRACE_PCAPNG},
        {CAP "gaming_sll.pcap", 71, 1, 113, QC_TRACE_PCAP},
        {CAP "gaming_sll2.pcap", 71, 1, 276, QC_TRACE_PCAP},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        qc_trace tr;
        read_ok(&tr, c[k].file);
        assert_int_equal(tr.n, c[k].n);
        assert_int_equal(tr.nflows, c[k].flows);
        assert_int_equal(tr.linktype, c[k].link);
        assert_int_equal(tr.format, c[k].fmt);
        assert_false(tr.partial);
        assert_int_equal(tr.nwarn, 0);
        assert_true(tr.pkt[0].t == 0 && tr.t0 > 1.7e9);
        for (size_t i = 1; i < tr.n; i++)
            assert_true(tr.pkt[i].t >= tr.pkt[i - 1].t);
        /* A flow's first packet comes from its initiator. */
        for (size_t f = 0; f < tr.nflows; f++)
            for (size_t i = 0; i < tr.n; i++)
                if (tr.pkt[i].flow == f) {
                    assert_int_equal(tr.pkt[i].dir, 0);
                    break;
                }
        qc_trace_free(&tr);
    }
    /* web.pcap: each connection opens with a 60-byte SYN and a 60-byte
     * SYN-ACK (IPv4 20 + TCP 40 with options), and carries 1440-byte
     * segments (MSS 1388 + 52); gaming: UDP both ways. */
    qc_trace tr;
    read_ok(&tr, CAP "web.pcap");
    assert_int_equal(tr.pkt[0].size, 60);
    assert_int_equal(tr.pkt[1].size, 60);
    assert_int_equal(tr.pkt[1].dir, 1);
    size_t big = 0;
    for (size_t i = 0; i < tr.n; i++)
        big += tr.pkt[i].size == 1440;
    assert_int_equal(big, 564); /* tcpdump: 564 segments of length 1388 */
    assert_int_equal(tr.flows[0].proto, 6);
    char name[128];
    qc_trace_flow_name(&tr.flows[0], name, sizeof name);
    assert_non_null(strstr(name, "tcp 127.0.0.1:"));
    qc_trace_free(&tr);
    /* pcapng holds the first 300 packets of gaming.pcap. */
    qc_trace a, b;
    read_ok(&a, CAP "gaming.pcap");
    read_ok(&b, CAP "gaming.pcapng");
    for (size_t i = 0; i < b.n; i++) {
        assert_true(fabs(a.pkt[i].t - b.pkt[i].t) < 1e-9);
        assert_int_equal(a.pkt[i].size, b.pkt[i].size);
        assert_int_equal(a.pkt[i].dir, b.pkt[i].dir);
    }
    assert_int_equal(a.flows[0].proto, 17);
    qc_trace_free(&a);
    qc_trace_free(&b);
}

static void test_damaged(void **state)
{
    (void)state;
    qc_trace tr;
    qc_err err = {0};
    /* Truncated inside record 41: the 40 before it are kept. */
    read_ok(&tr, CAP "bad_truncated.pcap");
    assert_int_equal(tr.n, 40);
    assert_true(tr.partial);
    assert_int_equal(tr.nwarn, 1);
    assert_non_null(strstr(tr.warn[0], "record 41"));
    assert_non_null(strstr(tr.warn[0], "byte offset 4351"));
    assert_non_null(strstr(tr.warn[0], "truncated"));
    qc_trace_free(&tr);
    /* snaplen 0 in the header: read, with a warning. */
    read_ok(&tr, CAP "bad_snaplen0.pcap");
    assert_int_equal(tr.n, 30);
    assert_int_equal(tr.nwarn, 1);
    assert_non_null(strstr(tr.warn[0], "snaplen 0"));
    qc_trace_free(&tr);
    assert_int_equal(qc_trace_read(&tr, CAP "bad_magic.pcap", &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "unknown magic number 0x00010203"));
    assert_int_equal(qc_trace_read(&tr, CAP "bad_empty.pcap", &err), QC_EEMPTY);
    assert_non_null(strstr(err.msg, "no packets"));
    assert_int_equal(qc_trace_read(&tr, CAP "nope.pcap", &err), QC_EIO);
    assert_non_null(strstr(err.msg, "nope.pcap"));
    assert_int_equal(qc_trace_read_mem(&tr, "", 0, "empty", &err), QC_EEMPTY);
    qc_trace_free(&tr); /* safe after a failed read */
}

/* ---- captures built here ------------------------------------------------ */

typedef struct buf {
    uint8_t b[8192];
    size_t n;
} buf;

static void put(buf *w, const void *p, size_t n)
{
    assert_true(w->n + n <= sizeof w->b);
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void put32le(buf *w, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}

static void pcap_header(buf *w, uint32_t link)
{
    put32le(w, 0xa1b2c3d4u);
    const uint8_t ver[4] = {2, 0, 4, 0};
    put(w, ver, 4);
    put32le(w, 0);
    put32le(w, 0);
    put32le(w, 65535);
    put32le(w, link);
}

static void record(buf *w, uint32_t sec, uint32_t usec, const uint8_t *p, size_t n, size_t wire)
{
    put32le(w, sec);
    put32le(w, usec);
    put32le(w, (uint32_t)n);
    put32le(w, (uint32_t)wire);
    put(w, p, n);
}

/* An IPv4 header + 4 bytes of ports into p; returns its length. */
static size_t ipv4(uint8_t *p, uint8_t proto, uint16_t len, const uint8_t *src, const uint8_t *dst,
                   uint16_t sport, uint16_t dport, uint16_t frag)
{
    memset(p, 0, 24);
    p[0] = 0x45;
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    p[6] = (uint8_t)(frag >> 8);
    p[7] = (uint8_t)frag;
    p[8] = 64;
    p[9] = proto;
    memcpy(p + 12, src, 4);
    memcpy(p + 16, dst, 4);
    p[20] = (uint8_t)(sport >> 8);
    p[21] = (uint8_t)sport;
    p[22] = (uint8_t)(dport >> 8);
    p[23] = (uint8_t)dport;
    return 24;
}

static const uint8_t A[4] = {10, 0, 0, 1}, B[4] = {10, 0, 0, 2};

static void test_link_layers(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_trace tr;
    uint8_t f[128];
    /* Ethernet with a VLAN tag, a padded 46-byte minimum frame, an ARP
     * frame (not IP: skipped) and an IPv4 later fragment (no ports). */
    buf w = {.n = 0};
    pcap_header(&w, 1);
    memset(f, 0, sizeof f);
    f[12] = 0x81, f[13] = 0x00, f[16] = 0x08, f[17] = 0x00;
    ipv4(f + 18, 17, 28, A, B, 5000, 53, 0);
    record(&w, 100, 0, f, 64, 64); /* 18 + 28 + padding: size is the IP length */
    memset(f, 0, sizeof f);
    f[12] = 0x08, f[13] = 0x06;
    record(&w, 100, 10, f, 42, 42);
    memset(f, 0, sizeof f);
    f[12] = 0x08;
    ipv4(f + 14, 17, 1000, B, A, 0xdead, 0xbeef, 0x00b9);
    record(&w, 100, 20, f, 38, 1014); /* captured 38 of 1014 bytes */
    memset(f, 0, sizeof f);
    f[12] = 0x08;
    ipv4(f + 14, 17, 900, B, A, 53, 5000, 0);
    record(&w, 101, 999999, f, 38, 914);
    assert_int_equal(qc_trace_read_mem(&tr, w.b, w.n, "eth", &err), 0);
    assert_int_equal(tr.n, 3);
    assert_int_equal(tr.skipped, 1);
    assert_int_equal(tr.pkt[0].size, 28);
    assert_int_equal(tr.pkt[1].size, 1000);
    assert_int_equal(tr.nflows, 2); /* the fragment is its own flow, ports 0 */
    assert_int_equal(tr.flows[1].sport, 0);
    assert_int_equal(tr.pkt[2].flow, 0);
    assert_int_equal(tr.pkt[2].dir, 1);
    assert_true(fabs(tr.pkt[2].t - 1.999999) < 1e-12);
    qc_trace_free(&tr);

    /* Raw IP (LINKTYPE_RAW 101), Linux cooked v1 and v2, BSD loopback. */
    static const struct {
        uint32_t link;
        size_t hdr;
        uint8_t proto_off;
    } links[] = {{101, 0, 0}, {113, 16, 14}, {276, 20, 0}, {0, 4, 0}};
    for (size_t k = 0; k < 4; k++) {
        w.n = 0;
        pcap_header(&w, links[k].link);
        memset(f, 0, sizeof f);
        if (links[k].link == 113 || links[k].link == 276)
            f[links[k].proto_off] = 0x08;
        if (links[k].link == 0)
            f[0] = 2; /* AF_INET, host order (little-endian here) */
        ipv4(f + links[k].hdr, 6, 40, A, B, 40000, 80, 0);
        record(&w, 5, 0, f, links[k].hdr + 24, links[k].hdr + 40);
        ipv4(f + links[k].hdr, 6, 1500, B, A, 80, 40000, 0);
        record(&w, 5, 500, f, links[k].hdr + 24, links[k].hdr + 1500);
        assert_int_equal(qc_trace_read_mem(&tr, w.b, w.n, "link", &err), 0);
        assert_int_equal(tr.n, 2);
        assert_int_equal(tr.nflows, 1);
        assert_int_equal(tr.pkt[1].size, 1500);
        assert_int_equal(tr.pkt[1].dir, 1);
        assert_int_equal(tr.flows[0].sport, 40000);
        assert_int_equal(tr.flows[0].dport, 80);
        qc_trace_free(&tr);
    }

    /* IPv6 with a hop-by-hop extension header before UDP. */
    w.n = 0;
    pcap_header(&w, 1);
    memset(f, 0, sizeof f);
    f[12] = 0x86, f[13] = 0xdd;
    uint8_t *ip = f + 14;
    ip[0] = 0x60;
    ip[4] = 0, ip[5] = 8 + 8 + 100; /* payload: ext 8 + udp 8 + 100 */
    ip[6] = 0;                      /* next header: hop-by-hop */
    ip[8 + 15] = 1, ip[24 + 15] = 2;
    ip[40] = 17, ip[41] = 0; /* ext: next UDP, length 8 */
    ip[48] = 0x13, ip[49] = 0x88, ip[50] = 0x00, ip[51] = 0x35;
    record(&w, 7, 0, f, 14 + 52, 14 + 156);
    assert_int_equal(qc_trace_read_mem(&tr, w.b, w.n, "v6", &err), 0);
    assert_int_equal(tr.n, 1);
    assert_int_equal(tr.pkt[0].size, 156);
    assert_int_equal(tr.flows[0].af, 6);
    assert_int_equal(tr.flows[0].proto, 17);
    assert_int_equal(tr.flows[0].sport, 5000);
    assert_int_equal(tr.flows[0].dport, 53);
    qc_trace_flow_name(&tr.flows[0], (char *)f, sizeof f);
    assert_string_equal((char *)f, "udp [::1]:5000 > [::2]:53");
    qc_trace_free(&tr);

    /* An unsupported link type (802.11) is an error naming it. */
    w.n = 0;
    pcap_header(&w, 105);
    record(&w, 1, 0, f, 30, 30);
    assert_int_equal(qc_trace_read_mem(&tr, w.b, w.n, "wifi", &err), QC_ENOTSUP);
    assert_non_null(strstr(err.msg, "link type 105"));
    /* Only non-IP records: nothing usable. */
    w.n = 0;
    pcap_header(&w, 1);
    memset(f, 0, sizeof f);
    f[12] = 0x08, f[13] = 0x06;
    record(&w, 1, 0, f, 42, 42);
    assert_int_equal(qc_trace_read_mem(&tr, w.b, w.n, "arp", &err), QC_EEMPTY);
    assert_non_null(strstr(err.msg, "none of its 1 records"));
    /* Out of order records are sorted, with a warning. */
    w.n = 0;
    pcap_header(&w, 101);
    ipv4(f, 17, 100, A, B, 1, 2, 0);
    record(&w, 10, 0, f, 24, 100);
    record(&w, 9, 0, f, 24, 100);
    record(&w, 11, 0, f, 24, 100);
    assert_int_equal(qc_trace_read_mem(&tr, w.b, w.n, "order", &err), 0);
    assert_int_equal(tr.nwarn, 1);
    assert_non_null(strstr(tr.warn[0], "out of time order"));
    assert_true(tr.pkt[0].t == 0 && tr.pkt[1].t == 1 && tr.pkt[2].t == 2);
    assert_true(tr.t0 == 9);
    qc_trace_free(&tr);
}

static void test_csv(void **state)
{
    (void)state;
    qc_trace tr;
    qc_err err = {0};
    const char *a = "\xef\xbb\xbftime,size,flow,activity\r\n"
                    "10.0,100,f1,web\r\n10.5,1500,f1,web\r\n11,60,f2,video\r\n";
    assert_int_equal(qc_trace_read_mem(&tr, a, strlen(a), "a.csv", &err), 0);
    assert_int_equal(tr.format, QC_TRACE_CSV);
    assert_int_equal(tr.n, 3);
    assert_int_equal(tr.nflows, 2);
    assert_int_equal(tr.nacts, 2);
    assert_true(tr.t0 == 10 && tr.pkt[2].t == 1);
    assert_string_equal(tr.acts[tr.pkt[2].act], "video");
    assert_string_equal(tr.flows[tr.pkt[0].flow].label, "f1");
    qc_trace_free(&tr);
    /* Columns by name in any order; positional without a header. */
    const char *b = "size,time\n100,1\n200,2\n";
    assert_int_equal(qc_trace_read_mem(&tr, b, strlen(b), "b.csv", &err), 0);
    assert_int_equal(tr.pkt[1].size, 200);
    qc_trace_free(&tr);
    const char *c = "# comment\n0.5,40\n0.25,41\n";
    assert_int_equal(qc_trace_read_mem(&tr, c, strlen(c), "c.csv", &err), 0);
    assert_int_equal(tr.pkt[0].size, 41); /* sorted */
    assert_int_equal(tr.nwarn, 1);
    qc_trace_free(&tr);
    /* A bad line after good ones: kept up to it, warned with FILE:LINE. */
    const char *d = "time,size\n1,100\n2,200\n3,abc\n4,400\n";
    assert_int_equal(qc_trace_read_mem(&tr, d, strlen(d), "d.csv", &err), 0);
    assert_int_equal(tr.n, 2);
    assert_true(tr.partial);
    assert_non_null(strstr(tr.warn[0], "d.csv:4"));
    qc_trace_free(&tr);
    /* Nothing good: an error at the first bad line. */
    const char *e = "time,size\n1,-5\n";
    assert_int_equal(qc_trace_read_mem(&tr, e, strlen(e), "e.csv", &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "e.csv:2"));
    const char *g = "when,bytes\n1,2\n";
    assert_int_equal(qc_trace_read_mem(&tr, g, strlen(g), "g.csv", &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "'time' and 'size'"));
    const char *h = "1.5,100.5\n";
    assert_int_equal(qc_trace_read_mem(&tr, h, strlen(h), "h.csv", &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "whole number"));
}

static void test_labels(void **state)
{
    (void)state;
    qc_trace tr;
    qc_err err = {0};
    read_ok(&tr, CAP "web.pcap");
    const uint16_t sport = tr.flows[0].sport, dport = tr.flows[0].dport;
    char rules[512];
    snprintf(rules, sizeof rules,
             "# first match wins\n"
             "first  flow tcp 127.0.0.1:%u 127.0.0.1:%u\n"
             "late   time 5 100\n"
             "web    tcp port %u\n"
             "never  udp\n",
             dport, sport, dport);
    qc_trace_labels *l;
    assert_int_equal(qc_trace_labels_parse(&l, rules, strlen(rules), "r.txt", &err), 0);
    size_t none = 99;
    assert_int_equal(qc_trace_apply_labels(&tr, l, &none, &err), 0);
    assert_int_equal(none, 0);
    qc_trace_labels_free(l);
    assert_int_equal(tr.nacts, 4);
    size_t n_first = 0, n_late = 0;
    for (size_t i = 0; i < tr.n; i++) {
        const char *a = tr.acts[tr.pkt[i].act];
        if (tr.pkt[i].flow == 0) {
            assert_string_equal(a, "first");
            n_first++;
        } else if (tr.pkt[i].t >= 5) {
            assert_string_equal(a, "late");
            n_late++;
        } else {
            assert_string_equal(a, "web");
        }
    }
    assert_int_equal(n_first, tr.flows[0].packets);
    assert_true(n_late > 0);
    qc_trace_group *g;
    size_t ng;
    assert_int_equal(qc_trace_split_groups(&tr, QC_SPLIT_ACTIVITY, &g, &ng, &err), 0);
    assert_int_equal(ng, 3); /* "never" matched nothing */
    size_t total = 0;
    for (size_t i = 0; i < ng; i++)
        total += g[i].n;
    assert_int_equal(total, tr.n);
    assert_string_equal(g[0].name, "first");
    qc_trace_groups_free(g, ng);
    assert_int_equal(qc_trace_split_groups(&tr, QC_SPLIT_FLOW, &g, &ng, &err), 0);
    assert_int_equal(ng, 45);
    qc_trace_groups_free(g, ng);
    assert_int_equal(qc_trace_split_groups(&tr, QC_SPLIT_HOST, &g, &ng, &err), 0);
    assert_int_equal(ng, 1);
    assert_string_equal(g[0].name, "127.0.0.1");
    assert_int_equal(g[0].n, tr.n);
    qc_trace_groups_free(g, ng);
    qc_trace_free(&tr);
    /* Errors name the line. */
    static const char *const bad[] = {"web\n", "web port 70000\n", "web\tflow tcp a:1 b:2\n",
                                      "ok any\nweb time 5 1\n", "web colour blue\n"};
    static const char *const where[] = {":1:", ":1:", ":1:", ":2:", ":1:"};
    for (size_t k = 0; k < 5; k++) {
        assert_int_not_equal(qc_trace_labels_parse(&l, bad[k], strlen(bad[k]), "r.txt", &err), 0);
        assert_non_null(strstr(err.msg, where[k]));
    }
    assert_int_equal(qc_trace_labels_parse(&l, "# nothing\n", 10, "r.txt", &err), QC_EEMPTY);
}

static void test_csv_round_trip(void **state)
{
    (void)state;
    qc_trace a, b;
    qc_err err = {0};
    read_ok(&a, CAP "video.pcap");
    char path[] = "/tmp/qctl_test_trace_XXXXXX";
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(qc_trace_write_csv(&a, path, &err), 0);
    read_ok(&b, path);
    assert_int_equal(a.n, b.n);
    for (size_t i = 0; i < a.n; i++) {
        assert_true(fabs(a.pkt[i].t - b.pkt[i].t) < 1e-9);
        assert_int_equal(a.pkt[i].size, b.pkt[i].size);
    }
    double *t;
    size_t n;
    assert_int_equal(qc_trace_times(path, &t, &n, &err), 0);
    assert_int_equal(n, a.n);
    assert_true(t[0] == 0 && fabs(t[n - 1] - a.pkt[a.n - 1].t) < 1e-9);
    free(t);
    remove(path);
    qc_trace_free(&a);
    qc_trace_free(&b);
}

/* ---- pcapng with two link types, and stacked VLAN tags -------------- */

static size_t put_le32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
    return 4;
}

/* An IPv4/UDP header of total length size at ip (20 + 8 bytes). */
static void put_ipv4(uint8_t *ip, uint16_t size, uint8_t host)
{
    memset(ip, 0, 28);
    ip[0] = 0x45;
    ip[2] = (uint8_t)(size >> 8);
    ip[3] = (uint8_t)size;
    ip[8] = 64;
    ip[9] = 17;
    ip[12] = 10, ip[15] = host;
    ip[16] = 192, ip[19] = 1;
    ip[20] = 0x13, ip[21] = 0x88; /* ports 5000 > 53 */
    ip[23] = 53;
}

/* A pcapng section: interface 0 Ethernet (microseconds), interface 1
 * Linux cooked v1 (if_tsresol 9: nanoseconds); packets alternate, the
 * Ethernet ones with `tags` VLAN tags. libpcap refuses such a file. */
static size_t make_mixed_pcapng(uint8_t *f, int tags, int npk)
{
    size_t o = 0;
    /* SHB */
    o += put_le32(f + o, 0x0a0d0d0a);
    o += put_le32(f + o, 28);
    o += put_le32(f + o, 0x1a2b3c4d);
    f[o++] = 1, f[o++] = 0, f[o++] = 0, f[o++] = 0; /* version 1.0 */
    o += put_le32(f + o, 0xffffffff);
    o += put_le32(f + o, 0xffffffff);
    o += put_le32(f + o, 28);
    /* IDB 0: Ethernet */
    o += put_le32(f + o, 1);
    o += put_le32(f + o, 20);
    f[o++] = 1, f[o++] = 0, f[o++] = 0, f[o++] = 0;
    o += put_le32(f + o, 65535);
    o += put_le32(f + o, 20);
    /* IDB 1: Linux cooked, if_tsresol = 9 */
    o += put_le32(f + o, 1);
    o += put_le32(f + o, 32);
    f[o++] = 113, f[o++] = 0, f[o++] = 0, f[o++] = 0;
    o += put_le32(f + o, 65535);
    f[o++] = 9, f[o++] = 0, f[o++] = 1, f[o++] = 0; /* option 9, length 1 */
    f[o++] = 9, f[o++] = 0, f[o++] = 0, f[o++] = 0;
    o += put_le32(f + o, 0); /* end of options */
    o += put_le32(f + o, 32);
    for (int k = 0; k < npk; k++) {
        uint8_t frame[128];
        size_t fl;
        const uint16_t size = (uint16_t)(100 + k);
        uint64_t ts;
        const int eth = k % 2 == 0;
        memset(frame, 0, sizeof frame);
        if (eth) {
            size_t e = 12;
            for (int t = 0; t < tags; t++, e += 4) {
                frame[e] = 0x81, frame[e + 1] = 0x00;
                frame[e + 3] = (uint8_t)(t + 1);
            }
            frame[e] = 0x08, frame[e + 1] = 0x00;
            put_ipv4(frame + e + 2, size, (uint8_t)(k + 1));
            fl = e + 2 + 28;
            ts = 1700000000ull * 1000000 + (uint64_t)k * 1500; /* microseconds */
        } else {
            frame[14] = 0x08, frame[15] = 0x00;
            put_ipv4(frame + 16, size, (uint8_t)(k + 1));
            fl = 16 + 28;
            ts = 1700000000ull * 1000000000 + (uint64_t)k * 1500000 + 7; /* ns */
        }
        const size_t pad = (fl + 3) & ~(size_t)3, blen = 32 + pad;
        o += put_le32(f + o, 6);
        o += put_le32(f + o, (uint32_t)blen);
        o += put_le32(f + o, eth ? 0 : 1);
        o += put_le32(f + o, (uint32_t)(ts >> 32));
        o += put_le32(f + o, (uint32_t)ts);
        o += put_le32(f + o, (uint32_t)fl);
        o += put_le32(f + o, (uint32_t)fl);
        memcpy(f + o, frame, fl);
        memset(f + o + fl, 0, pad - fl);
        o += pad;
        o += put_le32(f + o, (uint32_t)blen);
    }
    return o;
}

static void test_pcapng_mixed_links(void **state)
{
    (void)state;
    for (int tags = 0; tags <= 3; tags += 3) {
        static uint8_t ng[16384];
        const int npk = 40;
        const size_t len = make_mixed_pcapng(ng, tags, npk);
        qc_trace tr;
        qc_err err = {0};
        const int rc = qc_trace_read_mem(&tr, ng, len, "mixed.pcapng", &err);
        if (rc != 0)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, 0);
        assert_int_equal(tr.n, npk);
        assert_int_equal(tr.skipped, 0);
        for (int k = 0; k < npk; k++) {
            assert_int_equal(tr.pkt[k].size, 100 + k);
            /* 1.5 ms apart; the cooked interface's are 7 ns late */
            assert_true(tr.pkt[k].ns == (int64_t)k * 1500000 + (k % 2 ? 7 : 0));
        }
        qc_trace_free(&tr);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped),     cmocka_unit_test(test_damaged),
        cmocka_unit_test(test_link_layers), cmocka_unit_test(test_csv),
        cmocka_unit_test(test_labels),      cmocka_unit_test(test_csv_round_trip),
        cmocka_unit_test(test_pcapng_mixed_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
