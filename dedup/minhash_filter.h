/* minhash_filter.h - the fast CPU signature loop (AVX2 + FMA, chosen at run
 * time): a cheap floating-point estimate of every permutation value finds
 * each permutation's minimum, which is then computed and certified with the
 * exact integer arithmetic, so signatures equal minhash_permute()'s minima
 * bit for bit. */
#ifndef WINNOW_DEDUP_MINHASH_FILTER_H
#define WINNOW_DEDUP_MINHASH_FILTER_H

#include <stddef.h>
#include <stdint.h>

typedef struct minhash_filter minhash_filter;

/* Precomputes the estimate's constants for the first k - k mod 8 of the k
 * permutations (a, b); NULL when this CPU lacks AVX2 or FMA, or k < 8. */
minhash_filter *minhash_filter_create(int k, const uint64_t *a, const uint64_t *b);

/* Frees f (NULL is fine). */
void minhash_filter_free(minhash_filter *f);

/* Number of permutations f covers (a multiple of 8). */
int minhash_filter_width(const minhash_filter *f);

/* Lowers sig[k] to the minimum over the n hashes of permutation k, for the
 * permutations f covers; n may be 0. */
void minhash_filter_signature(const minhash_filter *f, const uint64_t *hashes, size_t n, uint64_t *sig);

#endif
