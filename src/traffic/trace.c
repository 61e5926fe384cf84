/* SPDX-License-Identifier: GPL-3.0-or-later */
/* trace.c: reading packet traces from pcap, pcapng and CSV; flows, labels
 * and splitting.
 *
 * libpcap reads the records; this file decodes just enough of each to
 * place it: the link header (whose length depends on the link type), the
 * IP header (version, length field, protocol, addresses) and the first
 * four bytes of a TCP or UDP header (the ports). Every read is checked
 * against the captured length, so a short or malformed packet is counted
 * as skipped, never read past.
 *
 * Flows are bidirectional: the key is the 5-tuple with the two endpoints
 * in a canonical order (the smaller address:port first), so both
 * directions of a conversation land in one flow. Its initiator is the
 * sender of the first packet seen, which for a TCP connection captured
 * from its start is the side that sent the SYN. The table is open
 * addressing with linear probing, kept at most half full, so a lookup is
 * one or two probes and the cost per packet does not depend on the number
 * of flows.
 *
 * libpcap cannot resynchronize after a damaged record, so the first read
 * error ends the trace; the byte offset of the record that failed comes
 * from the stream position before the read, which is what a user needs to
 * inspect or cut the file. */
#define _DEFAULT_SOURCE 1 /* pcap.h uses the BSD types u_int, u_char */

#include "qctl/trace.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/output.h"
#include "core/names.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

/* ------------------------------------------------------------------ */
/* Growing arrays                                                     */
/* ------------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            return QC_ENOMEM;
        c *= 2;
    }
    void *q = realloc(*p, c * elem);
    if (q == NULL)
        return QC_ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

static void warn(qc_trace *tr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warn(qc_trace *tr, const char *fmt, ...)
{
    if (tr->nwarn >= QC_TRACE_MAXWARN)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tr->warn[tr->nwarn++], QC_ERR_MSG_MAX, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ */
/* Flow table                                                         */
/* ------------------------------------------------------------------ */

typedef struct flow_key {
    uint8_t af, proto;
    uint16_t pa, pb;
    uint8_t a[16], b[16];
} flow_key;

typedef struct flow_index {
    uint32_t *slot; /* flow index + 1; 0 = empty */
    size_t mask;
    struct flow_key *key; /* canonical key of each flow, beside tr->flows */
    size_t keycap;
} flow_index;

/* A key has no padding and is zeroed before it is filled (the bytes past
 * an IPv4 address are 0), so keys compare and hash as their bytes. */
_Static_assert(sizeof(flow_key) == 38, "flow_key without padding");

/* The key's bytes as five 64-bit words, each mixed in by a multiply and
 * a shift, then MurmurHash3's 64-bit finalizer (fmix64), whose low bits,
 * which pick the slot, depend on every input bit. */
static uint64_t key_hash(const flow_key *k)
{
    unsigned char b[40] = {0};
    memcpy(b, k, sizeof *k);
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 5; i++) {
        uint64_t w;
        memcpy(&w, b + 8 * i, sizeof w);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

static void key_of_flow(const qc_trace_flow *f, flow_key *k)
{
    memset(k, 0, sizeof *k);
    k->af = f->af;
    k->proto = f->proto;
    const size_t alen = f->af == 6 ? 16 : 4;
    const int c = memcmp(f->src, f->dst, alen);
    if (c < 0 || (c == 0 && f->sport <= f->dport)) {
        memcpy(k->a, f->src, alen);
        memcpy(k->b, f->dst, alen);
        k->pa = f->sport;
        k->pb = f->dport;
    } else {
        memcpy(k->a, f->dst, alen);
        memcpy(k->b, f->src, alen);
        k->pa = f->dport;
        k->pb = f->sport;
    }
}

static int key_eq(const flow_key *x, const flow_key *y)
{
    return memcmp(x, y, sizeof *x) == 0;
}

static void index_free(qc_trace *tr)
{
    flow_index *ix = tr->index;
    if (ix) {
        free(ix->slot);
        free(ix->key);
        free(ix);
    }
    tr->index = NULL;
}

static int index_rehash(qc_trace *tr, size_t size)
{
    flow_index *ix = tr->index;
    uint32_t *slot = calloc(size, sizeof *slot);
    if (slot == NULL)
        return QC_ENOMEM;
    for (size_t i = 0; i < tr->nflows; i++) {
        size_t h = (size_t)key_hash(&ix->key[i]) & (size - 1);
        while (slot[h])
            h = (h + 1) & (size - 1);
        slot[h] = (uint32_t)i + 1;
    }
    free(ix->slot);
    ix->slot = slot;
    ix->mask = size - 1;
    return 0;
}

/* The flow of a packet from (src, sport) to (dst, dport), created when
 * new; *dir is 0 when src is the flow's initiator. */
static int flow_lookup(qc_trace *tr, uint8_t af, uint8_t proto, const uint8_t *src,
                       uint16_t sport, const uint8_t *dst, uint16_t dport, double t,
                       uint32_t *flow, uint8_t *dir)
{
    if (tr->index == NULL) {
        tr->index = calloc(1, sizeof(flow_index));
        if (tr->index == NULL || index_rehash(tr, 64) != 0)
            return QC_ENOMEM;
    }
    flow_index *ix = tr->index;
    qc_trace_flow probe;
    memset(&probe, 0, sizeof probe);
    probe.af = af;
    probe.proto = proto;
    const size_t alen = af == 6 ? 16 : 4;
    memcpy(probe.src, src, alen);
    memcpy(probe.dst, dst, alen);
    probe.sport = sport;
    probe.dport = dport;
    flow_key k;
    key_of_flow(&probe, &k);
    size_t h = (size_t)key_hash(&k) & ix->mask;
    while (ix->slot[h]) {
        const uint32_t i = ix->slot[h] - 1;
        if (key_eq(&k, &ix->key[i])) {
            const qc_trace_flow *f = &tr->flows[i];
            *flow = i;
            *dir = !(memcmp(f->src, src, alen) == 0 && f->sport == sport);
            return 0;
        }
        h = (h + 1) & ix->mask;
    }
    if (tr->nflows >= UINT32_MAX - 1)
        return QC_ERANGE;
    if (grow((void **)&tr->flows, &tr->flowcap, tr->nflows + 1, sizeof *tr->flows) != 0 ||
        grow((void **)&ix->key, &ix->keycap, tr->nflows + 1, sizeof *ix->key) != 0)
        return QC_ENOMEM;
    ix->key[tr->nflows] = k;
    probe.first = probe.last = t;
    tr->flows[tr->nflows] = probe;
    ix->slot[h] = (uint32_t)tr->nflows + 1;
    *flow = (uint32_t)tr->nflows++;
    *dir = 0;
    if (2 * tr->nflows > ix->mask + 1)
        return index_rehash(tr, 2 * (ix->mask + 1));
    return 0;
}

static int push_packet(qc_trace *tr, double t, int64_t ns, uint32_t size, uint32_t flow,
                       uint8_t dir, uint8_t proto)
{
    if (grow((void **)&tr->pkt, &tr->cap, tr->n + 1, sizeof *tr->pkt) != 0)
        return QC_ENOMEM;
    tr->pkt[tr->n++] = (qc_trace_pkt){t, ns, size, flow, QC_TRACE_NOACT, dir, proto};
    qc_trace_flow *f = &tr->flows[flow];
    f->packets++;
    f->bytes += size;
    if (t < f->first)
        f->first = t;
    if (t > f->last)
        f->last = t;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                           */
/* ------------------------------------------------------------------ */

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

/* Offset of the IP header for link type dlt, or -1 when the packet is not
 * IP (or too short to tell). */
static long link_offset(int dlt, const uint8_t *d, uint32_t caplen)
{
    switch (dlt) {
    case DLT_EN10MB: {
        uint32_t off = 12;
        for (;;) { /* any number of VLAN tags; each takes 4 of caplen's bytes */
            if (caplen < off + 2)
                return -1;
            const uint16_t et = rd16(d + off);
            if (et == 0x0800 || et == 0x86dd)
                return (long)off + 2;
            if (et != 0x8100 && et != 0x88a8 && et != 0x9100)
                return -1;
            off += 4; /* a VLAN tag: TPID already read, skip TCI */
        }
    }
    case DLT_LINUX_SLL:
        if (caplen < 16)
            return -1;
        return rd16(d + 14) == 0x0800 || rd16(d + 14) == 0x86dd ? 16 : -1;
    case DLT_LINUX_SLL2:
        if (caplen < 20)
            return -1;
        return rd16(d) == 0x0800 || rd16(d) == 0x86dd ? 20 : -1;
    case DLT_NULL:
    case DLT_LOOP:
        return 4; /* the family word's byte order varies; the IP version tells */
    case DLT_RAW:
    case DLT_IPV4:
    case DLT_IPV6:
        return 0;
    default:
        return -1;
    }
}

static int link_supported(int dlt)
{
    return dlt == DLT_EN10MB || dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2 ||
           dlt == DLT_NULL || dlt == DLT_LOOP || dlt == DLT_RAW || dlt == DLT_IPV4 ||
           dlt == DLT_IPV6;
}

/* Decodes one record into the trace; returns 1 when it was added, 0 when
 * skipped, or a negative error. */
static int decode(qc_trace *tr, int dlt, double t, int64_t ns, const uint8_t *d,
                  uint32_t caplen, uint32_t len)
{
    const long off = link_offset(dlt, d, caplen);
    if (off < 0 || caplen < (uint32_t)off + 1)
        return 0;
    const uint8_t *ip = d + off;
    const uint32_t iplen_cap = caplen - (uint32_t)off;
    const uint32_t iplen_wire = len > (uint32_t)off ? len - (uint32_t)off : 0;
    uint8_t af, proto;
    uint32_t size, l4;
    const uint8_t *src, *dst;
    int has_ports = 1;
    const int ver = ip[0] >> 4;
    if (ver == 4) {
        const uint32_t ihl = (uint32_t)(ip[0] & 15) * 4;
        if (ihl < 20 || iplen_cap < 20)
            return 0;
        af = 4;
        size = rd16(ip + 2);
        if (size == 0) /* segmentation offload: the length field is left 0 */
            size = iplen_wire;
        if (size < ihl)
            return 0;
        proto = ip[9];
        src = ip + 12;
        dst = ip + 16;
        l4 = ihl;
        if ((rd16(ip + 6) & 0x1fff) != 0)
            has_ports = 0; /* a later fragment: no transport header */
    } else if (ver == 6) {
        if (iplen_cap < 40)
            return 0;
        af = 6;
        const uint32_t plen = rd16(ip + 4);
        size = plen ? plen + 40 : iplen_wire; /* 0: a jumbogram */
        proto = ip[6];
        src = ip + 8;
        dst = ip + 24;
        l4 = 40;
        /* Extension headers: hop-by-hop, routing, destination options
         * (length in 8-byte units after the first 8), fragment (8 bytes;
         * a non-first fragment has no ports), AH (4-byte units + 2). */
        for (int k = 0; k < 8; k++) {
            if (proto != 0 && proto != 43 && proto != 60 && proto != 44 && proto != 51)
                break;
            if (iplen_cap < l4 + 8) {
                has_ports = 0;
                break;
            }
            const uint8_t *e = ip + l4;
            const uint8_t next = e[0];
            if (proto == 44) {
                if ((rd16(e + 2) & 0xfff8) != 0)
                    has_ports = 0;
                l4 += 8;
            } else if (proto == 51) {
                l4 += ((uint32_t)e[1] + 2) * 4;
            } else {
                l4 += ((uint32_t)e[1] + 1) * 8;
            }
            proto = next;
        }
    } else {
        return 0;
    }
    uint16_t sport = 0, dport = 0;
    if ((proto == 6 || proto == 17) && has_ports && iplen_cap >= l4 + 4) {
        sport = rd16(ip + l4);
        dport = rd16(ip + l4 + 2);
    }
    uint32_t flow;
    uint8_t dir;
    int rc = flow_lookup(tr, af, proto, src, sport, dst, dport, t, &flow, &dir);
    if (rc == 0)
        rc = push_packet(tr, t, ns, size, flow, dir, proto);
    return rc < 0 ? rc : 1;
}

/* ------------------------------------------------------------------ */
/* pcap and pcapng                                                    */
/* ------------------------------------------------------------------ */

/* One record of either capture format, its time already in integer
 * nanoseconds from the first record: decoded and counted the same way for
 * pcap and pcapng, and checked for order on the nanoseconds (the order the
 * sort follows), never on rounded seconds. Returns 0 or a negative code
 * set in err. */
typedef struct rec_order {
    int64_t last;       /* greatest time kept so far */
    uint64_t unordered; /* records kept earlier than one before them */
} rec_order;

static int record_add(qc_trace *tr, int dlt, int64_t ns, const uint8_t *d, uint32_t caplen,
                      uint32_t len, rec_order *o, const char *name, qc_err *err)
{
    const int added = decode(tr, dlt, 1e-9 * (double)ns, ns, d, caplen, len);
    if (added < 0)
        return qc_err_set(err, added, "%s: record %llu: %s", name,
                          (unsigned long long)tr->records, qc_strerror(added));
    if (added == 0) {
        tr->skipped++;
        return 0;
    }
    if (ns < o->last)
        o->unordered++;
    else
        o->last = ns;
    return 0;
}

static void record_order_warn(qc_trace *tr, const rec_order *o, const char *name)
{
    if (o->unordered)
        warn(tr, "%s: %llu packets out of time order; sorted", name,
             (unsigned long long)o->unordered);
}

static uint32_t rd32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t bswap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00) | ((x << 8) & 0xff0000) | (x << 24);
}

/* ---- pcapng with interfaces of different link types ------------------
 * libpcap refuses a pcapng file whose interfaces differ in link type
 * (Ethernet and Linux cooked, as tshark writes when capturing on several
 * devices). Such a file is read here, block by block: section headers
 * (byte order), interface descriptions (link type, if_tsresol,
 * if_tsoffset) and enhanced packet blocks, each decoded with its own
 * interface's link type. Simple packet blocks have no time and are
 * skipped; other blocks are ignored. Blocks are bounded (64 MiB). */
#define PCAPNG_BLOCK_MAX (64u << 20)
#define PCAPNG_MAX_IF 65536u

typedef struct ng_if {
    int dlt;
    uint64_t per_sec; /* timestamp units per second */
    int64_t offset;   /* if_tsoffset, seconds */
} ng_if;

static uint32_t ng32(const uint8_t *p, int swap)
{
    const uint32_t v = rd32le(p);
    return swap ? bswap32(v) : v;
}

static uint16_t ng16(const uint8_t *p, int swap)
{
    const uint16_t v = (uint16_t)(p[0] | p[1] << 8);
    return swap ? (uint16_t)(v >> 8 | v << 8) : v;
}

/* Link types of the file's interfaces: 1 when they differ. Reads block
 * headers and interface descriptions only, then rewinds. */
static int pcapng_mixed(FILE *fp)
{
    uint8_t h[12];
    int swap = 0, first = -1, mixed = 0;
    while (!mixed && fread(h, 1, 12, fp) == 12) {
        const uint32_t type = rd32le(h);
        if (type == 0x0a0d0d0au)
            swap = rd32le(h + 8) != 0x1a2b3c4du;
        const uint32_t len = ng32(h + 4, swap);
        if (len < 12 || len % 4 != 0 || len > PCAPNG_BLOCK_MAX)
            break;
        if (ng32(h, swap) == 1) {
            const int dlt = ng16(h + 8, swap);
            if (first < 0)
                first = dlt;
            else if (dlt != first)
                mixed = 1;
        }
        if (fseek(fp, (long)len - 12, SEEK_CUR) != 0)
            break;
    }
    rewind(fp);
    return mixed;
}

static int read_pcapng_mixed(qc_trace *tr, FILE *fp, const char *name, qc_err *err)
{
    tr->format = QC_TRACE_PCAPNG;
    ng_if *ifs = NULL;
    size_t nif = 0, ifcap = 0;
    uint8_t *b = NULL;
    size_t bcap = 0;
    int swap = 0, rc = 0;
    int64_t sec_first = 0; /* whole seconds of the first record */
    rec_order order = {INT64_MIN, 0};
    long offset = 0;
    tr->linktype = -1;
    for (;;) {
        uint8_t h[8];
        offset = ftell(fp);
        const size_t got = fread(h, 1, 8, fp);
        if (got == 0)
            break;
        const uint32_t type0 = rd32le(h);
        if (got < 8) {
            tr->partial = 1;
            warn(tr, "%s: truncated block header at byte offset %ld", name, offset);
            break;
        }
        if (type0 == 0x0a0d0d0au) {
            uint8_t bom[4];
            if (fread(bom, 1, 4, fp) != 4) {
                tr->partial = 1;
                warn(tr, "%s: truncated section header at byte offset %ld", name, offset);
                break;
            }
            swap = rd32le(bom) != 0x1a2b3c4du;
            if (fseek(fp, -4, SEEK_CUR) != 0)
                break;
            nif = 0; /* interfaces are numbered per section */
        }
        const uint32_t type = ng32(h, swap), len = ng32(h + 4, swap);
        if (len < 12 || len % 4 != 0 || len > PCAPNG_BLOCK_MAX) {
            tr->partial = 1;
            warn(tr, "%s: block at byte offset %ld has length %u (not a multiple of 4 in [12, "
                     "64 MiB])",
                 name, offset, len);
            break;
        }
        const size_t body = len - 8;
        if (grow((void **)&b, &bcap, body, 1) != 0) {
            rc = qc_err_set(err, QC_ENOMEM, "%s: out of memory", name);
            break;
        }
        if (fread(b, 1, body, fp) != body) {
            tr->partial = 1;
            warn(tr, "%s: truncated block at byte offset %ld", name, offset);
            break;
        }
        const size_t blen = body - 4; /* without the trailing length */
        if (type == 1) { /* interface description */
            if (blen < 8 || nif >= PCAPNG_MAX_IF) {
                tr->partial = 1;
                warn(tr, "%s: bad interface description at byte offset %ld", name, offset);
                break;
            }
            if (grow((void **)&ifs, &ifcap, nif + 1, sizeof *ifs) != 0) {
                rc = qc_err_set(err, QC_ENOMEM, "%s: out of memory", name);
                break;
            }
            ng_if *f = &ifs[nif++];
            f->dlt = ng16(b, swap);
            f->per_sec = 1000000;
            f->offset = 0;
            if (tr->linktype < 0)
                tr->linktype = f->dlt;
            for (size_t o = 8; o + 4 <= blen;) {
                const uint16_t code = ng16(b + o, swap), ol = ng16(b + o + 2, swap);
                if (code == 0 || o + 4 + ol > blen)
                    break;
                if (code == 9 && ol >= 1) {
                    const uint8_t v = b[o + 4];
                    const unsigned e = v & 0x7f;
                    uint64_t u = 1;
                    for (unsigned k = 0; k < e && u <= UINT64_MAX / 10; k++)
                        u *= (v & 0x80) ? 2 : 10;
                    if ((v & 0x80) && e < 64)
                        u = (uint64_t)1 << e;
                    f->per_sec = u;
                } else if (code == 14 && ol >= 8) {
                    const uint64_t lo = ng32(b + o + 4, swap), hi = ng32(b + o + 8, swap);
                    f->offset = (int64_t)(swap ? (lo << 32 | hi) : (hi << 32 | lo));
                }
                o += 4 + (((size_t)ol + 3) & ~(size_t)3);
            }
            continue;
        }
        if (type == 3) { /* simple packet: no time */
            tr->records++;
            tr->skipped++;
            continue;
        }
        if (type != 6)
            continue;
        if (blen < 20) {
            tr->partial = 1;
            warn(tr, "%s: enhanced packet block too short at byte offset %ld", name, offset);
            break;
        }
        const uint32_t id = ng32(b, swap);
        const uint64_t ts = (uint64_t)ng32(b + 4, swap) << 32 | ng32(b + 8, swap);
        const uint32_t caplen = ng32(b + 12, swap), olen = ng32(b + 16, swap);
        if (id >= nif || caplen > blen - 20) {
            tr->partial = 1;
            warn(tr, "%s: packet block at byte offset %ld names interface %u of %zu or holds "
                     "more than its block",
                 name, offset, id, nif);
            break;
        }
        const ng_if *f = &ifs[id];
        /* Units to nanoseconds in integers: whole seconds, then the rest. */
        const uint64_t sec = ts / f->per_sec, frac = ts % f->per_sec;
        /* Whole seconds, kept far from overflow: a time beyond is refused
         * below anyway. */
        const int64_t lim = INT64_C(8000000000);
        const int64_t off = f->offset > lim ? lim : f->offset < -lim ? -lim : f->offset;
        const int64_t whole = sec > (uint64_t)lim ? INT64_MAX : (int64_t)sec + off;
        if (tr->records == 0)
            sec_first = whole;
        if (whole == INT64_MAX || whole - sec_first > INT64_C(4000000000) ||
            whole - sec_first < -INT64_C(4000000000)) {
            /* 126 years from the first record: not a time (and nanosecond
             * differences of such times would overflow) */
            tr->partial = 1;
            warn(tr, "%s: packet block at byte offset %ld: its time is out of range", name,
                 offset);
            break;
        }
        const int64_t ns = (whole - sec_first) * 1000000000 +
                           (int64_t)((long double)frac * 1e9L / (long double)f->per_sec);
        tr->records++;
        if (!link_supported(f->dlt)) {
            tr->skipped++;
            continue;
        }
        rc = record_add(tr, f->dlt, ns, b + 20, caplen, olen, &order, name, err);
        if (rc != 0)
            break;
    }
    free(b);
    free(ifs);
    fclose(fp);
    if (rc != 0)
        return rc;
    tr->t0 = (double)sec_first;
    record_order_warn(tr, &order, name);
    return 0;
}

/* libpcap, loaded when the first capture is read (dlopen), not when the
 * process starts: it brings eight libraries of its own (D-Bus, systemd,
 * libgcrypt, ...), 2 to 3 ms of every command's start-up. It is loaded
 * by the SONAME of the library qctl was built against (QC_PCAP_SONAME,
 * from the build), or by the name or path in QCTL_LIBPCAP. Loaded once,
 * by whichever thread reads first; never unloaded. */
#ifndef QC_PCAP_SONAME
#define QC_PCAP_SONAME "libpcap.so"
#endif
static struct {
    pcap_t *(*fopen_offline)(FILE *, u_int, char *);
    int (*datalink)(pcap_t *);
    const char *(*datalink_name)(int);
    FILE *(*file)(pcap_t *);
    int (*next_ex)(pcap_t *, struct pcap_pkthdr **, const u_char **);
    char *(*geterr)(pcap_t *);
    void (*close)(pcap_t *);
    int ok;
    char why[320]; /* when not ok */
} libpcap;
static pthread_once_t libpcap_once = PTHREAD_ONCE_INIT;

/* dlsym's object pointer into a function pointer (ISO C has no cast). */
static int libpcap_sym(void *lib, const char *sym, void *fn, size_t size)
{
    void *p = dlsym(lib, sym);
    if (p != NULL)
        memcpy(fn, &p, size);
    return p != NULL;
}

static void libpcap_load(void)
{
    const char *name = getenv("QCTL_LIBPCAP");
    if (name == NULL || *name == '\0')
        name = QC_PCAP_SONAME;
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(libpcap.why, sizeof libpcap.why, "%s", e ? e : name);
        return;
    }
#define LP(field, sym)                                                                             \
    if (!libpcap_sym(lib, sym, &libpcap.field, sizeof libpcap.field)) {                            \
        snprintf(libpcap.why, sizeof libpcap.why, "%s has no %s", name, sym);                      \
        return;                                                                                    \
    }
    LP(fopen_offline, "pcap_fopen_offline_with_tstamp_precision")
    LP(datalink, "pcap_datalink")
    LP(datalink_name, "pcap_datalink_val_to_name")
    LP(file, "pcap_file")
    LP(next_ex, "pcap_next_ex")
    LP(geterr, "pcap_geterr")
    LP(close, "pcap_close")
#undef LP
    libpcap.ok = 1;
}

static int read_pcap(qc_trace *tr, FILE *fp, const uint8_t *head, size_t headlen,
                     const char *name, qc_err *err)
{
    if (pthread_once(&libpcap_once, libpcap_load) != 0 || !libpcap.ok) {
        fclose(fp);
        return qc_err_set(err, QC_ENOLIB,
                          "%s: reading a capture needs libpcap, which did not load: %s", name,
                          libpcap.why[0] ? libpcap.why : "pthread_once failed");
    }
    const uint32_t magic = rd32le(head);
    const int swapped = magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u;
    tr->format = magic == 0x0a0d0d0au ? QC_TRACE_PCAPNG : QC_TRACE_PCAP;
    if (tr->format == QC_TRACE_PCAP && headlen >= 24) {
        uint32_t snap = rd32le(head + 16);
        if (swapped)
            snap = bswap32(snap);
        if (snap == 0)
            warn(tr, "%s: the file header gives snaplen 0 (invalid); records read with the "
                     "link type's largest snaplen",
                 name);
    }
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    pcap_t *p = libpcap.fopen_offline(fp, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (p == NULL) {
        fclose(fp);
        return qc_err_set(err, QC_EPARSE, "%s: cannot read the capture: %s", name, errbuf);
    }
    tr->linktype = libpcap.datalink(p);
    if (!link_supported(tr->linktype)) {
        const char *ln = libpcap.datalink_name(tr->linktype);
        qc_err_set(err, QC_ENOTSUP,
                   "%s: link type %d (%s) is not supported (Ethernet, Linux cooked v1/v2, raw "
                   "IP and BSD loopback are)",
                   name, tr->linktype, ln ? ln : "unknown");
        libpcap.close(p);
        return QC_ENOTSUP;
    }
    /* Times are differences of integer seconds and nanoseconds from the
     * first record: an epoch time in one double would keep only about
     * 0.2 microseconds of resolution. */
    long long sec0 = 0, nsec0 = 0;
    rec_order order = {INT64_MIN, 0};
    int rc = 0;
    /* The byte offset of each record: pcap's is counted (24 header bytes,
     * then 16 + caplen per record), sparing a system call per packet;
     * pcapng's blocks vary, so its offset is asked of the stream. */
    long offset = 24;
    for (;;) {
        if (tr->format == QC_TRACE_PCAPNG)
            offset = ftell(libpcap.file(p));
        struct pcap_pkthdr *h;
        const u_char *data;
        const int r = libpcap.next_ex(p, &h, &data);
        if (r == PCAP_ERROR_BREAK)
            break;
        if (r != 1) {
            tr->partial = 1;
            warn(tr, "%s: stopped at record %llu (byte offset %ld): %s", name,
                 (unsigned long long)tr->records + 1, offset, libpcap.geterr(p));
            break;
        }
        offset += 16 + (long)h->caplen;
        if (tr->records++ == 0) {
            sec0 = (long long)h->ts.tv_sec;
            nsec0 = (long long)h->ts.tv_usec; /* nanoseconds at this precision */
        }
        const int64_t dsec = (int64_t)h->ts.tv_sec - sec0;
        if (dsec > INT64_C(4000000000) || dsec < -INT64_C(4000000000)) {
            /* 126 years from the first record: not a time (and nanosecond
             * differences of such times would overflow) */
            tr->partial = 1;
            warn(tr, "%s: stopped at record %llu (byte offset %ld): its time is %lld s from the "
                     "first record's",
                 name, (unsigned long long)tr->records, offset - 16 - (long)h->caplen,
                 (long long)dsec);
            break;
        }
        const int64_t ns = dsec * 1000000000 + ((int64_t)h->ts.tv_usec - nsec0);
        rc = record_add(tr, tr->linktype, ns, data, h->caplen, h->len, &order, name, err);
        if (rc != 0)
            break;
    }
    libpcap.close(p);
    if (rc != 0)
        return rc;
    tr->t0 = (double)sec0 + 1e-9 * (double)nsec0;
    record_order_warn(tr, &order, name);
    return 0;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                */
/* ------------------------------------------------------------------ */

typedef struct csv_cols {
    int time, size, flow, act; /* 0-based columns, -1 absent */
} csv_cols;

/* Splits line (modified in place) at commas into at most max fields. */
static int split_fields(char *line, char **f, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        if (n == max)
            return max + 1;
        f[n++] = s;
        char *c = strchr(s, ',');
        if (c == NULL)
            break;
        *c = '\0';
        s = c + 1;
    }
    for (int i = 0; i < n; i++) { /* trim blanks */
        while (*f[i] == ' ' || *f[i] == '\t')
            f[i]++;
        size_t l = strlen(f[i]);
        while (l > 0 && (f[i][l - 1] == ' ' || f[i][l - 1] == '\t'))
            f[i][--l] = '\0';
    }
    return n;
}

static int name_is(const char *s, const char *const *names)
{
    for (; *names; names++) {
        size_t i = 0;
        while (s[i] && names[0][i] && tolower((unsigned char)s[i]) == names[0][i])
            i++;
        if (s[i] == '\0' && names[0][i] == '\0')
            return 1;
    }
    return 0;
}

static int csv_header(char **f, int n, csv_cols *c, const char *name, size_t line, qc_err *err)
{
    static const char *const tn[] = {"time", "timestamp", "t", NULL};
    static const char *const sn[] = {"size", "length", "len", "bytes", NULL};
    static const char *const fn[] = {"flow", NULL};
    static const char *const an[] = {"activity", "label", NULL};
    c->time = c->size = c->flow = c->act = -1;
    for (int i = 0; i < n; i++) {
        if (name_is(f[i], tn))
            c->time = i;
        else if (name_is(f[i], sn))
            c->size = i;
        else if (name_is(f[i], fn))
            c->flow = i;
        else if (name_is(f[i], an))
            c->act = i;
    }
    if (c->time < 0 || c->size < 0)
        return qc_err_set(err, QC_EPARSE,
                          "%s:%zu: the header needs columns 'time' and 'size' (found '%s'%s)",
                          name, line, f[0], n > 1 ? ", ..." : "");
    return 0;
}

/* Seconds since the first line as whole nanoseconds (a CSV time has
 * what precision its text gave; beyond 126 years it saturates). */
static int64_t csv_ns(double rt)
{
    const double ns = rt * 1e9;
    if (ns >= 4e18) /* 126 years: differences of such times still fit */
        return INT64_C(4000000000000000000);
    if (ns <= -4e18)
        return -INT64_C(4000000000000000000);
    return (int64_t)llround(ns);
}

static int csv_number(const char *s, double *out)
{
    if (*s == '\0')
        return -1;
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (*end != '\0' || !isfinite(v) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* The flow of a CSV label, found by a linear search cached on the last
 * hit (CSV traces rarely have many flows; consecutive lines share one). */
static int csv_flow(qc_trace *tr, const char *label, uint32_t *last, double t, uint32_t *out)
{
    if (*last < tr->nflows && strcmp(tr->flows[*last].label, label) == 0) {
        *out = *last;
        return 0;
    }
    for (size_t i = 0; i < tr->nflows; i++)
        if (strcmp(tr->flows[i].label, label) == 0) {
            *out = *last = (uint32_t)i;
            return 0;
        }
    if (grow((void **)&tr->flows, &tr->flowcap, tr->nflows + 1, sizeof *tr->flows) != 0)
        return QC_ENOMEM;
    qc_trace_flow *f = &tr->flows[tr->nflows];
    memset(f, 0, sizeof *f);
    f->first = f->last = t;
    f->label = strdup(label);
    if (f->label == NULL)
        return QC_ENOMEM;
    *out = *last = (uint32_t)tr->nflows++;
    return 0;
}

static int read_csv(qc_trace *tr, FILE *fp, const char *name, qc_err *out_err)
{
    qc_err local = {0}, *err = &local;
    tr->format = QC_TRACE_CSV;
    tr->linktype = -1;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t got;
    csv_cols c = {0, 1, -1, -1};
    int have_cols = 0, rc = 0;
    double first = NAN, last = -INFINITY;
    uint64_t unordered = 0;
    uint32_t last_flow = UINT32_MAX;
    int last_act = -1;
    while ((got = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        char *s = line;
        if (lineno == 1 && (unsigned char)s[0] == 0xef && (unsigned char)s[1] == 0xbb &&
            (unsigned char)s[2] == 0xbf)
            s += 3;
        size_t l = strlen(s);
        if ((ssize_t)l != got - (s - line)) {
            tr->partial = tr->n > 0;
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: a NUL byte in a text line", name, lineno);
            break;
        }
        while (l > 0 && (s[l - 1] == '\n' || s[l - 1] == '\r'))
            s[--l] = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        char *f[8];
        const int nf = split_fields(s, f, 8);
        if (nf > 8) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: more than 8 columns", name, lineno);
            break;
        }
        if (!have_cols) {
            have_cols = 1;
            const char ch = f[0][0];
            if (!(isdigit((unsigned char)ch) || ch == '.' || ch == '-' || ch == '+')) {
                if ((rc = csv_header(f, nf, &c, name, lineno, err)) != 0)
                    break;
                continue;
            }
            if (nf < 2) {
                rc = qc_err_set(err, QC_EPARSE, "%s:%zu: expected time,size[,flow][,activity]",
                                name, lineno);
                break;
            }
            c.flow = nf >= 3 ? 2 : -1;
            c.act = nf >= 4 ? 3 : -1;
        }
        const int need = 1 + (c.time > c.size ? c.time : c.size);
        if (nf < need || (c.flow >= nf) || (c.act >= nf)) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: %d columns, expected %d", name, lineno, nf,
                            c.act >= 0 ? c.act + 1 : c.flow >= 0 ? c.flow + 1 : need);
            break;
        }
        double t, sz;
        if (csv_number(f[c.time], &t) != 0) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: time '%.40s' is not a finite number", name,
                            lineno, f[c.time]);
            break;
        }
        if (csv_number(f[c.size], &sz) != 0 || sz < 0 || sz > 4294967295.0 || sz != floor(sz)) {
            rc = qc_err_set(err, QC_EPARSE,
                            "%s:%zu: size '%.40s' is not a whole number of bytes in [0, 2^32)",
                            name, lineno, f[c.size]);
            break;
        }
        if (isnan(first))
            first = t;
        const double rt = t - first;
        uint32_t flow;
        const char *fl = c.flow >= 0 ? f[c.flow] : "";
        if ((rc = csv_flow(tr, fl, &last_flow, rt, &flow)) != 0 ||
            (rc = push_packet(tr, rt, csv_ns(rt), (uint32_t)sz, flow, 0, 0)) != 0) {
            qc_err_set(err, rc, "%s:%zu: out of memory", name, lineno);
            break;
        }
        tr->records++;
        if (c.act >= 0 && f[c.act][0] != '\0') {
            if (last_act < 0 || strcmp(tr->acts[last_act], f[c.act]) != 0)
                last_act = qc_trace_activity(tr, f[c.act], err);
            if (last_act < 0) {
                rc = last_act;
                qc_err_prefix(err, "%s:%zu", name, lineno);
                break;
            }
            tr->pkt[tr->n - 1].act = (uint16_t)last_act;
        }
        if (rt < last)
            unordered++;
        else
            last = rt;
    }
    free(line);
    if (rc == QC_EPARSE && tr->n > 0) {
        /* Keep what came before the bad line. */
        tr->partial = 1;
        warn(tr, "%s (stopped there; %zu packets read before)", err->msg, tr->n);
        rc = 0;
    } else if (rc == 0 && ferror(fp)) {
        tr->partial = tr->n > 0;
        if (tr->n == 0)
            rc = qc_err_set(err, QC_EIO, "%s: read error", name);
        else
            warn(tr, "%s: read error after line %zu", name, lineno);
    }
    fclose(fp);
    tr->t0 = isnan(first) ? 0 : first;
    if (rc == 0 && unordered)
        warn(tr, "%s: %llu lines out of time order; sorted", name, (unsigned long long)unordered);
    if (rc != 0 && out_err)
        *out_err = local;
    return rc;
}

/* ------------------------------------------------------------------ */
/* Entry points                                                       */
/* ------------------------------------------------------------------ */

static int cmp_pkt_time(const void *a, const void *b)
{
    const qc_trace_pkt *x = a, *y = b;
    return (x->ns > y->ns) - (x->ns < y->ns);
}

/* Merge sort by time, stable (qsort is not): packets with equal times
 * keep their file order. */
static int sort_packets(qc_trace *tr)
{
    int sorted = 1;
    for (size_t i = 1; i < tr->n && sorted; i++)
        sorted = tr->pkt[i].ns >= tr->pkt[i - 1].ns;
    if (sorted)
        goto shift;
    qc_trace_pkt *tmp = malloc(tr->n * sizeof *tmp);
    if (tmp == NULL)
        return QC_ENOMEM;
    for (size_t w = 1; w < tr->n; w *= 2) {
        for (size_t lo = 0; lo < tr->n; lo += 2 * w) {
            size_t mid = lo + w < tr->n ? lo + w : tr->n;
            size_t hi = lo + 2 * w < tr->n ? lo + 2 * w : tr->n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp_pkt_time(&tr->pkt[j], &tr->pkt[i]) < 0 ? tr->pkt[j++] : tr->pkt[i++];
            while (i < mid)
                tmp[k++] = tr->pkt[i++];
            while (j < hi)
                tmp[k++] = tr->pkt[j++];
        }
        memcpy(tr->pkt, tmp, tr->n * sizeof *tmp);
    }
    free(tmp);
shift:;
    /* Times are relative to the earliest packet, which may not have been
     * the first record (nor an IP packet). */
    const double shift = tr->n ? tr->pkt[0].t : 0;
    const int64_t shift_ns = tr->n ? tr->pkt[0].ns : 0;
    /* Seconds from the exact nanoseconds, always: in the order of ns
     * (which the sort followed), even where a CSV's decimal times round
     * to the same nanosecond. */
    for (size_t i = 0; i < tr->n; i++) {
        tr->pkt[i].ns -= shift_ns;
        tr->pkt[i].t = 1e-9 * (double)tr->pkt[i].ns;
    }
    if (shift != 0) {
        for (size_t i = 0; i < tr->nflows; i++) {
            tr->flows[i].first -= shift;
            tr->flows[i].last -= shift;
        }
        tr->t0 += shift;
    }
    return 0;
}

static int looks_like_text(const uint8_t *b, size_t n)
{
    if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!(isprint(b[i]) || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
            return 0;
    return n > 0;
}

static int read_stream(qc_trace *tr, FILE *fp, const char *name, qc_err *err)
{
    memset(tr, 0, sizeof *tr);
    uint8_t head[24];
    const size_t got = fread(head, 1, sizeof head, fp);
    if (got == 0) {
        fclose(fp);
        return qc_err_set(err, QC_EEMPTY, "%s: empty file", name);
    }
    rewind(fp);
    int rc;
    const uint32_t m = got >= 4 ? rd32le(head) : 0;
    if (m == 0xa1b2c3d4u || m == 0xd4c3b2a1u || m == 0xa1b23c4du || m == 0x4d3cb2a1u ||
        m == 0x0a0d0d0au) {
        if (m == 0x0a0d0d0au && pcapng_mixed(fp))
            rc = read_pcapng_mixed(tr, fp, name, err);
        else
            rc = read_pcap(tr, fp, head, got, name, err);
    } else if (looks_like_text(head, got)) {
        rc = read_csv(tr, fp, name, err);
    } else {
        fclose(fp);
        uint32_t be = 0;
        for (size_t i = 0; i < 4 && i < got; i++)
            be = be << 8 | head[i];
        return qc_err_set(err, QC_EPARSE,
                          "%s: not a capture or CSV: unknown magic number 0x%08x at offset 0 "
                          "(pcap starts a1b2c3d4 or a1b23c4d, pcapng 0a0d0d0a)",
                          name, be);
    }
    if (rc == 0 && tr->n == 0) {
        if (tr->records == 0 && !tr->partial)
            rc = qc_err_set(err, QC_EEMPTY, "%s: no packets (the %s holds no records)", name,
                            tr->format == QC_TRACE_CSV ? "file" : "capture");
        else if (tr->records == 0)
            rc = qc_err_set(err, QC_EPARSE, "%s", tr->warn[0]);
        else
            rc = qc_err_set(err, QC_EEMPTY,
                            "%s: none of its %llu records is an IP packet%s%s", name,
                            (unsigned long long)tr->records, tr->partial ? "; " : "",
                            tr->partial ? tr->warn[tr->nwarn - 1] : "");
    }
    if (rc == 0)
        rc = sort_packets(tr);
    if (rc != 0) {
        qc_err e = {0};
        if (err)
            e = *err;
        qc_trace_free(tr);
        if (err)
            *err = e;
        return rc;
    }
    index_free(tr);
    return 0;
}

int qc_trace_read(qc_trace *tr, const char *path, qc_err *err)
{
    memset(tr, 0, sizeof *tr);
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return qc_err_set(err, QC_EIO, "%s: cannot open: %s", path, strerror(errno));
    return read_stream(tr, fp, path, err);
}

int qc_trace_read_mem(qc_trace *tr, const void *buf, size_t len, const char *name, qc_err *err)
{
    memset(tr, 0, sizeof *tr);
    if (len == 0)
        return qc_err_set(err, QC_EEMPTY, "%s: empty file", name);
    FILE *fp = fmemopen((void *)buf, len, "rb");
    if (fp == NULL)
        return qc_err_set(err, QC_ENOMEM, "%s: cannot open a memory stream", name);
    return read_stream(tr, fp, name, err);
}

void qc_trace_free(qc_trace *tr)
{
    for (size_t i = 0; i < tr->nflows; i++)
        free(tr->flows[i].label);
    for (size_t i = 0; i < tr->nacts; i++)
        free(tr->acts[i]);
    free(tr->acts);
    free(tr->flows);
    free(tr->pkt);
    index_free(tr);
    memset(tr, 0, sizeof *tr);
}

static void addr_str(uint8_t af, const uint8_t *a, char *buf, size_t size)
{
    if (inet_ntop(af == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)size) == NULL)
        snprintf(buf, size, "?");
}

static const char *proto_name(uint8_t p, char *buf, size_t size)
{
    if (p == 6)
        return "tcp";
    if (p == 17)
        return "udp";
    if (p == 1)
        return "icmp";
    if (p == 58)
        return "icmp6";
    snprintf(buf, size, "ip%u", p);
    return buf;
}

void qc_trace_flow_name(const qc_trace_flow *f, char *buf, size_t size)
{
    if (f->af == 0) {
        snprintf(buf, size, "%s", f->label && f->label[0] ? f->label : "-");
        return;
    }
    char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], pb[8];
    addr_str(f->af, f->src, a, sizeof a);
    addr_str(f->af, f->dst, b, sizeof b);
    const char *pn = proto_name(f->proto, pb, sizeof pb);
    if (f->af == 6)
        snprintf(buf, size, "%s [%s]:%u > [%s]:%u", pn, a, f->sport, b, f->dport);
    else
        snprintf(buf, size, "%s %s:%u > %s:%u", pn, a, f->sport, b, f->dport);
}

int qc_trace_activity(qc_trace *tr, const char *name, qc_err *err)
{
    for (size_t i = 0; i < tr->nacts; i++)
        if (strcmp(tr->acts[i], name) == 0)
            return (int)i;
    if (tr->nacts >= QC_TRACE_NOACT)
        return qc_err_set(err, QC_ERANGE, "more than %d activities", QC_TRACE_NOACT - 1);
    char **a = realloc(tr->acts, (tr->nacts + 1) * sizeof *a);
    if (a == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    tr->acts = a;
    if ((a[tr->nacts] = strdup(name)) == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    return (int)tr->nacts++;
}

/* ------------------------------------------------------------------ */
/* Labels                                                             */
/* ------------------------------------------------------------------ */

typedef enum term_kind { T_ANY, T_PROTO, T_PORT, T_HOST, T_FLOW, T_TIME, T_LABEL } term_kind;

typedef struct term {
    term_kind kind;
    uint8_t proto, af, af2;
    uint16_t port, port2;
    uint8_t addr[16], addr2[16];
    double t0, t1;
    char *text;
} term;

typedef struct rule {
    char *act;
    term *terms;
    size_t nterms;
} rule;

struct qc_trace_labels {
    rule *rules;
    size_t n;
};

void qc_trace_labels_free(qc_trace_labels *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++) {
        for (size_t j = 0; j < l->rules[i].nterms; j++)
            free(l->rules[i].terms[j].text);
        free(l->rules[i].terms);
        free(l->rules[i].act);
    }
    free(l->rules);
    free(l);
}

static int parse_proto(const char *s, uint8_t *out)
{
    if (strcmp(s, "tcp") == 0)
        *out = 6;
    else if (strcmp(s, "udp") == 0)
        *out = 17;
    else if (strcmp(s, "icmp") == 0)
        *out = 1;
    else {
        char *end;
        const long v = strtol(s, &end, 10);
        if (*s == '\0' || *end != '\0' || v < 0 || v > 255)
            return -1;
        *out = (uint8_t)v;
    }
    return 0;
}

static int parse_port(const char *s, uint16_t *out)
{
    char *end;
    const long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0 || v > 65535)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

static int parse_addr(const char *s, uint8_t *af, uint8_t *a)
{
    memset(a, 0, 16);
    if (inet_pton(AF_INET, s, a) == 1) {
        *af = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, s, a) == 1) {
        *af = 6;
        return 0;
    }
    return -1;
}

/* "A:P" or "[v6]:P" */
static int parse_endpoint(char *s, uint8_t *af, uint8_t *a, uint16_t *port)
{
    char *colon = strrchr(s, ':');
    if (colon == NULL)
        return -1;
    *colon = '\0';
    if (parse_port(colon + 1, port) != 0)
        return -1;
    char *host = s;
    size_t l = strlen(host);
    if (l >= 2 && host[0] == '[' && host[l - 1] == ']') {
        host[l - 1] = '\0';
        host++;
    }
    return parse_addr(host, af, a);
}

static int parse_rule(rule *r, char **tok, int nt, const char *name, size_t line, qc_err *err)
{
    memset(r, 0, sizeof *r);
    if (nt < 2)
        return qc_err_set(err, QC_EPARSE, "%s:%zu: expected ACTIVITY TERM... (e.g. 'web port 80')",
                          name, line);
    if (strlen(tok[0]) > 63)
        return qc_err_set(err, QC_EPARSE, "%s:%zu: activity name longer than 63 characters",
                          name, line);
    r->act = strdup(tok[0]);
    r->terms = calloc((size_t)nt, sizeof *r->terms);
    if (r->act == NULL || r->terms == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int i = 1;
    while (i < nt) {
        term *t = &r->terms[r->nterms++];
        const char *k = tok[i++];
#define NEED(cnt, what)                                                                    \
    do {                                                                                   \
        if (i + (cnt) > nt)                                                                \
            return qc_err_set(err, QC_EPARSE, "%s:%zu: '%s' needs %s", name, line, k, what); \
    } while (0)
        if (strcmp(k, "any") == 0) {
            t->kind = T_ANY;
        } else if (strcmp(k, "proto") == 0) {
            NEED(1, "a protocol (tcp, udp or a number)");
            t->kind = T_PROTO;
            if (parse_proto(tok[i], &t->proto) != 0)
                return qc_err_set(err, QC_EPARSE, "%s:%zu: bad protocol '%s'", name, line, tok[i]);
            i++;
        } else if (strcmp(k, "tcp") == 0 || strcmp(k, "udp") == 0) {
            t->kind = T_PROTO;
            t->proto = k[0] == 't' ? 6 : 17;
        } else if (strcmp(k, "port") == 0) {
            NEED(1, "a port number");
            t->kind = T_PORT;
            if (parse_port(tok[i], &t->port) != 0)
                return qc_err_set(err, QC_EPARSE, "%s:%zu: bad port '%s'", name, line, tok[i]);
            i++;
        } else if (strcmp(k, "host") == 0) {
            NEED(1, "an address");
            t->kind = T_HOST;
            if (parse_addr(tok[i], &t->af, t->addr) != 0)
                return qc_err_set(err, QC_EPARSE, "%s:%zu: bad address '%s'", name, line, tok[i]);
            i++;
        } else if (strcmp(k, "flow") == 0) {
            NEED(3, "PROTO A:PORT B:PORT");
            t->kind = T_FLOW;
            if (parse_proto(tok[i], &t->proto) != 0 ||
                parse_endpoint(tok[i + 1], &t->af, t->addr, &t->port) != 0 ||
                parse_endpoint(tok[i + 2], &t->af2, t->addr2, &t->port2) != 0 || t->af != t->af2)
                return qc_err_set(err, QC_EPARSE,
                                  "%s:%zu: bad flow (expected PROTO A:PORT B:PORT, e.g. tcp "
                                  "10.0.0.1:5000 10.0.0.2:80)",
                                  name, line);
            i += 3;
        } else if (strcmp(k, "time") == 0) {
            NEED(2, "T0 T1");
            t->kind = T_TIME;
            if (csv_number(tok[i], &t->t0) != 0 || csv_number(tok[i + 1], &t->t1) != 0 ||
                !(t->t1 > t->t0))
                return qc_err_set(err, QC_EPARSE, "%s:%zu: bad time range '%s %s' (need T0 < T1)",
                                  name, line, tok[i], tok[i + 1]);
            i += 2;
        } else if (strcmp(k, "label") == 0) {
            NEED(1, "a flow label");
            t->kind = T_LABEL;
            if ((t->text = strdup(tok[i])) == NULL)
                return qc_err_set(err, QC_ENOMEM, "out of memory");
            i++;
        } else {
            return qc_err_set(err, QC_EPARSE,
                              "%s:%zu: unknown term '%.40s' (any, proto, tcp, udp, port, host, "
                              "flow, time, label)",
                              name, line, k);
        }
#undef NEED
    }
    return 0;
}

int qc_trace_labels_parse(qc_trace_labels **out, const char *text, size_t len, const char *name,
                          qc_err *err)
{
    *out = NULL;
    qc_trace_labels *l = calloc(1, sizeof *l);
    char *buf = malloc(len + 1);
    if (l == NULL || buf == NULL) {
        free(l);
        free(buf);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    int rc = 0;
    size_t line = 0, cap = 0;
    char *s = buf;
    while (rc == 0 && s < buf + len) {
        line++;
        char *nl = memchr(s, '\n', (size_t)(buf + len - s));
        char *end = nl ? nl : buf + len;
        *end = '\0';
        if (strlen(s) != (size_t)(end - s)) {
            rc = qc_err_set(err, QC_EPARSE, "%s:%zu: a NUL byte in a text line", name, line);
            break;
        }
        char *hash = strchr(s, '#');
        if (hash)
            *hash = '\0';
        char *tok[64];
        int nt = 0;
        for (char *save = NULL, *w = strtok_r(s, " \t\r,", &save); w;
             w = strtok_r(NULL, " \t\r,", &save)) {
            if (nt == 64) {
                rc = qc_err_set(err, QC_EPARSE, "%s:%zu: more than 64 words", name, line);
                break;
            }
            tok[nt++] = w;
        }
        if (rc == 0 && nt > 0) {
            if (grow((void **)&l->rules, &cap, l->n + 1, sizeof *l->rules) != 0) {
                rc = qc_err_set(err, QC_ENOMEM, "out of memory");
                break;
            }
            rc = parse_rule(&l->rules[l->n], tok, nt, name, line, err);
            l->n++; /* freed with the rest even when it failed half way */
        }
        s = end + 1;
    }
    free(buf);
    if (rc == 0 && l->n == 0)
        rc = qc_err_set(err, QC_EEMPTY, "%s: no rules", name);
    if (rc != 0) {
        qc_trace_labels_free(l);
        return rc;
    }
    *out = l;
    return 0;
}

int qc_trace_labels_load(qc_trace_labels **out, const char *path, qc_err *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return qc_err_set(err, QC_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char chunk[4096];
    size_t got;
    int rc = 0;
    while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
        if (len + got > (64u << 20)) {
            rc = qc_err_set(err, QC_ERANGE, "%s: larger than 64 MiB", path);
            break;
        }
        if (grow((void **)&buf, &cap, len + got, 1) != 0) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            break;
        }
        memcpy(buf + len, chunk, got);
        len += got;
    }
    if (rc == 0 && ferror(fp))
        rc = qc_err_set(err, QC_EIO, "%s: read error", path);
    fclose(fp);
    if (rc == 0)
        rc = qc_trace_labels_parse(out, buf ? buf : "", len, path, err);
    free(buf);
    return rc;
}

static int addr_eq(uint8_t af, const uint8_t *a, uint8_t baf, const uint8_t *b)
{
    return af == baf && memcmp(a, b, af == 6 ? 16 : 4) == 0;
}

static int term_match(const term *t, const qc_trace_pkt *p, const qc_trace_flow *f)
{
    switch (t->kind) {
    case T_ANY:
        return 1;
    case T_PROTO:
        return f->proto == t->proto;
    case T_PORT:
        return f->af != 0 && (f->sport == t->port || f->dport == t->port);
    case T_HOST:
        return addr_eq(f->af, f->src, t->af, t->addr) || addr_eq(f->af, f->dst, t->af, t->addr);
    case T_FLOW:
        if (f->proto != t->proto)
            return 0;
        return (addr_eq(f->af, f->src, t->af, t->addr) && f->sport == t->port &&
                addr_eq(f->af, f->dst, t->af2, t->addr2) && f->dport == t->port2) ||
               (addr_eq(f->af, f->dst, t->af, t->addr) && f->dport == t->port &&
                addr_eq(f->af, f->src, t->af2, t->addr2) && f->sport == t->port2);
    case T_TIME:
        return p->t >= t->t0 && p->t < t->t1;
    case T_LABEL:
        return f->label != NULL && strcmp(f->label, t->text) == 0;
    }
    return 0;
}

int qc_trace_apply_labels(qc_trace *tr, const qc_trace_labels *l, size_t *unlabelled,
                          qc_err *err)
{
    int *act = malloc(l->n * sizeof *act);
    if (act == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (size_t r = 0; r < l->n; r++)
        if ((act[r] = qc_trace_activity(tr, l->rules[r].act, err)) < 0) {
            const int rc = act[r];
            free(act);
            return rc;
        }
    size_t none = 0;
    for (size_t i = 0; i < tr->n; i++) {
        qc_trace_pkt *p = &tr->pkt[i];
        const qc_trace_flow *f = &tr->flows[p->flow];
        p->act = QC_TRACE_NOACT;
        for (size_t r = 0; r < l->n; r++) {
            const rule *ru = &l->rules[r];
            size_t j = 0;
            while (j < ru->nterms && term_match(&ru->terms[j], p, f))
                j++;
            if (j == ru->nterms) {
                p->act = (uint16_t)act[r];
                break;
            }
        }
        none += p->act == QC_TRACE_NOACT;
    }
    free(act);
    if (unlabelled)
        *unlabelled = none;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Splitting                                                          */
/* ------------------------------------------------------------------ */

void qc_trace_groups_free(qc_trace_group *g, size_t n)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        free(g[i].idx);
    free(g);
}

/* The group key of packet i: its flow, its initiator's address (as the
 * index of the first flow with that address), or its activity. */
static size_t group_key(const qc_trace *tr, qc_trace_split how, size_t i, const uint32_t *host)
{
    const qc_trace_pkt *p = &tr->pkt[i];
    switch (how) {
    case QC_SPLIT_FLOW:
        return p->flow;
    case QC_SPLIT_HOST:
        return host[p->flow];
    case QC_SPLIT_ACTIVITY:
        return p->act == QC_TRACE_NOACT ? SIZE_MAX : p->act;
    case QC_SPLIT_NONE:
        break;
    }
    return 0;
}

int qc_trace_split_groups(const qc_trace *tr, qc_trace_split how, qc_trace_group **groups,
                          size_t *ngroups, qc_err *err)
{
    *groups = NULL;
    *ngroups = 0;
    size_t nkeys = how == QC_SPLIT_ACTIVITY ? tr->nacts : how == QC_SPLIT_NONE ? 1 : tr->nflows;
    uint32_t *host = NULL;
    size_t *count = calloc(nkeys + 1, sizeof *count);
    size_t *gid = malloc((nkeys + 1) * sizeof *gid);
    if (how == QC_SPLIT_HOST) {
        host = malloc((tr->nflows + 1) * sizeof *host);
        if (host)
            for (size_t f = 0; f < tr->nflows; f++) {
                host[f] = (uint32_t)f;
                for (size_t g = 0; g < f; g++) /* flows per trace are few; quadratic is fine */
                    if (addr_eq(tr->flows[g].af, tr->flows[g].src, tr->flows[f].af,
                                tr->flows[f].src) &&
                        (tr->flows[f].af != 0 ||
                         strcmp(tr->flows[g].label ? tr->flows[g].label : "",
                                tr->flows[f].label ? tr->flows[f].label : "") == 0)) {
                        host[f] = host[g];
                        break;
                    }
            }
    }
    if (count == NULL || gid == NULL || (how == QC_SPLIT_HOST && host == NULL)) {
        free(count);
        free(gid);
        free(host);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < tr->n; i++) {
        const size_t k = group_key(tr, how, i, host);
        if (k != SIZE_MAX)
            count[k]++;
    }
    /* Groups in order of first packet. */
    size_t ng = 0;
    for (size_t k = 0; k <= nkeys; k++)
        gid[k] = SIZE_MAX;
    qc_trace_group *g = calloc(nkeys + 1, sizeof *g);
    int rc = g ? 0 : QC_ENOMEM;
    for (size_t i = 0; rc == 0 && i < tr->n; i++) {
        const size_t k = group_key(tr, how, i, host);
        if (k == SIZE_MAX)
            continue;
        if (gid[k] == SIZE_MAX) {
            gid[k] = ng;
            qc_trace_group *gr = &g[ng++];
            if ((gr->idx = malloc(count[k] * sizeof *gr->idx)) == NULL) {
                rc = QC_ENOMEM;
                break;
            }
            const qc_trace_flow *f = &tr->flows[tr->pkt[i].flow];
            char buf[128];
            switch (how) {
            case QC_SPLIT_NONE:
                snprintf(gr->name, sizeof gr->name, "all");
                break;
            case QC_SPLIT_ACTIVITY:
                snprintf(gr->name, sizeof gr->name, "%s", tr->acts[k]);
                break;
            case QC_SPLIT_FLOW:
                qc_trace_flow_name(f, buf, sizeof buf);
                snprintf(gr->name, sizeof gr->name, "%s", buf);
                break;
            case QC_SPLIT_HOST:
                if (f->af)
                    addr_str(f->af, f->src, gr->name, sizeof gr->name);
                else
                    snprintf(gr->name, sizeof gr->name, "%s", f->label ? f->label : "-");
                break;
            }
        }
        qc_trace_group *gr = &g[gid[k]];
        gr->idx[gr->n++] = i;
    }
    free(count);
    free(gid);
    free(host);
    if (rc != 0) {
        qc_trace_groups_free(g, nkeys + 1);
        return qc_err_set(err, rc, "out of memory");
    }
    *groups = g;
    *ngroups = ng;
    return 0;
}

int qc_trace_write_csv(const qc_trace *tr, const char *path, qc_err *err)
{
    qc_ofile f;
    int rc = qc_ofile_open(&f, path, err);
    if (rc != 0)
        return rc;
    fprintf(f.fp, "time,size,flow,activity\n");
    for (size_t i = 0; i < tr->n; i++) {
        const qc_trace_pkt *p = &tr->pkt[i];
        char fl[128];
        qc_trace_flow_name(&tr->flows[p->flow], fl, sizeof fl);
        for (char *c = fl; *c; c++)
            if (*c == ',')
                *c = ';';
        fprintf(f.fp, "%.9f,%u,%s,%s\n", p->t, p->size, fl,
                p->act == QC_TRACE_NOACT ? "" : tr->acts[p->act]);
    }
    return qc_ofile_commit(&f, err);
}

int qc_trace_times(const char *path, double **t, size_t *n, qc_err *err)
{
    *t = NULL;
    *n = 0;
    qc_trace tr;
    int rc = qc_trace_read(&tr, path, err);
    if (rc != 0)
        return rc;
    double *x = malloc(tr.n * sizeof *x);
    if (x == NULL) {
        qc_trace_free(&tr);
        return qc_err_set(err, QC_ENOMEM, "%s: out of memory", path);
    }
    for (size_t i = 0; i < tr.n; i++)
        x[i] = tr.pkt[i].t;
    *t = x;
    *n = tr.n;
    qc_trace_free(&tr);
    return 0;
}

/* Indexed by format (0 is none). */
static const char *const trace_format_names[] = {NULL, "pcap", "pcapng", "csv"};
QC__NAMES(qc_trace_format, qc_trace_format_name, qc_trace_format_parse, trace_format_names)

static const char *const trace_split_names[] = {"none", "flow", "host", "activity"};
QC__NAMES(qc_trace_split, qc_trace_split_name, qc_trace_split_parse, trace_split_names)
