/* ascii_run.h - the run of ASCII letters from a place, 16 bytes at a time
 * (SSE2); shared by the pre-tokenisers (pretokenize.c, pretok_hf.c). */
#ifndef WINNOW_TOKENIZE_ASCII_RUN_H
#define WINNOW_TOKENIZE_ASCII_RUN_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define ASCII_RUN_WIDTH 16

/* End of the run of ASCII letters in [lo, lo+26) from i (with fold, either
 * case of lo's letters: lo must be 'a'), 16 bytes at a time with SSE2. */
static inline size_t ascii_letter_run(const uint8_t *s, size_t n, size_t i, uint8_t lo, uint8_t fold)
{
    const __m128i fold_v = _mm_set1_epi8((char)fold), shift = _mm_set1_epi8((char)(0x80 - lo)),
                  limit = _mm_set1_epi8((char)(-0x80 + 26));
    for (; i + ASCII_RUN_WIDTH <= n; i += ASCII_RUN_WIDTH) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        /* letters map to -128..-103 (signed); every other byte, >= 0x80 included, above */
        __m128i in = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, fold_v), shift), limit);
        unsigned out = ~(unsigned)_mm_movemask_epi8(in) & 0xFFFF;
        if (out) return i + (size_t)__builtin_ctz(out);
    }
    while (i < n && (uint8_t)((s[i] | fold) - lo) < 26) i++;
    return i;
}

#endif
