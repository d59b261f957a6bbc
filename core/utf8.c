#include "utf8.h"

#include <immintrin.h>
#include <string.h>

#include "simd.h"

/* Vector validation: each byte is classified together with the byte before
 * it by three 16-entry tables (indexed by the previous byte's high and low
 * nibble and this byte's high nibble); a bit set in all three names an error.
 * Pairs of continuation bytes are flagged too and must line up exactly with
 * the second and third bytes after a 3- or 4-byte lead. This follows the
 * method in Keiser and Lemire, "Validating UTF-8 In Less Than One Instruction
 * Per Byte" (2021). */
enum {
    TOO_SHORT = 1 << 0,  /* lead byte not followed by a continuation */
    TOO_LONG = 1 << 1,   /* continuation after an ASCII byte */
    OVERLONG_3 = 1 << 2, /* E0 80..9F */
    TOO_LARGE = 1 << 3,  /* F4 90..BF, F5..FF 90..BF */
    SURROGATE = 1 << 4,  /* ED A0..BF */
    OVERLONG_2 = 1 << 5, /* C0..C1 any continuation */
    TOO_LARGE_1000 = 1 << 6, /* F5..FF 80..8F */
    OVERLONG_4 = 1 << 6, /* F0 80..8F */
    TWO_CONTS = 1 << 7,  /* continuation after continuation */
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS
};

static const unsigned char prev_high_table[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4};
static const unsigned char prev_low_table[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY, CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000};
static const unsigned char cur_high_table[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT};
/* A block whose last three bytes exceed these has a sequence running past it
 * (the 16-byte check uses the last 16 entries). */
static const unsigned char block_end_max[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xDF, 0xBF};

static inline __m128i load16(const unsigned char *table)
{
    return _mm_loadu_si128((const __m128i *)table);
}

/* Errors (nonzero bytes) in block `in`, given the block `prev` before it. */
static inline __m128i utf8_block_errors(__m128i in, __m128i prev)
{
    const __m128i nibble = _mm_set1_epi8(0x0F);
    __m128i prev1 = _mm_alignr_epi8(in, prev, 15);
    __m128i prev_high = _mm_shuffle_epi8(load16(prev_high_table), _mm_and_si128(_mm_srli_epi16(prev1, 4), nibble));
    __m128i prev_low = _mm_shuffle_epi8(load16(prev_low_table), _mm_and_si128(prev1, nibble));
    __m128i cur_high = _mm_shuffle_epi8(load16(cur_high_table), _mm_and_si128(_mm_srli_epi16(in, 4), nibble));
    __m128i special = _mm_and_si128(_mm_and_si128(prev_high, prev_low), cur_high);
    /* bytes 2 and 3 after a lead of 3 or 4 bytes must be continuations */
    __m128i third = _mm_subs_epu8(_mm_alignr_epi8(in, prev, 14), _mm_set1_epi8((char)(0xE0 - 0x80)));
    __m128i fourth = _mm_subs_epu8(_mm_alignr_epi8(in, prev, 13), _mm_set1_epi8((char)(0xF0 - 0x80)));
    __m128i must_continue = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
    return _mm_xor_si128(must_continue, special);
}

static inline __m128i utf8_incomplete(__m128i in)
{
    return _mm_subs_epu8(in, load16(block_end_max + 16));
}

static bool utf8_valid_sse(const unsigned char *p, size_t n)
{
    __m128i err = _mm_setzero_si128(), prev = _mm_setzero_si128(), incomplete = _mm_setzero_si128();
    size_t i = 0;
    for (;; i += 16) {
        __m128i in;
        if (i + 16 <= n) {
            in = _mm_loadu_si128((const __m128i *)(p + i));
        } else { /* the last block, padded with zeros (ASCII) */
            unsigned char last[16] = {0};
            if (i < n) memcpy(last, p + i, n - i);
            in = _mm_loadu_si128((const __m128i *)last);
        }
        if (!_mm_movemask_epi8(in)) {
            err = _mm_or_si128(err, incomplete);
            incomplete = _mm_setzero_si128();
        } else {
            err = _mm_or_si128(err, utf8_block_errors(in, prev));
            incomplete = utf8_incomplete(in);
        }
        prev = in;
        if (i + 16 > n) break;
    }
    err = _mm_or_si128(err, incomplete);
    return _mm_testz_si128(err, err);
}

/* The same on 32-byte blocks; the tables are repeated in both 16-byte lanes. */
__attribute__((target("avx2"))) static inline __m256i utf8_block_errors_avx2(__m256i in, __m256i prev)
{
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    __m256i shifted = _mm256_permute2x128_si256(prev, in, 0x21); /* prev's high lane, in's low lane */
    __m256i prev1 = _mm256_alignr_epi8(in, shifted, 15);
    __m256i prev_high = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(load16(prev_high_table)),
                                            _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble));
    __m256i prev_low = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(load16(prev_low_table)), _mm256_and_si256(prev1, nibble));
    __m256i cur_high = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(load16(cur_high_table)),
                                           _mm256_and_si256(_mm256_srli_epi16(in, 4), nibble));
    __m256i special = _mm256_and_si256(_mm256_and_si256(prev_high, prev_low), cur_high);
    __m256i third = _mm256_subs_epu8(_mm256_alignr_epi8(in, shifted, 14), _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(_mm256_alignr_epi8(in, shifted, 13), _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must_continue = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(must_continue, special);
}

__attribute__((target("avx2"))) static bool utf8_valid_avx2(const unsigned char *p, size_t n)
{
    const __m256i end_max = _mm256_loadu_si256((const __m256i *)block_end_max);
    __m256i err = _mm256_setzero_si256(), prev = _mm256_setzero_si256(), incomplete = _mm256_setzero_si256();
    size_t i = 0;
    /* two blocks at a time while both are ASCII, the common case */
    while (i + 64 <= n) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + i + 32));
        if (!_mm256_movemask_epi8(_mm256_or_si256(a, b))) {
            err = _mm256_or_si256(err, incomplete);
            incomplete = _mm256_setzero_si256();
        } else {
            err = _mm256_or_si256(err, utf8_block_errors_avx2(a, prev));
            err = _mm256_or_si256(err, utf8_block_errors_avx2(b, a));
            incomplete = _mm256_subs_epu8(b, end_max);
        }
        prev = b;
        i += 64;
    }
    for (;; i += 32) {
        __m256i in;
        if (i + 32 <= n) {
            in = _mm256_loadu_si256((const __m256i *)(p + i));
        } else {
            unsigned char last[32] = {0};
            if (i < n) memcpy(last, p + i, n - i);
            in = _mm256_loadu_si256((const __m256i *)last);
        }
        if (!_mm256_movemask_epi8(in)) {
            err = _mm256_or_si256(err, incomplete);
            incomplete = _mm256_setzero_si256();
        } else {
            err = _mm256_or_si256(err, utf8_block_errors_avx2(in, prev));
            incomplete = _mm256_subs_epu8(in, end_max);
        }
        prev = in;
        if (i + 32 > n) break;
    }
    err = _mm256_or_si256(err, incomplete);
    return _mm256_testz_si256(err, err);
}

bool utf8_valid(const char *s, size_t n)
{
    if (simd_avx2()) return utf8_valid_avx2((const unsigned char *)s, n);
    return utf8_valid_sse((const unsigned char *)s, n);
}

void utf8_append(wbuf *out, uint32_t cp)
{
    char b[4];
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = UTF8_REPLACEMENT;
    buf_append(out, b, (size_t)(utf8_put(b, cp) - b));
}

size_t utf8_repair(wbuf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n, *run = p;
    size_t replaced = 0;
    buf_reserve(out, n);
    while (p < end) {
        if (*p < 0x80) { p++; continue; }
        size_t k = utf8_valid_seq(p, (size_t)(end - p));
        if (k) { p += k; continue; }
        buf_append(out, run, (size_t)(p - run));
        utf8_append(out, UTF8_REPLACEMENT);
        replaced++;
        p += utf8_invalid_len(p, (size_t)(end - p));
        run = p;
    }
    buf_append(out, run, (size_t)(p - run));
    return replaced;
}
