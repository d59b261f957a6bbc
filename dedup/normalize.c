/* normalize.c - the dedup normal form (see normalize.h). ASCII runs of
 * letters, digits and separators take a vector fast path; other characters
 * go through utf8proc (cached per thread); JSON escapes are decoded in
 * place. */
#include "dedup/normalize.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/util.h"

/* Longest canonical decomposition of one code point (Unicode needs 4). */
#define MAX_DECOMPOSITION 8
/* Texts are cut here so unit offsets fit in 32 bits even after NFD grows them. */
#define MAX_NORMALIZE_INPUT ((size_t)1 << 30)

int dedup_is_char_script(uint32_t cp)
{
    return (cp >= 0x0E00 && cp <= 0x0EFF)      /* Thai, Lao */
        || (cp >= 0x0F00 && cp <= 0x0FFF)      /* Tibetan */
        || (cp >= 0x1000 && cp <= 0x109F)      /* Myanmar */
        || (cp >= 0x1780 && cp <= 0x17FF)      /* Khmer */
        || (cp >= 0x19E0 && cp <= 0x19FF)      /* Khmer symbols */
        || (cp >= 0x2E80 && cp <= 0x2FDF)      /* CJK radicals, Kangxi */
        || (cp >= 0x3040 && cp <= 0x30FF)      /* Hiragana, Katakana */
        || (cp >= 0x31F0 && cp <= 0x31FF)      /* Katakana extensions */
        || (cp >= 0x3400 && cp <= 0x4DBF)      /* CJK extension A */
        || (cp >= 0x4E00 && cp <= 0x9FFF)      /* CJK unified ideographs */
        || (cp >= 0xA9E0 && cp <= 0xA9FF)      /* Myanmar extended-B */
        || (cp >= 0xAA60 && cp <= 0xAA7F)      /* Myanmar extended-A */
        || (cp >= 0xF900 && cp <= 0xFAFF)      /* CJK compatibility ideographs */
        || (cp >= 0xFF66 && cp <= 0xFF9F)      /* halfwidth Katakana */
        || (cp >= 0x20000 && cp <= 0x323AF);   /* CJK extensions B..H (Unicode 15.0), compatibility supplement */
}

/* The writer's state while one text is normalised. */
typedef struct {
    dedup_text *t;
    int pending_space; /* a separator was seen since the last character */
    int in_digits;     /* the last character written was a digit run's "0" */
    int unit_open;     /* a word unit is open at t->start[t->nunits] */
} normalizer;

static void add_unit_slot(dedup_text *t)
{
    if (t->nunits == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->start = xrealloc(t->start, t->cap * sizeof *t->start);
        t->end = xrealloc(t->end, t->cap * sizeof *t->end);
    }
}

static void close_unit(normalizer *z)
{
    if (!z->unit_open) return;
    z->t->end[z->t->nunits++] = (uint32_t)z->t->text.len;
    z->unit_open = 0;
}

/* Gets ready to write a character of a unit: writes the pending separator
 * and opens a unit when none is open (or, for a character-script character,
 * always a fresh one). */
static inline void begin_char(normalizer *z, int char_script)
{
    dedup_text *t = z->t;
    if (z->pending_space) {
        close_unit(z);
        if (t->text.len) buf_putc(&t->text, ' ');
        z->pending_space = 0;
    }
    z->in_digits = 0;
    if (char_script) close_unit(z);
    if (!z->unit_open) {
        add_unit_slot(t);
        t->start[t->nunits] = (uint32_t)t->text.len;
        z->unit_open = 1;
    }
}

/* Writes one character (its UTF-8 bytes) that belongs to a unit. */
static inline void put_char(normalizer *z, const char *bytes, size_t n, int char_script)
{
    begin_char(z, char_script);
    wbuf *b = &z->t->text;
    if (b->len + n + 1 > b->cap) buf_reserve(b, n);
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = 0;
    if (char_script) close_unit(z);
}

static int ascii_letter(unsigned char c)
{
    return (unsigned char)((c | 0x20) - 'a') < 26;
}

static int ascii_digit(unsigned char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* An ASCII byte that is neither letter nor digit: a separator (a space in
 * the normal form); in a JSON string a backslash starts an escape instead. */
static int ascii_separator(unsigned char c, bool json)
{
    return c < 0x80 && !ascii_letter(c) && !ascii_digit(c) && !(json && c == '\\');
}

#ifdef __SSE2__
/* Bit i set when byte i of v is an ASCII letter. */
static inline unsigned letter_bits(__m128i v)
{
    const __m128i case_bit = _mm_set1_epi8(0x20), shift = _mm_set1_epi8((char)(0x80 - 'a'));
    const __m128i past_z = _mm_set1_epi8((char)(0x80 + 26));
    /* letters map to the 26 smallest signed bytes; bytes >= 0x80 never do */
    return (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, case_bit), shift), past_z));
}

/* Bit i set when byte i of v is an ASCII digit. */
static inline unsigned digit_bits(__m128i v)
{
    const __m128i shift = _mm_set1_epi8((char)(0x80 - '0')), past_9 = _mm_set1_epi8((char)(0x80 + 10));
    return (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(_mm_add_epi8(v, shift), past_9));
}

/* Bit i set when byte i of v is a separator (see ascii_separator). */
static inline unsigned separator_bits(__m128i v, bool json)
{
    unsigned other = letter_bits(v) | digit_bits(v) | (unsigned)_mm_movemask_epi8(v);
    if (json) other |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    return ~other & 0xFFFF;
}
#endif

/* Length of the run of ASCII letters at p (at most e - p), and the run
 * lowercased at w; w has room for 16 bytes more than the run. */
static size_t copy_ascii_letters(const unsigned char *p, const unsigned char *e, char *w)
{
    size_t n = 0;
#ifdef __SSE2__
    const __m128i case_bit = _mm_set1_epi8(0x20);
    while (e - p - n >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + n));
        unsigned letters = letter_bits(v);
        _mm_storeu_si128((__m128i *)(w + n), _mm_or_si128(v, case_bit));
        if (letters != 0xFFFF) return n + (size_t)__builtin_ctz(~letters);
        n += 16;
    }
#endif
    while (p + n < e && ascii_letter(p[n])) {
        w[n] = (char)(p[n] | 0x20);
        n++;
    }
    return n;
}

/* The end of the run of digits at p. */
static const unsigned char *skip_digits(const unsigned char *p, const unsigned char *e)
{
#ifdef __SSE2__
    while (e - p >= 16) {
        unsigned digits = digit_bits(_mm_loadu_si128((const __m128i *)p));
        if (digits != 0xFFFF) return p + __builtin_ctz(~digits);
        p += 16;
    }
#endif
    while (p < e && ascii_digit(*p)) p++;
    return p;
}

/* The end of the run of separators at p. */
static const unsigned char *skip_separators(const unsigned char *p, const unsigned char *e, bool json)
{
#ifdef __SSE2__
    while (e - p >= 16) {
        unsigned seps = separator_bits(_mm_loadu_si128((const __m128i *)p), json);
        if (seps != 0xFFFF) return p + __builtin_ctz(~seps);
        p += 16;
    }
#endif
    while (p < e && ascii_separator(*p, json)) p++;
    return p;
}

/* Normalises the ASCII bytes from p on (letters, digits, separators) and
 * returns where they end: at e, a byte >= 0x80 or, in a JSON string, a
 * backslash. The state lives in locals meanwhile (stores of text bytes
 * could alias z's fields), a run of a kind at a time. */
static const unsigned char *put_ascii_span(normalizer *z, const unsigned char *p, const unsigned char *e, bool json)
{
    dedup_text *t = z->t;
    /* each output byte stands for at least one input byte, but for a space
     * owed from before; a word's last 16-byte store may reach past its end */
    if (t->text.cap - t->text.len < (size_t)(e - p) + 18) buf_reserve(&t->text, (size_t)(e - p) + 17);
    char *out = t->text.data;
    size_t len = t->text.len, nunits = t->nunits;
    uint32_t *start = t->start, *end = t->end;
    int pending_space = z->pending_space, in_digits = z->in_digits, unit_open = z->unit_open;
    while (p < e) {
        unsigned char c = *p;
        if (ascii_letter(c) || ascii_digit(c)) {
            if (pending_space || !unit_open) {
                if (unit_open) end[nunits++] = (uint32_t)len;
                if (pending_space && len) out[len++] = ' ';
                pending_space = 0;
                if (nunits == t->cap) {
                    t->nunits = nunits;
                    add_unit_slot(t);
                    start = t->start;
                    end = t->end;
                }
                start[nunits] = (uint32_t)len;
                unit_open = 1;
            }
            if (ascii_letter(c)) {
                size_t n = copy_ascii_letters(p, e, out + len);
                len += n;
                p += n;
                in_digits = 0;
            } else {
                if (!in_digits) out[len++] = '0';
                in_digits = 1;
                p = skip_digits(p, e);
            }
        } else if (ascii_separator(c, json)) {
            pending_space = 1;
            in_digits = 0;
            p = skip_separators(p, e, json);
        } else {
            break;
        }
    }
    out[len] = 0;
    t->text.len = len;
    t->nunits = nunits;
    z->pending_space = pending_space;
    z->in_digits = in_digits;
    z->unit_open = unit_open;
    return p;
}

static void put_digit(normalizer *z)
{
    if (z->in_digits) return;
    put_char(z, "0", 1, 0);
    z->in_digits = 1;
}

static void put_space(normalizer *z)
{
    z->pending_space = 1;
    z->in_digits = 0;
}

/* What a non-ASCII code point becomes. */
enum { CP_SPACE, CP_DIGIT, CP_NOTHING, CP_CHARS };

#define CACHED_CHARS 3     /* characters a cached decomposition keeps (Hangul syllables need 3) */
#define CACHE_SLOTS 2048   /* per thread, direct-mapped */

/* One code point's outcome: its kind and, for CP_CHARS, the characters
 * written (UTF-8 bytes back to back, each with its length and whether it
 * belongs to a character script); nchars > CACHED_CHARS: not kept, redo. */
typedef struct {
    int32_t cp; /* 0 (ASCII, never looked up): a free slot */
    uint8_t kind, nchars;
    uint8_t len[CACHED_CHARS], char_script[CACHED_CHARS];
    unsigned char bytes[4 * CACHED_CHARS];
} cp_outcome;

/* utf8proc's lookups cost more than all the rest of normalising, and a
 * text uses few distinct non-ASCII characters: each thread keeps them. */
static _Thread_local cp_outcome cp_cache[CACHE_SLOTS];

/* The canonical decomposition of cp into parts (cp itself when it has none
 * that fits); returns how many code points. */
static utf8proc_ssize_t canonical_parts(utf8proc_int32_t cp, utf8proc_int32_t parts[MAX_DECOMPOSITION])
{
    int boundclass = 0;
    utf8proc_ssize_t n = utf8proc_decompose_char(cp, parts, MAX_DECOMPOSITION, UTF8PROC_DECOMPOSE, &boundclass);
    if (n < 0 || n > MAX_DECOMPOSITION) {
        parts[0] = cp;
        n = 1;
    }
    return n;
}

/* The canonical decomposition of cp without its nonspacing marks, into o. */
static void decompose(utf8proc_int32_t cp, cp_outcome *o)
{
    utf8proc_int32_t parts[MAX_DECOMPOSITION];
    utf8proc_ssize_t n = canonical_parts(cp, parts);
    o->kind = CP_CHARS;
    o->nchars = 0;
    size_t used = 0;
    for (utf8proc_ssize_t i = 0; i < n; i++) {
        if (utf8proc_category(parts[i]) == UTF8PROC_CATEGORY_MN) continue;
        if (o->nchars == CACHED_CHARS) {
            o->nchars = CACHED_CHARS + 1;
            return;
        }
        o->len[o->nchars] = (uint8_t)utf8proc_encode_char(parts[i], o->bytes + used);
        o->char_script[o->nchars] = (uint8_t)dedup_is_char_script((uint32_t)parts[i]);
        used += o->len[o->nchars++];
    }
}

/* Writes the canonical decomposition of cp without its nonspacing marks, however long. */
static void put_decomposed(normalizer *z, utf8proc_int32_t cp)
{
    utf8proc_int32_t parts[MAX_DECOMPOSITION];
    utf8proc_ssize_t n = canonical_parts(cp, parts);
    for (utf8proc_ssize_t i = 0; i < n; i++) {
        if (utf8proc_category(parts[i]) == UTF8PROC_CATEGORY_MN) continue;
        utf8proc_uint8_t bytes[4];
        utf8proc_ssize_t len = utf8proc_encode_char(parts[i], bytes);
        put_char(z, (const char *)bytes, (size_t)len, dedup_is_char_script((uint32_t)parts[i]));
    }
}

/* The outcome of cp, from the cache or worked out into it. */
static const cp_outcome *outcome_of(utf8proc_int32_t cp)
{
    cp_outcome *o = &cp_cache[((uint32_t)cp * 2654435761u) >> 21 & (CACHE_SLOTS - 1)];
    if (o->cp == cp) return o;
    o->cp = cp;
    utf8proc_int32_t lower = utf8proc_tolower(cp);
    switch (utf8proc_category(lower)) {
    case UTF8PROC_CATEGORY_ND:
        o->kind = CP_DIGIT;
        break;
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_CF:
        o->kind = CP_NOTHING;
        break;
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE: case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO: case UTF8PROC_CATEGORY_SM: case UTF8PROC_CATEGORY_SC:
    case UTF8PROC_CATEGORY_SK: case UTF8PROC_CATEGORY_SO: case UTF8PROC_CATEGORY_ZS:
    case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP: case UTF8PROC_CATEGORY_CC:
        o->kind = CP_SPACE;
        break;
    default:
        decompose(lower, o);
    }
    return o;
}

static void put_codepoint(normalizer *z, utf8proc_int32_t cp)
{
    const cp_outcome *o = outcome_of(cp);
    switch (o->kind) {
    case CP_DIGIT:
        put_digit(z);
        break;
    case CP_SPACE:
        put_space(z);
        break;
    case CP_NOTHING:
        break;
    default:
        if (o->nchars > CACHED_CHARS) {
            put_decomposed(z, utf8proc_tolower(cp));
            break;
        }
        for (size_t i = 0, used = 0; i < o->nchars; used += o->len[i++])
            put_char(z, (const char *)o->bytes + used, o->len[i], o->char_script[i]);
    }
}

/* What an ASCII code point that came out of a JSON escape becomes. */
static void put_ascii_codepoint(normalizer *z, unsigned char c)
{
    if (ascii_letter(c)) {
        char lower = (char)(c | 0x20);
        put_char(z, &lower, 1, 0);
    } else if (ascii_digit(c)) {
        put_digit(z);
    } else {
        put_space(z);
    }
}

/* The normal form of the n bytes at s into t; with json, s is a JSON
 * string's raw bytes and its escapes are decoded on the way. */
static void normalize(const char *s, size_t n, dedup_text *t, bool json)
{
    normalizer z = {t, 0, 0, 0};
    buf_clear(&t->text);
    buf_reserve(&t->text, n + 1);
    t->nunits = 0;
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    while (p < e) {
        p = put_ascii_span(&z, p, e, json);
        if (p == e) break;
        if (*p == '\\') { /* only in a JSON string: otherwise a separator */
            const char *q = (const char *)p + 1;
            uint32_t cp = json_escape_codepoint(&q, (const char *)e);
            p = (const unsigned char *)q;
            if (cp < 0x80) put_ascii_codepoint(&z, (unsigned char)cp);
            else put_codepoint(&z, (utf8proc_int32_t)cp);
            continue;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t len = utf8proc_iterate(p, e - p, &cp);
        if (len <= 0) {
            cp = 0xFFFD;
            len = 1;
        }
        p += len;
        put_codepoint(&z, cp);
    }
    close_unit(&z);
}

void dedup_normalize(const char *s, size_t n, dedup_text *t)
{
    normalize(s, n < MAX_NORMALIZE_INPUT ? n : MAX_NORMALIZE_INPUT, t, false);
}

void dedup_normalize_json(const jvalue *v, dedup_text *t)
{
    if (!v->has_escapes) {
        dedup_normalize(v->p, v->len, t);
    } else if (v->len <= MAX_NORMALIZE_INPUT) { /* decoded, it is no longer: not cut either */
        normalize(v->p, v->len, t, true);
    } else {
        wbuf decoded = WBUF_INIT;
        json_unescape(v, &decoded);
        dedup_normalize(decoded.data, decoded.len, t);
        buf_free(&decoded);
    }
}

void dedup_text_free(dedup_text *t)
{
    buf_free(&t->text);
    free(t->start);
    free(t->end);
    t->start = t->end = NULL;
    t->nunits = t->cap = 0;
}
