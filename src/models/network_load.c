/* SPDX-License-Identifier: GPL-3.0-or-later */
/* network_load.c: a network of queues from JSON (qctl/network.h).
 *
 * The whole document is checked before anything runs: every key is
 * known, every value of its type and range, every spec parses, every
 * name a station or class names exists, every routing row sums to at
 * most 1. A mistake is an error naming the file and the field's path
 * ("stations[1].servers"), and a malformed document jansson's
 * FILE:LINE:COLUMN. docs/networks.md describes the format. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/network.h"

typedef struct ld {
    const char *file;
    qc_err *err;
    qc_network *net;
} ld;

static int bad(ld *L, const char *where, const char *fmt, const char *a)
{
    char m[256];
    snprintf(m, sizeof m, fmt, a);
    return qc_err_set(L->err, QC_EPARSE, "%s: %s: %s", L->file, where, m);
}

/* Every key of o among allowed (NULL-terminated). */
static int known_keys(ld *L, json_t *o, const char *where, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= strcmp(*a, key) == 0;
        if (!ok) {
            char w[200];
            snprintf(w, sizeof w, "%s", where);
            return bad(L, w, "unknown field \"%s\"", key);
        }
        (void)v;
    }
    return 0;
}

static int num(ld *L, json_t *o, const char *key, const char *where, double lo, double hi,
               double *out)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL)
        return 1;
    char w[200];
    snprintf(w, sizeof w, "%s.%s", where, key);
    if (!json_is_number(v))
        return bad(L, w, "must be a number%s", "");
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi)) {
        char m[96];
        snprintf(m, sizeof m, "%g is not in [%g, %g]", x, lo, hi);
        return bad(L, w, "%s", m);
    }
    *out = x;
    return 0;
}

static int uint_field(ld *L, json_t *o, const char *key, const char *where, double lo, double hi,
                      uint64_t *out)
{
    double x;
    int rc = num(L, o, key, where, lo, hi, &x);
    if (rc != 0)
        return rc;
    if (x != floor(x)) {
        char w[200];
        snprintf(w, sizeof w, "%s.%s", where, key);
        return bad(L, w, "must be a whole number%s", "");
    }
    *out = (uint64_t)x;
    return 0;
}

static int dist_field(ld *L, json_t *v, const char *w, qc_dist *d)
{
    if (!json_is_string(v))
        return bad(L, w, "must be a distribution spec (e.g. \"exp:2\")%s", "");
    qc_err e = {0};
    if (qc_dist_parse(d, json_string_value(v), &e) != 0)
        return bad(L, w, "%s", e.msg);
    if (!(qc_dist_mean(d) > 0) || !isfinite(qc_dist_mean(d)))
        return bad(L, w, "needs a finite mean > 0%s", "");
    return 0;
}

static int station_index(const qc_network *n, const char *name)
{
    for (unsigned i = 0; i < n->nst; i++)
        if (strcmp(n->st[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int class_index(const qc_network *n, const char *name)
{
    for (unsigned k = 0; k < n->ncl; k++)
        if (strcmp(n->cl[k].name, name) == 0)
            return (int)k;
    return -1;
}

static int name_field(ld *L, json_t *o, const char *where, char *out)
{
    json_t *v = json_object_get(o, "name");
    char w[200];
    snprintf(w, sizeof w, "%s.name", where);
    if (v == NULL)
        return bad(L, where, "\"name\" is required%s", "");
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= QC_NET_NAME)
        return bad(L, w, "must be a string of 1 to 31 characters%s", "");
    const char *s = json_string_value(v);
    if (strcmp(s, "out") == 0 || strchr(s, '/'))
        return bad(L, w, "\"%s\" is reserved (\"out\", or with a '/')", s);
    snprintf(out, QC_NET_NAME, "%s", s);
    return 0;
}

static int load_station(ld *L, json_t *o, unsigned i, json_t *classes)
{
    static const char *const keys[] = {"name", "discipline", "servers", "capacity", "service",
                                       "balking", "patience", "timeout", "blocking", NULL};
    qc_network *n = L->net;
    qc_net_station *s = &n->st[i];
    char where[64];
    snprintf(where, sizeof where, "stations[%u]", i);
    if (!json_is_object(o))
        return bad(L, where, "must be an object%s", "");
    int rc = known_keys(L, o, where, keys);
    if (rc == 0)
        rc = name_field(L, o, where, s->name);
    if (rc != 0)
        return rc;
    for (unsigned j = 0; j < i; j++)
        if (strcmp(n->st[j].name, s->name) == 0)
            return bad(L, where, "a second station named \"%s\"", s->name);
    json_t *v = json_object_get(o, "discipline");
    s->disc = QC_NET_FCFS;
    if (v) {
        static const char *const names[] = {"fcfs", "ps", "is", "priority", "preemptive"};
        int found = -1;
        for (int d = 0; d < 5; d++)
            if (json_is_string(v) && strcmp(json_string_value(v), names[d]) == 0)
                found = d;
        if (found < 0) {
            char wd[96];
            snprintf(wd, sizeof wd, "%s.discipline", where);
            return bad(L, wd, "must be one of fcfs, ps, is, priority, preemptive%s", "");
        }
        s->disc = (qc_net_disc)found;
    }
    uint64_t c = 1;
    if ((rc = uint_field(L, o, "servers", where, 1, 100000, &c)) < 0)
        return rc;
    s->servers = s->disc == QC_NET_IS ? 0 : (unsigned)c;
    if (s->disc == QC_NET_IS && json_object_get(o, "servers"))
        return bad(L, where, "an infinite-server station (is) takes no \"servers\"%s", "");
    uint64_t K = 0;
    if ((rc = uint_field(L, o, "capacity", where, 1, 1e12, &K)) < 0)
        return rc;
    if (K && s->disc != QC_NET_IS && K < s->servers)
        return bad(L, where, "capacity must be at least the servers%s", "");
    s->capacity = K;
    s->bas = 0;
    v = json_object_get(o, "blocking");
    if (v) {
        char wb[96];
        snprintf(wb, sizeof wb, "%s.blocking", where);
        const char *bv = json_is_string(v) ? json_string_value(v) : NULL;
        if (bv && strcmp(bv, "loss") == 0)
            s->bas = 0;
        else if (bv && strcmp(bv, "after-service") == 0)
            s->bas = 1;
        else
            return bad(L, wb, "must be \"loss\" or \"after-service\"%s", "");
        if (!K)
            return bad(L, wb, "needs a \"capacity\"%s", "");
    }
    /* service: one spec for every class, or an object by class name */
    v = json_object_get(o, "service");
    char w[200];
    snprintf(w, sizeof w, "%s.service", where);
    if (v == NULL)
        return bad(L, where, "\"service\" is required%s", "");
    if (json_is_string(v)) {
        for (unsigned k = 0; k < n->ncl; k++) {
            if ((rc = dist_field(L, v, w, &s->service[k])) != 0)
                return rc;
            s->has_service[k] = 1;
        }
    } else if (json_is_object(v)) {
        const char *key;
        json_t *sv;
        json_object_foreach(v, key, sv) {
            char wk[240];
            snprintf(wk, sizeof wk, "%s.%s", w, key);
            int k = class_index(n, key);
            if (k < 0)
                return bad(L, wk, "no class named \"%s\"", key);
            if ((rc = dist_field(L, sv, wk, &s->service[k])) != 0)
                return rc;
            s->has_service[k] = 1;
        }
    } else {
        return bad(L, w, "must be a spec or an object of specs by class%s", "");
    }
    (void)classes;
    v = json_object_get(o, "balking");
    if (v) {
        snprintf(w, sizeof w, "%s.balking", where);
        if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > 100000)
            return bad(L, w, "must be a list of probabilities by the number found%s", "");
        s->nbalk = json_array_size(v);
        s->balk = calloc(s->nbalk, sizeof *s->balk);
        if (s->balk == NULL)
            return qc_err_set(L->err, QC_ENOMEM, "out of memory");
        for (size_t j = 0; j < s->nbalk; j++) {
            json_t *x = json_array_get(v, j);
            double p = json_is_number(x) ? json_number_value(x) : NAN;
            if (!(p >= 0 && p <= 1)) {
                char m[32];
                snprintf(m, sizeof m, "[%zu]", j);
                return bad(L, w, "%s: must be a probability in [0, 1]", m);
            }
            s->balk[j] = p;
        }
    }
    v = json_object_get(o, "patience");
    if (v) {
        snprintf(w, sizeof w, "%s.patience", where);
        if ((rc = dist_field(L, v, w, &s->patience)) != 0)
            return rc;
        if (s->disc == QC_NET_PS || s->disc == QC_NET_IS)
            return bad(L, w, "a customer waits only at fcfs or priority stations%s", "");
    }
    s->timeout = 0;
    if ((rc = num(L, o, "timeout", where, 1e-300, 1e300, &s->timeout)) < 0)
        return rc;
    return 0;
}

static int load_class(ld *L, json_t *o, unsigned k)
{
    static const char *const keys[] = {"name",  "arrival", "population", "think",
                                       "priority", "entry", NULL};
    qc_network *n = L->net;
    qc_net_class *c = &n->cl[k];
    char where[64], w[200];
    snprintf(where, sizeof where, "classes[%u]", k);
    if (!json_is_object(o))
        return bad(L, where, "must be an object%s", "");
    int rc = known_keys(L, o, where, keys);
    if (rc == 0)
        rc = name_field(L, o, where, c->name);
    if (rc != 0)
        return rc;
    for (unsigned j = 0; j < k; j++)
        if (strcmp(n->cl[j].name, c->name) == 0)
            return bad(L, where, "a second class named \"%s\"", c->name);
    json_t *arr = json_object_get(o, "arrival");
    json_t *pop = json_object_get(o, "population");
    if ((arr == NULL) == (pop == NULL))
        return bad(L, where,
                   "give \"arrival\" (an open class) or \"population\" (a closed one)%s", "");
    if (arr) {
        snprintf(w, sizeof w, "%s.arrival", where);
        if (!json_is_string(arr))
            return bad(L, w, "must be an arrival spec (e.g. \"exp:2\")%s", "");
        qc_err e = {0};
        if (qc_arrivals_parse(&c->arrivals, json_string_value(arr), &e) != 0)
            return bad(L, w, "%s", e.msg);
        snprintf(c->arrival_spec, sizeof c->arrival_spec, "%s", json_string_value(arr));
        if (json_object_get(o, "think"))
            return bad(L, where, "an open class has no \"think\"%s", "");
    } else {
        uint64_t N = 0;
        if ((rc = uint_field(L, o, "population", where, 1, 1e6, &N)) < 0)
            return rc;
        c->closed = 1;
        c->population = (unsigned)N;
        json_t *t = json_object_get(o, "think");
        if (t) {
            snprintf(w, sizeof w, "%s.think", where);
            if ((rc = dist_field(L, t, w, &c->think)) != 0)
                return rc;
        }
    }
    double pr = 0;
    if ((rc = num(L, o, "priority", where, -1000, 1000, &pr)) < 0)
        return rc;
    c->priority = (int)pr;
    json_t *e = json_object_get(o, "entry");
    snprintf(w, sizeof w, "%s.entry", where);
    if (e == NULL)
        return bad(L, where, "\"entry\" is required: the station it enters at%s", "");
    if (json_is_string(e)) {
        int i = station_index(n, json_string_value(e));
        if (i < 0)
            return bad(L, w, "no station named \"%s\"", json_string_value(e));
        c->entry[i] = 1;
    } else if (json_is_object(e)) {
        const char *key;
        json_t *pv;
        double sum = 0;
        json_object_foreach(e, key, pv) {
            int i = station_index(n, key);
            char wk[240];
            snprintf(wk, sizeof wk, "%s.%s", w, key);
            if (i < 0)
                return bad(L, wk, "no station named \"%s\"", key);
            double p = json_is_number(pv) ? json_number_value(pv) : NAN;
            if (!(p >= 0 && p <= 1))
                return bad(L, wk, "must be a probability in [0, 1]%s", "");
            c->entry[i] = p;
            sum += p;
        }
        if (fabs(sum - 1) > 1e-9)
            return bad(L, w, "the probabilities must sum to 1%s", "");
    } else {
        return bad(L, w, "must be a station's name or an object of probabilities%s", "");
    }
    return 0;
}

/* "routing": {"CLASS": {"STATION": {"TARGET": p, ...}}}, TARGET a
 * station ("db"), a station and a class ("db/slow": class switching), or
 * "out". */
static int load_routing(ld *L, json_t *r)
{
    qc_network *n = L->net;
    if (!json_is_object(r))
        return bad(L, "routing", "must be an object by class%s", "");
    const char *cn;
    json_t *cv;
    json_object_foreach(r, cn, cv) {
        char w[200];
        snprintf(w, sizeof w, "routing.%s", cn);
        int k = class_index(n, cn);
        if (k < 0)
            return bad(L, w, "no class named \"%s\"", cn);
        if (!json_is_object(cv))
            return bad(L, w, "must be an object by station%s", "");
        const char *sn;
        json_t *sv;
        json_object_foreach(cv, sn, sv) {
            char ws[240];
            snprintf(ws, sizeof ws, "%s.%s", w, sn);
            int i = station_index(n, sn);
            if (i < 0)
                return bad(L, ws, "no station named \"%s\"", sn);
            if (!json_is_object(sv))
                return bad(L, ws, "must be an object of probabilities by target%s", "");
            size_t row = (size_t)i * n->ncl + (size_t)k;
            size_t nh = json_object_size(sv);
            n->route[row] = calloc(nh ? nh : 1, sizeof(qc_net_hop));
            if (n->route[row] == NULL)
                return qc_err_set(L->err, QC_ENOMEM, "out of memory");
            const char *tn;
            json_t *tv;
            double sum = 0;
            unsigned h = 0;
            json_object_foreach(sv, tn, tv) {
                char wt[300];
                snprintf(wt, sizeof wt, "%s.%s", ws, tn);
                double p = json_is_number(tv) ? json_number_value(tv) : NAN;
                if (!(p >= 0 && p <= 1))
                    return bad(L, wt, "must be a probability in [0, 1]%s", "");
                sum += p;
                if (strcmp(tn, "out") == 0)
                    continue; /* what is left leaves */
                char sname[QC_NET_NAME * 2 + 2];
                snprintf(sname, sizeof sname, "%s", tn);
                char *slash = strchr(sname, '/');
                int l = k;
                if (slash) {
                    *slash = 0;
                    l = class_index(n, slash + 1);
                    if (l < 0)
                        return bad(L, wt, "no class named \"%s\"", slash + 1);
                    if (n->cl[l].closed != n->cl[k].closed)
                        return bad(L, wt, "a class switch keeps a customer open or closed: "
                                          "\"%s\" is not of the same kind",
                                   slash + 1);
                }
                int j = station_index(n, sname);
                if (j < 0)
                    return bad(L, wt, "no station named \"%s\"", sname);
                n->route[row][h++] = (qc_net_hop){p, j, l};
            }
            n->nroute[row] = h;
            if (sum > 1 + 1e-9)
                return bad(L, ws, "the probabilities sum to more than 1%s", "");
        }
    }
    return 0;
}

static int load_control(ld *L, json_t *c)
{
    static const char *const keys[] = {"maxusers", NULL};
    static const char *const mk[] = {"reference", "interval", "gain", "initial", "min", "max",
                                     NULL};
    qc_network *n = L->net;
    if (!json_is_object(c))
        return bad(L, "control", "must be an object%s", "");
    int rc = known_keys(L, c, "control", keys);
    if (rc != 0)
        return rc;
    json_t *m = json_object_get(c, "maxusers");
    if (m == NULL)
        return 0;
    if (!json_is_object(m))
        return bad(L, "control.maxusers", "must be an object%s", "");
    if ((rc = known_keys(L, m, "control.maxusers", mk)) != 0)
        return rc;
    const char *w = "control.maxusers";
    if ((rc = num(L, m, "reference", w, 1e-12, 1e12, &n->ctl_reference)) != 0)
        return rc < 0 ? rc : bad(L, w, "\"reference\" (the target response time) is required%s",
                                 "");
    if ((rc = num(L, m, "interval", w, 1e-12, 1e12, &n->ctl_dt)) != 0)
        return rc < 0 ? rc : bad(L, w, "\"interval\" (the sample interval) is required%s", "");
    if ((rc = num(L, m, "gain", w, 1e-12, 1e12, &n->ctl_gain)) != 0)
        return rc < 0 ? rc : bad(L, w, "\"gain\" (users per second of error) is required%s", "");
    uint64_t v = 1;
    if ((rc = uint_field(L, m, "min", w, 1, 1e6, &v)) < 0)
        return rc;
    n->ctl_min = (unsigned)v;
    v = 1000;
    if ((rc = uint_field(L, m, "max", w, 1, 1e6, &v)) < 0)
        return rc;
    n->ctl_max = (unsigned)v;
    v = n->ctl_min;
    if ((rc = uint_field(L, m, "initial", w, 1, 1e6, &v)) < 0)
        return rc;
    n->ctl_init = (unsigned)v;
    if (!(n->ctl_min < n->ctl_max) || n->ctl_init < n->ctl_min || n->ctl_init > n->ctl_max)
        return bad(L, w, "needs min < max and initial within them%s", "");
    n->front = 0;
    return 0;
}

static int check(ld *L, json_t *doc)
{
    static const char *const keys[] = {"stations", "classes", "routing", "control",
                                       "description", NULL};
    qc_network *n = L->net;
    if (!json_is_object(doc))
        return bad(L, "(top)", "must be an object%s", "");
    int rc = known_keys(L, doc, "(top)", keys);
    if (rc != 0)
        return rc;
    json_t *st = json_object_get(doc, "stations"), *cl = json_object_get(doc, "classes");
    if (!json_is_array(st) || json_array_size(st) == 0)
        return bad(L, "stations", "must be a non-empty list%s", "");
    if (!json_is_array(cl) || json_array_size(cl) == 0)
        return bad(L, "classes", "must be a non-empty list%s", "");
    if (json_array_size(st) > QC_NET_MAX_STATIONS)
        return bad(L, "stations", "more than %s", "32");
    if (json_array_size(cl) > QC_NET_MAX_CLASSES)
        return bad(L, "classes", "more than %s", "8");
    n->nst = (unsigned)json_array_size(st);
    n->ncl = (unsigned)json_array_size(cl);
    /* names first: services name classes and classes name stations */
    for (unsigned k = 0; k < n->ncl; k++) {
        char where[64];
        snprintf(where, sizeof where, "classes[%u]", k);
        json_t *o = json_array_get(cl, k);
        if (!json_is_object(o))
            return bad(L, where, "must be an object%s", "");
        if ((rc = name_field(L, o, where, n->cl[k].name)) != 0)
            return rc;
    }
    for (unsigned i = 0; i < n->nst; i++)
        if ((rc = load_station(L, json_array_get(st, i), i, cl)) != 0)
            return rc;
    for (unsigned k = 0; k < n->ncl; k++)
        if ((rc = load_class(L, json_array_get(cl, k), k)) != 0)
            return rc;
    json_t *r = json_object_get(doc, "routing");
    if (r && (rc = load_routing(L, r)) != 0)
        return rc;
    json_t *c = json_object_get(doc, "control");
    if (c && (rc = load_control(L, c)) != 0)
        return rc;
    /* a class that can reach a station must have a service there */
    for (unsigned k = 0; k < n->ncl; k++)
        for (unsigned i = 0; i < n->nst; i++)
            if (n->cl[k].entry[i] > 0 && !n->st[i].has_service[k]) {
                char where[64];
                snprintf(where, sizeof where, "stations[%u].service", i);
                return bad(L, where, "no service time for class \"%s\", which enters here",
                           n->cl[k].name);
            }
    for (unsigned i = 0; i < n->nst; i++)
        for (unsigned k = 0; k < n->ncl; k++) {
            size_t row = (size_t)i * n->ncl + k;
            for (unsigned h = 0; h < n->nroute[row]; h++) {
                const qc_net_hop *hp = &n->route[row][h];
                if (hp->p > 0 && !n->st[hp->station].has_service[hp->cls]) {
                    char where[64];
                    snprintf(where, sizeof where, "stations[%d].service", hp->station);
                    return bad(L, where, "no service time for class \"%s\", routed here",
                               n->cl[hp->cls].name);
                }
            }
        }
    return 0;
}

static int finish(qc_network *net, json_t *doc, const json_error_t *e, const char *name,
                  qc_err *err)
{
    if (doc == NULL) {
        if (e->line < 0)
            return qc_err_set(err, QC_EPARSE, "%s: %s", name, e->text);
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", name, e->line, e->column, e->text);
    }
    ld L = {name, err, net};
    int rc = check(&L, doc);
    json_decref(doc);
    if (rc != 0)
        qc_network_free(net);
    return rc;
}

static void net_init(qc_network *net)
{
    memset(net, 0, sizeof *net);
    net->front = -1;
}

int qc_network_load(qc_network *net, const char *path, qc_err *err)
{
    net_init(net);
    json_error_t e;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    return finish(net, doc, &e, path, err);
}

int qc_network_parse(qc_network *net, const char *text, const char *name, qc_err *err)
{
    net_init(net);
    json_error_t e;
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    return finish(net, doc, &e, name, err);
}

void qc_network_free(qc_network *net)
{
    for (unsigned i = 0; i < QC_NET_MAX_STATIONS; i++) {
        for (unsigned k = 0; k < QC_NET_MAX_CLASSES; k++)
            qc_dist_free(&net->st[i].service[k]);
        qc_dist_free(&net->st[i].patience);
        free(net->st[i].balk);
    }
    for (unsigned k = 0; k < QC_NET_MAX_CLASSES; k++) {
        qc_arrivals_free(&net->cl[k].arrivals);
        qc_dist_free(&net->cl[k].think);
    }
    for (size_t r = 0; r < QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES; r++)
        free(net->route[r]);
    net_init(net);
}

const char *qc_net_disc_name(qc_net_disc d)
{
    static const char *const names[] = {"fcfs", "ps", "is", "priority", "preemptive"};
    return (unsigned)d < 5 ? names[d] : "?";
}
