/* normalize.c - the dedup normal form (see normalize.h). ASCII runs of
 * letters, digits and separators take a vector fast path; other characters
 * go through utf8proc (cached per thread); JSON escapes are decoded in
 * place. */
#include "dedup/normalize.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#ifdef __SSSE3__
#include <tmmintrin.h>
#endif
#ifdef __SSE4_1__
#include <smmintrin.h>
#endif
#ifdef __x86_64__
#include <immintrin.h>
#endif

#include "core/simd.h"
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

/* Makes room for units up to number n (start[n] included). */
static void reserve_units(dedup_text *t, size_t n)
{
    if (n < t->cap) return;
    size_t cap = t->cap ? t->cap : 256;
    while (cap <= n) cap *= 2;
    t->start = xrealloc(t->start, cap * sizeof *t->start);
    t->end = xrealloc(t->end, cap * sizeof *t->end);
    t->cap = cap;
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
        if (t->text.len && t->text.data[t->text.len - 1] != ' ') buf_putc(&t->text, ' ');
        z->pending_space = 0;
    }
    z->in_digits = 0;
    if (char_script) close_unit(z);
    if (!z->unit_open) {
        reserve_units(t, t->nunits);
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

/* ASCII is normalised BLOCK bytes at a time: each byte's class as a bit
 * mask, each byte's output (lowercase letter, '0', ' ') in a vector, the
 * bytes that stay packed to the front. */
#define BLOCK 16
#define BLOCK_MAX_UNITS (BLOCK / 2 + 1) /* units a block can open */

/* One block: its bytes' output and the class of each (bit i: byte i). */
typedef struct {
    unsigned char out[BLOCK];
    unsigned letters, digits, stop; /* stop: a byte >= 0x80 or (in JSON) see take_escapes */
} ascii_block;

/* In a JSON string, given the block's backslashes and 'u' bytes: an escape
 * of '"', '\\', '/' or a control character (a backslash and one byte) is two
 * separators; the block stops at a \u escape, at a backslash escaping a
 * backslash (both for the caller) and at a backslash in its last byte. A
 * block starts where an escape may start. */
static inline void take_escapes(ascii_block *b, unsigned backslashes, unsigned u)
{
    unsigned escaped = backslashes << 1 & ((1u << BLOCK) - 1);
    b->stop |= (backslashes & backslashes >> 1) | (escaped & u) >> 1 | (backslashes & 1u << (BLOCK - 1));
    b->letters &= ~escaped;
    b->digits &= ~escaped;
}

#ifdef __SSSE3__
/* Byte k of pack_index[m]: the position of the k-th set bit of m (0 past
 * the last). shift_index[c]: a shuffle moving bytes 0..7 to c..c+7. */
static uint64_t pack_index[256];
static unsigned char shift_index[9][BLOCK];
static pthread_once_t pack_once = PTHREAD_ONCE_INIT;

static void pack_index_init(void)
{
    for (unsigned m = 0; m < 256; m++) {
        uint64_t index = 0;
        for (unsigned i = 0, k = 0; i < 8; i++)
            if (m >> i & 1) index |= (uint64_t)i << (8 * k++);
        pack_index[m] = index;
    }
    for (unsigned c = 0; c <= 8; c++)
        for (unsigned j = 0; j < BLOCK; j++) shift_index[c][j] = j >= c && j - c < 8 ? (unsigned char)(j - c) : 0x80;
}

static void classify(const unsigned char *p, bool json, ascii_block *b)
{
    const __m128i case_bit = _mm_set1_epi8(0x20), letter_shift = _mm_set1_epi8((char)(0x80 - 'a'));
    const __m128i past_z = _mm_set1_epi8((char)(0x80 + 26));
    const __m128i digit_shift = _mm_set1_epi8((char)(0x80 - '0')), past_9 = _mm_set1_epi8((char)(0x80 + 10));
    __m128i v = _mm_loadu_si128((const __m128i *)p), lower = _mm_or_si128(v, case_bit);
    /* letters and digits map to the smallest signed bytes; bytes >= 0x80 never do */
    __m128i letters = _mm_cmplt_epi8(_mm_add_epi8(lower, letter_shift), past_z);
    __m128i digits = _mm_cmplt_epi8(_mm_add_epi8(v, digit_shift), past_9);
    /* ' ' is 0x20 and '0' is 0x30 */
    __m128i other = _mm_or_si128(case_bit, _mm_and_si128(digits, _mm_set1_epi8(0x10)));
    _mm_storeu_si128((__m128i *)b->out, _mm_or_si128(_mm_and_si128(letters, lower), _mm_andnot_si128(letters, other)));
    b->letters = (unsigned)_mm_movemask_epi8(letters);
    b->digits = (unsigned)_mm_movemask_epi8(digits);
    b->stop = (unsigned)_mm_movemask_epi8(v);
    if (json) {
        unsigned backslashes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        unsigned u = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('u')));
        take_escapes(b, backslashes, u);
    }
}

/* Writes the bytes of b->out whose bit is set in keep to w, in order (w
 * has room for BLOCK bytes); returns where the spaces among them are. */
static unsigned pack(const ascii_block *b, unsigned keep, char *w)
{
    unsigned low = keep & 0xFF, high = keep >> 8;
    __m128i high_index = _mm_cvtsi64_si128((long long)(pack_index[high] + UINT64_C(0x0808080808080808)));
    high_index = _mm_shuffle_epi8(high_index, _mm_loadu_si128((const __m128i *)shift_index[__builtin_popcount(low)]));
    __m128i index = _mm_or_si128(_mm_cvtsi64_si128((long long)pack_index[low]), high_index);
    __m128i packed = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)b->out), index);
    _mm_storeu_si128((__m128i *)w, packed);
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(packed, _mm_set1_epi8(' '))) & ((1u << __builtin_popcount(keep)) - 1);
}
#else
static void classify(const unsigned char *p, bool json, ascii_block *b)
{
    unsigned backslashes = 0, u = 0;
    b->letters = b->digits = b->stop = 0;
    for (unsigned i = 0; i < BLOCK; i++) {
        unsigned char c = p[i];
        unsigned letter = ascii_letter(c), digit = ascii_digit(c);
        b->letters |= letter << i;
        b->digits |= digit << i;
        b->stop |= (unsigned)(c >= 0x80) << i;
        backslashes |= (unsigned)(c == '\\') << i;
        u |= (unsigned)(c == 'u') << i;
        b->out[i] = letter ? (unsigned char)(c | 0x20) : digit ? '0' : ' ';
    }
    if (json) take_escapes(b, backslashes, u);
}

static unsigned pack(const ascii_block *b, unsigned keep, char *w)
{
    unsigned spaces = 0, k = 0;
    for (unsigned i = 0; i < BLOCK; i++)
        if (keep >> i & 1) {
            spaces |= (unsigned)(b->out[i] == ' ') << k;
            w[k++] = (char)b->out[i];
        }
    return spaces;
}
#endif

/* put_ascii_span's state: the text's bytes and units so far. */
typedef struct {
    char *out;
    size_t len, nunits;
    unsigned unit_open, in_digits;
    unsigned at_gap; /* the output is empty or ends in a space (kept here, not read back from out) */
} span_state;

/* Writes the unit ends at the positions set in ends (bits of the block's
 * output from len on), each with the start of the unit after it; returns
 * the new unit count. Entries up to BLOCK_ENDS_SCRATCH past it may be
 * written as scratch. */
#if defined(__SSSE3__) && defined(__SSE4_1__)
#define BLOCK_ENDS_SCRATCH 4
static inline size_t put_block_ends(uint32_t *start, uint32_t *end, size_t nunits, size_t len, unsigned ends)
{
    /* the positions of the set bits as bytes, as pack() builds its index */
    unsigned low = ends & 0xFF, high = ends >> 8, nends = (unsigned)__builtin_popcount(ends);
    __m128i high_at = _mm_cvtsi64_si128((long long)(pack_index[high] + UINT64_C(0x0808080808080808)));
    high_at = _mm_shuffle_epi8(high_at, _mm_loadu_si128((const __m128i *)shift_index[__builtin_popcount(low)]));
    __m128i at = _mm_or_si128(_mm_cvtsi64_si128((long long)pack_index[low]), high_at);
    const __m128i base = _mm_set1_epi32((int)len), one = _mm_set1_epi32(1);
    for (unsigned i = 0; i < nends; i += 4, at = _mm_srli_si128(at, 4)) {
        __m128i ends4 = _mm_add_epi32(_mm_cvtepu8_epi32(at), base);
        _mm_storeu_si128((__m128i *)(end + nunits + i), ends4);
        _mm_storeu_si128((__m128i *)(start + nunits + i + 1), _mm_add_epi32(ends4, one));
    }
    return nunits + nends;
}
#else
#define BLOCK_ENDS_SCRATCH 0
static inline size_t put_block_ends(uint32_t *start, uint32_t *end, size_t nunits, size_t len, unsigned ends)
{
    for (; ends; ends &= ends - 1, nunits++) {
        uint32_t at = (uint32_t)(len + (size_t)__builtin_ctz(ends));
        end[nunits] = at;
        start[nunits + 1] = at + 1;
    }
    return nunits;
}
#endif

/* Writes the first m bytes of block b (ASCII letters, digits, separators). */
__attribute__((always_inline)) static inline void put_block(dedup_text *t, span_state *st, const ascii_block *b, unsigned m)
{
    size_t len = st->len, nunits = st->nunits;
    unsigned unit_open = st->unit_open;
    unsigned valid = (unsigned)((1ul << m) - 1);
    unsigned letters = b->letters & valid, digits = b->digits & valid, seps = valid & ~(letters | digits);
    unsigned spaces = seps & ~((seps << 1) | st->at_gap);
    unsigned keep = letters | (digits & ~((digits << 1) | st->in_digits)) | spaces;
    unsigned kept = (unsigned)__builtin_popcount(keep);
    if (nunits + BLOCK_MAX_UNITS + BLOCK_ENDS_SCRATCH + 1 >= t->cap)
        reserve_units(t, nunits + BLOCK_MAX_UNITS + BLOCK_ENDS_SCRATCH + 1);
    uint32_t *start = t->start, *end = t->end;
    unsigned out_spaces = pack(b, keep, st->out + len);
    if (kept) {
        /* units end at the spaces written and start after them */
        if (!unit_open) start[nunits] = (uint32_t)(len + (out_spaces & 1));
        nunits = put_block_ends(start, end, nunits, len, out_spaces & (unit_open ? ~0u : ~1u));
    }
    /* a block ending in a separator ends in a space written (here or before)
     * or left nothing; one ending in a letter or digit leaves a unit open */
    st->at_gap = seps >> (m - 1) & 1;
    st->unit_open = !st->at_gap;
    st->nunits = nunits;
    st->len = len + kept;
    st->in_digits = digits >> (m - 1) & 1;
}

/* Writes a JSON escape that stands for a separator ('"', '\\', '/' or a
 * control character): a space, unless the output is empty or ends in one. */
static inline void put_separator_escape(dedup_text *t, span_state *st)
{
    if (st->len && st->out[st->len - 1] != ' ') {
        if (st->unit_open) t->end[st->nunits++] = (uint32_t)st->len;
        st->unit_open = 0;
        st->out[st->len++] = ' ';
    }
    st->at_gap = 1;
    st->in_digits = 0;
}

#ifdef __x86_64__
/* With AVX-512 BW and VBMI2 (simd_avx512_vbmi2()), ASCII goes WIDE bytes at
 * a time: the same rules as put_block's on 64-bit masks, the bytes kept
 * packed by one byte compression, and the unit ends of a block written 16
 * at a time by compressing their positions (no loop per word). */
#define WIDE 64
#define WIDE_MAX_UNITS (WIDE + 2)  /* unit entries a block may write, scratch included */
#define WIDE_TARGET __attribute__((target("avx512f,avx512bw,avx512vbmi2,bmi,bmi2,popcnt")))

/* Writes the unit ends at the positions set in ends (bits of the block's
 * output from len on), each with the start of the unit after it: the
 * positions compressed to bytes at once, widened and stored 16 at a time. */
WIDE_TARGET static inline size_t put_wide_ends(uint32_t *start, uint32_t *end, size_t nunits, size_t len, uint64_t ends)
{
    const __m512i positions = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
                                              44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
                                              25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                              5, 4, 3, 2, 1, 0);
    __m512i at = _mm512_maskz_compress_epi8(ends, positions);
    unsigned nends = (unsigned)__builtin_popcountll(ends);
    for (unsigned i = 0; i < nends; i += 16) {
        __m512i ends16 = _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(at)), _mm512_set1_epi32((int)len));
        _mm512_storeu_si512(end + nunits + i, ends16);
        _mm512_storeu_si512(start + nunits + i + 1, _mm512_add_epi32(ends16, _mm512_set1_epi32(1)));
        at = _mm512_alignr_epi32(_mm512_setzero_si512(), at, 4); /* the next 16 positions */
    }
    return nunits + nends;
}

/* put_ascii_span's loop WIDE bytes at a time; returns where it stops. */
WIDE_TARGET static const unsigned char *put_ascii_wide(dedup_text *t, span_state *st, const unsigned char *p,
                                                       const unsigned char *e, bool json)
{
    const __m512i case_bit = _mm512_set1_epi8(0x20), space = _mm512_set1_epi8(' '), zero = _mm512_set1_epi8('0');
    const __m512i a = _mm512_set1_epi8('a'), letters_n = _mm512_set1_epi8(26), digits_n = _mm512_set1_epi8(10);
    const __m512i stop_pad = _mm512_set1_epi8((char)0x80), backslash = _mm512_set1_epi8('\\'), u = _mm512_set1_epi8('u');
    while (p < e) {
        size_t left = (size_t)(e - p);
        /* the last bytes: the rest of the block reads as bytes that stop */
        __m512i v = left >= WIDE ? _mm512_loadu_si512(p) : _mm512_mask_loadu_epi8(stop_pad, _bzhi_u64(~0ull, (unsigned)left), p);
        __m512i lower = _mm512_or_si512(v, case_bit);
        uint64_t letters = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(lower, a), letters_n);
        uint64_t digits = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, zero), digits_n);
        uint64_t stop = _mm512_movepi8_mask(v);
        if (json) { /* as take_escapes */
            uint64_t backslashes = _mm512_cmpeq_epi8_mask(v, backslash), escaped = backslashes << 1;
            stop |= (backslashes & backslashes >> 1) | (escaped & _mm512_cmpeq_epi8_mask(v, u)) >> 1 |
                    (backslashes & 1ull << (WIDE - 1));
            letters &= ~escaped;
            digits &= ~escaped;
        }
        unsigned m = stop ? (unsigned)__builtin_ctzll(stop) : WIDE;
        if (m) { /* as put_block */
            uint64_t valid = m == WIDE ? ~0ull : (1ull << m) - 1;
            letters &= valid;
            digits &= valid;
            uint64_t seps = valid & ~(letters | digits);
            uint64_t spaces = seps & ~((seps << 1) | st->at_gap);
            uint64_t keep = letters | (digits & ~((digits << 1) | st->in_digits)) | spaces;
            __m512i out = _mm512_mask_mov_epi8(_mm512_mask_mov_epi8(space, digits, zero), letters, lower);
            __m512i packed = _mm512_maskz_compress_epi8(keep, out);
            size_t len = st->len, nunits = st->nunits;
            _mm512_storeu_si512(st->out + len, packed);
            if (keep) {
                if (nunits + WIDE_MAX_UNITS >= t->cap) reserve_units(t, nunits + WIDE_MAX_UNITS);
                /* bytes past the kept ones are 0, never a space */
                uint64_t out_spaces = _mm512_cmpeq_epi8_mask(packed, space);
                if (!st->unit_open) t->start[nunits] = (uint32_t)(len + (out_spaces & 1));
                st->nunits = put_wide_ends(t->start, t->end, nunits, len, out_spaces & (st->unit_open ? ~0ull : ~1ull));
            }
            st->at_gap = (unsigned)(seps >> (m - 1) & 1);
            st->unit_open = !st->at_gap;
            st->len = len + (size_t)__builtin_popcountll(keep);
            st->in_digits = (unsigned)(digits >> (m - 1) & 1);
            p += m;
            if (m == WIDE) continue;
        }
        if (!json || p + 1 >= e || *p != '\\' || p[1] == 'u') break;
        put_separator_escape(t, st);
        p += 2;
    }
    return p;
}
#define SPAN_SLACK WIDE /* the packing stores reach this far past the output */
#else
#define SPAN_SLACK BLOCK
#endif

/* Normalises the ASCII bytes from p on and returns where they end: at e, a
 * byte >= 0x80 or, in a JSON string, a \u escape. A separator run's space
 * is written at once (and dropped again when the text ends there; see
 * begin_char and normalize), so a block's output is its bytes that stay:
 * every letter, the first digit of a run (as '0'), the first separator of a
 * run unless the output is empty or ends in a space. Units start at the
 * letters and digits after a space (or after a closed unit) and end at the
 * spaces. The state lives in locals meanwhile (stores of text bytes could
 * alias z's fields). */
static const unsigned char *put_ascii_span(normalizer *z, const unsigned char *p, const unsigned char *e, bool json)
{
    /* no ASCII here (the next character of a word in another script): the
     * loop below would stop at once, with nothing to write */
    if (*p >= 0x80 && !z->pending_space) return p;
    dedup_text *t = z->t;
    /* each output byte stands for an input byte, but for one space owed
     * from before; the packing stores reach a block past the end */
    if (t->text.cap - t->text.len < (size_t)(e - p) + SPAN_SLACK + 2) buf_reserve(&t->text, (size_t)(e - p) + SPAN_SLACK + 1);
    if (z->pending_space) {
        close_unit(z);
        if (t->text.len && t->text.data[t->text.len - 1] != ' ') t->text.data[t->text.len++] = ' ';
        z->pending_space = 0;
    }
    span_state st = {t->text.data, t->text.len, t->nunits, (unsigned)z->unit_open, (unsigned)z->in_digits,
                     t->text.len == 0 || t->text.data[t->text.len - 1] == ' '};
    bool wide = false;
#ifdef __x86_64__
    wide = simd_avx512_vbmi2();
    if (wide) p = put_ascii_wide(t, &st, p, e, json);
#endif
#ifdef __SSSE3__
    if (!wide) pthread_once(&pack_once, pack_index_init);
#endif
    while (!wide && p < e) {
        unsigned char tail[BLOCK];
        const unsigned char *from = p;
        if (e - p < BLOCK) { /* the last bytes: padded with bytes that stop */
            memset(tail, 0x80, BLOCK);
            memcpy(tail, p, (size_t)(e - p));
            from = tail;
        }
        ascii_block b;
        classify(from, json, &b);
        unsigned m = b.stop ? (unsigned)__builtin_ctz(b.stop) : BLOCK;
        if (m) {
            put_block(t, &st, &b, m);
            p += m;
            if (m == BLOCK) continue;
        }
        if (!json || p + 1 >= e || *p != '\\' || p[1] == 'u') break;
        put_separator_escape(t, &st);
        p += 2;
    }
    st.out[st.len] = 0;
    t->text.len = st.len;
    t->nunits = st.nunits;
    z->unit_open = (int)st.unit_open;
    z->in_digits = (int)st.in_digits;
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
    t->text.data[0] = 0; /* the text stays NUL-terminated whatever writes it first */
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
    if (t->text.len && t->text.data[t->text.len - 1] == ' ') t->text.data[--t->text.len] = 0; /* a space written at once */
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
