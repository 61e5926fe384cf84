/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/rng.h: reproducible, independent random-number streams.
 *
 * A run is reproduced bit for bit from one 64-bit seed. Every consumer of
 * randomness (an arrival source, a server, a replication) owns a stream
 * whose state is derived from (seed, stream id) alone: adding a stream
 * never changes the numbers another stream draws, which is what makes
 * "add a class, keep the other classes' arrivals" and common random numbers
 * across policies work.
 *
 * The generator is xoshiro256** (256-bit state, period 2^256 - 1), its state
 * filled by splitmix64 from a hash of (seed, id), as its authors recommend
 * for seeding many streams. A qc_rng *is* a GSL generator: qc_rng_gsl()
 * (qctl/rng_gsl.h) gives a gsl_rng view of the same state, so every GSL
 * variate (gamma, lognormal, ...) draws from the stream, while the hot path
 * (uniforms and exponentials) is inlined here without a function-pointer
 * call. This header itself needs no GSL.
 *
 * Ownership: a qc_rng is a plain value; it owns nothing and needs no free. */
#ifndef QCTL_RNG_H
#define QCTL_RNG_H

#include <math.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_rng {
    /* storage of the gsl_rng view (qctl/rng_gsl.h): a gsl_rng's two
     * pointers, type = qc_rng_type and state = s */
    struct {
        const void *type;
        void *state;
    } g;
    uint64_t s[4]; /* xoshiro256** state; never all zero */
} qc_rng;

/* Roles of streams, combined with indices by qc_rng_stream(). */
typedef enum qc_rng_role {
    QC_STREAM_ARRIVAL = 1,
    QC_STREAM_SERVICE = 2,
    QC_STREAM_SERVER = 3,
    QC_STREAM_ROUTING = 4,
    QC_STREAM_CONTROL = 5,
    QC_STREAM_USER = 6,
    QC_STREAM_MISC = 15
} qc_rng_role;
const char *qc_rng_role_name(qc_rng_role v);
int qc_rng_role_parse(const char *s, qc_rng_role *v, qc_err *err);

/* A stream id from (replication, role, index): distinct triples give
 * distinct ids (replication < 2^32, role < 2^8, index < 2^24). */
static inline uint64_t qc_rng_stream(uint32_t rep, unsigned role, uint32_t index)
{
    return ((uint64_t)rep << 32) | ((uint64_t)(role & 0xffu) << 24) |
           (uint64_t)(index & 0xffffffu);
}

/* Initializes r as stream `stream` of `seed`. Always succeeds. After this,
 * r is independent of every other (seed, stream) pair and the gsl_rng view
 * is valid for as long as r does not move in memory (do not copy a qc_rng
 * by value and then use the copy's gsl view: call qc_rng_gsl on it). */
void qc_rng_init(qc_rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t qc__rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* One step of xoshiro256** on the state s: the next 64 bits. */
static inline uint64_t qc__xoshiro(uint64_t s[4])
{
    const uint64_t result = qc__rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = qc__rotl(s[3], 45);
    return result;
}

/* Next 64 random bits. */
static inline uint64_t qc_rng_next(qc_rng *r)
{
    return qc__xoshiro(r->s);
}

/* 64 random bits as a uniform on (0, 1), and as an exponential of the
 * given rate: what qc_rng_u01_open and qc_rng_exp return, for a caller
 * that steps a copy of the state (qc__sampler_refill). */
static inline double qc__u01_open_of(uint64_t x)
{
    return ((double)(x >> 11) + 0.5) * 0x1.0p-53;
}

static inline double qc__exp_of(uint64_t x, double rate)
{
    return -log(qc__u01_open_of(x)) / rate;
}

/* Uniform on [0, 1), 53 random bits. */
static inline double qc_rng_u01(qc_rng *r)
{
    return (double)(qc_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform on (0, 1): never 0, so log() of it is finite. */
static inline double qc_rng_u01_open(qc_rng *r)
{
    return qc__u01_open_of(qc_rng_next(r));
}

/* Exponential with the given rate (> 0), by inversion. */
static inline double qc_rng_exp(qc_rng *r, double rate)
{
    return qc__exp_of(qc_rng_next(r), rate);
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
