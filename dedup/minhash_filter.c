/* minhash_filter.c - exact MinHash signatures through a floating-point
 * estimate (see minhash_filter.h).
 *
 * The estimate. With hr = h mod P split as hr = h1 * 2^31 + h0 and, for
 * permutation k, A0 = a, A1 = a * 2^31 mod P, the value is
 *     v = (A0 h0 + A1 h1 + b) mod P,   y = v / P = frac(h0 G0 + h1 G1 + B)
 * with G0 = A0/P, G1 = A1/P, B = b/P. In doubles,
 *     x = fma(h1, g1, fma(h0, g0, c)),   c = 2^32 + 2^-19 + B (rounded)
 * stays in [2^32, 2^33), where a double's lowest 20 mantissa bits are the
 * fraction's first 20 bits: F = those bits. The errors (g0, g1 within 2^-54
 * of G0, G1 times h0 < 2^31, h1 < 2^30; c within 2^-21; each fma within
 * 2^-21) sum below 2^-19, which the 2^-19 in c turns into a one-sided error:
 *     2^20 y <= F <= 2^20 y + SLACK           (SLACK = 4),
 * unless y >= 1 - SLACK/2^20, where x may wrap and F be small ("wrapped").
 *
 * The search. For 8 permutations at a time, every hash of a block gets its F
 * and the block's smallest and second-smallest keys F << 12 | index are kept
 * (32-bit lanes: the shifts move F of 4 permutations into the even lanes and
 * of the next 4 into the odd ones). Then, per permutation, v_j of the
 * smallest key's hash j is computed exactly; it is the block's minimum when
 * no other hash can be below it: the second key's F - SLACK >= 2^20 y_j, and
 * y_j < 1 - SLACK/2^20 (no wrapped hash can be smaller). Otherwise (near
 * ties, repeated shingles) the hashes whose F allows a smaller value are
 * computed exactly, or all of them when y_j is that close to 1. */
#include "dedup/minhash_filter.h"

#include <stdlib.h>

#include "core/util.h"
#include "dedup/minhash.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FRAC_BITS 20
#define SLACK 4
#define INDEX_BITS 12
#define BLOCK 1024                 /* hashes per block: indexes fit INDEX_BITS, the block's estimates stay in L1 */
#define NO_KEY UINT32_MAX          /* above every real key (F < 2^20, index < BLOCK) */
#define GROUP_DOUBLES 24           /* per 8 permutations: g0, g1, c of the first 4, then of the next 4 */

struct minhash_filter {
    int width;
    const uint64_t *a, *b;
    double *tab; /* width / 8 groups of GROUP_DOUBLES */
};

/* floor(x * 2^64 / P) as a double times 2^-64: within 2^-54 of x / P. */
static double fraction_of_prime(uint64_t x)
{
    return (double)(uint64_t)(((unsigned __int128)x << 64) / MINHASH_PRIME) * 0x1p-64;
}

/* 2^32 + 2^-19 + b/P, with b/P rounded to the nearest multiple of 2^-20. */
static double offset_of(uint64_t b)
{
    unsigned __int128 scaled = (unsigned __int128)b << FRAC_BITS;
    uint64_t q = (uint64_t)(scaled / MINHASH_PRIME), r = (uint64_t)(scaled % MINHASH_PRIME);
    if (r >= MINHASH_PRIME - r) q++;
    return 0x1p32 + (double)(q + 2) * 0x1p-20;
}

minhash_filter *minhash_filter_create(int k, const uint64_t *a, const uint64_t *b)
{
    if (k < 8 || !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return NULL;
    minhash_filter *f = xcalloc(1, sizeof *f);
    f->width = k - k % 8;
    f->a = a;
    f->b = b;
    f->tab = xmalloc((size_t)f->width / 8 * GROUP_DOUBLES * sizeof *f->tab);
    for (int i = 0; i < f->width; i++) {
        double *t = f->tab + (size_t)(i / 8) * GROUP_DOUBLES + (i % 8 / 4) * 12 + i % 4;
        t[0] = fraction_of_prime(a[i]);
        t[4] = fraction_of_prime(minhash_permute(a[i], 0, UINT64_C(1) << 31));
        t[8] = offset_of(b[i]);
    }
    return f;
}

void minhash_filter_free(minhash_filter *f)
{
    if (!f) return;
    free(f->tab);
    free(f);
}

int minhash_filter_width(const minhash_filter *f)
{
    return f->width;
}

/* The estimate's constants of permutation i: g0, g1, c. */
static const double *constants_of(const minhash_filter *f, int i)
{
    return f->tab + (size_t)(i / 8) * GROUP_DOUBLES + (i % 8 / 4) * 12 + i % 4;
}

/* F of one hash (h0, h1 as doubles) for permutation i, as the vector loop computes it. */
__attribute__((target("fma"))) static uint32_t estimate(const minhash_filter *f, int i, double h0, double h1)
{
    const double *t = constants_of(f, i);
    double x = __builtin_fma(h1, t[4], __builtin_fma(h0, t[0], t[8]));
    uint64_t bits;
    __builtin_memcpy(&bits, &x, sizeof bits);
    return (uint32_t)(bits & ((1u << FRAC_BITS) - 1));
}

/* Smallest and second-smallest keys of every permutation over the block's
 * m hashes (h0, h1), into best[] and second[] in lane order (lane_of()). */
__attribute__((target("avx2,fma"))) static void search_block(const minhash_filter *f, const double *h0,
                                                             const double *h1, size_t m, uint32_t *best,
                                                             uint32_t *second)
{
    const __m256i one = _mm256_set1_epi32(1);
    for (int g = 0; g < f->width / 8; g++) {
        const double *t = f->tab + (size_t)g * GROUP_DOUBLES;
        __m256d g0a = _mm256_loadu_pd(t), g1a = _mm256_loadu_pd(t + 4), ca = _mm256_loadu_pd(t + 8);
        __m256d g0b = _mm256_loadu_pd(t + 12), g1b = _mm256_loadu_pd(t + 16), cb = _mm256_loadu_pd(t + 20);
        __m256i lo = _mm256_set1_epi32(-1), hi = lo, index = _mm256_setzero_si256();
        for (size_t i = 0; i < m; i++) {
            __m256d x0 = _mm256_broadcast_sd(h0 + i), x1 = _mm256_broadcast_sd(h1 + i);
            __m256d xa = _mm256_fmadd_pd(x1, g1a, _mm256_fmadd_pd(x0, g0a, ca));
            __m256d xb = _mm256_fmadd_pd(x1, g1b, _mm256_fmadd_pd(x0, g0b, cb));
            __m256i ka = _mm256_slli_epi64(_mm256_castpd_si256(xa), 32 - FRAC_BITS);
            __m256i kb = _mm256_slli_epi64(_mm256_castpd_si256(xb), 64 - FRAC_BITS);
            __m256i key = _mm256_or_si256(_mm256_blend_epi32(ka, kb, 0xAA), index);
            index = _mm256_add_epi32(index, one);
            __m256i larger = _mm256_max_epu32(lo, key);
            lo = _mm256_min_epu32(lo, key);
            hi = _mm256_min_epu32(hi, larger);
        }
        _mm256_storeu_si256((__m256i *)(best + 8 * g), lo);
        _mm256_storeu_si256((__m256i *)(second + 8 * g), hi);
    }
}

/* Lane of permutation i in search_block()'s output: the first 4 of each 8
 * sit in even lanes, the next 4 in odd ones. */
static int lane_of(int i)
{
    int q = i % 8;
    return i - q + (q < 4 ? 2 * q : 2 * (q - 4) + 1);
}

/* The exact minimum of permutation i over the block when the search could
 * not certify hash j's value v: every hash whose estimate allows a value
 * below v is computed exactly (all of them when v is near P). */
static uint64_t settle(const minhash_filter *f, int i, const uint64_t *hashes, const double *h0, const double *h1,
                       size_t m, uint64_t v)
{
    unsigned __int128 scaled = (unsigned __int128)v << FRAC_BITS;
    int near_top = scaled >= (unsigned __int128)MINHASH_PRIME * ((1u << FRAC_BITS) - SLACK);
    for (size_t n = 0; n < m; n++) {
        if (!near_top) {
            uint32_t e = estimate(f, i, h0[n], h1[n]);
            if (e >= SLACK && (unsigned __int128)(e - SLACK) * MINHASH_PRIME >= scaled) continue;
        }
        uint64_t w = minhash_permute(f->a[i], f->b[i], hashes[n]);
        v = w < v ? w : v;
    }
    return v;
}

void minhash_filter_signature(const minhash_filter *f, const uint64_t *hashes, size_t n, uint64_t *sig)
{
    _Alignas(32) double h0[BLOCK], h1[BLOCK];
    uint32_t best[MINHASH_MAX_PERMUTATIONS], second[MINHASH_MAX_PERMUTATIONS];
    for (size_t base = 0; base < n; base += BLOCK) {
        size_t m = n - base < BLOCK ? n - base : BLOCK;
        const uint64_t *h = hashes + base;
        for (size_t i = 0; i < m; i++) {
            uint64_t hr = minhash_permute(1, 0, h[i]);
            h0[i] = (double)(hr & 0x7FFFFFFFu);
            h1[i] = (double)(hr >> 31);
        }
        search_block(f, h0, h1, m, best, second);
        for (int i = 0; i < f->width; i++) {
            uint32_t first = best[lane_of(i)], next = second[lane_of(i)];
            uint64_t v = minhash_permute(f->a[i], f->b[i], h[first & ((1u << INDEX_BITS) - 1)]);
            unsigned __int128 scaled = (unsigned __int128)v << FRAC_BITS;
            uint32_t e = next >> INDEX_BITS;
            int alone = next == NO_KEY || (e >= SLACK && (unsigned __int128)(e - SLACK) * MINHASH_PRIME >= scaled);
            int clear_of_top = scaled < (unsigned __int128)MINHASH_PRIME * ((1u << FRAC_BITS) - SLACK);
            if (!alone || !clear_of_top) v = settle(f, i, h, h0, h1, m, v);
            if (v < sig[i]) sig[i] = v;
        }
    }
}

#else

minhash_filter *minhash_filter_create(int k, const uint64_t *a, const uint64_t *b)
{
    (void)k, (void)a, (void)b;
    return NULL;
}

void minhash_filter_free(minhash_filter *f)
{
    (void)f;
}

int minhash_filter_width(const minhash_filter *f)
{
    (void)f;
    return 0;
}

void minhash_filter_signature(const minhash_filter *f, const uint64_t *hashes, size_t n, uint64_t *sig)
{
    (void)f, (void)hashes, (void)n, (void)sig;
}

#endif
