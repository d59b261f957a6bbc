/* byte_masks.h - the classes of 64 bytes of text as bit masks (bit k for
 * byte k), for the word splitter's ASCII fast path: whitespace as Python's
 * str.isspace() sees ASCII, line breaks as str.splitlines() does, ASCII
 * letters and digits, and bytes of wider characters. Header only: inlined
 * into the splitter's loop. */
#ifndef WINNOW_FILTER_BYTE_MASKS_H
#define WINNOW_FILTER_BYTE_MASKS_H

#include <stdint.h>
#include <string.h>
#ifdef __SSSE3__
#include <tmmintrin.h>
#endif

#define BYTE_MASK_BLOCK 64 /* bytes one set of masks describes */

typedef struct {
    uint64_t space; /* ' ', \t \n \v \f \r, 0x1C-0x1F */
    uint64_t brk;   /* \n \v \f \r 0x1C-0x1E: line breaks of str.splitlines() */
    uint64_t lf;    /* '\n' */
    uint64_t cr;    /* '\r' */
    uint64_t alnum; /* ASCII letters and digits */
    uint64_t alpha; /* ASCII letters */
    uint64_t high;  /* bytes >= 0x80: parts of wider characters */
    uint64_t split; /* ; @ # $ % & ? ! ( ) [ ] { } < > * ": tokens of their own wherever they are */
    uint64_t mark;  /* ' , : . ` : what the splitter decides on by context */
    uint64_t minus; /* '-' ("--" is a token) */
} byte_masks;

/* The members of the split and mark sets: bit (c >> 4) - 2 of entry c & 15. */
#define BYTE_MASK_ROW(c) (1u << (((c) >> 4) - 2))
#define BYTE_MASK_SPLIT_TABLE                                                                                  \
    (BYTE_MASK_ROW('@'), BYTE_MASK_ROW('!'), BYTE_MASK_ROW('"'), BYTE_MASK_ROW('#'), BYTE_MASK_ROW('$'),       \
     BYTE_MASK_ROW('%'), BYTE_MASK_ROW('&'), 0, BYTE_MASK_ROW('('), BYTE_MASK_ROW(')'), BYTE_MASK_ROW('*'),    \
     BYTE_MASK_ROW(';') | BYTE_MASK_ROW('[') | BYTE_MASK_ROW('{'), BYTE_MASK_ROW('<'),                         \
     BYTE_MASK_ROW(']') | BYTE_MASK_ROW('}'), BYTE_MASK_ROW('>'), BYTE_MASK_ROW('?'))
#define BYTE_MASK_MARK_TABLE                                                                                   \
    (BYTE_MASK_ROW('`'), 0, 0, 0, 0, 0, 0, BYTE_MASK_ROW('\''), 0, 0, BYTE_MASK_ROW(':'), 0, BYTE_MASK_ROW(','), \
     0, BYTE_MASK_ROW('.'), 0)
/* per high nibble: its row bit (rows 2..7 are the printable ASCII) */
#define BYTE_MASK_ROW_TABLE (0, 0, 1, 2, 4, 8, 16, 32, 0, 0, 0, 0, 0, 0, 0, 0)

#ifdef __SSSE3__
/* Lanes of v whose byte b has lo <= b < lo + count (unsigned). */
static inline __m128i byte_in_range(__m128i v, unsigned char lo, unsigned char count)
{
    return _mm_cmplt_epi8(_mm_sub_epi8(v, _mm_set1_epi8((char)(lo + 128))), _mm_set1_epi8((char)(count - 128)));
}
#endif

/* The masks of s[0, BYTE_MASK_BLOCK) (all readable). */
static inline void byte_masks_load(const char *s, byte_masks *m)
{
    *m = (byte_masks){0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
#ifdef __SSSE3__
    const __m128i split_table = _mm_setr_epi8 BYTE_MASK_SPLIT_TABLE, mark_table = _mm_setr_epi8 BYTE_MASK_MARK_TABLE,
                  row_table = _mm_setr_epi8 BYTE_MASK_ROW_TABLE, nibble = _mm_set1_epi8(0x0F);
    for (int part = 0; part < BYTE_MASK_BLOCK / 16; part++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + 16 * part));
        __m128i space = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                     _mm_or_si128(byte_in_range(v, 0x09, 5), byte_in_range(v, 0x1C, 4)));
        __m128i brk = _mm_or_si128(byte_in_range(v, 0x0A, 4), byte_in_range(v, 0x1C, 3));
        __m128i digit = byte_in_range(v, '0', 10);
        __m128i alpha = byte_in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 26);
        unsigned shift = 16 * (unsigned)part;
        m->space |= (uint64_t)(unsigned)_mm_movemask_epi8(space) << shift;
        m->brk |= (uint64_t)(unsigned)_mm_movemask_epi8(brk) << shift;
        m->lf |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))) << shift;
        m->cr |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))) << shift;
        m->alnum |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(digit, alpha)) << shift;
        m->alpha |= (uint64_t)(unsigned)_mm_movemask_epi8(alpha) << shift;
        m->high |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << shift;
        /* set membership: the low nibble's row bits and the high nibble's row */
        __m128i row = _mm_shuffle_epi8(row_table, _mm_and_si128(_mm_srli_epi16(v, 4), nibble));
        __m128i low = _mm_and_si128(v, nibble), zero = _mm_setzero_si128();
        __m128i split = _mm_cmpeq_epi8(_mm_and_si128(_mm_shuffle_epi8(split_table, low), row), zero);
        __m128i mark = _mm_cmpeq_epi8(_mm_and_si128(_mm_shuffle_epi8(mark_table, low), row), zero);
        m->split |= (uint64_t)(uint16_t)~_mm_movemask_epi8(split) << shift;
        m->mark |= (uint64_t)(uint16_t)~_mm_movemask_epi8(mark) << shift;
        m->minus |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('-'))) << shift;
    }
#else
    for (int k = 0; k < BYTE_MASK_BLOCK; k++) {
        unsigned char c = (unsigned char)s[k];
        uint64_t bit = (uint64_t)1 << k;
        unsigned char lower = (unsigned char)(c | 0x20);
        if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) m->space |= bit;
        if ((c >= 0x0A && c <= 0x0D) || (c >= 0x1C && c <= 0x1E)) m->brk |= bit;
        if (c == '\n') m->lf |= bit;
        if (c == '\r') m->cr |= bit;
        if (lower >= 'a' && lower <= 'z') m->alpha |= bit;
        if ((lower >= 'a' && lower <= 'z') || (c >= '0' && c <= '9')) m->alnum |= bit;
        if (c >= 0x80) m->high |= bit;
        if (c && strchr(";@#$%&?!()[]{}<>*\"", c)) m->split |= bit;
        if (c && strchr("',:.`", c)) m->mark |= bit;
        if (c == '-') m->minus |= bit;
    }
#endif
}

#endif
