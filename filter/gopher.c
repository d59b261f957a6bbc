/* gopher.c - Gopher quality and repetition rules (Rae et al. 2021), with
 * datatrove's definitions. */
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>
#define XXH_INLINE_ALL /* short keys: inlined hashing is several times faster */
#include <xxhash.h>

#include "core/simd.h"
#include "core/util.h"
#include "filter/rules.h"
#include "filter/uchar.h"

void rule_scratch_free(rule_scratch *r)
{
    ct_free(&r->table);
    free(r->gram_hash);
    free(r->gram_pos);
    free(r->gram_slot);
    free(r->word_count);
    free(r->word_counters);
    free(r->seen_counters);
    free(r->char_prefix);
    free(r->gram_repeats);
    free(r->lines);
    free(r->paragraphs);
    free(r->segment_slot);
    free(r->line_kept);
    buf_free(&r->line);
    memset(r, 0, sizeof *r);
}

/* Python str.count for "..." (non-overlapping) plus "…". */
static size_t count_ellipses(const char *s, size_t n)
{
    size_t count = 0;
    for (const char *p = s, *end = s + n; (p = memchr(p, '.', (size_t)(end - p))) != NULL;) {
        size_t run = 1;
        while (p + run < end && p[run] == '.') run++;
        count += run / 3;
        p += run;
    }
    for (const char *p = s, *end = s + n; (p = memchr(p, 0xE2, (size_t)(end - p))) != NULL; p++)
        if (end - p >= 3 && (unsigned char)p[1] == 0x80 && (unsigned char)p[2] == 0xA6) count++;
    return count;
}

/* line.strip() of the line s[a, b) starts with '-' or U+2022 */
static bool starts_with_bullet(const char *s, size_t a, size_t b)
{
    return s[a] == '-' || (b - a >= 3 && memcmp(s + a, "\xE2\x80\xA2", 3) == 0);
}

/* line.strip() of the line s[a, b) ends with "..." or U+2026 */
static bool ends_with_ellipsis(const char *s, size_t a, size_t b)
{
    return (b - a >= 3 && memcmp(s + b - 3, "...", 3) == 0) ||
           (b - a >= 3 && memcmp(s + b - 3, "\xE2\x80\xA6", 3) == 0);
}

/* Lines starting with a bullet and lines ending with an ellipsis, after
 * strip(). The words cover every character that is not whitespace, and line
 * breaks are whitespace, so a line's stripped text runs from its first
 * word's first byte to its last word's last byte; lines without words are
 * empty once stripped and count for neither. */
static void bullet_ellipsis_lines(const char *s, const fwords *w, size_t *bullets, size_t *ellipsis)
{
    *bullets = *ellipsis = 0;
    for (size_t i = 0; i < w->n;) {
        size_t j = i + 1;
        while (j < w->n && w->w[j].line == w->w[i].line) j++;
        size_t a = w->w[i].off, b = (size_t)w->w[j - 1].off + w->w[j - 1].len;
        *bullets += starts_with_bullet(s, a, b);
        *ellipsis += ends_with_ellipsis(s, a, b);
        i = j;
    }
}

const char *gopher_quality_check(const filter_config *c, const char *s, size_t n, const fwords *w)
{
    size_t n_words = w->n, n_content = words_count_content(w), content_chars = words_count_content_chars(w);
    size_t n_alpha = words_count_alpha(w), n_stop = words_count_stop(w);
    if (c->gopher_min_words && n_content < c->gopher_min_words) return "gopher_quality:short_doc";
    if (c->gopher_max_words && n_content > c->gopher_max_words) return "gopher_quality:long_doc";
    if (n_words == 0 || n_content == 0) return "gopher_quality:short_doc";

    double avg = (double)content_chars / (double)n_content;
    if (c->gopher_min_avg_word_len && avg < c->gopher_min_avg_word_len) return "gopher_quality:below_avg_word_len";
    if (c->gopher_max_avg_word_len && avg > c->gopher_max_avg_word_len) return "gopher_quality:above_avg_word_len";

    if (c->gopher_max_symbol_ratio) {
        size_t hashes = 0;
        for (const char *p = s; (p = memchr(p, '#', (size_t)(s + n - p))) != NULL; p++) hashes++;
        if ((double)hashes / (double)n_words > c->gopher_max_symbol_ratio) return "gopher_quality:too_many_hashes";
        if ((double)count_ellipses(s, n) / (double)n_words > c->gopher_max_symbol_ratio)
            return "gopher_quality:too_many_ellipsis";
    }

    if (c->gopher_max_bullet_lines || c->gopher_max_ellipsis_lines) {
        size_t lines = w->lines, bullets, ellipsis;
        bullet_ellipsis_lines(s, w, &bullets, &ellipsis);
        if (lines && c->gopher_max_bullet_lines && (double)bullets / (double)lines > c->gopher_max_bullet_lines)
            return "gopher_quality:too_many_bullets";
        if (lines && c->gopher_max_ellipsis_lines &&
            (double)ellipsis / (double)lines > c->gopher_max_ellipsis_lines)
            return "gopher_quality:too_many_end_ellipsis";
    }

    if (c->gopher_min_alpha_words && (double)n_alpha / (double)n_words < c->gopher_min_alpha_words)
        return "gopher_quality:below_alpha_threshold";
    if (c->gopher_min_stop_words && n_stop < c->gopher_min_stop_words) return "gopher_quality:few_stop_words";
    return NULL;
}

/* ---- repetition ---- */

typedef struct {
    size_t elements, dup_elements, dup_chars;
} dup_count;

/* Makes room for `entries` in *a (of *cap). */
static void reserve_u32(uint32_t **a, size_t *cap, size_t entries)
{
    if (entries <= *cap) return;
    *cap = entries * 2;
    *a = xrealloc(*a, *cap * sizeof **a);
}

/* Fills r->lines with 0, the start and end of each run of '\n' in s[0, n),
 * and n (lines: the text split on runs of '\n'); returns the number of runs.
 * Newlines are found 16 bytes at a time, and each is placed without a
 * branch (whether it starts a run or goes on the one before is as
 * unpredictable as blank lines are). */
static size_t find_lines(rule_scratch *r, const char *s, size_t n)
{
    enum { BLOCK = 16 };
    size_t runs = 0, run_end = SIZE_MAX; /* end of the last run, to extend it */
    reserve_u32(&r->lines, &r->lines_cap, 1024);
    r->lines[0] = 0;
    for (size_t base = 0; base < n; base += BLOCK) {
        unsigned bits = 0;
#ifdef __SSE2__
        if (base + BLOCK <= n)
            bits = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + base)), _mm_set1_epi8('\n')));
        else
#endif
            for (size_t k = base; k < n && k < base + BLOCK; k++) bits |= (unsigned)(s[k] == '\n') << (k - base);
        if (!bits) continue;
        reserve_u32(&r->lines, &r->lines_cap, 2 * (runs + BLOCK) + 2);
        uint32_t *lines = r->lines;
        for (; bits; bits &= bits - 1) {
            size_t p = base + (size_t)__builtin_ctz(bits);
            /* a new run ends the line before at p; for a newline that goes on
             * the run before, this entry is the next line's end, written
             * again later */
            lines[2 * runs + 1] = (uint32_t)p;
            runs += p != run_end;
            lines[2 * runs] = (uint32_t)(run_end = p + 1);
        }
    }
    r->lines[2 * runs + 1] = (uint32_t)n;
    return runs;
}

/* Counters enough for n keys: few keys share one (at least 2^10, at most
 * 2^WORD_COUNTER_BITS_MAX); returns their number's log2. */
static unsigned counter_bits(size_t n, size_t per_key)
{
    unsigned bits = 10;
    while (bits < WORD_COUNTER_BITS_MAX && ((size_t)1 << bits) < n * per_key) bits++;
    return bits;
}

/* The byte counters (0, 1, 2: twice or more) that find_duplicates and the
 * 5-gram check count in; all zero between documents. */
static uint8_t *seen_counters(rule_scratch *r)
{
    if (!r->seen_counters) r->seen_counters = xcalloc((size_t)1 << WORD_COUNTER_BITS_MAX, sizeof *r->seen_counters);
    return r->seen_counters;
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "segment_digest keeps a short segment's bytes as the low bytes");

/* A cheap digest of the segment s[a, a + len) of s[0, n): its length, first
 * and last 8 bytes. Equal segments get equal digests. */
static inline uint64_t segment_digest(const char *s, size_t n, size_t a, size_t len)
{
    uint64_t head = 0, tail = 0;
    if (len >= sizeof head) {
        memcpy(&head, s + a, sizeof head);
        memcpy(&tail, s + a + len - sizeof tail, sizeof tail);
    } else if (a + sizeof head <= n) { /* 8 bytes readable: the segment's, masked */
        memcpy(&head, s + a, sizeof head);
        head &= ((uint64_t)1 << (8 * len)) - 1;
    } else {
        memcpy(&head, s + a, len);
    }
    return ct_mix((head ^ len) * 0x9E3779B97F4A7C15ULL + tail);
}

/* datatrove's find_duplicates over the segments [seg[2k], seg[2k + 1]) of
 * s (n bytes), k < count: a segment is a duplicate when an equal one came
 * before. Segments are compared by hash, and only those that may equal
 * another are hashed: first each segment's digest (segment_digest) is
 * counted in byte counters picked by it, as count_words does, and a segment
 * whose counter stays at 1 equals none (equal segments share a counter).
 * When max_frac is not 0, the count stops as soon as the duplicates are
 * more than max_frac of the segments: the caller's dup_elements / elements
 * > max_frac test is then true whatever the rest holds (dup_elements only
 * grows), and it drops the document on it before it reads dup_chars, which
 * stays short. */
static dup_count find_duplicates(rule_scratch *r, const char *s, size_t n, const uint32_t *seg, size_t count,
                                 double max_frac)
{
    dup_count d = {count, 0, 0};
    if (count < 2) return d;
    uint8_t *counter = seen_counters(r);
    reserve_u32(&r->segment_slot, &r->segment_slot_cap, count);
    uint32_t *slot = r->segment_slot;
    unsigned bits = counter_bits(count, 8);
    for (size_t k = 0; k < count; k++) {
        slot[k] = (uint32_t)(segment_digest(s, n, seg[2 * k], seg[2 * k + 1] - seg[2 * k]) >> (64 - bits));
        counter[slot[k]] += counter[slot[k]] < 2;
    }
    ct_reset(&r->table, count);
    for (size_t k = 0; k < count; k++) {
        if (counter[slot[k]] < 2) continue;
        size_t a = seg[2 * k], len = seg[2 * k + 1] - a;
        if (ct_add(&r->table, XXH3_64bits(s + a, len), 0)->count > 1) {
            d.dup_elements++;
            d.dup_chars += uc_count(s + a, len);
            if (max_frac && (double)d.dup_elements / (double)d.elements > max_frac) break;
        }
    }
    for (size_t k = 0; k < count; k++) counter[slot[k]] = 0; /* all zero again for the next document */
    return d;
}

/* Paragraphs: text.strip() split on runs of two or more '\n' (a run is
 * whitespace: inside the stripped text or outside it), from the runs
 * find_lines found. */
static dup_count paragraph_duplicates(rule_scratch *r, const char *s, size_t n, size_t runs, double max_frac)
{
    size_t a = 0, b = n;
    uc_strip(s, &a, &b);
    reserve_u32(&r->paragraphs, &r->paragraphs_cap, 2 * runs + 2);
    uint32_t *p = r->paragraphs;
    size_t count = 0;
    p[0] = (uint32_t)a;
    for (size_t k = 0; k < runs; k++) {
        uint32_t from = r->lines[2 * k + 1], to = r->lines[2 * k + 2];
        if (from < a || from >= b || to - from < 2) continue;
        p[2 * count + 1] = from;
        p[2 * count + 2] = to;
        count++;
    }
    p[2 * count + 1] = (uint32_t)b;
    return find_duplicates(r, s, n, p, count + 1, max_frac);
}

/* Extends an (n-1)-gram hash by the next word. */
static inline uint64_t gram_extend(uint64_t g, uint64_t word_hash)
{
    g = (g << 23 | g >> 41) ^ word_hash;
    return g * 0x9E3779B97F4A7C15ULL;
}

/* Hash of the k words from position i. */
static inline uint64_t gram_hash(const fword *w, size_t i, size_t k)
{
    uint64_t g = w[i].hash;
    for (size_t j = 1; j < k; j++) g = gram_extend(g, w[i + j].hash);
    return g;
}

_Static_assert(FILTER_DUP_NGRAM_MIN == 5, "gram_hash5 hashes the duplicated n-gram rule's shortest grams");

/* gram_hash(w, i, 5), written out: the loop of a gram_hash whose length is
 * not a constant costs twice the instructions. */
static inline uint64_t gram_hash5(const fword *w, size_t i)
{
    uint64_t g = gram_extend(w[i].hash, w[i + 1].hash);
    g = gram_extend(g, w[i + 2].hash);
    g = gram_extend(g, w[i + 3].hash);
    return gram_extend(g, w[i + 4].hash);
}

static void ensure_gram_arrays(rule_scratch *r, size_t nwords)
{
    if (r->gram_cap >= nwords + 1) return;
    r->gram_cap = (nwords + 1) * 2;
    r->gram_hash = xrealloc(r->gram_hash, r->gram_cap * sizeof *r->gram_hash);
    r->gram_pos = xrealloc(r->gram_pos, r->gram_cap * sizeof *r->gram_pos);
    r->gram_slot = xrealloc(r->gram_slot, r->gram_cap * sizeof *r->gram_slot);
    r->word_count = xrealloc(r->word_count, r->gram_cap * sizeof *r->word_count);
    r->char_prefix = xrealloc(r->char_prefix, r->gram_cap * sizeof *r->char_prefix);
    r->gram_repeats = xrealloc(r->gram_repeats, r->gram_cap * sizeof *r->gram_repeats);
}

/* Sets r->word_count[i] to at least the occurrences of word i in the
 * document: words are counted in an array of counters picked by their hash
 * (exact unless two words share a counter, then more). The rules below only
 * need upper bounds, and counting this way needs no probing and no branch.
 * In the same pass over the words, r->char_prefix[i] gets the code points
 * of the words before word i (and [nw] those of all). */
static void count_words(rule_scratch *r, const fword *w, size_t nw)
{
    unsigned bits = counter_bits(nw, 4);
    uint32_t *counter = r->word_counters, *index = r->gram_slot;
    uint64_t *prefix = r->char_prefix, chars = 0;
    prefix[0] = 0;
    for (size_t i = 0; i < nw; i++) {
        index[i] = (uint32_t)(w[i].hash >> (64 - bits));
        counter[index[i]]++;
        chars += w[i].nchars;
        prefix[i + 1] = chars;
    }
    for (size_t i = 0; i < nw; i++) r->word_count[i] = counter[index[i]];
    for (size_t i = 0; i < nw; i++) counter[index[i]] = 0; /* all zero again for the next document */
}

static const char *const top_reasons[] = {
    NULL, NULL, "gopher_repetition:top_2_gram", "gopher_repetition:top_3_gram", "gopher_repetition:top_4_gram",
};
static const char *const dup_reasons[] = {
    NULL, NULL, NULL, NULL, NULL,
    "gopher_repetition:duplicated_5_n_grams", "gopher_repetition:duplicated_6_n_grams",
    "gopher_repetition:duplicated_7_n_grams", "gopher_repetition:duplicated_8_n_grams",
    "gopher_repetition:duplicated_9_n_grams", "gopher_repetition:duplicated_10_n_grams",
};

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

_Static_assert(FILTER_TOP_NGRAM_MAX == 4, "top_ngram_bounds handles 2-, 3- and 4-grams");

/* The running maxima of top_ngram_bounds: most characters of a 2-, 3-,
 * 4-gram, then most (characters + k - 1) x rarest word count. */
enum { L2, L3, L4, B2, B3, B4, N_BOUNDS };

/* top_ngram_bounds over the positions from i on, into m. */
static void ngram_bounds_from(const uint64_t *prefix, const uint32_t *count, size_t nw, size_t i, uint64_t *m)
{
    uint64_t l2 = m[L2], l3 = m[L3], l4 = m[L4], b2 = m[B2], b3 = m[B3], b4 = m[B4];
    for (; i + 4 <= nw; i++) {
        uint32_t r2 = min_u32(count[i], count[i + 1]), r3 = min_u32(r2, count[i + 2]), r4 = min_u32(r3, count[i + 3]);
        uint64_t c2 = prefix[i + 2] - prefix[i], c3 = prefix[i + 3] - prefix[i], c4 = prefix[i + 4] - prefix[i];
        l2 = max_u64(l2, c2);
        l3 = max_u64(l3, c3);
        l4 = max_u64(l4, c4);
        b2 = max_u64(b2, (c2 + 1) * r2);
        b3 = max_u64(b3, (c3 + 2) * r3);
        b4 = max_u64(b4, (c4 + 3) * r4);
    }
    for (; i + 2 <= nw; i++) { /* the last positions start no 4-gram */
        uint32_t r2 = min_u32(count[i], count[i + 1]);
        uint64_t c2 = prefix[i + 2] - prefix[i];
        l2 = max_u64(l2, c2);
        b2 = max_u64(b2, (c2 + 1) * r2);
        if (i + 3 <= nw) {
            uint32_t r3 = min_u32(r2, count[i + 2]);
            uint64_t c3 = prefix[i + 3] - prefix[i];
            l3 = max_u64(l3, c3);
            b3 = max_u64(b3, (c3 + 2) * r3);
        }
    }
    m[L2] = l2, m[L3] = l3, m[L4] = l4, m[B2] = b2, m[B3] = b3, m[B4] = b4;
}

/* Lane-wise maximum of values below 2^63. */
__attribute__((target("avx2"))) static inline __m256i max_epi64(__m256i a, __m256i b)
{
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}

/* The largest of the four lanes of v into *m. */
__attribute__((target("avx2"))) static inline void fold_max(__m256i v, uint64_t *m)
{
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)lane, v);
    for (int k = 0; k < 4; k++) *m = max_u64(*m, lane[k]);
}

/* ngram_bounds_from(..., 0, m) four positions at a time. The caller checks
 * that the text has fewer than 2^31 code points: then every character count
 * plus 3 and every word count fits the 32 x 32 -> 64-bit multiplies, and the
 * products (below 2^62) the signed 64-bit compares. */
__attribute__((target("avx2"))) static void ngram_bounds_avx2(const uint64_t *prefix, const uint32_t *count, size_t nw,
                                                              uint64_t *m)
{
    __m256i l2 = _mm256_setzero_si256(), l3 = l2, l4 = l2, b2 = l2, b3 = l2, b4 = l2;
    const __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2), three = _mm256_set1_epi64x(3);
    size_t i = 0;
    for (; i + 7 <= nw; i += 4) { /* positions i..i+3 read counts up to i+6 and prefixes up to i+7 */
        __m128i w0 = _mm_loadu_si128((const __m128i *)(count + i)), w1 = _mm_loadu_si128((const __m128i *)(count + i + 1));
        __m128i w2 = _mm_loadu_si128((const __m128i *)(count + i + 2)), w3 = _mm_loadu_si128((const __m128i *)(count + i + 3));
        __m128i r2 = _mm_min_epu32(w0, w1), r3 = _mm_min_epu32(r2, w2), r4 = _mm_min_epu32(r3, w3);
        __m256i p0 = _mm256_loadu_si256((const __m256i *)(prefix + i));
        __m256i c2 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(prefix + i + 2)), p0);
        __m256i c3 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(prefix + i + 3)), p0);
        __m256i c4 = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(prefix + i + 4)), p0);
        l2 = max_epi64(l2, c2);
        l3 = max_epi64(l3, c3);
        l4 = max_epi64(l4, c4);
        b2 = max_epi64(b2, _mm256_mul_epu32(_mm256_add_epi64(c2, one), _mm256_cvtepu32_epi64(r2)));
        b3 = max_epi64(b3, _mm256_mul_epu32(_mm256_add_epi64(c3, two), _mm256_cvtepu32_epi64(r3)));
        b4 = max_epi64(b4, _mm256_mul_epu32(_mm256_add_epi64(c4, three), _mm256_cvtepu32_epi64(r4)));
    }
    fold_max(l2, &m[L2]);
    fold_max(l3, &m[L3]);
    fold_max(l4, &m[L4]);
    fold_max(b2, &m[B2]);
    fold_max(b3, &m[B3]);
    fold_max(b4, &m[B4]);
    ngram_bounds_from(prefix, count, nw, i, m);
}

/* For k = 2..4, in one pass: the most characters of a k-gram (longest[k]),
 * and the most (characters + k - 1) times the count of the k-gram's rarest
 * word (bound[k]). */
static void top_ngram_bounds(const uint64_t *prefix, const uint32_t *count, size_t nw, uint64_t *longest,
                             uint64_t *bound)
{
    uint64_t m[N_BOUNDS] = {0};
    if (simd_avx2() && prefix[nw] < (uint64_t)1 << 31)
        ngram_bounds_avx2(prefix, count, nw, m);
    else
        ngram_bounds_from(prefix, count, nw, 0, m);
    longest[2] = m[L2], longest[3] = m[L3], longest[4] = m[L4];
    bound[2] = m[B2], bound[3] = m[B3], bound[4] = m[B4];
}

/* datatrove's top n-gram rules: characters of " ".join(gram) times its count,
 * for the most frequent gram (the first seen among equals, like
 * Counter.most_common). A k-gram occurs at most as often as its rarest word
 * and as the most frequent (k-1)-gram, so when those bounds cannot pass the
 * limit, the k-grams are not counted: the decision is the same. */
static const char *top_ngram_check(const filter_config *c, rule_scratch *r, const fword *w, size_t nw,
                                   double text_chars)
{
    const uint64_t *prefix = r->char_prefix;
    uint64_t longest[FILTER_TOP_NGRAM_MAX + 1] = {0}, bound[FILTER_TOP_NGRAM_MAX + 1] = {0};
    top_ngram_bounds(prefix, r->word_count, nw, longest, bound);
    uint32_t prev_best = UINT32_MAX;
    uint8_t *repeats = r->gram_repeats; /* valid after k - 1 was counted: its gram at i occurs twice or more */
    uint64_t *g = r->gram_hash;         /* then also: the (k-1)-gram hash at each position it counted */
    bool counted_before = false;
    for (size_t k = 2; k <= FILTER_TOP_NGRAM_MAX && k <= nw; k++) {
        size_t grams = nw - k + 1;
        double limit = c->rep_top_ngram[k];
        bool counted = counted_before;
        counted_before = false;
        if (!limit) {
            prev_best = UINT32_MAX;
            continue;
        }
        if ((double)bound[k] / text_chars <= limit) continue;
        if (prev_best != UINT32_MAX && (double)(longest[k] + (uint64_t)(k - 1)) * prev_best / text_chars <= limit)
            continue;
        /* Only grams whose words all occur twice or more are counted, and
         * when k - 1 was counted just before, only those whose (k-1)-grams
         * at i and i + 1 both occur twice or more. Equal grams have equal
         * words and sub-grams, so a gram is counted in full or not at all,
         * and one not counted occurs once: when the most frequent counted
         * gram occurs twice or more, it is the most frequent of all (and the
         * first seen among equals); otherwise every gram occurs once and the
         * first one, at position 0, is the most frequent. */
        uint32_t *pos = r->gram_pos;
        size_t npos = 0;
        if (counted) {
            for (size_t i = 0; i < grams; i++) { /* without branches, as below */
                pos[npos] = (uint32_t)i;
                npos += repeats[i] & repeats[i + 1];
            }
            for (size_t h = 0; h < npos; h++) g[pos[h]] = gram_extend(g[pos[h]], w[pos[h] + k - 1].hash);
        } else {
            for (size_t i = 0; i < grams; i++) { /* without branches: which words repeat is unpredictable */
                uint32_t rarest = r->word_count[i];
                for (size_t j = 1; j < k; j++) rarest = min_u32(rarest, r->word_count[i + j]);
                pos[npos] = (uint32_t)i;
                npos += rarest > 1;
            }
            for (size_t h = 0; h < npos; h++) g[pos[h]] = gram_hash(w, pos[h], k);
        }
        ct_reset(&r->table, npos); /* room for npos keys: no growing, so slots stay put */
        uint32_t best_count = 0, best_first = 0, *slot_of = r->gram_slot;
        for (size_t h = 0; h < npos; h++) {
            ct_slot *slot = ct_add(&r->table, g[pos[h]], pos[h]);
            slot_of[h] = (uint32_t)(slot - r->table.slots);
            if (slot->count > best_count || (slot->count == best_count && slot->first < best_first)) {
                best_count = slot->count;
                best_first = slot->first;
            }
        }
        if (best_count < 2) best_count = 1, best_first = 0;
        double gram_chars = (double)(prefix[best_first + k] - prefix[best_first]) + (double)(k - 1);
        if (gram_chars * best_count / text_chars > limit) return top_reasons[k];
        prev_best = best_count;
        memset(repeats, 0, grams);
        for (size_t h = 0; h < npos; h++) repeats[pos[h]] = r->table.slots[slot_of[h]].count > 1;
        counted_before = true;
    }
    return NULL;
}

/* Code points covered by the k-grams at the ascending positions pos[0, npos)
 * (each counted once where grams overlap). */
static uint64_t covered_chars(const uint64_t *prefix, const uint32_t *pos, size_t npos, size_t k)
{
    uint64_t covered = 0;
    for (size_t h = 0, end = 0; h < npos; h++) {
        size_t from = pos[h] > end ? pos[h] : end;
        end = pos[h] + k;
        covered += prefix[end] - prefix[from];
    }
    return covered;
}

/* The lowest duplicated n-gram limit that applies to nw words (0: none). */
static double lowest_dup_limit(const filter_config *c, size_t nw)
{
    double lowest = 0;
    for (size_t k = FILTER_DUP_NGRAM_MIN; k <= FILTER_DUP_NGRAM_MAX && k <= nw; k++)
        if (c->rep_dup_ngram[k] && (!lowest || c->rep_dup_ngram[k] < lowest)) lowest = c->rep_dup_ngram[k];
    return lowest;
}

/* datatrove's duplicated n-gram rules (find_all_duplicate): scan left to
 * right, a gram seen before adds its characters ("".join) and skips n words.
 * A gram can only have been seen before where it occurs twice or more (a
 * "hot" position), and a 5-gram can only occur twice when each of its words
 * does; elsewhere the scan just moves on, so only those positions are hashed
 * and looked at. A k-gram at i occurs twice only if the (k-1)-grams at i and
 * i + 1 both do, so each k keeps the hot positions of k - 1 whose next
 * position is hot too. The scan stops as soon as the repeated characters
 * pass the limit: they only grow, so the decision is already the drop. */
static const char *dup_ngram_check(const filter_config *c, rule_scratch *r, const fword *w, size_t nw,
                                   double text_chars)
{
    const size_t n5 = FILTER_DUP_NGRAM_MIN;
    if (nw < n5) return NULL;
    const uint64_t *prefix = r->char_prefix;
    uint32_t *hot = r->gram_pos, *slot_of = r->gram_slot;
    uint64_t *g = r->gram_hash;
    /* positions whose 5 words all occur twice or more */
    size_t ncand = 0, run = 0;
    for (size_t j = 0; j < nw; j++) { /* without branches: which words repeat is unpredictable */
        run = (run + 1) & -(size_t)(r->word_count[j] > 1);
        hot[ncand] = (uint32_t)(j + 1 - n5);
        ncand += run >= n5;
    }
    if (ncand < 2) return NULL;
    /* a k-gram repeats only where the 5-grams at i .. i + k - 5 all could,
     * so the characters these 5-grams cover bound every k's count */
    double lowest = lowest_dup_limit(c, nw);
    if (!lowest || (double)covered_chars(prefix, hot, ncand, n5) / text_chars <= lowest) return NULL;
    /* of those, the positions whose 5-gram may occur twice, counted like the
     * words: in counters picked by the hash, so a few positions whose 5-gram
     * occurs once stay too. They change nothing below: their grams match no
     * other position's, they only cost a look-up. */
    unsigned bits = counter_bits(ncand, 8);
    uint8_t *counter = seen_counters(r); /* a byte each keeps them in cache */
    for (size_t h = 0; h < ncand; h++) {
        size_t i = hot[h];
        g[i] = gram_hash5(w, i);
        slot_of[h] = (uint32_t)(g[i] >> (64 - bits));
        counter[slot_of[h]] += counter[slot_of[h]] < 2;
    }
    size_t nhot = 0;
    for (size_t h = 0; h < ncand; h++) { /* in place: nhot <= h */
        hot[nhot] = hot[h];
        nhot += counter[slot_of[h]] > 1;
    }
    for (size_t h = 0; h < ncand; h++) counter[slot_of[h]] = 0;
    if (nhot == 0) return NULL;
    for (size_t k = n5; k <= FILTER_DUP_NGRAM_MAX && k <= nw; k++) {
        if (k > n5) {
            /* hot[] ascends, and a (k-1)-gram at i + 1 ends inside the text,
             * so the k-gram at i kept does too */
            size_t kept = 0;
            for (size_t h = 0; h + 1 < nhot; h++) { /* without branches, as above */
                hot[kept] = hot[h];
                kept += hot[h + 1] == hot[h] + 1;
            }
            nhot = kept;
            if (nhot == 0) return NULL;
            for (size_t h = 0; h < nhot; h++) g[hot[h]] = gram_extend(g[hot[h]], w[hot[h] + k - 1].hash);
        }
        double limit = c->rep_dup_ngram[k];
        if (!limit) continue;
        /* repeated grams do not overlap and all start at hot positions, so
         * the characters the hot k-grams cover bound what can be counted */
        if ((double)covered_chars(prefix, hot, nhot, k) / text_chars <= limit) continue;
        ct_reset(&r->table, nhot);
        uint64_t repeated_chars = 0;
        size_t next = 0; /* the scan's position */
        for (size_t h = 0; h < nhot; h++) {
            size_t i = hot[h];
            if (i < next) continue; /* inside a duplicate the scan jumped over */
            ct_slot *slot = ct_add(&r->table, g[i], (uint32_t)i);
            if (slot->count > 1) {
                repeated_chars += prefix[i + k] - prefix[i];
                if ((double)repeated_chars / text_chars > limit) return dup_reasons[k];
                slot->count--; /* a set, not a counter */
                next = i + k;
            }
        }
    }
    return NULL;
}

const char *gopher_repetition_text_check(const filter_config *c, rule_scratch *r, const char *s, size_t n,
                                         size_t text_chars)
{
    if (text_chars == 0) return "gopher_repetition:empty";

    size_t runs = find_lines(r, s, n);
    dup_count para = paragraph_duplicates(r, s, n, runs, c->rep_dup_para_frac);
    if (c->rep_dup_para_frac && (double)para.dup_elements / (double)para.elements > c->rep_dup_para_frac)
        return "gopher_repetition:dup_para_frac";
    if (c->rep_dup_para_char_frac && (double)para.dup_chars / (double)text_chars > c->rep_dup_para_char_frac)
        return "gopher_repetition:dup_para_char_frac";

    dup_count line = find_duplicates(r, s, n, r->lines, runs + 1, c->rep_dup_line_frac);
    if (c->rep_dup_line_frac && (double)line.dup_elements / (double)line.elements > c->rep_dup_line_frac)
        return "gopher_repetition:dup_line_frac";
    if (c->rep_dup_line_char_frac && (double)line.dup_chars / (double)text_chars > c->rep_dup_line_char_frac)
        return "gopher_repetition:dup_line_char_frac";
    return NULL;
}

const char *gopher_repetition_word_check(const filter_config *c, rule_scratch *r, const fwords *w)
{
    double text_chars = (double)w->text_chars;
    size_t nw = w->n;
    if (nw < 2 || text_chars == 0) return NULL;
    ensure_gram_arrays(r, nw);
    if (!r->word_counters) r->word_counters = xcalloc((size_t)1 << WORD_COUNTER_BITS_MAX, sizeof *r->word_counters);
    count_words(r, w->w, nw);
    const char *reason = top_ngram_check(c, r, w->w, nw, text_chars);
    return reason ? reason : dup_ngram_check(c, r, w->w, nw, text_chars);
}

const char *gopher_repetition_check(const filter_config *c, rule_scratch *r, const char *s, size_t n,
                                    const fwords *w)
{
    const char *reason = gopher_repetition_text_check(c, r, s, n, w->text_chars);
    return reason ? reason : gopher_repetition_word_check(c, r, w);
}
