/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen.c: generating many users' packets from traffic models, writing them
 * as pcap or CSV, validating generated against real traffic, and traffic
 * as an arrival source for the simulator.
 *
 * Each user is a small state machine (session left, time of its next
 * packet) with its own stream; the generator keeps the users in a binary
 * heap by the time of their next packet (ties by user order, so the
 * output is a function of the seed alone) and pops the earliest. The cost
 * per packet is O(log users), memory O(users): a billion-packet capture
 * is written without ever being held.
 *
 * pcap is written directly (the format is 24 header bytes and 16 per
 * record): nanosecond timestamps (magic a1b23c4d), link type Ethernet.
 * IPv4 and TCP/UDP checksums are filled in (the payload is zeros, which
 * add nothing to a ones'-complement sum, so they cost a few additions),
 * so tools that verify them do not complain.
 *
 * Validation statistics (for `qctl gen --validate`):
 *  - autocorrelation of packet counts in bins of width b, lags 0..10;
 *  - variance-time: the counts averaged over blocks of m = 1, 2, 4, ...
 *    bins have Var(X^(m)) ~ m^(2H - 2) for a self-similar process with
 *    Hurst exponent H (H = 1/2 for short-range dependence, the Poisson
 *    case), so H = 1 + slope / 2 of the least-squares line of
 *    log Var(X^(m)) against log m over blocks with at least 10 values. */
#include "qctl/traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/output.h"
#include "core/names.h"

#define PCAP_EPOCH 1700000000LL /* 2023-11-14: generated captures start here */

typedef struct user {
    const qc_traffic_model *m;
    uint16_t act;
    uint32_t idx;
    qc_rng r;
    qc_copula_walk w;
    double t;         /* time of the next packet */
    uint64_t left;    /* packets left in the session, the next included */
    uint32_t session;
    uint32_t bytes[2];/* bytes sent in this session, by direction */
    int first;        /* the next packet opens a session */
    uint32_t size;    /* the next packet's size and direction */
    uint8_t dir;
} user;

struct qc_traffic_gen {
    user *u;
    size_t nu;
    uint32_t *heap; /* user indices, by (t, index) */
    size_t nheap;
    const qc_traffic_model **models;
    size_t nmodels;
    qc_traffic_gen_params o;
    uint64_t emitted;
};

void qc_traffic_gen_params_init(qc_traffic_gen_params *o)
{
    memset(o, 0, sizeof *o);
    o->approach = QC_TRAFFIC_COPULA;
    o->seed = 1;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                            */
/* ------------------------------------------------------------------ */

/* The first entry of t whose cumulative probability reaches u. */
static size_t table_find(const qc_traffic_table *t, double u)
{
    size_t lo = 0, hi = t->m - 1;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (t->cum[mid] >= u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static double table_value(const qc_traffic_table *t, double u)
{
    return t->v[table_find(t, u)];
}

static double table_draw(const qc_traffic_table *t, qc_rng *r)
{
    return table_value(t, qc_rng_u01_open(r));
}

/* A uniform point of the rank block of the value u falls on, mapped
 * through the fitted marginal (the copula over fitted marginals). */
static double block_to_fitted(const qc_traffic_marginal *mg, double u, qc_rng *r)
{
    const qc_traffic_table *t = &mg->emp;
    const size_t lo = table_find(t, u);
    const double a = lo ? t->cum[lo - 1] : 0, b = t->cum[lo];
    double q = a + (b - a) * qc_rng_u01_open(r);
    if (!(q > 0))
        q = 1e-300;
    if (!(q < 1))
        q = 1 - 1e-16;
    return qc_fit_quantile(&mg->fitted, q);
}

static uint32_t clamp_size(double x, uint8_t proto)
{
    const double lo = proto == 6 ? 40 : proto == 17 ? 28 : 20;
    if (!(x >= lo)) /* NaN too */
        return (uint32_t)lo;
    if (x > 65535)
        return 65535;
    return (uint32_t)llround(x);
}

static double nonneg(double x)
{
    return x > 0 ? x : 0; /* NaN (a failed draw) counts as 0 */
}

static void draw_state(const qc_traffic_gen_params *o, user *u, double *size, double *gap,
                       uint8_t *dir)
{
    const qc_traffic_model *m = u->m;
    if (o->approach == QC_TRAFFIC_FITTED) {
        *size = qc_fit_sample(&m->size.fitted, &u->r);
        *gap = qc_fit_sample(&m->gap.fitted, &u->r);
        *dir = qc_rng_u01(&u->r) < m->fwd_fraction ? 0 : 1;
        return;
    }
    double a, b;
    qc_copula_walk_next(&u->w, &a, &b, dir);
    if (o->approach == QC_TRAFFIC_COPULA) {
        *size = table_value(&m->size.emp, a);
        *gap = table_value(&m->gap.emp, b);
    } else {
        *size = block_to_fitted(&m->size, a, &u->r);
        *gap = block_to_fitted(&m->gap, b, &u->r);
    }
}

static int has_onoff(const qc_traffic_model *m)
{
    return !isinf(m->threshold) && m->off.emp.m > 0;
}

static void begin_session(const qc_traffic_gen_params *o, user *u)
{
    (void)o;
    const double n = table_draw(&u->m->session, &u->r);
    u->left = has_onoff(u->m) ? (uint64_t)(n >= 1 ? (n < 1e18 ? n : 1e18) : 1) : UINT64_MAX;
    u->first = 1;
    u->bytes[0] = u->bytes[1] = 0;
}

static double off_draw(const qc_traffic_gen_params *o, user *u)
{
    if (o->approach == QC_TRAFFIC_COPULA)
        return table_draw(&u->m->off.emp, &u->r);
    return nonneg(qc_fit_sample(&u->m->off.fitted, &u->r));
}

/* Moves u to its next packet: sets t, size, dir. */
static void advance(const qc_traffic_gen_params *o, user *u)
{
    if (u->left == 0) {
        u->t += off_draw(o, u);
        u->session++;
        begin_session(o, u);
    }
    double size, gap;
    uint8_t dir;
    draw_state(o, u, &size, &gap, &dir);
    if (u->first) {
        dir = 0; /* a session opens from the user's side */
        const qc_traffic_marginal *op = &u->m->opener;
        if (op->emp.m > 0) /* with its own size distribution */
            size = o->approach == QC_TRAFFIC_FITTED && op->fitted.family != QC_FIT_EMPIRICAL
                       ? qc_fit_sample(&op->fitted, &u->r)
                       : table_draw(&op->emp, &u->r);
    } else {
        u->t += nonneg(gap);
    }
    u->size = clamp_size(size, u->m->proto);
    u->dir = dir;
}

/* ------------------------------------------------------------------ */
/* Heap                                                               */
/* ------------------------------------------------------------------ */

static int before(const qc_traffic_gen *g, uint32_t a, uint32_t b)
{
    const double ta = g->u[a].t, tb = g->u[b].t;
    return ta < tb || (ta == tb && a < b);
}

static void sift_down(qc_traffic_gen *g, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        if (l < g->nheap && before(g, g->heap[l], g->heap[best]))
            best = l;
        if (l + 1 < g->nheap && before(g, g->heap[l + 1], g->heap[best]))
            best = l + 1;
        if (best == i)
            return;
        const uint32_t t = g->heap[i];
        g->heap[i] = g->heap[best];
        g->heap[best] = t;
        i = best;
    }
}

static uint32_t hash32(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

static double mean_cycle(const qc_traffic_model *m, qc_traffic_approach a)
{
    const double r = qc_traffic_model_rate(m, a);
    if (!(r > 0) || !isfinite(r))
        return 0;
    if (!has_onoff(m))
        return 1 / r;
    /* One session and one off period: E[N] / lambda. */
    double en = 0, prev = 0;
    for (size_t j = 0; j < m->session.m; j++) {
        en += m->session.v[j] * (m->session.cum[j] - prev);
        prev = m->session.cum[j];
    }
    return en / r;
}

static int gen_build(qc_traffic_gen **out, const qc_traffic_model *const *models,
                     const uint32_t *users, size_t nmodels, const qc_traffic_gen_params *o,
                     qc_err *err)
{
    *out = NULL;
    if (nmodels == 0 || nmodels > 65535)
        return qc_err_set(err, QC_EINVAL, "generation needs 1 to 65535 models, got %zu", nmodels);
    size_t nu = 0;
    for (size_t k = 0; k < nmodels; k++) {
        if (users[k] >= (1u << 24))
            return qc_err_set(err, QC_ERANGE, "%s: %u users; at most 2^24 - 1 per activity",
                              models[k]->name, users[k]);
        nu += users[k];
    }
    if (nu == 0)
        return qc_err_set(err, QC_EINVAL, "no users to generate");
    if (!(o->duration >= 0) || isnan(o->duration))
        return qc_err_set(err, QC_EINVAL, "duration must be >= 0");
    qc_traffic_gen *g = calloc(1, sizeof *g);
    if (g == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    g->u = calloc(nu, sizeof *g->u);
    g->heap = malloc(nu * sizeof *g->heap);
    g->models = malloc(nmodels * sizeof *g->models);
    if (g->u == NULL || g->heap == NULL || g->models == NULL) {
        qc_traffic_gen_free(g);
        return qc_err_set(err, QC_ENOMEM, "out of memory (%zu users)", nu);
    }
    g->o = *o;
    g->nu = nu;
    memcpy(g->models, models, nmodels * sizeof *models);
    g->nmodels = nmodels;
    size_t i = 0;
    for (size_t k = 0; k < nmodels; k++) {
        const qc_traffic_model *m = models[k];
        /* Streams by activity name, so that other activities in the mix
         * do not change a user's packets; a name given twice gets a
         * distinct stream family per repetition. */
        uint32_t rep = hash32(m->name);
        for (size_t q = 0; q < k; q++)
            if (strcmp(models[q]->name, m->name) == 0)
                rep ^= 0x9e3779b9u * (uint32_t)(q + 1);
        const double cycle = o->no_phase ? 0 : mean_cycle(m, o->approach);
        for (uint32_t j = 0; j < users[k]; j++, i++) {
            user *u = &g->u[i];
            u->m = m;
            u->act = (uint16_t)k;
            u->idx = j;
            qc_rng_init(&u->r, o->seed, qc_rng_stream(rep, QC_STREAM_USER, j));
            if (o->approach != QC_TRAFFIC_FITTED)
                qc_copula_walk_init(&u->w, &m->copula, &u->r);
            u->t = -qc_rng_u01(&u->r) * cycle;
            begin_session(o, u);
            advance(o, u);
            /* Skip what falls before 0: about one cycle's packets (E[N]);
             * bounded for degenerate models (gaps of 0 and a huge idle
             * mean), after which the user starts at 0. */
            for (unsigned guard = 0; u->t < 0 && guard < 1000000u; guard++) {
                u->left--;
                u->first = 0;
                u->bytes[u->dir] += u->size;
                advance(o, u);
            }
            if (u->t < 0)
                u->t = 0;
            g->heap[i] = (uint32_t)i;
        }
    }
    g->nheap = nu;
    for (size_t h = nu / 2; h-- > 0;)
        sift_down(g, h);
    *out = g;
    return 0;
}

int qc_traffic_gen_next(qc_traffic_gen *g, qc_traffic_pkt *p)
{
    if (g->nheap == 0 || (g->o.packets && g->emitted >= g->o.packets))
        return 0;
    const uint32_t i = g->heap[0];
    user *u = &g->u[i];
    if (g->o.duration > 0 && !(u->t < g->o.duration))
        return 0;
    p->t = u->t;
    p->size = u->size;
    p->user = u->idx;
    p->session = u->session;
    p->act = u->act;
    p->dir = u->dir;
    p->proto = u->m->proto;
    p->seq = u->bytes[u->dir];
    p->ack = u->bytes[!u->dir];
    u->bytes[u->dir] += u->size;
    u->left--;
    u->first = 0;
    advance(&g->o, u);
    sift_down(g, 0);
    g->emitted++;
    return 1;
}

void qc_traffic_gen_free(qc_traffic_gen *g)
{
    if (g == NULL)
        return;
    free(g->u);
    free(g->heap);
    free(g->models);
    free(g);
}

/* ------------------------------------------------------------------ */
/* Writing                                                            */
/* ------------------------------------------------------------------ */

static void put16(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
}

static void put32le(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

static uint32_t sum16(const uint8_t *b, size_t n, uint32_t s)
{
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(b[i] << 8 | b[i + 1]);
    if (n & 1)
        s += (uint32_t)b[n - 1] << 8;
    return s;
}

static uint16_t fold(uint32_t s)
{
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

typedef struct endpoints {
    uint8_t client[4], server[4];
    uint16_t cport, sport;
} endpoints;

static void endpoints_of(const qc_traffic_pkt *p, uint16_t server_port, endpoints *e)
{
    const uint32_t c = (((uint32_t)p->act << 16) + p->user + 1) & 0xffffff;
    e->client[0] = 10;
    e->client[1] = (uint8_t)(c >> 16);
    e->client[2] = (uint8_t)(c >> 8);
    e->client[3] = (uint8_t)c;
    e->server[0] = 192;
    e->server[1] = 0;
    e->server[2] = 2;
    e->server[3] = (uint8_t)(p->act % 254 + 1);
    e->cport = (uint16_t)(1024 + p->session % 64000);
    e->sport = server_port ? server_port : 80;
}

/* Builds the frame of p into f (at least 14 + 60 bytes); returns the
 * number of header bytes written (the rest of the frame is zeros). */
static size_t build_frame(const qc_traffic_pkt *p, const endpoints *e, uint16_t ipid, uint8_t *f)
{
    static const uint8_t mac_c[6] = {0x02, 0, 0, 0, 0, 0x01}, mac_s[6] = {0x02, 0, 0, 0, 0, 0x02};
    const int up = p->dir == 0;
    memcpy(f, up ? mac_s : mac_c, 6);
    memcpy(f + 6, up ? mac_c : mac_s, 6);
    put16(f + 12, 0x0800);
    uint8_t *ip = f + 14;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    put16(ip + 2, p->size);
    put16(ip + 4, ipid);
    put16(ip + 6, 0x4000); /* don't fragment */
    ip[8] = 64;
    ip[9] = p->proto;
    memcpy(ip + 12, up ? e->client : e->server, 4);
    memcpy(ip + 16, up ? e->server : e->client, 4);
    put16(ip + 10, fold(sum16(ip, 20, 0)));
    uint8_t *l4 = ip + 20;
    const uint32_t l4len = p->size - 20;
    size_t hl = 0;
    if (p->proto == 6) {
        hl = 20;
        memset(l4, 0, hl);
        put16(l4, up ? e->cport : e->sport);
        put16(l4 + 2, up ? e->sport : e->cport);
        put32(l4 + 4, p->seq + 1);
        put32(l4 + 8, p->ack + 1);
        l4[12] = 5 << 4;
        l4[13] = l4len > 20 ? 0x18 : 0x10; /* PSH|ACK with data, else ACK */
        put16(l4 + 14, 65535);
    } else if (p->proto == 17) {
        hl = 8;
        put16(l4, up ? e->cport : e->sport);
        put16(l4 + 2, up ? e->sport : e->cport);
        put16(l4 + 4, l4len);
        put16(l4 + 6, 0);
    }
    if (hl) {
        /* Pseudo-header (addresses, protocol, length) + header; the zero
         * payload adds nothing. */
        uint32_t s = sum16(ip + 12, 8, 0) + p->proto + l4len;
        s = sum16(l4, hl, s);
        uint16_t c = fold(s);
        if (p->proto == 17 && c == 0)
            c = 0xffff;
        put16(l4 + (p->proto == 6 ? 16 : 6), c);
    }
    return 14 + 20 + hl;
}

int qc_traffic_write(qc_traffic_gen *g, const char *path, qc_traffic_format fmt,
                     uint32_t snaplen, uint64_t *count, qc_err *err)
{
    if (count)
        *count = 0;
    if (snaplen < 64)
        snaplen = 64; /* always room for Ethernet, IP and TCP headers */
    if (snaplen > 65535 + 14)
        snaplen = 65535 + 14;
    qc_ofile f;
    int rc = qc_ofile_open(&f, path, err);
    if (rc != 0)
        return rc;
    /* A bigger stdio buffer: records are small and many. */
    setvbuf(f.fp, NULL, _IOFBF, 1 << 20);
    uint8_t *frame = calloc(1, 65535 + 14 + 16);
    if (frame == NULL) {
        qc_ofile_abort(&f);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    if (fmt == QC_TRAFFIC_PCAP) {
        uint8_t h[24];
        put32le(h, 0xa1b23c4du);
        h[4] = 2;
        h[5] = 0;
        h[6] = 4;
        h[7] = 0;
        put32le(h + 8, 0);
        put32le(h + 12, 0);
        put32le(h + 16, snaplen);
        put32le(h + 20, 1); /* Ethernet */
        fwrite(h, 1, sizeof h, f.fp);
    } else {
        fputs("time,size,flow,activity\n", f.fp);
    }
    qc_traffic_pkt p;
    uint64_t n = 0;
    uint16_t ipid = 0;
    while (qc_traffic_gen_next(g, &p)) {
        const qc_traffic_model *m = g->models[p.act];
        endpoints e;
        endpoints_of(&p, m->port, &e);
        if (fmt == QC_TRAFFIC_PCAP) {
            uint8_t *rec = frame;
            uint8_t *fr = frame + 16;
            const size_t hdr = build_frame(&p, &e, ipid++, fr);
            const uint32_t flen = 14 + p.size, incl = flen < snaplen ? flen : snaplen;
            memset(fr + hdr, 0, incl > hdr ? incl - hdr : 0);
            const double tns = p.t * 1e9; /* past 2^63 ns (292 years) it saturates */
            const long long ns = tns < 9.2e18 ? llround(tns) : 9200000000000000000LL;
            put32le(rec, (uint32_t)(PCAP_EPOCH + ns / 1000000000LL));
            put32le(rec + 4, (uint32_t)(ns % 1000000000LL));
            put32le(rec + 8, incl);
            put32le(rec + 12, flen);
            fwrite(frame, 1, 16 + (size_t)incl, f.fp);
        } else {
            fprintf(f.fp, "%.9f,%u,%s %u.%u.%u.%u:%u > %u.%u.%u.%u:%u,%s\n", p.t, p.size,
                    p.proto == 6 ? "tcp" : "udp", e.client[0], e.client[1], e.client[2],
                    e.client[3], e.cport, e.server[0], e.server[1], e.server[2], e.server[3],
                    e.sport, m->name);
        }
        n++;
        if (ferror(f.fp))
            break;
    }
    free(frame);
    if (count)
        *count = n;
    return qc_ofile_commit(&f, err);
}

/* ------------------------------------------------------------------ */
/* Validation                                                         */
/* ------------------------------------------------------------------ */

static void kendall_or_nan(const double *x, const double *y, size_t n, double *tau)
{
    if (n < 3 || qc_copula_kendall(x, y, n, tau, NULL) != 0)
        *tau = NAN;
}

int qc_traffic_stats_compute(const double *t, const double *size, size_t n, double bin,
                             qc_traffic_stats *s, qc_err *err)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->hurst = NAN;
    if (n < 3)
        return qc_err_set(err, QC_EEMPTY, "statistics need at least 3 packets, got %zu", n);
    s->duration = t[n - 1] - t[0];
    s->rate = s->duration > 0 ? (double)(n - 1) / s->duration : NAN;
    double ms = 0;
    for (size_t i = 0; i < n; i++)
        ms += size[i] / (double)n;
    s->mean_size = ms;
    double *g = malloc((n - 1) * sizeof *g);
    if (g == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (size_t i = 1; i < n; i++)
        g[i - 1] = t[i] - t[i - 1];
    kendall_or_nan(size + 1, g, n - 1, &s->tau_sg);
    kendall_or_nan(size, size + 1, n - 1, &s->tau_ss);
    kendall_or_nan(g, g + 1, n - 2, &s->tau_gg);
    free(g);
    s->bin = bin;
    for (int k = 0; k <= QC_TRAFFIC_ACF_LAGS; k++)
        s->acf[k] = NAN;
    if (!(bin > 0) || !(s->duration > 0))
        return 0;
    double nbd = floor(s->duration / bin);
    if (nbd > 1e7)
        nbd = 1e7;
    const size_t nb = (size_t)nbd;
    if (nb < 20)
        return 0;
    double *c = calloc(nb, sizeof *c);
    if (c == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const double k = floor((t[i] - t[0]) / bin);
        if (k < (double)nb)
            c[(size_t)k] += 1;
    }
    double mean = 0;
    for (size_t k = 0; k < nb; k++)
        mean += c[k] / (double)nb;
    double c0 = 0;
    for (size_t k = 0; k < nb; k++)
        c0 += (c[k] - mean) * (c[k] - mean);
    for (int lag = 0; lag <= QC_TRAFFIC_ACF_LAGS; lag++) {
        double a = 0;
        for (size_t k = 0; k + (size_t)lag < nb; k++)
            a += (c[k] - mean) * (c[k + (size_t)lag] - mean);
        s->acf[lag] = c0 > 0 ? a / c0 : NAN;
    }
    /* Variance-time. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int np = 0;
    for (size_t m = 1; nb / m >= 10 && s->nvt < QC_TRAFFIC_VT_MAX; m *= 2) {
        const size_t nblk = nb / m;
        double mu = 0, v = 0;
        for (size_t b = 0; b < nblk; b++) {
            double a = 0;
            for (size_t k = 0; k < m; k++)
                a += c[b * m + k];
            a /= (double)m;
            mu += a;
            v += a * a;
        }
        mu /= (double)nblk;
        v = v / (double)nblk - mu * mu;
        s->vt_m[s->nvt] = (double)m;
        s->vt_var[s->nvt++] = v;
        if (v > 0) {
            const double x = log((double)m), y = log(v);
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            np++;
        }
    }
    if (np >= 3) {
        const double slope = (np * sxy - sx * sy) / (np * sxx - sx * sx);
        s->hurst = 1 + slope / 2;
    }
    free(c);
    return 0;
}

void qc_traffic_validation_free(qc_traffic_validation *v)
{
    for (int a = 0; a < 2; a++) {
        free(v->gen_t[a]);
        free(v->gen_size[a]);
    }
    memset(v, 0, sizeof *v);
}

int qc_traffic_validate(const qc_traffic_model *m, const double *t, const uint32_t *size,
                        size_t n, uint64_t seed, qc_traffic_validation *v, qc_err *err)
{
    memset(v, 0, sizeof *v);
    if (n < 20)
        return qc_err_set(err, QC_EEMPTY, "validation needs at least 20 real packets, got %zu", n);
    const double dur = t[n - 1] - t[0];
    if (!(dur > 0))
        return qc_err_set(err, QC_EINVAL, "the real packets span no time");
    const double bin = dur / 1000;
    double *rs = malloc(n * sizeof *rs), *rg = malloc((n - 1) * sizeof *rg);
    int rc = 0;
    if (!rs || !rg) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        rs[i] = size[i];
    for (size_t i = 1; i < n; i++)
        rg[i - 1] = t[i] - t[i - 1];
    if ((rc = qc_traffic_stats_compute(t, rs, n, bin, &v->real, err)) != 0)
        goto done;
    for (int a = 0; a < 2; a++) {
        qc_traffic_gen_params o;
        qc_traffic_gen_params_init(&o);
        o.approach = a == 0 ? QC_TRAFFIC_FITTED : QC_TRAFFIC_COPULA;
        o.seed = seed;
        o.packets = n;
        o.no_phase = 1;
        qc_traffic_gen *g;
        const uint32_t one = 1;
        if ((rc = gen_build(&g, &m, &one, 1, &o, err)) != 0)
            goto done;
        v->gen_t[a] = malloc(n * sizeof(double));
        v->gen_size[a] = malloc(n * sizeof(double));
        if (!v->gen_t[a] || !v->gen_size[a]) {
            qc_traffic_gen_free(g);
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto done;
        }
        qc_traffic_pkt p;
        size_t k = 0;
        while (k < n && qc_traffic_gen_next(g, &p)) {
            v->gen_t[a][k] = p.t;
            v->gen_size[a][k++] = p.size;
        }
        qc_traffic_gen_free(g);
        v->gen_n[a] = k;
        if ((rc = qc_traffic_stats_compute(v->gen_t[a], v->gen_size[a], k, bin, &v->gen[a], err)) != 0)
            goto done;
        double *gg = malloc((k ? k : 1) * sizeof *gg);
        if (gg == NULL) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto done;
        }
        for (size_t i = 1; i < k; i++)
            gg[i - 1] = v->gen_t[a][i] - v->gen_t[a][i - 1];
        rc = qc_fit_ks2(rs, n, v->gen_size[a], k, &v->ks_size[a], &v->p_size[a], err);
        if (rc == 0)
            rc = qc_fit_ks2(rg, n - 1, gg, k - 1, &v->ks_gap[a], &v->p_gap[a], err);
        free(gg);
        if (rc != 0)
            goto done;
    }
done:
    free(rs);
    free(rg);
    if (rc != 0)
        qc_traffic_validation_free(v);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Arrival source                                                     */
/* ------------------------------------------------------------------ */

struct qc_traffic_source {
    double *t;
    uint32_t *size;
    size_t n, i;
    qc_traffic_model m;
    qc_traffic_gen *g;
    double rate;
};

static int looks_like_model(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return 0;
    int c;
    do
        c = fgetc(fp);
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
    fclose(fp);
    return c == '{';
}

static int source_build(qc_traffic_source **out, const char *path, uint32_t users,
                        uint64_t seed, qc_err *err)
{
    *out = NULL;
    qc_traffic_source *s = calloc(1, sizeof *s);
    if (s == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int rc;
    if (looks_like_model(path)) {
        if ((rc = qc_traffic_model_load(&s->m, path, err)) != 0) {
            free(s);
            return rc;
        }
        qc_traffic_gen_params o;
        qc_traffic_gen_params_init(&o);
        o.seed = seed;
        const qc_traffic_model *mp = &s->m;
        if (users == 0)
            users = 1;
        if ((rc = gen_build(&s->g, &mp, &users, 1, &o, err)) != 0) {
            qc_traffic_source_free(s);
            return rc;
        }
        s->rate = users * qc_traffic_model_rate(&s->m, QC_TRAFFIC_COPULA);
    } else {
        qc_trace tr;
        if ((rc = qc_trace_read(&tr, path, err)) != 0) {
            free(s);
            return rc;
        }
        s->t = malloc(tr.n * sizeof *s->t);
        s->size = malloc(tr.n * sizeof *s->size);
        if (!s->t || !s->size) {
            qc_trace_free(&tr);
            qc_traffic_source_free(s);
            return qc_err_set(err, QC_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < tr.n; i++) {
            s->t[i] = tr.pkt[i].t;
            s->size[i] = tr.pkt[i].size;
        }
        s->n = tr.n;
        qc_trace_free(&tr);
        const double span = s->t[s->n - 1] - s->t[0];
        s->rate = span > 0 ? (double)(s->n - 1) / span : NAN;
    }
    *out = s;
    return 0;
}

double qc_traffic_source_next(qc_traffic_source *s, uint32_t *size)
{
    if (s->g) {
        qc_traffic_pkt p;
        if (!qc_traffic_gen_next(s->g, &p))
            return INFINITY;
        if (size)
            *size = p.size;
        return p.t;
    }
    if (s->i >= s->n)
        return INFINITY;
    if (size)
        *size = s->size[s->i];
    return s->t[s->i++];
}

double qc_traffic_source_rate(const qc_traffic_source *s)
{
    return s->rate;
}

qc_traffic_gen *qc_traffic_gen_alloc(const qc_traffic_model *const *models, const uint32_t *users,
                                     size_t nmodels, const qc_traffic_gen_params *o, qc_err *err)
{
    qc_traffic_gen *g = NULL;
    return gen_build(&g, models, users, nmodels, o, err) == 0 ? g : NULL;
}

qc_traffic_source *qc_traffic_source_alloc(const char *path, uint32_t users, uint64_t seed,
                                           qc_err *err)
{
    qc_traffic_source *s = NULL;
    return source_build(&s, path, users, seed, err) == 0 ? s : NULL;
}

void qc_traffic_source_free(qc_traffic_source *s)
{
    if (s == NULL)
        return;
    qc_traffic_gen_free(s->g);
    qc_traffic_model_free(&s->m);
    free(s->t);
    free(s->size);
    free(s);
}

static const char *const traffic_approach_names[] = {"fitted", "copula", "copula-fitted"};
QC__NAMES(qc_traffic_approach, qc_traffic_approach_name,
          qc_traffic_approach_parse, traffic_approach_names)

static const char *const traffic_format_names[] = {"pcap", "csv"};
QC__NAMES(qc_traffic_format, qc_traffic_format_name, qc_traffic_format_parse, traffic_format_names)
