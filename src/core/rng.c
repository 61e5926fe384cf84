/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rng.c: stream seeding and the GSL type wrapping xoshiro256**.
 *
 * Seeding: the stream key is a two-round splitmix64 hash of seed and id;
 * the four state words are the next four outputs of splitmix64 started at
 * that key. splitmix64 is a bijection with full avalanche, so distinct
 * (seed, id) give unrelated states; an all-zero state (the one fixed point
 * of xoshiro) cannot come out of four consecutive splitmix64 outputs. */
#include "qctl/rng.h"

#include <stddef.h>
#include <string.h>

#include "qctl/rng_gsl.h"
#include "core/names.h"

/* qc_rng_gsl hands out qc_rng.g as a gsl_rng: the two must agree. */
_Static_assert(sizeof(((qc_rng *)0)->g) == sizeof(gsl_rng), "gsl_rng view size");
_Static_assert(offsetof(gsl_rng, state) == sizeof(const void *), "gsl_rng view layout");

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void qc_rng_init(qc_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t a = seed;
    uint64_t key = splitmix64(&a);
    uint64_t b = stream ^ 0x6a09e667f3bcc909ULL;
    key ^= splitmix64(&b);
    uint64_t c = key;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&c);
    qc_rng_gsl(r);
}

/* GSL callbacks: the state pointer is qc_rng.s. */
static void gsl_set(void *state, unsigned long seed)
{
    qc_rng tmp;
    qc_rng_init(&tmp, (uint64_t)seed, 0);
    memcpy(state, tmp.s, sizeof tmp.s);
}

static unsigned long gsl_get(void *state)
{
    qc_rng tmp;
    memcpy(tmp.s, state, sizeof tmp.s);
    uint64_t x = qc_rng_next(&tmp);
    memcpy(state, tmp.s, sizeof tmp.s);
    return (unsigned long)x;
}

static double gsl_get_double(void *state)
{
    qc_rng tmp;
    memcpy(tmp.s, state, sizeof tmp.s);
    double u = qc_rng_u01(&tmp);
    memcpy(state, tmp.s, sizeof tmp.s);
    return u;
}

static const gsl_rng_type qc_rng_type_s = {
    "qc_xoshiro256ss",
    (unsigned long)UINT64_MAX,
    0,
    sizeof(uint64_t[4]),
    gsl_set,
    gsl_get,
    gsl_get_double,
};

const gsl_rng_type *qc_rng_type = &qc_rng_type_s;

/* Indexed by role; 7..14 are not roles. */
static const char *const rng_role_names[] = {NULL, "arrival", "service", "server", "routing",
    "control", "user", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "misc"};
QC__NAMES(qc_rng_role, qc_rng_role_name, qc_rng_role_parse, rng_role_names)
