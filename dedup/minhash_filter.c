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
 * except that x may wrap when y >= 1 - SLACK/2^20: then F < SLACK.
 *
 * The search. For 8 permutations at a time, every hash of a block gets its F
 * and the block's smallest and second-smallest keys F << 12 | index are kept
 * (in 32-bit lanes: a shuffle packs the low halves of 8 doubles, a shift
 * drops their integer bits). Then, per permutation, v_j of the
 * smallest key's hash j is computed exactly; it is the block's minimum when
 * the second key's F - SLACK >= 2^20 y_j: every other hash then has
 * F >= SLACK (so did not wrap) and 2^20 y >= F - SLACK >= 2^20 y_j.
 * Otherwise (near ties, repeated shingles) the hashes whose F allows a
 * smaller value are computed exactly. */
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

/* The estimate's constants of permutation i: g0, g1, c. */
static const double *constants_of(const minhash_filter *f, int i)
{
    return f->tab + (size_t)(i / 8) * GROUP_DOUBLES + (i % 8 / 4) * 12 + i % 4;
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
        double *t = (double *)constants_of(f, i);
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
            __m256 low = _mm256_shuffle_ps(_mm256_castpd_ps(xa), _mm256_castpd_ps(xb), 0x88);
            __m256i key = _mm256_or_si256(_mm256_slli_epi32(_mm256_castps_si256(low), 32 - FRAC_BITS), index);
            index = _mm256_add_epi32(index, one);
            __m256i larger = _mm256_max_epu32(lo, key);
            lo = _mm256_min_epu32(lo, key);
            hi = _mm256_min_epu32(hi, larger);
        }
        _mm256_storeu_si256((__m256i *)(best + 8 * g), lo);
        _mm256_storeu_si256((__m256i *)(second + 8 * g), hi);
    }
}

/* Lane of permutation i in search_block()'s output: the shuffle packs the
 * low halves of permutations 0-3 (a) and 4-7 (b) of 8 as a0 a1 b0 b1 a2 a3 b2 b3. */
static int lane_of(int i)
{
    static const int lane[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    return i - i % 8 + lane[i % 8];
}

/* True when every hash whose estimate is e has a value of at least v for
 * its permutation: 2^20 y >= e - SLACK >= 2^20 v / P, checked as
 * e - SLACK >= (v >> 41) + 1, which implies it (a little stricter). */
static int estimate_clears(uint32_t e, uint64_t v)
{
    return e >= (uint32_t)(v >> (61 - FRAC_BITS)) + SLACK + 1;
}

/* The exact minimum of permutation i over the block's hashes hr (m of
 * them, padded to a multiple of 4 with copies of the first) when the search
 * could not certify value v of hash hv: every other hash whose estimate
 * allows a smaller value is computed exactly (a wrapped hash has F < SLACK,
 * so is one). Repeated shingles bring most of these calls: they tie. */
__attribute__((target("avx2,fma"))) static uint64_t settle(const minhash_filter *f, int i, const uint64_t *hr,
                                                           const double *h0, const double *h1, size_t m,
                                                           uint64_t hv, uint64_t v)
{
    const double *t = constants_of(f, i);
    __m256d g0 = _mm256_set1_pd(t[0]), g1 = _mm256_set1_pd(t[4]), c = _mm256_set1_pd(t[8]);
    const __m256i frac = _mm256_set1_epi64x((1 << FRAC_BITS) - 1);
    __m256i bar = _mm256_set1_epi64x((long long)(v >> (61 - FRAC_BITS)) + SLACK + 1); /* see estimate_clears() */
    for (size_t n = 0; n < m; n += 4) {
        __m256d x = _mm256_fmadd_pd(_mm256_loadu_pd(h1 + n), g1, _mm256_fmadd_pd(_mm256_loadu_pd(h0 + n), g0, c));
        __m256i e = _mm256_and_si256(_mm256_castpd_si256(x), frac);
        int below = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(bar, e)));
        for (; below; below &= below - 1) {
            uint64_t h = hr[n + (size_t)__builtin_ctz((unsigned)below)];
            if (h == hv) continue;
            uint64_t w = minhash_permute(f->a[i], f->b[i], h);
            if (w < v) v = w, hv = h;
        }
    }
    return v;
}

/* Reduces the n hashes in hr mod P, in place, and splits each into doubles
 * h0 = low 31 bits and h1 = the rest. */
__attribute__((target("avx2"))) static void split_hashes(uint64_t *hr, size_t n, double *h0, double *h1)
{
    const __m256i prime = _mm256_set1_epi64x((long long)MINHASH_PRIME);
    const __m256i below_prime = _mm256_set1_epi64x((long long)MINHASH_PRIME - 1);
    const __m256i low31 = _mm256_set1_epi64x(0x7FFFFFFF);
    const __m256i two52 = _mm256_castpd_si256(_mm256_set1_pd(0x1p52)); /* x | bits(2^52) is 2^52 + x for x < 2^52 */
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(hr + i));
        __m256i r = _mm256_add_epi64(_mm256_and_si256(h, prime), _mm256_srli_epi64(h, 61)); /* <= P + 7 */
        r = _mm256_sub_epi64(r, _mm256_and_si256(_mm256_cmpgt_epi64(r, below_prime), prime));
        _mm256_storeu_si256((__m256i *)(hr + i), r);
        __m256d lo = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(r, low31), two52));
        __m256d hi = _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(r, 31), two52));
        _mm256_storeu_pd(h0 + i, _mm256_sub_pd(lo, _mm256_castsi256_pd(two52)));
        _mm256_storeu_pd(h1 + i, _mm256_sub_pd(hi, _mm256_castsi256_pd(two52)));
    }
    for (; i < n; i++) {
        hr[i] = minhash_permute(1, 0, hr[i]);
        h0[i] = (double)(hr[i] & 0x7FFFFFFF);
        h1[i] = (double)(hr[i] >> 31);
    }
}

void minhash_filter_signature(const minhash_filter *f, const uint64_t *hashes, size_t n, uint64_t *sig)
{
    _Alignas(32) double h0[BLOCK + 3], h1[BLOCK + 3];
    uint64_t hr[BLOCK + 3];
    uint32_t best[MINHASH_MAX_PERMUTATIONS], second[MINHASH_MAX_PERMUTATIONS];
    for (size_t base = 0; base < n; base += BLOCK) {
        size_t m = n - base < BLOCK ? n - base : BLOCK;
        for (size_t i = 0; i < m + 3; i++) hr[i] = hashes[base + (i < m ? i : 0)];
        split_hashes(hr, m + 3, h0, h1);
        search_block(f, h0, h1, m, best, second);
        for (int i = 0; i < f->width; i++) {
            uint32_t first = best[lane_of(i)], next = second[lane_of(i)];
            uint64_t hv = hr[first & ((1u << INDEX_BITS) - 1)], v = minhash_permute(f->a[i], f->b[i], hv);
            if (next != NO_KEY && !estimate_clears(next >> INDEX_BITS, v)) v = settle(f, i, hr, h0, h1, m, hv, v);
            if (v < sig[i]) sig[i] = v;
        }
    }
}

#else

/* Not x86-64: no filter; callers use the exact scalar loop. */
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
