/* pretok_hf.c - the tokenizer.json scanners of pretok_hf.h.
 *
 * Each text is cut into stretches that the replaced steps never split
 * across, and each stretch is scanned as a subject of its own:
 *  - Tekken: the valid runs between bytes outside valid characters (only
 *    when the text is not all valid UTF-8), scanned by pretok_next_tekken;
 *  - DeepSeek V3: its first Split isolates \p{N}{1,3}, its second runs of
 *    [\x{4E00}-\x{9FA5}\x{3040}-\x{30FF}] ("CJK" below), so the third
 *    pattern sees stretches with no \p{N} character, all CJK or none;
 *  - Command R+: Digits isolates each numeric character (Rust's
 *    char::is_numeric), so ByteLevel's GPT-2 pattern sees the stretches
 *    between them.
 * The comments name the alternative of DeepSeek's third pattern each branch
 * implements (A1..A6 in its order):
 *   A1 [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+
 *   A2 [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
 *   A3  ?[\p{P}\p{S}]+[\r\n]*
 *   A4 \s*[\r\n]+   A5 \s+(?!\S)   A6 \s+ */
#include "tokenize/pretok_hf.h"

#include <string.h>

#include "core/utf8.h"
#include "tokenize/ascii_run.h"
#include "tokenize/pretokenize.h"
#include "tokenize/unicode_class.h"

const char PRETOK_HF_TEKKEN_PATTERN[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*"
    "|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/* (the \r and \n inside DeepSeek's classes are the characters themselves) */
const char *const pretok_hf_deepseek_patterns[PRETOK_HF_DEEPSEEK_SPLITS] = {
    "\\p{N}{1,3}",
    "[\xE4\xB8\x80-\xE9\xBE\xA5\xE3\x81\x80-\xE3\x82\x9F\xE3\x82\xA0-\xE3\x83\xBF]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+"
    "| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
};

#define DEEPSEEK_MAX_DIGITS 3 /* \p{N}{1,3} */
#define CLASS_LM (UCLASS_L | UCLASS_UPPERISH | UCLASS_LOWERISH) /* [\p{L}\p{M}]: marks are in both */
#define CLASS_PS (UCLASS_P | UCLASS_S)
#define HF_CLASSES (&uclass_onig) /* tokenizers' Oniguruma's classes, and Rust's is_numeric */

/* ---- characters ---- */

/* The code point of the character at s[i], known to be valid UTF-8; its length in *len. */
static inline uint32_t valid_char_at(const uint8_t *s, size_t i, size_t *len)
{
    uint8_t b = s[i];
    if (b < 0x80) {
        *len = 1;
        return b;
    }
    if (b < 0xE0) {
        *len = 2;
        return (uint32_t)(b & 0x1F) << 6 | (s[i + 1] & 0x3F);
    }
    if (b < 0xF0) {
        *len = 3;
        return (uint32_t)(b & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
    }
    *len = 4;
    return (uint32_t)(b & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 | (uint32_t)(s[i + 2] & 0x3F) << 6 |
           (s[i + 3] & 0x3F);
}

/* The character at s[i] (i < n): true with its code point and length, or
 * false (length 1) for a byte outside valid characters (none when
 * valid_text: s is known to be valid UTF-8). */
static inline bool char_at(const uint8_t *s, size_t n, size_t i, bool valid_text, uint32_t *cp, size_t *len)
{
    if (s[i] < 0x80 || valid_text) {
        *cp = valid_char_at(s, i, len);
        return true;
    }
    if (!utf8_valid_seq(s + i, n - i)) {
        *len = 1;
        return false;
    }
    *cp = utf8_decode(s + i, n - i, len);
    return true;
}

/* Class bits of the character at s[i], known to be valid; its length in *len. */
static inline uint8_t class_at(const uint8_t *s, size_t i, size_t *len)
{
    if (s[i] < 0x80) {
        *len = 1;
        return UCLASS_ASCII(s[i]);
    }
    return uclass_of(HF_CLASSES, valid_char_at(s, i, len));
}

/* Whether all of s[0..n) is valid UTF-8, checked once per text. */
static inline bool text_valid(pretok_hf_state *st, const uint8_t *s, size_t n)
{
    if (!st->checked) {
        st->valid = utf8_valid((const char *)s, n);
        st->checked = true;
    }
    return st->valid;
}

/* End of the run of bytes from i that belong to no valid character. */
static size_t invalid_run(const uint8_t *s, size_t n, size_t i)
{
    while (i < n && !utf8_valid_seq(s + i, n - i)) i++;
    return i;
}

/* End of the run of valid characters from i. */
static size_t valid_run(const uint8_t *s, size_t n, size_t i)
{
    size_t len;
    while (i < n && (len = utf8_valid_seq(s + i, n - i))) i += len;
    return i;
}

static inline bool is_cr_or_lf(uint8_t b) { return b == '\r' || b == '\n'; }

/* True for a character of DeepSeek's second Split. */
static inline bool is_cjk(uint32_t cp) { return (cp >= 0x4E00 && cp <= 0x9FA5) || (cp >= 0x3040 && cp <= 0x30FF); }

/* The first byte from i (16 at a time) that is an ASCII digit or not ASCII. */
static inline size_t skip_ascii_non_digits(const uint8_t *s, size_t n, size_t i)
{
    const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
    for (; i + ASCII_RUN_WIDTH <= n; i += ASCII_RUN_WIDTH) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i)), d = _mm_sub_epi8(v, zero);
        /* digits are 0..9 after subtracting '0' (unsigned); bytes >= 0x80 have the top bit */
        __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, nine), d);
        unsigned stop = (unsigned)_mm_movemask_epi8(_mm_or_si128(v, digit));
        if (stop) return i + (size_t)__builtin_ctz(stop);
    }
    while (i < n && s[i] < 0x80 && (uint8_t)(s[i] - '0') >= 10) i++;
    return i;
}

/* ---- Command R+: Digits (individual), then GPT-2's pattern ---- */

/* End of the stretch from i up to the next numeric character (Rust's is_numeric). */
static size_t digits_stretch(const uint8_t *s, size_t n, size_t i, bool valid_text)
{
    uint32_t cp;
    size_t len;
    while ((i = skip_ascii_non_digits(s, n, i)) < n) {
        if (s[i] < 0x80) return i; /* an ASCII digit */
        if (char_at(s, n, i, valid_text, &cp, &len) && (uclass_of(HF_CLASSES, cp) & UCLASS_NUMERIC)) return i;
        i += len;
    }
    return n;
}

/* Each numeric character a piece (Digits), GPT-2's pieces between them. */
static int split_digits_byte_level(const uint8_t *s, size_t n, size_t pos, size_t *ends, int max, pretok_hf_state *st)
{
    int k = 0;
    bool valid_text = text_valid(st, s, n);
    while (k < max && pos < n) {
        uint32_t cp;
        size_t len;
        /* Digits: one character */
        if (char_at(s, n, pos, valid_text, &cp, &len) && (uclass_of(HF_CLASSES, cp) & UCLASS_NUMERIC)) {
            ends[k++] = pos += len;
            continue;
        }
        if (st->stretch_end <= pos) st->stretch_end = digits_stretch(s, n, pos, valid_text);
        int got = pretok_split(PRETOK_GPT2, HF_CLASSES, s, st->stretch_end, pos, ends + k, max - k);
        k += got;
        pos = ends[k - 1];
    }
    return k;
}

/* ---- Tekken ---- */

/* Tekken's pieces; in a text that is not all valid UTF-8, each run of
 * bytes outside valid characters is a piece and the scan stops before it. */
static int split_tekken(const uint8_t *s, size_t n, size_t pos, size_t *ends, int max, pretok_hf_state *st)
{
    int k = 0;
    if (text_valid(st, s, n)) {
        while (k < max && pos < n) ends[k++] = pos = pretok_next_tekken(s, n, pos);
        return k;
    }
    while (k < max && pos < n) {
        if (st->stretch_end <= pos) {
            if (!utf8_valid_seq(s + pos, n - pos)) { /* no match holds it: a piece between matches */
                ends[k++] = pos = invalid_run(s, n, pos);
                continue;
            }
            st->stretch_end = valid_run(s, n, pos);
        }
        ends[k++] = pos = pretok_next_tekken(s, st->stretch_end, pos);
    }
    return k;
}

/* ---- DeepSeek V3's third pattern, on a stretch of valid characters
 * [i, e) that holds no \p{N} character and is all CJK or has none ---- */

/* End of the run of characters with a bit of mask from i (mask CLASS_LM
 * takes ASCII letters 16 at a time). */
static inline size_t class_run(const uint8_t *s, size_t e, size_t i, uint8_t mask)
{
    size_t len;
    while (i < e) {
        if (mask == CLASS_LM && s[i] < 0x80) {
            if (!(UCLASS_ASCII(s[i]) & UCLASS_L)) return i;
            i = ascii_letter_run(s, e, i + 1, 'a', 0x20);
            continue;
        }
        if (!(class_at(s, i, &len) & mask)) return i;
        i += len;
    }
    return i;
}

/* End of the run of \r and \n from i. */
static inline size_t newline_run(const uint8_t *s, size_t e, size_t i)
{
    while (i < e && is_cr_or_lf(s[i])) i++;
    return i;
}

/* A4, A5, A6 at the white space character at i. */
static size_t whitespace_piece(const uint8_t *s, size_t e, size_t i)
{
    size_t j = i, last = i, len, after_newline = 0;
    while (j < e && (class_at(s, j, &len) & UCLASS_WS)) {
        if (is_cr_or_lf(s[j])) after_newline = j + 1;
        last = j;
        j += len;
    }
    if (after_newline) return after_newline; /* \s*[\r\n]+ */
    if (j == e) return j;                    /* \s+(?!\S) at the end */
    if (last > i) return last;               /* \s+(?!\S): all but the last */
    return j;                                /* \s+ */
}

/* End of the match of DeepSeek's third pattern at i, or 0 when none starts there. */
static size_t deepseek_match(const uint8_t *s, size_t e, size_t i)
{
    uint8_t b = s[i], c;
    size_t len = 1, len1;
    if (b < 0x80) {
        c = UCLASS_ASCII(b);
        if (c & UCLASS_L) return class_run(s, e, i + 1, CLASS_LM); /* A2 */
        if (c & CLASS_PS) { /* every ASCII punctuation character is P or S, none is a prefix */
            if (i + 1 < e && (uint8_t)((s[i + 1] | 0x20) - 'a') < 26) return ascii_letter_run(s, e, i + 2, 'a', 0x20); /* A1 */
            return newline_run(s, e, class_run(s, e, i + 1, CLASS_PS)); /* A3 */
        }
    } else {
        c = class_at(s, i, &len);
    }
    if (!(c & (UCLASS_L | CLASS_PS)) && !is_cr_or_lf(b) && i + len < e && (class_at(s, i + len, &len1) & CLASS_LM))
        return class_run(s, e, i + len + len1, CLASS_LM); /* A2 with the prefix */
    if (c & CLASS_LM) return class_run(s, e, i + len, CLASS_LM);                 /* A2 */
    if (b == ' ' && i + 1 < e && (class_at(s, i + 1, &len1) & CLASS_PS))
        return newline_run(s, e, class_run(s, e, i + 1 + len1, CLASS_PS)); /* A3 with the space */
    if (c & CLASS_PS) return newline_run(s, e, class_run(s, e, i + len, CLASS_PS)); /* A3 */
    if (c & UCLASS_WS) return whitespace_piece(s, e, i);
    return 0;
}

/* End of the stretch from i (whose character is not \p{N}; cjk: it is CJK)
 * up to a \p{N} character or one on the other side of CJK; *invalid set
 * when it holds a byte outside valid characters (only a stretch without
 * CJK does: the second Split's pattern does not match such a byte). */
static size_t deepseek_stretch(const uint8_t *s, size_t n, size_t i, bool cjk, bool valid_text, bool *invalid)
{
    uint32_t cp;
    size_t len;
    *invalid = false;
    while (i < n) {
        if (!cjk && (i = skip_ascii_non_digits(s, n, i)) >= n) break;
        if (s[i] < 0x80) {
            if (cjk || (uint8_t)(s[i] - '0') < 10) break;
            i++;
            continue;
        }
        if (!char_at(s, n, i, valid_text, &cp, &len)) {
            if (cjk) break;
            *invalid = true;
            i++;
            continue;
        }
        if ((uclass_of(HF_CLASSES, cp) & UCLASS_N) || is_cjk(cp) != cjk) break;
        i += len;
    }
    return i;
}

/* DeepSeek V3's three Splits: \p{N}{1,3} pieces, then within each stretch
 * the third pattern's matches and the pieces between them. */
static int split_deepseek(const uint8_t *s, size_t n, size_t pos, size_t *ends, int max, pretok_hf_state *st)
{
    int k = 0;
    bool valid_text = text_valid(st, s, n);
    while (k < max && pos < n) {
        uint32_t cp;
        size_t len;
        bool valid = char_at(s, n, pos, valid_text, &cp, &len);
        if (valid && (uclass_of(HF_CLASSES, cp) & UCLASS_N)) { /* the first Split: \p{N}{1,3} */
            size_t e = pos + len;
            for (int d = 1; d < DEEPSEEK_MAX_DIGITS && e < n; d++) {
                if (!char_at(s, n, e, valid_text, &cp, &len) || !(uclass_of(HF_CLASSES, cp) & UCLASS_N)) break;
                e += len;
            }
            ends[k++] = pos = e;
            continue;
        }
        if (st->stretch_end <= pos) {
            st->stretch_end = deepseek_stretch(s, n, pos, valid && is_cjk(cp), valid_text, &st->stretch_invalid);
            st->valid_end = 0;
        }
        size_t e = st->stretch_end, m = 0;
        if (!st->stretch_invalid) st->valid_end = e;
        if (valid) {
            if (st->valid_end <= pos) st->valid_end = valid_run(s, e, pos);
            m = deepseek_match(s, st->valid_end, pos);
        }
        if (!m) { /* between matches: up to where one starts */
            for (m = pos + len; m < e; m += len) {
                if (!char_at(s, e, m, valid_text, &cp, &len)) continue;
                if (st->valid_end <= m) st->valid_end = valid_run(s, e, m);
                if (deepseek_match(s, st->valid_end, m)) break;
            }
        }
        ends[k++] = pos = m;
    }
    return k;
}

int pretok_hf_split(pretok_hf_scanner sc, const uint8_t *s, size_t n, size_t pos, size_t *ends, int max,
                    pretok_hf_state *st)
{
    switch (sc) {
    case PRETOK_HF_TEKKEN: return split_tekken(s, n, pos, ends, max, st);
    case PRETOK_HF_DEEPSEEK: return split_deepseek(s, n, pos, ends, max, st);
    default: return split_digits_byte_level(s, n, pos, ends, max, st);
    }
}
