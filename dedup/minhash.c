/* minhash.c - shingle hashing, MinHash signatures and band keys (the CPU
 * reference; see minhash.h for the definitions). */
#include "dedup/minhash.h"

#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL /* shingles are short: inlined XXH3 avoids a call per shingle */
#include <xxhash.h>

#include "core/util.h"

uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int minhash_params_init(minhash_params *p, int bands, int rows, int ngram, uint64_t seed)
{
    if (bands < 1 || rows < 1 || ngram < 1 || (long)bands * rows > MINHASH_MAX_PERMUTATIONS) return -1;
    p->bands = bands;
    p->rows = rows;
    p->ngram = ngram;
    p->seed = seed;
    p->k = bands * rows;
    p->a = xmalloc((size_t)p->k * sizeof *p->a);
    p->b = xmalloc((size_t)p->k * sizeof *p->b);
    uint64_t state = seed;
    for (int i = 0; i < p->k; i++) {
        p->a[i] = 1 + splitmix64_next(&state) % (MINHASH_PRIME - 1);
        p->b[i] = splitmix64_next(&state) % MINHASH_PRIME;
    }
    return 0;
}

void minhash_params_free(minhash_params *p)
{
    free(p->a);
    free(p->b);
    p->a = p->b = NULL;
}

size_t minhash_shingle_count(const dedup_text *t, int ngram)
{
    if (t->nunits == 0) return 0;
    if (t->nunits < (size_t)ngram) return 1;
    return t->nunits - (size_t)ngram + 1;
}

void minhash_shingle_hashes(const dedup_text *t, int ngram, uint64_t **hashes, size_t *len, size_t *cap)
{
    size_t n = minhash_shingle_count(t, ngram);
    if (*len + n > *cap) {
        *cap = (*len + n) * 2;
        *hashes = xrealloc(*hashes, *cap * sizeof **hashes);
    }
    size_t last = t->nunits < (size_t)ngram ? t->nunits - 1 : (size_t)ngram - 1;
    uint64_t *out = *hashes + *len;
    for (size_t i = 0; i < n; i++) {
        uint32_t from = t->start[i], to = t->end[i + last];
        out[i] = XXH3_64bits(t->text.data + from, to - from);
    }
    *len += n;
}

/* Shingles per block of the signature loop: the block's hashes, reduced
 * mod P once, stay in L1 while every permutation runs over them. */
#define SIGNATURE_BLOCK 64
#define LANES 8 /* 64-bit lanes of an AVX-512 register */

static void signature_scalar(const minhash_params *p, const uint64_t *hashes, size_t n, uint64_t *sig)
{
    for (size_t base = 0; base < n; base += SIGNATURE_BLOCK) {
        size_t m = n - base < SIGNATURE_BLOCK ? n - base : SIGNATURE_BLOCK;
        const uint64_t *h = hashes + base;
        for (int k = 0; k < p->k; k++) {
            uint64_t a = p->a[k], b = p->b[k], best = sig[k];
            for (size_t i = 0; i < m; i++) {
                uint64_t v = minhash_permute(a, b, h[i]);
                best = v < best ? v : best;
            }
            sig[k] = best;
        }
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX512_PATH 1

/* The same arithmetic as minhash_permute() on 8 permutations at once, in
 * 32-bit limbs (AVX-512F multiplies 32x32 -> 64 bits per lane): with
 * a = a1*2^32 + a0 and h = h1*2^32 + h0 (h reduced below P + 8),
 * a*h = a1h1*2^64 + (a1h0 + a0h1)*2^32 + a0h0, and since 2^61 = 1 mod P,
 * 2^64 = 8 and mid*2^32 = (mid >> 29) + (mid mod 2^29)*2^32; the parts sum
 * below 2^64, one fold and one conditional subtraction finish the job. */
__attribute__((target("avx512f"))) static void signature_avx512(const minhash_params *p, const uint64_t *hashes,
                                                                 size_t n, uint64_t *sig)
{
    const __m512i prime = _mm512_set1_epi64((long long)MINHASH_PRIME);
    const __m512i low29 = _mm512_set1_epi64((1LL << 29) - 1);
    uint64_t h0[SIGNATURE_BLOCK], h1[SIGNATURE_BLOCK];
    for (size_t base = 0; base < n; base += SIGNATURE_BLOCK) {
        size_t m = n - base < SIGNATURE_BLOCK ? n - base : SIGNATURE_BLOCK;
        for (size_t i = 0; i < m; i++) {
            uint64_t h = hashes[base + i];
            uint64_t hr = (h & MINHASH_PRIME) + (h >> 61);
            h0[i] = hr & 0xFFFFFFFFu;
            h1[i] = hr >> 32;
        }
        for (int k = 0; k + LANES <= p->k; k += LANES) {
            __m512i a = _mm512_loadu_si512(p->a + k), b = _mm512_loadu_si512(p->b + k);
            __m512i a1 = _mm512_srli_epi64(a, 32); /* a0 is a itself: mul_epu32 reads the low half */
            __m512i best = _mm512_loadu_si512(sig + k);
            for (size_t i = 0; i < m; i++) {
                __m512i x0 = _mm512_set1_epi64((long long)h0[i]), x1 = _mm512_set1_epi64((long long)h1[i]);
                __m512i lo = _mm512_mul_epu32(a, x0);
                __m512i mid = _mm512_add_epi64(_mm512_mul_epu32(a1, x0), _mm512_mul_epu32(a, x1));
                __m512i hi = _mm512_mul_epu32(a1, x1);
                __m512i s = _mm512_add_epi64(_mm512_and_si512(lo, prime), _mm512_srli_epi64(lo, 61));
                s = _mm512_add_epi64(s, _mm512_slli_epi64(hi, 3));
                s = _mm512_add_epi64(s, _mm512_srli_epi64(mid, 29));
                s = _mm512_add_epi64(s, _mm512_slli_epi64(_mm512_and_si512(mid, low29), 32));
                s = _mm512_add_epi64(s, b);
                s = _mm512_add_epi64(_mm512_and_si512(s, prime), _mm512_srli_epi64(s, 61));
                s = _mm512_mask_sub_epi64(s, _mm512_cmpge_epu64_mask(s, prime), s, prime);
                best = _mm512_min_epu64(best, s);
            }
            _mm512_storeu_si512(sig + k, best);
        }
    }
    int done = p->k - p->k % LANES;
    if (done < p->k) { /* the last k mod 8 permutations */
        minhash_params rest = *p;
        rest.k = p->k - done;
        rest.a = p->a + done;
        rest.b = p->b + done;
        signature_scalar(&rest, hashes, n, sig + done);
    }
}
#endif

void minhash_signature(const minhash_params *p, const uint64_t *hashes, size_t n, uint64_t *sig)
{
    for (int k = 0; k < p->k; k++) sig[k] = MINHASH_EMPTY;
#ifdef HAVE_AVX512_PATH
    if (__builtin_cpu_supports("avx512f")) {
        signature_avx512(p, hashes, n, sig);
        return;
    }
#endif
    signature_scalar(p, hashes, n, sig);
}

void minhash_band_keys(const minhash_params *p, const uint64_t *sig, uint64_t *keys)
{
    uint64_t row[MINHASH_MAX_PERMUTATIONS];
    for (int j = 0; j < p->bands; j++) {
        for (int r = 0; r < p->rows; r++) {
            uint64_t v = sig[j * p->rows + r];
            unsigned char *le = (unsigned char *)&row[r];
            for (int byte = 0; byte < 8; byte++) le[byte] = (unsigned char)(v >> (8 * byte));
        }
        keys[j] = XXH3_64bits_withSeed(row, (size_t)p->rows * sizeof row[0], (XXH64_hash_t)j);
    }
}

double minhash_similarity(const uint64_t *s1, const uint64_t *s2, int k)
{
    int same = 0;
    for (int i = 0; i < k; i++) same += s1[i] == s2[i];
    return k ? (double)same / k : 0;
}
