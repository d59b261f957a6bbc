/* rank_scan.h - the lowest of a short array of merge ranks, four at a time
 * (SSE4.1); shared by the tiktoken BPE (bpe.c) and the Hugging Face BPE
 * (hf_bpe.c) scan merges. */
#ifndef WINNOW_TOKENIZE_RANK_SCAN_H
#define WINNOW_TOKENIZE_RANK_SCAN_H

#include <smmintrin.h>
#include <stddef.h>
#include <stdint.h>

#define RANK_LANES 4 /* ranks compared at once */

/* The position of the lowest rank in rank[0..words) (words a multiple of
 * RANK_LANES, rank 16-byte aligned), the leftmost on ties. */
static inline size_t lowest_rank(const uint32_t *rank, size_t words)
{
    __m128i low = _mm_set1_epi32(-1);
    for (size_t p = 0; p < words; p += RANK_LANES) low = _mm_min_epu32(low, _mm_load_si128((const __m128i *)(rank + p)));
    low = _mm_min_epu32(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(1, 0, 3, 2)));
    low = _mm_min_epu32(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(2, 3, 0, 1)));
    for (size_t p = 0;; p += RANK_LANES) {
        __m128i eq = _mm_cmpeq_epi32(low, _mm_load_si128((const __m128i *)(rank + p)));
        int lanes = _mm_movemask_ps(_mm_castsi128_ps(eq));
        if (lanes) return p + (size_t)__builtin_ctz((unsigned)lanes);
    }
}

#endif
