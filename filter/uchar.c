/* uchar.c - Python-compatible character classes for the filter rules. */
#include "filter/uchar.h"

#include <string.h>
#include <utf8proc.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/utf8.h"

uint32_t uc_next_wide(const char *s, size_t n, size_t *i)
{
    size_t len;
    uint32_t cp = utf8_decode((const unsigned char *)s + *i, n - *i, &len);
    *i += len;
    return cp;
}

size_t uc_prev_start(const char *s, size_t i)
{
    size_t j = i - 1;
    int back = 0;
    while (j > 0 && back < 3 && ((unsigned char)s[j] & 0xC0) == 0x80) {
        j--;
        back++;
    }
    /* a lone continuation byte is a code point of its own (U+FFFD) */
    if (((unsigned char)s[j] & 0xC0) == 0x80) return i - 1;
    size_t len = utf8_valid_seq((const unsigned char *)s + j, i - j);
    return len == i - j ? j : i - 1;
}

size_t uc_count(const char *s, size_t n)
{
    /* code points = bytes that are not continuation bytes (exact for valid
     * UTF-8, which is all the document stream carries) */
    size_t cont = 0, i = 0;
#ifdef __SSE2__
    /* 16 bytes at a time: continuation bytes 0x80-0xBF are, as signed bytes, below -64 */
    const __m128i below = _mm_set1_epi8(-64);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        cont += (size_t)__builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, below)));
    }
#endif
    /* eight bytes at a time: a continuation byte has bit 7 set and bit 6 clear */
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        cont += (size_t)__builtin_popcountll(w & ~(w << 1) & 0x8080808080808080ULL);
    }
    for (; i < n; i++) cont += ((unsigned char)s[i] & 0xC0) == 0x80;
    return n - cont;
}

/* Bytes that may start a line break: \n \v \f \r, 0x1C-0x1E, and the lead
 * bytes of U+0085 (C2 85) and U+2028/U+2029 (E2 80 A8/A9). */
static const uint8_t maybe_break[256] = {
    ['\n'] = 1, [0x0B] = 1, [0x0C] = 1, ['\r'] = 1, [0x1C] = 1, [0x1D] = 1, [0x1E] = 1, [0xC2] = 1, [0xE2] = 1,
};

/* First position from i (n if none) of a byte that may start a line break:
 * every byte maybe_break marks is found, and a few others (tab, other
 * controls). */
static inline size_t next_break_candidate(const unsigned char *u, size_t n, size_t i)
{
#ifdef __SSE2__
    const __m128i control_max = _mm_set1_epi8(0x1F), c2 = _mm_set1_epi8((char)0xC2), e2 = _mm_set1_epi8((char)0xE2);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(u + i));
        __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max); /* v <= 0x1F */
        __m128i hit = _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(v, c2), _mm_cmpeq_epi8(v, e2)));
        unsigned bits = (unsigned)_mm_movemask_epi8(hit);
        if (bits) return i + (size_t)__builtin_ctz(bits);
    }
#endif
    while (i < n && !maybe_break[u[i]]) i++;
    return i;
}

size_t uc_line_end(const char *s, size_t n, size_t pos, size_t *end)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = next_break_candidate(u, n, pos); i < n; i = next_break_candidate(u, n, i + 1)) {
        unsigned char c = u[i];
        if (!maybe_break[c]) continue;
        if (c == 0xC2) {
            if (i + 1 < n && u[i + 1] == 0x85) {
                *end = i;
                return i + 2;
            }
            continue;
        }
        if (c == 0xE2) {
            if (i + 2 < n && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9)) {
                *end = i;
                return i + 3;
            }
            continue;
        }
        *end = i;
        return (c == '\r' && i + 1 < n && u[i + 1] == '\n') ? i + 2 : i + 1;
    }
    *end = n;
    return n;
}

bool uc_is_space_wide(uint32_t cp)
{
    switch (cp) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029:
    case 0x202F: case 0x205F: case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

bool uc_is_line_break(uint32_t cp)
{
    return cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || (cp >= 0x1C && cp <= 0x1E) ||
           cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

bool uc_is_alpha(uint32_t cp)
{
    if (cp < 0x80) return ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO;
}

bool uc_is_word(uint32_t cp)
{
    if (cp < 0x80) return cp == '_' || (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) ||
           (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

bool uc_is_datatrove_punct(uint32_t cp)
{
    if (cp < 0x80) {
        if (cp < 32) return cp != '\t' && cp != '\n'; /* controls 0-8, 11-31 */
        if (cp == 127) return true;
        return cp != ' ' && !((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') && !(cp >= '0' && cp <= '9');
    }
    if (cp < 160) return true;
    switch (cp) { /* datatrove.utils.text.PUNCTUATION, non-ASCII part */
    case 0x00AB: case 0x00B4: case 0x00BB: case 0x2013: case 0x2014: case 0x2019: case 0x201C:
    case 0x201D: case 0x201E: case 0x2026: case 0x2236: case 0x2501: case 0x25BA: case 0x3001:
    case 0x3002: case 0x3008: case 0x3009: case 0x300A: case 0x300B: case 0x300C: case 0x300D:
    case 0x3010: case 0x3011: case 0xFF01: case 0xFF05: case 0xFF08: case 0xFF09: case 0xFF0C:
    case 0xFF0E: case 0xFF11: case 0xFF1A: case 0xFF1B: case 0xFF1F: case 0xFF5E:
        return true;
    default:
        return false;
    }
}

bool uc_is_nospace_script(uint32_t cp)
{
    return (cp >= 0x0E00 && cp <= 0x0EFF) ||   /* Thai, Lao */
           (cp >= 0x0F00 && cp <= 0x0FFF) ||   /* Tibetan */
           (cp >= 0x1000 && cp <= 0x109F) ||   /* Myanmar */
           (cp >= 0x1780 && cp <= 0x17FF) ||   /* Khmer */
           (cp >= 0x3040 && cp <= 0x30FF) ||   /* Hiragana, Katakana */
           (cp >= 0x31F0 && cp <= 0x31FF) ||
           (cp >= 0x3400 && cp <= 0x4DBF) ||   /* CJK extension A */
           (cp >= 0x4E00 && cp <= 0x9FFF) ||   /* CJK unified */
           (cp >= 0xF900 && cp <= 0xFAFF) ||
           (cp >= 0xFF66 && cp <= 0xFF9F) ||   /* half-width katakana */
           (cp >= 0x20000 && cp <= 0x3FFFF);
}

void uc_strip(const char *s, size_t *a, size_t *b)
{
    size_t i = *a, j = *b;
    while (i < j) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (!uc_is_space(c)) break;
            i++;
            continue;
        }
        size_t k = i;
        if (!uc_is_space(uc_next(s, j, &k))) break;
        i = k;
    }
    while (j > i) {
        unsigned char c = (unsigned char)s[j - 1];
        if (c < 0x80) {
            if (!uc_is_space(c)) break;
            j--;
            continue;
        }
        size_t k = uc_prev_start(s, j), t = k;
        if (!uc_is_space(uc_next(s, j, &t))) break;
        j = k;
    }
    *a = i;
    *b = j;
}
