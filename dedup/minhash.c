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
    p->filter = minhash_filter_create(p->k, p->a, p->b);
    return 0;
}

void minhash_params_free(minhash_params *p)
{
    minhash_filter_free(p->filter);
    free(p->a);
    free(p->b);
    p->a = p->b = NULL;
    p->filter = NULL;
}

/* Shingles of a text of nunits units. */
static size_t shingles_of(size_t nunits, int ngram)
{
    if (nunits == 0) return 0;
    if (nunits < (size_t)ngram) return 1;
    return nunits - (size_t)ngram + 1;
}

size_t minhash_shingle_count(const dedup_text *t, int ngram)
{
    return shingles_of(t->nunits, ngram);
}

void minhash_shingle_hashes_of(const char *text, const uint32_t *start, const uint32_t *end, size_t nunits,
                               int ngram, uint64_t **hashes, size_t *len, size_t *cap)
{
    size_t n = shingles_of(nunits, ngram);
    if (*len + n > *cap) {
        *cap = (*len + n) * 2;
        *hashes = xrealloc(*hashes, *cap * sizeof **hashes);
    }
    size_t last = nunits < (size_t)ngram ? nunits - 1 : (size_t)ngram - 1;
    uint64_t *out = *hashes + *len;
    for (size_t i = 0; i < n; i++) {
        uint32_t from = start[i], to = end[i + last];
        out[i] = XXH3_64bits(text + from, to - from);
    }
    *len += n;
}

void minhash_shingle_hashes(const dedup_text *t, int ngram, uint64_t **hashes, size_t *len, size_t *cap)
{
    minhash_shingle_hashes_of(t->text.data, t->start, t->end, t->nunits, ngram, hashes, len, cap);
}

void minhash_signature(const minhash_params *p, const uint64_t *hashes, size_t n, uint64_t *sig)
{
    int done = p->filter ? minhash_filter_width(p->filter) : 0;
    for (int k = 0; k < p->k; k++) sig[k] = MINHASH_EMPTY;
    if (done) minhash_filter_signature(p->filter, hashes, n, sig);
    for (int k = done; k < p->k; k++) {
        uint64_t a = p->a[k], b = p->b[k], best = MINHASH_EMPTY;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = minhash_permute(a, b, hashes[i]);
            best = v < best ? v : best;
        }
        sig[k] = best;
    }
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
