/* pretokenize.c - the three pre-tokenisation scanners (see pretokenize.h).
 *
 * Each scanner answers "which alternative of the regex matches first at pos,
 * and how far does it reach", following the regex's backtracking order:
 * alternatives are tried left to right and the first that matches wins,
 * greedy quantifiers give back one character at a time. The comments name
 * the alternative each branch implements. */
#include "tokenize/pretokenize.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "tokenize/ascii_run.h"
#include "tokenize/unicode_class.h"

#define NOT_A_CHAR 0xFFFFFFFFu /* an invalid UTF-8 byte: a character of no class */
#define CLASS_WORDY (UCLASS_L | UCLASS_N | UCLASS_WS)
#define MAX_DIGITS 3 /* \p{N}{1,3} */

static const char PATTERN_GPT2[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char PATTERN_CL100K[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
    "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char PATTERN_O200K[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*"
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    "|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const char *pretok_pattern_string(pretok_family f)
{
    switch (f) {
    case PRETOK_GPT2: return PATTERN_GPT2;
    case PRETOK_CL100K: return PATTERN_CL100K;
    case PRETOK_O200K: return PATTERN_O200K;
    default: return NULL;
    }
}

int pretok_family_of_pattern(const char *pat)
{
    for (int f = 0; f < PRETOK_NFAMILIES; f++)
        if (!strcmp(pat, pretok_pattern_string((pretok_family)f))) return f;
    return -1;
}

/* ---- characters ---- */

/* Decodes the character at s[i] (i < n): its code point and byte length. */
static inline uint32_t char_at(const uint8_t *s, size_t n, size_t i, size_t *len)
{
    uint8_t b = s[i];
    if (b < 0x80) {
        *len = 1;
        return b;
    }
    size_t need;
    uint32_t cp, min;
    if ((b & 0xE0) == 0xC0) need = 2, cp = b & 0x1F, min = 0x80;
    else if ((b & 0xF0) == 0xE0) need = 3, cp = b & 0x0F, min = 0x800;
    else if ((b & 0xF8) == 0xF0) need = 4, cp = b & 0x07, min = 0x10000;
    else goto invalid;
    if (i + need > n) goto invalid;
    for (size_t k = 1; k < need; k++) {
        if ((s[i + k] & 0xC0) != 0x80) goto invalid;
        cp = cp << 6 | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > UCLASS_MAX_CP || (cp >= 0xD800 && cp <= 0xDFFF)) goto invalid;
    *len = need;
    return cp;
invalid:
    *len = 1;
    return NOT_A_CHAR;
}


/* Class bits of the character at s[i]; its length in *len. */
static inline uint8_t class_at(const uclass_table *u, const uint8_t *s, size_t n, size_t i, size_t *len)
{
    if (s[i] < 0x80) {
        *len = 1;
        return UCLASS_ASCII(s[i]);
    }
    return uclass_of(u, char_at(s, n, i, len));
}

static inline bool is_cr_or_lf(uint8_t b) { return b == '\r' || b == '\n'; }

/* End of the run of characters whose class has a bit of mask (want != 0),
 * or has none of them (want == 0), from i. ASCII bytes take a short path. */
static inline size_t run_class(const uclass_table *u, const uint8_t *s, size_t n, size_t i, uint8_t mask, bool want)
{
    while (i < n) {
        uint8_t b = s[i];
        if (b < 0x80) {
            if (((UCLASS_ASCII(b) & mask) != 0) != want) break;
            i++;
            continue;
        }
        size_t len;
        if (((uclass_of(u, char_at(s, n, i, &len)) & mask) != 0) != want) break;
        i += len;
    }
    return i;
}

/* End of the run of characters whose class has a bit of mask, from i. */
static inline size_t run_with(const uclass_table *u, const uint8_t *s, size_t n, size_t i, uint8_t mask)
{
    return run_class(u, s, n, i, mask, true);
}

/* End of the run of [^\s\p{L}\p{N}] characters from i. */
static inline size_t run_other(const uclass_table *u, const uint8_t *s, size_t n, size_t i)
{
    return run_class(u, s, n, i, CLASS_WORDY, false);
}

/* End of the run of \r, \n (and, with slash, '/') bytes from i. */
static inline size_t run_newlines(const uint8_t *s, size_t n, size_t i, bool slash)
{
    while (i < n && (is_cr_or_lf(s[i]) || (slash && s[i] == '/'))) i++;
    return i;
}

/* ---- ASCII fast paths: each stops at the first byte >= 0x80, where the
 * caller goes on with the general run of the same class ---- */

#define SIMD_WIDTH 16

/* End of the \p{L}+ run from i: the ASCII run, then the general one when a
 * non-ASCII byte follows. */
static inline __attribute__((always_inline)) size_t letter_run(const uclass_table *u, const uint8_t *s, size_t n,
                                                                size_t i)
{
    i = ascii_letter_run(s, n, i, 'a', 0x20);
    return i < n && s[i] >= 0x80 ? run_with(u, s, n, i, UCLASS_L) : i;
}

/* End of the run of [^\s\p{L}\p{N}] from i: ASCII bytes first. */
static inline __attribute__((always_inline)) size_t other_run(const uclass_table *u, const uint8_t *s, size_t n,
                                                               size_t i)
{
    while (i < n && s[i] < 0x80 && !(UCLASS_ASCII(s[i]) & CLASS_WORDY)) i++;
    return i < n && s[i] >= 0x80 ? run_other(u, s, n, i) : i;
}

/* True for an ASCII letter. */
static inline bool is_ascii_letter(uint8_t b) { return (uint8_t)((b | 0x20) - 'a') < 26; }

/* Length of the contraction 's|'t|'re|'ve|'m|'ll|'d at i (s[i] == '\''), or 0.
 * ignore_case follows Unicode simple case folding, where U+017F LONG S is s. */
static size_t contraction_at(const uint8_t *s, size_t n, size_t i, bool ignore_case)
{
    if (i + 1 >= n || s[i] != '\'') return 0;
    uint8_t a = s[i + 1], b = i + 2 < n ? s[i + 2] : 0;
    if (ignore_case) {
        if (a == 0xC5 && b == 0xBF) return 3; /* 'ſ */
        a = (uint8_t)(a | (a >= 'A' && a <= 'Z' ? 0x20 : 0));
        b = (uint8_t)(b | (b >= 'A' && b <= 'Z' ? 0x20 : 0));
    }
    switch (a) {
    case 's': case 't': case 'm': case 'd': return 2;
    case 'r': case 'v': return b == 'e' ? 3 : 0;
    case 'l': return b == 'l' ? 3 : 0;
    default: return 0;
    }
}

/* The whitespace alternatives shared by every family, at a whitespace
 * character i: (with_newline_run) \s*[\r\n]+, then \s+(?!\S), then \s+. */
static size_t whitespace_piece_general(const uclass_table *u, const uint8_t *s, size_t n, size_t i,
                                       bool with_newline_run)
{
    size_t j = i, last = i, len;
    size_t after_newline = 0; /* end of the last \r or \n in the run */
    while (j < n && (class_at(u, s, n, j, &len) & UCLASS_WS)) {
        if (is_cr_or_lf(s[j])) after_newline = j + 1;
        last = j;
        j += len;
    }
    if (with_newline_run && after_newline) return after_newline; /* \s*[\r\n]+ */
    if (j == n) return j;                                       /* \s+(?!\S) at the end */
    if (last > i) return last;                                  /* \s+(?!\S): all but the last */
    return j;                                                   /* \s+ */
}

/* End of the run of ASCII whitespace (9..13 and space) from i, 16 bytes at
 * a time with SSE2; *after_newline gets the end of the run's last \r or \n
 * (unchanged when it has none). */
static inline size_t ascii_space_run(const uint8_t *s, size_t n, size_t i, size_t *after_newline)
{
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), four = _mm_set1_epi8(4),
                  lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; i + SIMD_WIDTH <= n; i += SIMD_WIDTH) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i)), from_tab = _mm_sub_epi8(v, tab);
        /* \t..\r are tab + 0..4 (unsigned); bytes >= 0x80 are neither */
        __m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(_mm_min_epu8(from_tab, four), from_tab));
        unsigned stop = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFF;
        unsigned nl = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
        if (stop) nl &= (1u << __builtin_ctz(stop)) - 1;
        if (nl) *after_newline = i + 32 - (size_t)__builtin_clz(nl);
        if (stop) return i + (size_t)__builtin_ctz(stop);
    }
    for (; i < n && s[i] < 0x80 && (UCLASS_ASCII(s[i]) & UCLASS_WS); i++)
        if (is_cr_or_lf(s[i])) *after_newline = i + 1;
    return i;
}

/* whitespace_piece_general, shortened for a run of ASCII whitespace that
 * does not end at a non-ASCII byte (which might continue it). */
static inline size_t whitespace_piece(const uclass_table *u, const uint8_t *s, size_t n, size_t i,
                                      bool with_newline_run)
{
    size_t after_newline = 0, j = ascii_space_run(s, n, i, &after_newline);
    if (j == i || (j < n && s[j] >= 0x80)) return whitespace_piece_general(u, s, n, i, with_newline_run);
    if (with_newline_run && after_newline) return after_newline; /* \s*[\r\n]+ */
    if (j == n) return j;                                       /* \s+(?!\S) at the end */
    if (j - 1 > i) return j - 1;                                /* \s+(?!\S): all but the last */
    return j;                                                   /* \s+ */
}

/* ---- gpt2 / r50k / p50k ---- */

static inline __attribute__((always_inline)) size_t next_gpt2(const uclass_table *u, const uint8_t *s, size_t n,
                                                               size_t i)
{
    /* the common cases first: an ASCII letter, or a space and an ASCII letter */
    if (is_ascii_letter(s[i])) return letter_run(u, s, n, i + 1);
    if (s[i] == ' ' && i + 1 < n && is_ascii_letter(s[i + 1])) return letter_run(u, s, n, i + 2);
    size_t k = s[i] == '\'' ? contraction_at(s, n, i, false) : 0;
    if (k) return i + k; /* 's|'t|'re|'ve|'m|'ll|'d */
    size_t len, len1;
    uint8_t c = class_at(u, s, n, i, &len);
    if (s[i] == ' ' && i + 1 < n) {
        uint8_t c1 = class_at(u, s, n, i + 1, &len1);
        if (c1 & UCLASS_L) return run_with(u, s, n, i + 1, UCLASS_L); /*  ?\p{L}+ */
        if (c1 & UCLASS_N) return run_with(u, s, n, i + 1, UCLASS_N); /*  ?\p{N}+ */
        if (!(c1 & CLASS_WORDY)) return run_other(u, s, n, i + 1);    /*  ?[^\s\p{L}\p{N}]+ */
    }
    if (c & UCLASS_L) return run_with(u, s, n, i, UCLASS_L);
    if (c & UCLASS_N) return run_with(u, s, n, i, UCLASS_N);
    if (!(c & CLASS_WORDY)) return run_other(u, s, n, i);
    return whitespace_piece(u, s, n, i, false);
}

/* ---- cl100k_base / llama3 ---- */

/* \p{N}{1,max} from i (a digit is at i). */
static inline size_t digits_up_to(const uclass_table *u, const uint8_t *s, size_t n, size_t i, int max)
{
    size_t len;
    for (int d = 0; d < max && i < n && (class_at(u, s, n, i, &len) & UCLASS_N); d++) i += len;
    return i;
}

/* \p{N}{1,3} from i (a digit is at i). */
static size_t digits_up_to_three(const uclass_table *u, const uint8_t *s, size_t n, size_t i)
{
    return digits_up_to(u, s, n, i, MAX_DIGITS);
}

/* ' ?[^\s\p{L}\p{N}]+' then a run of [\r\n] (with slash: [\r\n/]); 0 when it does not match. */
static inline size_t punctuation_piece(const uclass_table *u, const uint8_t *s, size_t n, size_t i, bool slash)
{
    size_t st = i, len;
    if (s[i] == ' ') st = i + 1;
    if (st >= n || (class_at(u, s, n, st, &len) & CLASS_WORDY)) return 0;
    return run_newlines(s, n, run_other(u, s, n, st), slash);
}

/* [^\r\n\p{L}\p{N}] for a character of class c whose first byte is b. */
static inline bool is_letter_prefix(uint8_t c, uint8_t b)
{
    return !(c & (UCLASS_L | UCLASS_N)) && !is_cr_or_lf(b);
}

static inline __attribute__((always_inline)) size_t next_cl100k(const uclass_table *u, const uint8_t *s, size_t n,
                                                                 size_t i)
{
    uint8_t b = s[i];
    if (is_ascii_letter(b)) return letter_run(u, s, n, i + 1); /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    if (b == ' ' && i + 1 < n && is_ascii_letter(s[i + 1])) return letter_run(u, s, n, i + 2); /* the same, prefixed */
    /* two ASCII characters other than an apostrophe (a contraction may start
     * there): the alternatives below, in the regex's order, decided by them */
    if (i + 1 < n && b < 0x80 && s[i + 1] < 0x80 && b != '\'') {
        uint8_t c = UCLASS_ASCII(b), b1 = s[i + 1];
        if (c & UCLASS_N) return digits_up_to_three(u, s, n, i);                         /* \p{N}{1,3} */
        if (!is_cr_or_lf(b) && is_ascii_letter(b1)) return letter_run(u, s, n, i + 2);  /* prefix, \p{L}+ */
        if (!(c & UCLASS_WS)) return run_newlines(s, n, other_run(u, s, n, i), false); /* [^\s\p{L}\p{N}]+[\r\n]* */
        if (b == ' ' && !(UCLASS_ASCII(b1) & CLASS_WORDY))                             /*  [^\s\p{L}\p{N}]+[\r\n]* */
            return run_newlines(s, n, other_run(u, s, n, i + 1), false);
        return whitespace_piece(u, s, n, i, true);
    }
    size_t k = s[i] == '\'' ? contraction_at(s, n, i, true) : 0;
    if (k) return i + k; /* (?i:'s|'t|'re|'ve|'m|'ll|'d) */
    size_t len, len1;
    uint8_t c = class_at(u, s, n, i, &len);
    if (c & UCLASS_L) return run_with(u, s, n, i, UCLASS_L); /* [^\r\n\p{L}\p{N}]?\p{L}+ */
    if (is_letter_prefix(c, s[i]) && i + len < n && (class_at(u, s, n, i + len, &len1) & UCLASS_L))
        return run_with(u, s, n, i + len, UCLASS_L);
    if (c & UCLASS_N) return digits_up_to_three(u, s, n, i);      /* \p{N}{1,3} */
    size_t e = punctuation_piece(u, s, n, i, false);             /*  ?[^\s\p{L}\p{N}]+[\r\n]* */
    if (e) return e;
    return whitespace_piece(u, s, n, i, true);
}

/* ---- o200k_base, and Tekken's pattern (o200k's shape without the
 * contractions, single digits) ---- */

/* (?i:'s|'t|'re|'ve|'m|'ll|'d)? after a word that ends at e (with
 * contractions: the pattern has them). */
static inline size_t with_contraction(const uint8_t *s, size_t n, size_t e, bool contractions)
{
    return contractions && e < n && s[e] == '\'' ? e + contraction_at(s, n, e, true) : e;
}

/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+ from st, then the
 * optional contraction; 0 when it does not match. U* takes its longest run and
 * gives characters back until W+ can match: W+ then ends either after the W
 * run that follows the U run, or after the last W character inside it. */
static size_t upper_then_lower(const uclass_table *u, const uint8_t *s, size_t n, size_t st, bool contractions)
{
    size_t j = st, len, after_last_lower = 0;
    uint8_t c = 0;
    while (j < n && ((c = class_at(u, s, n, j, &len)) & UCLASS_UPPERISH)) {
        if (c & UCLASS_LOWERISH) after_last_lower = j + len;
        j += len;
    }
    if (j < n && (c & UCLASS_LOWERISH))
        return with_contraction(s, n, run_with(u, s, n, j, UCLASS_LOWERISH), contractions);
    if (after_last_lower) return with_contraction(s, n, after_last_lower, contractions);
    return 0;
}

/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]* from st, then the
 * optional contraction; 0 when it does not match. */
static size_t upper_run_then_lower(const uclass_table *u, const uint8_t *s, size_t n, size_t st, bool contractions)
{
    size_t j = run_with(u, s, n, st, UCLASS_UPPERISH);
    if (j == st) return 0;
    return with_contraction(s, n, run_with(u, s, n, j, UCLASS_LOWERISH), contractions);
}

/* End of the [\p{Ll}\p{Lm}\p{Lo}\p{M}]* run from i: ASCII lowercase first. */
static inline size_t lower_run(const uclass_table *u, const uint8_t *s, size_t n, size_t i)
{
    i = ascii_letter_run(s, n, i, 'a', 0);
    return i < n && s[i] >= 0x80 ? run_with(u, s, n, i, UCLASS_LOWERISH) : i;
}

/* Bits of the bytes of v in [lo, lo+26). */
static inline unsigned ascii_range_mask(__m128i v, uint8_t lo)
{
    __m128i in = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(0x80 - lo))), _mm_set1_epi8((char)(-0x80 + 26)));
    return (unsigned)_mm_movemask_epi8(in);
}

/* End of [A-Z]*[a-z]* from i: both runs from one 16-byte block when the
 * word ends inside it. */
static inline size_t ascii_upper_lower_run(const uint8_t *s, size_t n, size_t i)
{
    if (i + SIMD_WIDTH > n) return ascii_letter_run(s, n, ascii_letter_run(s, n, i, 'A', 0), 'a', 0);
    __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
    const unsigned past = 1u << SIMD_WIDTH; /* a stop bit past the block */
    unsigned upper = (unsigned)__builtin_ctz(~ascii_range_mask(v, 'A') | past);
    if (upper == SIMD_WIDTH) return ascii_letter_run(s, n, ascii_letter_run(s, n, i + upper, 'A', 0), 'a', 0);
    unsigned end = upper + (unsigned)__builtin_ctz((~ascii_range_mask(v, 'a') | past) >> upper);
    return end < SIMD_WIDTH ? i + end : ascii_letter_run(s, n, i + end, 'a', 0);
}

/* Both word alternatives from the ASCII letter at st when the word's letters
 * are all ASCII: [A-Z]*[a-z]* (uppercase letters are only U, lowercase only
 * W, so either alternative ends there), then the contraction; 0 when a
 * non-ASCII byte follows the letters and the general path must decide. */
static inline size_t o200k_ascii_word(const uint8_t *s, size_t n, size_t st, bool contractions)
{
    size_t j = ascii_upper_lower_run(s, n, st);
    if (j < n && s[j] >= 0x80) return 0;
    return with_contraction(s, n, j, contractions);
}

/* The o200k-shaped piece at i; contractions and max_digits (\p{N}{1,max})
 * are constants where it is inlined. */
static inline __attribute__((always_inline)) size_t next_o200k_shape(const uclass_table *u, const uint8_t *s,
                                                                      size_t n, size_t i, bool contractions,
                                                                      int max_digits)
{
    /* the common case first: an ASCII lowercase letter: the uppercase run is
     * empty, so the word is the lowercase-class run */
    uint8_t b = s[i];
    size_t len, e;
    if (b >= 'a' && b <= 'z') return with_contraction(s, n, lower_run(u, s, n, i + 1), contractions);
    if (b == ' ' && i + 1 < n && is_ascii_letter(s[i + 1]) && (e = o200k_ascii_word(s, n, i + 1, contractions)))
        return e;
    /* two ASCII characters: the alternatives below, in the regex's order */
    if (i + 1 < n && b < 0x80 && s[i + 1] < 0x80) {
        uint8_t c = UCLASS_ASCII(b), b1 = s[i + 1];
        if (c & UCLASS_L) {
            if ((e = o200k_ascii_word(s, n, i, contractions))) return e;
        } else if (c & UCLASS_N) {
            return digits_up_to(u, s, n, i, max_digits); /* \p{N}{1,3} (Tekken: \p{N}) */
        } else if (!is_cr_or_lf(b) && is_ascii_letter(b1)) {
            if ((e = o200k_ascii_word(s, n, i + 1, contractions))) return e; /* with the prefix */
        } else if (!(c & UCLASS_WS)) {
            return run_newlines(s, n, other_run(u, s, n, i), true); /* [^\s\p{L}\p{N}]+[\r\n/]* */
        } else if (b == ' ' && !(UCLASS_ASCII(b1) & CLASS_WORDY)) {
            return run_newlines(s, n, other_run(u, s, n, i + 1), true); /*  [^\s\p{L}\p{N}]+[\r\n/]* */
        } else {
            return whitespace_piece(u, s, n, i, true);
        }
    }
    uint8_t c = class_at(u, s, n, i, &len);
    bool prefix = is_letter_prefix(c, s[i]) && i + len < n; /* [^\r\n\p{L}\p{N}]? */
    if (prefix && (e = upper_then_lower(u, s, n, i + len, contractions))) return e;
    if ((e = upper_then_lower(u, s, n, i, contractions))) return e;
    if (prefix && (e = upper_run_then_lower(u, s, n, i + len, contractions))) return e;
    if ((e = upper_run_then_lower(u, s, n, i, contractions))) return e;
    if (c & UCLASS_N) return digits_up_to(u, s, n, i, max_digits); /* \p{N}{1,3} (Tekken: \p{N}) */
    if ((e = punctuation_piece(u, s, n, i, true)))        /*  ?[^\s\p{L}\p{N}]+[\r\n/]* */
        return e;
    return whitespace_piece(u, s, n, i, true);
}

static inline __attribute__((always_inline)) size_t next_o200k(const uclass_table *u, const uint8_t *s, size_t n,
                                                                size_t i)
{
    return next_o200k_shape(u, s, n, i, true, MAX_DIGITS);
}

size_t pretok_next_tekken(const uint8_t *s, size_t n, size_t pos)
{
    return next_o200k_shape(&uclass_onig, s, n, pos, false, 1);
}

size_t pretok_next(pretok_family f, const uclass_table *u, const uint8_t *s, size_t n, size_t pos)
{
    switch (f) {
    case PRETOK_CL100K: return next_cl100k(u, s, n, pos);
    case PRETOK_O200K: return next_o200k(u, s, n, pos);
    default: return next_gpt2(u, s, n, pos);
    }
}

int pretok_split(pretok_family f, const uclass_table *u, const uint8_t *s, size_t n, size_t pos, size_t *ends, int max)
{
    int k = 0;
    switch (f) {
    case PRETOK_CL100K:
        while (k < max && pos < n) ends[k++] = pos = next_cl100k(u, s, n, pos);
        break;
    case PRETOK_O200K:
        while (k < max && pos < n) ends[k++] = pos = next_o200k(u, s, n, pos);
        break;
    default:
        while (k < max && pos < n) ends[k++] = pos = next_gpt2(u, s, n, pos);
        break;
    }
    return k;
}
