/* minhash.h - shingles, MinHash signatures and LSH band keys.
 *
 * Definitions (the CPU code here is the reference; gpu/minhash.cu matches it
 * bit for bit):
 *   shingle i   = units i..i+ngram-1 of the normal form (normalize.h), as the
 *                 bytes from the first unit's start to the last unit's end; a
 *                 text with 1..ngram-1 units has one shingle of all of them,
 *                 a text with none has no shingles
 *   shingle hash  h = XXH3_64bits(shingle bytes), seed 0
 *   permutation k   = (a_k * h + b_k) mod P, P = 2^61 - 1, exact arithmetic
 *   a_k, b_k        from splitmix64 seeded with --seed, drawn in the order
 *                   a_0, b_0, a_1, b_1, ...: a_k = 1 + x mod (P-1), b_k = x mod P
 *   signature       sig[k] = min over shingles of permutation k;
 *                   UINT64_MAX for every k when there are no shingles
 *   band key j      = XXH3_64bits_withSeed(sig[j*rows .. j*rows+rows-1] as
 *                   little-endian 8-byte words, seed j) */
#ifndef WINNOW_DEDUP_MINHASH_H
#define WINNOW_DEDUP_MINHASH_H

#include <stddef.h>
#include <stdint.h>

#include "dedup/minhash_filter.h"
#include "dedup/normalize.h"

#define MINHASH_PRIME ((UINT64_C(1) << 61) - 1)
#define MINHASH_EMPTY UINT64_MAX
#define MINHASH_DEFAULT_BANDS 14
#define MINHASH_DEFAULT_ROWS 8
#define MINHASH_DEFAULT_NGRAM 5
#define MINHASH_DEFAULT_SEED 1
#define MINHASH_MAX_PERMUTATIONS 1024

typedef struct {
    int bands, rows, ngram;
    uint64_t seed;
    int k;           /* bands * rows */
    uint64_t *a, *b; /* k multipliers and offsets */
    minhash_filter *filter; /* the fast signature loop's constants; NULL where the CPU lacks it */
} minhash_params;

/* Fills p for the given shape and seed; returns -1 (p untouched) when the
 * shape is out of range (bands, rows, ngram >= 1; bands*rows <= 1024). */
int minhash_params_init(minhash_params *p, int bands, int rows, int ngram, uint64_t seed);

/* Frees p's arrays. */
void minhash_params_free(minhash_params *p);

/* The splitmix64 generator: advances *state and returns the next value. */
uint64_t splitmix64_next(uint64_t *state);

/* Number of shingles t has for n-grams of ngram units. */
size_t minhash_shingle_count(const dedup_text *t, int ngram);

/* Appends the hash of every shingle of t to *hashes (grown with xrealloc;
 * *len and *cap track it). */
void minhash_shingle_hashes(const dedup_text *t, int ngram, uint64_t **hashes, size_t *len, size_t *cap);

/* The same for a normal form held elsewhere: text, with nunits units
 * [start[i], end[i]) (dedup_text's layout). */
void minhash_shingle_hashes_of(const char *text, const uint32_t *start, const uint32_t *end, size_t nunits,
                               int ngram, uint64_t **hashes, size_t *len, size_t *cap);

/* (a * h + b) mod P for a, b < P and any 64-bit h, exactly. */
static inline uint64_t minhash_permute(uint64_t a, uint64_t b, uint64_t h)
{
    uint64_t hr = (h & MINHASH_PRIME) + (h >> 61); /* h mod P, up to P + 7 */
    unsigned __int128 x = (unsigned __int128)a * hr + b;
    uint64_t lo = (uint64_t)x & MINHASH_PRIME;
    uint64_t hi = (uint64_t)(x >> 61);              /* < 2^62 */
    uint64_t r = lo + hi;                           /* < 2^63 */
    r = (r & MINHASH_PRIME) + (r >> 61);
    return r >= MINHASH_PRIME ? r - MINHASH_PRIME : r;
}

/* Computes the signature (p->k values) of n shingle hashes into sig. */
void minhash_signature(const minhash_params *p, const uint64_t *hashes, size_t n, uint64_t *sig);

/* Computes the p->bands band keys of a signature into keys. */
void minhash_band_keys(const minhash_params *p, const uint64_t *sig, uint64_t *keys);

/* Fraction of the k positions where two signatures agree (the Jaccard estimate). */
double minhash_similarity(const uint64_t *s1, const uint64_t *s2, int k);

#endif
