/* words.c - NLTK-like word tokenisation with ICU for scripts without spaces. */
#include "filter/words.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <unicode/ubrk.h>
#include <unicode/ustring.h>

#include "core/util.h"
#include "filter/uchar.h"

/* The characters of the token NLTK makes of a '"': `` or '' (its
 * STARTING_QUOTES and ENDING_QUOTES rules), so n-grams holding it are that
 * much longer in Gopher repetition's counts. Its hash stays that of '"': the
 * two are not told apart (see docs/filter.md). */
#define NLTK_DOUBLE_QUOTE_CHARS 2

/* ASCII classes, looked up once per byte. */
enum { A_SPACE = 1, A_BREAK = 2, A_ALPHA = 4, A_PUNCT = 8, A_SPLIT = 16, A_ALNUM = 64, A_WORD = 128 };
static uint8_t ascii_class[256]; /* bytes >= 0x80 (parts of wider characters): none */

/* Classes of wider characters, as uchar.h defines them; those of the Basic
 * Multilingual Plane are looked up in a table, filled 256 code points at a
 * time when one of them is first seen (by any thread). */
enum { W_ALPHA = 1, W_PUNCT = 2, W_SPACE = 4, W_BREAK = 8, W_NOSPACE = 16, W_QUOTE = 32 };
#define WIDE_TABLE_SIZE 0x10000
#define WIDE_PAGE_BITS 8
static uint8_t wide_class[WIDE_TABLE_SIZE];
static atomic_bool wide_page_ready[WIDE_TABLE_SIZE >> WIDE_PAGE_BITS];
static pthread_mutex_t wide_fill_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_wide_quote(uint32_t cp);

static uint8_t wide_flags_of(uint32_t cp)
{
    return (uint8_t)((uc_is_alpha(cp) ? W_ALPHA : 0) | (uc_is_datatrove_punct(cp) ? W_PUNCT : 0) |
                     (uc_is_space(cp) ? W_SPACE : 0) | (uc_is_line_break(cp) ? W_BREAK : 0) |
                     (uc_is_nospace_script(cp) ? W_NOSPACE : 0) | (is_wide_quote(cp) ? W_QUOTE : 0));
}

static void fill_wide_page(uint32_t page)
{
    pthread_mutex_lock(&wide_fill_lock);
    if (!atomic_load_explicit(&wide_page_ready[page], memory_order_relaxed)) {
        for (uint32_t cp = page << WIDE_PAGE_BITS, end = cp + (1u << WIDE_PAGE_BITS); cp < end; cp++)
            wide_class[cp] = wide_flags_of(cp);
        atomic_store_explicit(&wide_page_ready[page], true, memory_order_release);
    }
    pthread_mutex_unlock(&wide_fill_lock);
}

/* The classes of code point cp (>= 0x80). */
static inline uint8_t wide_flags(uint32_t cp)
{
    if (cp >= WIDE_TABLE_SIZE) return wide_flags_of(cp);
    uint32_t page = cp >> WIDE_PAGE_BITS;
    if (!atomic_load_explicit(&wide_page_ready[page], memory_order_acquire)) fill_wide_page(page);
    return wide_class[cp];
}

static void pack_two_words(void);

static void fill_ascii_class(void)
{
    for (int c = 0; c < 128; c++) {
        uint8_t k = 0;
        if (uc_is_space((uint32_t)c)) k |= A_SPACE;
        if (uc_is_line_break((uint32_t)c)) k |= A_BREAK;
        if (isalpha(c)) k |= A_ALPHA;
        if (isalnum(c)) k |= A_ALNUM;
        if (uc_is_word((uint32_t)c)) k |= A_WORD; /* Python's \w */
        if (uc_is_datatrove_punct((uint32_t)c)) k |= A_PUNCT;
        /* characters NLTK's Treebank rules always make tokens of their own */
        if (strchr(";@#$%&?!()[]{}<>*\"", c) && c) k |= A_SPLIT;
        ascii_class[c] = k;
    }
    pack_two_words();
}

/* Fills the class table once, whichever thread gets here first. */
static void init_ascii_class(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_ascii_class);
}

void words_init(fwords *ws)
{
    memset(ws, 0, sizeof *ws);
    init_ascii_class();
}

void words_free(fwords *ws)
{
    free(ws->w);
    punkt_offsets_free(&ws->periods);
    punkt_offsets_free(&ws->starts);
    if (ws->icu_breaker) ubrk_close(ws->icu_breaker);
    free(ws->icu_u16);
    memset(ws, 0, sizeof *ws);
}

/* Quotes NLTK splits off wherever they are. */
static bool is_wide_quote(uint32_t cp)
{
    return cp == 0x201C || cp == 0x201D || cp == 0x2018 || cp == 0x2019 || cp == 0xAB || cp == 0xBB ||
           cp == 0x201E;
}

/* Spreads the bits of x; a bijection, so distinct inputs stay distinct. */
static inline uint64_t mix_bits(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ULL;
    x ^= x >> 32;
    return x;
}

/* The first min(len, 8) bytes of w (with the text going on to end) as a
 * zero-padded integer. */
static inline uint64_t word_prefix(const char *w, size_t len, const char *end)
{
    uint64_t x = 0;
    if (end - w >= 8) {
        memcpy(&x, w, 8);
        if (len < 8) x &= (1ULL << (8 * len)) - 1;
    } else {
        memcpy(&x, w, len < 8 ? len : 8);
    }
    return x;
}

/* Hash of the word w (len bytes, its word_prefix x). Words of up to 7 bytes
 * map to distinct hashes (their bytes and length, packed, then mixed by a
 * bijection); longer ones are hashed 8 bytes at a time. */
static inline uint64_t word_hash(uint64_t x, const char *w, size_t len)
{
    if (len < 8) return mix_bits(x | (uint64_t)len << 56);
    uint64_t h = 0x9E3779B97F4A7C15ULL * len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&x, w + i, 8);
        h = mix_bits(h ^ x) + 0x632BE59BD9B4E019ULL;
    }
    if (i < len) { /* the last 8 bytes, overlapping the block before */
        memcpy(&x, w + len - 8, 8);
        h = mix_bits(h ^ x) + 0x632BE59BD9B4E019ULL;
    }
    return mix_bits(h);
}

/* Table slot where the lookup of packed word x starts, by the set's multiplier. */
static inline size_t stop_slot(const stopword_set *stop, uint64_t x)
{
    return (size_t)((x * stop->multiplier) >> 57) & (STOPWORD_SLOTS - 1);
}

/* True when w (len bytes, its word_prefix x) is one of the stop words. */
static inline bool is_stop_word(const stopword_set *stop, uint64_t x, const char *w, size_t len)
{
    if (stop->single_probe) { /* one slot to look at, without a branch: every word has its own */
        size_t i = stop_slot(stop, x);
        return (stop->slot_word[i] == x) & (stop->slot_len[i] == len) & (len != 0);
    }
    if (len > stop->max_len) return false;
    if (stop->max_len <= sizeof(uint64_t)) { /* look the word up as an integer */
        for (size_t i = stop_slot(stop, x); stop->slot_len[i]; i = (i + 1) & (STOPWORD_SLOTS - 1))
            if (stop->slot_word[i] == x && stop->slot_len[i] == len) return true;
        return false;
    }
    for (int k = 0; k < stop->n; k++)
        if (stop->lens[k] == len && memcmp(stop->words[k], w, len) == 0) return true;
    return false;
}

/* Appends the word s[off, off + len), whose code points and WORD_ALPHA and
 * WORD_SYMBOL flags the caller's scan already knows. Inlined: most words come this way. */
static inline __attribute__((always_inline)) void push_known_word(fwords *ws, const char *s, size_t off, size_t len,
                                                                   size_t nchars, uint32_t line, uint32_t flags,
                                                                   const stopword_set *stop)
{
    if (ws->n == ws->cap) {
        ws->cap = ws->cap ? ws->cap * 2 : 1024;
        ws->w = xrealloc(ws->w, ws->cap * sizeof *ws->w);
    }
    fword *w = &ws->w[ws->n++];
    w->off = (uint32_t)off;
    w->len = (uint32_t)len;
    w->line = line;
    w->nchars = (uint32_t)nchars;
    uint64_t prefix = word_prefix(s + off, len, ws->text_end);
    w->hash = word_hash(prefix, s + off, len);
    if (stop && is_stop_word(stop, prefix, s + off, len)) flags |= WORD_STOP;
    w->flags = flags;
    uint64_t content = !(flags & WORD_SYMBOL);
    ws->tally_words += content | (uint64_t)((flags & WORD_ALPHA) != 0) << TALLY_HIGH;
    ws->tally_chars += (uint64_t)((flags & WORD_STOP) != 0) | (content * nchars) << TALLY_HIGH;
}

/* NLTK's CONTRACTIONS2: each splits after its first part, wherever \b (a
 * word character on one side only) stands before it and after it; wanna
 * only before a space, (wan)(na)(?=\s), which in a run is its end. Those
 * of letters only are also found as whole words (push_alnum_word), split
 * after their third letter. */
static const struct {
    const char *word;
    uint8_t len, first;
    bool at_end_only;
} contractions2[] = {
    {"cannot", 6, 3, false}, {"d'ye", 4, 1, false},  {"gimme", 5, 3, false}, {"gonna", 5, 3, false},
    {"gotta", 5, 3, false},  {"lemme", 5, 3, false}, {"more'n", 6, 4, false}, {"wanna", 5, 3, true},
};
#define TWO_WORD_FIRST_LEN 3
#define CASE_BITS 0x2020202020202020ULL /* an ASCII letter's lower-case bit, in every byte */
/* They are looked up by one multiplication into a table where each has a
 * slot of its own (this multiplier was picked for that; the unit test of
 * every word would fail if two shared one). */
#define TWO_WORD_SLOT_BITS 3
#define TWO_WORD_MULTIPLIER 0x9E3779B97F4A7CE7ULL
static uint64_t two_word_slot[1 << TWO_WORD_SLOT_BITS]; /* the word's word_prefix() | CASE_BITS, or 0 */

static inline size_t two_word_slot_of(uint64_t low)
{
    return (size_t)((low * TWO_WORD_MULTIPLIER) >> (64 - TWO_WORD_SLOT_BITS));
}

static void pack_two_words(void)
{
    for (size_t i = 0; i < sizeof contractions2 / sizeof contractions2[0]; i++) {
        if (strchr(contractions2[i].word, '\'')) continue;
        uint64_t low = 0;
        memcpy(&low, contractions2[i].word, contractions2[i].len);
        low |= CASE_BITS;
        two_word_slot[two_word_slot_of(low)] = low;
    }
}

/* Length of the first of the two words NLTK's CONTRACTIONS2 makes of the
 * whole word of ASCII letters and digits whose word_prefix() is prefix, or 0.
 * With the case bits set, the padding past a word of up to 7 bytes is 0x20,
 * which no letter or digit is, so words of other lengths never match. */
static inline size_t two_word_split(uint64_t prefix)
{
    uint64_t low = prefix | CASE_BITS;
    return two_word_slot[two_word_slot_of(low)] == low ? TWO_WORD_FIRST_LEN : 0;
}

/* push_known_word() for a whole word of ASCII letters and digits (as NLTK's
 * \b sees it: its neighbours are spaces or tokens of their own), split in
 * two when it is one of NLTK's CONTRACTIONS2. */
static inline __attribute__((always_inline)) void push_alnum_word(fwords *ws, const char *s, size_t off, size_t len,
                                                                   uint32_t line, uint32_t flags,
                                                                   const stopword_set *stop)
{
    size_t first = two_word_split(word_prefix(s + off, len, ws->text_end));
    if (__builtin_expect(first != 0, 0)) {
        push_known_word(ws, s, off, first, first, line, flags, stop);
        off += first;
        len -= first;
    }
    push_known_word(ws, s, off, len, len, line, flags, stop);
}

/* Appends the word s[off, off + len) (nothing when empty), finding its code
 * points and flags. */
static void push_word(fwords *ws, const char *s, size_t off, size_t len, uint32_t line,
                      const stopword_set *stop)
{
    if (len == 0) return;
    /* ASCII words (most): the classes of all bytes and of one, no decoding */
    uint8_t any = 0, all = A_PUNCT, high = 0;
    for (size_t i = off, end = off + len; i < end; i++) {
        unsigned char c = (unsigned char)s[i];
        any |= ascii_class[c];
        all &= ascii_class[c];
        high |= c;
    }
    if (!(high & 0x80)) {
        uint32_t ascii_flags = (any & A_ALPHA ? WORD_ALPHA : 0) | (all & A_PUNCT ? WORD_SYMBOL : 0);
        push_known_word(ws, s, off, len, len, line, ascii_flags, stop);
        return;
    }
    uint32_t flags = WORD_SYMBOL, nchars = 0;
    for (size_t i = off, end = off + len; i < end;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 128) {
            uint8_t k = ascii_class[c];
            if (k & A_ALPHA) flags |= WORD_ALPHA;
            if (!(k & A_PUNCT)) flags &= ~(uint32_t)WORD_SYMBOL;
            i++;
        } else {
            uint8_t k = wide_flags(uc_next(s, end, &i));
            if (k & W_ALPHA) flags |= WORD_ALPHA;
            if (!(k & W_PUNCT)) flags &= ~(uint32_t)WORD_SYMBOL;
        }
        nchars++;
    }
    push_known_word(ws, s, off, len, nchars, line, flags, stop);
}

/* Length of a contraction suffix NLTK splits off the end of w, or 0: ENDING_QUOTES's
 * ([^' ])('[sS]|'[mM]|'[dD]) and ([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T), so 's 'm 'd in
 * any case and the others all lower or all upper case. */
static size_t contraction_len(const char *w, size_t len)
{
    /* every suffix has its apostrophe second or third from the end */
    if (len < 3 || (w[len - 2] != '\'' && w[len - 3] != '\'')) return 0;
    if (w[len - 2] == '\'' && w[len - 3] != '\'') {
        char c = (char)ascii_lower((unsigned char)w[len - 1]);
        if (c == 's' || c == 'm' || c == 'd') return 2;
    }
    static const char suffix3[][4] = {"'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"};
    if (len >= 4 && w[len - 4] != '\'')
        for (size_t k = 0; k < sizeof suffix3 / sizeof suffix3[0]; k++)
            if (!memcmp(w + len - 3, suffix3[k], 3)) return 3;
    return 0;
}

typedef struct {
    fwords *ws;
    const char *s;
    uint32_t line;
    const stopword_set *stop;
} chunk_ctx;

/* True when NLTK's word_tokenize splits the period at s[pos] off its word
 * (a sentence's final period, punkt_sentences); asked in increasing
 * pos order while one text is split. */
static bool is_final_period(fwords *ws, size_t pos)
{
    while (ws->next_period < ws->periods.n && ws->periods.at[ws->next_period] < pos) ws->next_period++;
    return ws->next_period < ws->periods.n && ws->periods.at[ws->next_period] == pos;
}

/* True when a punkt sentence starts at s[pos]; asked in increasing pos order. */
static bool is_sentence_start(fwords *ws, size_t pos)
{
    while (ws->next_start < ws->starts.n && ws->starts.at[ws->next_start] < pos) ws->next_start++;
    return ws->next_start < ws->starts.n && ws->starts.at[ws->next_start] == pos;
}

/* True when a punkt sentence starts at s[pos], inside a run that starts at
 * run: the cursor moves only up to run (flush_run asks about run itself
 * later), so each look-ahead reads just the starts inside the run. */
static bool sentence_starts_in_run(fwords *ws, size_t run, size_t pos)
{
    while (ws->next_start < ws->starts.n && ws->starts.at[ws->next_start] < run) ws->next_start++;
    size_t next = ws->next_start;
    while (next < ws->starts.n && ws->starts.at[next] < pos) next++;
    return next < ws->starts.n && ws->starts.at[next] == pos;
}

/* Appends the '"' or "''" at s[i] (len bytes) as the `` or '' NLTK makes of
 * it: `` at a sentence's start (a '"' only) or after one of ' ( [ { < and the
 * marks STARTING_QUOTES pads with spaces (« “ ‘ „ `), '' elsewhere. */
static void push_double_quote(chunk_ctx *c, size_t i, size_t len)
{
    const char *s = c->s;
    bool opening;
    if (is_sentence_start(c->ws, i)) {
        opening = len == 1;
    } else {
        size_t t = uc_prev_start(s, i);
        uint32_t prev = uc_next(s, i, &t);
        opening = prev == ' ' || prev == '(' || prev == '[' || prev == '{' || prev == '<' || prev == '`' ||
                  prev == 0xAB || prev == 0x201C || prev == 0x2018 || prev == 0x201E;
    }
    push_known_word(c->ws, s, i, len, NLTK_DOUBLE_QUOTE_CHARS, c->line, WORD_SYMBOL | (opening ? WORD_OPENING : 0),
                    c->stop);
    const char *form = opening ? "``" : "''"; /* hashed as the token NLTK writes */
    c->ws->w[c->ws->n - 1].hash = word_hash(word_prefix(form, 2, form + 2), form, 2);
}

/* Whether the text NLTK's earlier rules made has a space before s[a]: a
 * sentence's start, a space, or a mark those rules pad with spaces. */
static bool space_before(chunk_ctx *c, size_t a)
{
    const char *s = c->s;
    if (a == 0 || is_sentence_start(c->ws, a)) return true;
    size_t p = uc_prev_start(s, a), t = p;
    uint32_t prev = uc_next(s, a, &t);
    if (prev < 128) {
        if (prev && strchr(" \"`:,;@#$%&?!*()[]{}<>", (int)prev)) return true;
        /* the last of "..", "--": padded as a run */
        return (prev == '.' || prev == '-') && p > 0 && s[p - 1] == (char)prev;
    }
    return prev == 0xAB || prev == 0x201C || prev == 0x2018 || prev == 0x201E || prev == 0xBB || prev == 0x201D ||
           prev == 0x2019;
}

/* Whether c can start a CONTRACTIONS2 word (c, d, g, l, m, w in either case). */
static inline bool contraction2_lead(char c)
{
    switch (c | 0x20) {
    case 'c': case 'd': case 'g': case 'l': case 'm': case 'w': return true;
    default: return false;
    }
}

/* Whether the character that ends just before s[i] is a word character (\w). */
static bool word_char_before(const char *s, size_t i)
{
    unsigned char c = (unsigned char)s[i - 1];
    if (c < 0x80) return ascii_class[c] & A_WORD;
    size_t t = uc_prev_start(s, i);
    return uc_is_word(uc_next(s, i, &t));
}

/* Whether the character at s[i] (before b) is a word character. */
static bool word_char_at(const char *s, size_t i, size_t b)
{
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) return ascii_class[c] & A_WORD;
    return uc_is_word(uc_next(s, b, &i));
}

/* Length of the CONTRACTIONS2 word at s[i] (in a run ending at b, \b
 * before it) and its first part's in *first, or 0. */
static size_t contraction2_at(const char *s, size_t i, size_t b, size_t *first)
{
    for (size_t k = 0; k < sizeof contractions2 / sizeof contractions2[0]; k++) {
        size_t n = contractions2[k].len;
        if ((s[i] | 0x20) != contractions2[k].word[0] || b - i < n || strncasecmp(s + i, contractions2[k].word, n))
            continue;
        if (contractions2[k].at_end_only ? i + n != b : i + n < b && word_char_at(s, i + n, b)) continue;
        *first = contractions2[k].first;
        return n;
    }
    return 0;
}

/* Where the first CONTRACTIONS2 word in s[from, b) starts (the run starts
 * at a: \b stands there), its length in *n and its first part's in *first;
 * b when there is none. */
static size_t next_contraction2(const char *s, size_t from, size_t a, size_t b, size_t *n, size_t *first)
{
    for (size_t i = from; i + 4 <= b; i++) {
        if (!contraction2_lead(s[i]) || (i > a && word_char_before(s, i))) continue;
        if ((*n = contraction2_at(s, i, b, first))) return i;
    }
    return b;
}

/* Whether a chunk s[a, b) holds a CONTRACTIONS2 word. */
static bool has_contraction2(const char *s, size_t a, size_t b)
{
    size_t n, first;
    return next_contraction2(s, a, a, b, &n, &first) < b;
}

/* Length of 'tis or 'twas at s[a] (in a run ending at b) when \b follows
 * it, or 0: NLTK's CONTRACTIONS3, (?i) ('t)(is|was)\b, once a space is
 * before it. */
static inline size_t tis_len(const char *s, size_t a, size_t b)
{
    if (b - a < 4 || s[a] != '\'') return 0;
    size_t n = b - a >= 5 && !strncasecmp(s + a, "'twas", 5) ? 5 : !strncasecmp(s + a, "'tis", 4) ? 4 : 0;
    return n && (a + n == b || !word_char_at(s, a + n, b)) ? n : 0;
}

/* Pushes 't and is (or was), the tis_len() n bytes at s[a]; returns where
 * the rest starts. */
static size_t push_tis(chunk_ctx *c, size_t a, size_t n)
{
    if (!n) return a;
    push_word(c->ws, c->s, a, 2, c->line, c->stop);
    push_word(c->ws, c->s, a + 2, n - 2, c->line, c->stop);
    return a + n;
}

/* push_word() for the word s[a, b) split as NLTK's CONTRACTIONS2 and then
 * CONTRACTIONS3 split it: each CONTRACTIONS2 word is padded with spaces, so
 * a 'tis after one splits too. */
static void push_word_contractions(chunk_ctx *c, size_t a, size_t b)
{
    const char *s = c->s;
    size_t from = a, n, first;
    for (size_t i; (i = next_contraction2(s, from, a, b, &n, &first)) < b;) {
        push_word(c->ws, s, from, i - from, c->line, c->stop);
        push_word(c->ws, s, i, first, c->line, c->stop);
        push_word(c->ws, s, i + first, n - first, c->line, c->stop);
        from = push_tis(c, i + n, tis_len(s, i + n, b));
    }
    push_word(c->ws, s, from, b - from, c->line, c->stop);
}

/* Emits the run s[a, b) (its chunk ends at chunk_end): splits a sentence's
 * final period, a trailing quote and contractions. */
static void flush_run(chunk_ctx *c, size_t a, size_t b, size_t chunk_end)
{
    if (a >= b) return;
    const char *s = c->s;
    /* a final period, alone or before a closing "'" (NLTK's final-period
     * rule takes the closers after it along) */
    bool quote_after = b - a > 2 && s[b - 1] == '\'' && s[b - 2] == '.' && is_final_period(c->ws, b - 2);
    bool final_period = quote_after || (s[b - 1] == '.' && b - a > 1 && is_final_period(c->ws, b - 1));
    if (final_period) b -= 1 + quote_after;
    /* NLTK splits a final quote or a contraction only before a space: one it
     * pads around the punctuation that follows, the text's end or a ' ' (not a
     * line break or a tab) */
    bool spaced = b < chunk_end || s + b == c->ws->text_end || s[b] == ' ';
    bool trailing_quote = false;
    if (spaced && b - a > 1 && s[b - 1] == '\'' && s[b - 2] != '\'') {
        trailing_quote = true;
        b--;
    }
    size_t cl = spaced ? contraction_len(s + a, b - a) : 0;
    size_t tis = tis_len(s, a, b - cl); /* 'tis, 'twas: 't is, 't was */
    size_t rest = tis && space_before(c, a) ? push_tis(c, a, tis) : a;
    push_word_contractions(c, rest, b - cl);
    if (cl) push_word(c->ws, s, b - cl, cl, c->line, c->stop);
    if (trailing_quote) push_word(c->ws, s, b, 1, c->line, c->stop);
    if (final_period) push_word(c->ws, s, b + trailing_quote, 1, c->line, c->stop);
    if (quote_after) push_word(c->ws, s, b + trailing_quote + 1, 1, c->line, c->stop);
}

static inline size_t alnum_run_end(const char *s, size_t n, size_t i, uint8_t *seen);

/* Length of the token an apostrophe at s[i] (chunk ends at b) starts, or 0
 * when it stays in its run: "''" is one (ENDING_QUOTES), and a "'" before
 * one word character, not m t s d n, that ends the word is split off
 * (STARTING_QUOTES's (?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b). */
static size_t quote_token_len(const char *s, size_t i, size_t b)
{
    if (i + 1 >= b) return 0;
    if (s[i + 1] == '\'') return 2;
    size_t t = i + 1;
    uint32_t cp = uc_next(s, b, &t);
    if (!uc_is_word(cp) || (cp < 128 && strchr("mtsdnMTSDN", (int)cp))) return 0;
    if (t == b) return 1;
    return uc_is_word(uc_next(s, b, &t)) ? 0 : 1;
}

/* Emits the run s[a, b) as flush_run would; a run of ASCII letters and
 * digits alone (pure) is one word, its flags known. */
static inline void flush_known_run(chunk_ctx *c, size_t a, size_t b, size_t chunk_end, bool pure, uint8_t seen)
{
    if (pure && a < b)
        push_alnum_word(c->ws, c->s, a, b - a, c->line, seen & A_ALPHA ? WORD_ALPHA : 0, c->stop);
    else
        flush_run(c, a, b, chunk_end);
}

static void split_chunk(chunk_ctx *c, size_t a, size_t b)
{
    const char *s = c->s;
    size_t text_n = (size_t)(c->ws->text_end - s);
    size_t run = a, i = a;
    bool pure = true; /* the run so far is ASCII letters and digits only */
    size_t taken = SIZE_MAX; /* a ':' or ',' the one before it took as its context */
    uint8_t seen = 0; /* their classes */
    while (i < b) {
        unsigned char ch = (unsigned char)s[i];
        size_t tok = 0; /* length of a token that stands alone at i */
        if (ch < 128) {
            uint8_t k = ascii_class[ch];
            if (k & A_ALNUM) {
                /* scanned up to the text's end, 16 bytes at a time: the run
                 * stops at b anyway, where whitespace or the end is */
                i = alnum_run_end(s, text_n, i, &seen);
                continue;
            }
            if ((ch == '\'' || ch == ':') && i > run && sentence_starts_in_run(c->ws, run, i)) {
                /* a punkt sentence starts at a mark that stays in a run
                 * (left.'She, end.:5: punkt breaks before them after a
                 * period), and NLTK splits each sentence apart: the run ends
                 * here as at the text's end */
                flush_known_run(c, run, i, i + 1, pure, seen);
                run = i;
                pure = true;
                seen = 0;
            }
            if (k & A_SPLIT) {
                tok = 1;
            } else if ((ch == ',' || ch == ':') && i != taken) {
                /* NLTK's ([:,])([^\d]) takes the next character along: a ':'
                 * or ',' there is not split again (a::b is a : :b) */
                if (!(i + 1 < b && isdigit((unsigned char)s[i + 1]))) {
                    tok = 1;
                    if (i + 1 < b && (s[i + 1] == ':' || s[i + 1] == ',')) taken = i + 1;
                }
            } else if (ch == '\'') {
                tok = quote_token_len(s, i, b);
            } else if (ch == '.' && i + 1 < b && s[i + 1] == '.') {
                tok = 2;
                while (i + tok < b && s[i + tok] == '.') tok++;
            } else if (ch == '-' && i + 1 < b && s[i + 1] == '-') {
                tok = 2;
            } else if (ch == '`') { /* ([`]+) then (``): a run is pairs, then one left over */
                tok = i + 1 < b && s[i + 1] == '`' ? 2 : 1;
            }
            if (!tok) {
                pure = false;
                i++;
                continue;
            }
        } else {
            size_t t = i;
            uint32_t cp = uc_next(s, b, &t);
            if (!is_wide_quote(cp)) {
                pure = false;
                i = t;
                continue;
            }
            tok = t - i;
        }
        flush_known_run(c, run, i, b, pure, seen);
        if (ch == '"' || (ch == '\'' && tok == 2)) /* NLTK writes it `` (opening) or '' (closing) */
            push_double_quote(c, i, tok);
        else if (ch < 128) /* tok bytes of one ASCII mark (a run of . - ` or '): no letter, its class */
            push_known_word(c->ws, s, i, tok, tok, c->line, ascii_class[ch] & A_PUNCT ? WORD_SYMBOL : 0, c->stop);
        else
            push_word(c->ws, s, i, tok, c->line, c->stop);
        i += tok;
        run = i;
        pure = true;
        seen = 0;
    }
    flush_known_run(c, run, b, b, pure, seen);
}

/* Splits s[a, b) into words with ICU's dictionary-based word breaker. */
static void split_icu(chunk_ctx *c, size_t a, size_t b)
{
    fwords *ws = c->ws;
    UErrorCode err = U_ZERO_ERROR;
    size_t need = b - a + 1;
    if (ws->icu_cap < need) {
        free(ws->icu_u16);
        ws->icu_cap = need * 2;
        ws->icu_u16 = xmalloc(ws->icu_cap * sizeof *ws->icu_u16);
    }
    int32_t n16 = 0;
    u_strFromUTF8(ws->icu_u16, (int32_t)ws->icu_cap, &n16, c->s + a, (int32_t)(b - a), &err);
    if (!ws->icu_breaker && U_SUCCESS(err)) ws->icu_breaker = ubrk_open(UBRK_WORD, "", NULL, 0, &err);
    if (U_SUCCESS(err)) ubrk_setText(ws->icu_breaker, ws->icu_u16, n16, &err);
    if (U_FAILURE(err)) { /* ICU unusable: fall back to the plain splitter */
        split_chunk(c, a, b);
        return;
    }
    /* UTF-16 offsets back to UTF-8 offsets, walking both forward */
    size_t pos8 = a;
    int32_t pos16 = ubrk_first(ws->icu_breaker);
    for (int32_t next = ubrk_next(ws->icu_breaker); next != UBRK_DONE; next = ubrk_next(ws->icu_breaker)) {
        size_t start8 = pos8;
        while (pos16 < next) {
            unsigned char lead = (unsigned char)c->s[pos8];
            size_t len = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
            pos8 += len;
            pos16 += len == 4 ? 2 : 1;
        }
        push_word(ws, c->s, start8, pos8 - start8, c->line, c->stop);
    }
}

/* Next to the plain word, the next most common chunks: a word of ASCII
 * letters and digits s[a, i) followed by one ',' ';' ':' or '.' and then a
 * space or the end. Emits them as split_chunk would and returns true, or
 * returns false (emitting nothing) for any other chunk. */
static bool split_word_and_mark(chunk_ctx *c, size_t a, size_t i, bool alpha)
{
    const char *s = c->s;
    size_t n = (size_t)(c->ws->text_end - s);
    if (i + 1 < n && !(ascii_class[(unsigned char)s[i + 1]] & A_SPACE)) return false;
    char mark = s[i];
    if (mark == ',' || mark == ';' || mark == ':') { /* always a token of its own before a space */
        push_alnum_word(c->ws, s, a, i - a, c->line, alpha ? WORD_ALPHA : 0, c->stop);
        push_known_word(c->ws, s, i, 1, 1, c->line, WORD_SYMBOL, c->stop);
        return true;
    }
    if (mark != '.') return false;
    if (is_final_period(c->ws, i)) {
        push_alnum_word(c->ws, s, a, i - a, c->line, alpha ? WORD_ALPHA : 0, c->stop);
        push_known_word(c->ws, s, i, 1, 1, c->line, WORD_SYMBOL, c->stop);
    } else { /* letters and digits and the period: ASCII, not all punctuation */
        push_known_word(c->ws, s, a, i + 1 - a, i + 1 - a, c->line, alpha ? WORD_ALPHA : 0, c->stop);
    }
    return true;
}

/* End of the run of ASCII letters and digits from s[i]; ORs the classes of
 * its bytes into *seen. */
static inline size_t alnum_run_end(const char *s, size_t n, size_t i, uint8_t *seen)
{
#ifdef __SSE2__
    /* 16 bytes at a time: a byte is a digit or a letter by two range tests */
    const __m128i digit_lo = _mm_set1_epi8((char)('0' + 128)), digit_n = _mm_set1_epi8((char)(10 - 128));
    const __m128i alpha_lo = _mm_set1_epi8((char)('a' + 128)), alpha_n = _mm_set1_epi8((char)(26 - 128));
    const __m128i case_bit = _mm_set1_epi8(0x20);
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i digit = _mm_cmplt_epi8(_mm_sub_epi8(v, digit_lo), digit_n);
        __m128i alpha = _mm_cmplt_epi8(_mm_sub_epi8(_mm_or_si128(v, case_bit), alpha_lo), alpha_n);
        unsigned alnum = (unsigned)_mm_movemask_epi8(_mm_or_si128(digit, alpha));
        unsigned run = (unsigned)__builtin_ctz(~alnum); /* bit 16 of ~alnum is set */
        unsigned in_run = (1u << run) - 1;
        if (run) *seen |= A_ALNUM;
        if ((unsigned)_mm_movemask_epi8(alpha) & in_run) *seen |= A_ALPHA;
        i += run;
        if (run < 16) return i;
    }
#endif
    uint8_t k;
    while (i < n && ((k = ascii_class[(unsigned char)s[i]]) & A_ALNUM)) {
        *seen |= k;
        i++;
    }
    return i;
}

/* End of the run of ' ' that starts at s[i] (indentation: runs of spaces
 * are long in code). */
static inline size_t space_run_end(const char *s, size_t n, size_t i)
{
#ifdef __SSE2__
    const __m128i space = _mm_set1_epi8(' ');
    while (i + 16 <= n) {
        unsigned spaces = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + i)), space));
        unsigned run = (unsigned)__builtin_ctz(~spaces); /* bit 16 of ~spaces is set */
        i += run;
        if (run < 16) return i;
    }
#endif
    while (i < n && s[i] == ' ') i++;
    return i;
}

void words_tokenize(fwords *ws, const char *s, size_t n, const stopword_set *stop)
{
    words_tokenize_counted(ws, s, n, uc_count(s, n), stop);
}

void words_tokenize_counted(fwords *ws, const char *s, size_t n, size_t text_chars, const stopword_set *stop)
{
    ws->n = 0;
    ws->tally_words = ws->tally_chars = 0;
    ws->text_end = s + n;
    ws->text_chars = text_chars;
    punkt_sentences(s, n, &ws->periods, &ws->starts);
    ws->next_period = ws->next_start = 0;
    chunk_ctx c = {ws, s, 0, stop};
    size_t i = 0, line_start = 0; /* where the last line (after the last line break) starts */
    while (i < n) {
        /* whitespace, counting line breaks as splitlines() does */
        unsigned char ch = (unsigned char)s[i];
        if (ch < 128) {
            uint8_t k = ascii_class[ch];
            if (k & A_SPACE) {
                if (k & A_BREAK) {
                    if (!(ch == '\n' && i > 0 && s[i - 1] == '\r')) c.line++;
                    line_start = i + 1;
                }
                i = ch == ' ' && i + 1 < n && s[i + 1] == ' ' ? space_run_end(s, n, i) : i + 1;
                continue;
            }
        } else {
            size_t t = i;
            uint8_t k = wide_flags(uc_next(s, n, &t));
            if (k & W_SPACE) {
                if (k & W_BREAK) {
                    c.line++;
                    line_start = t;
                }
                i = t;
                continue;
            }
        }
        /* one chunk of non-space characters; the common case first: ASCII
         * letters and digits only, one word with nothing to split */
        size_t a = i;
        uint8_t seen = 0, k;
        i = alnum_run_end(s, n, i, &seen);
        if (i == n || (ascii_class[(unsigned char)s[i]] & A_SPACE)) {
            push_alnum_word(ws, s, a, i - a, c.line, seen & A_ALPHA ? WORD_ALPHA : 0, stop);
            continue;
        }
        if (i > a && split_word_and_mark(&c, a, i, (seen & A_ALPHA) != 0)) {
            i++;
            continue;
        }
        bool nospace = false;
        size_t wide_chars = 0, wide_bytes = 0;
        uint8_t wide_any = 0, wide_all = W_PUNCT; /* classes of the wider characters: of one, of all */
        while (i < n) {
            ch = (unsigned char)s[i];
            if (ch < 128) {
                k = ascii_class[ch];
                if (k & A_SPACE) break;
                seen |= k;
                i++;
            } else {
                size_t t = i;
                uint8_t wide = wide_flags(uc_next(s, n, &t));
                if (wide & W_SPACE) break;
                if (wide & W_NOSPACE) nospace = true;
                wide_any |= wide;
                wide_all &= wide;
                wide_chars++;
                wide_bytes += t - i;
                i = t;
            }
        }
        /* ASCII letters and digits and wider characters the splitter leaves
         * alone (no quote, no script without spaces): one word, as
         * split_chunk would find, its flags known from this scan */
        if (!nospace && !(seen & ~(A_ALPHA | A_ALNUM)) && !(wide_any & W_QUOTE) &&
            !(wide_bytes && has_contraction2(s, a, i))) {
            size_t ascii = i - a - wide_bytes;
            uint32_t flags = (seen & A_ALPHA) || (wide_any & W_ALPHA) ? WORD_ALPHA : 0;
            if (!ascii && (wide_all & W_PUNCT)) flags |= WORD_SYMBOL;
            push_known_word(ws, s, a, i - a, ascii + wide_chars, c.line, flags, stop);
            continue;
        }
        if (nospace)
            split_icu(&c, a, i);
        else
            split_chunk(&c, a, i);
    }
    /* splitlines(): a line per line break, and one more when bytes follow the last */
    ws->lines = c.line + (line_start < n);
}


/* Multipliers stopwords_pack tries: the first, then this many more (odd
 * numbers a fixed step apart), looking for one that gives every word its own slot. */
#define STOP_MULTIPLIER_FIRST 0x9E3779B97F4A7C15ULL
#define STOP_MULTIPLIER_STEP 0xD6E8FEB86659FD94ULL /* even: the multipliers stay odd */
#define STOP_MULTIPLIER_TRIES 256

/* Fills the lookup table from set->packed with the set's multiplier, each
 * word in its first free slot from stop_slot(); returns whether every word
 * (once: a repeated word is one) got the slot stop_slot() gives it. */
static bool stopwords_place(stopword_set *set)
{
    bool own_slots = true;
    memset(set->slot_len, 0, sizeof set->slot_len);
    for (int k = 0; k < set->n; k++) {
        if (set->lens[k] > sizeof(uint64_t) || set->lens[k] == 0) continue;
        size_t i = stop_slot(set, set->packed[k]);
        if (set->slot_len[i] && set->slot_word[i] == set->packed[k] && set->slot_len[i] == set->lens[k]) continue;
        if (set->slot_len[i]) own_slots = false;
        while (set->slot_len[i]) i = (i + 1) & (STOPWORD_SLOTS - 1);
        set->slot_word[i] = set->packed[k];
        set->slot_len[i] = (uint8_t)set->lens[k];
    }
    return own_slots;
}

/* Fills set->packed and the lookup table from its words: with one probe per
 * look-up (single_probe) when the words are all of up to 8 bytes and a
 * multiplier gives each its own slot, else with linear probing. */
static void stopwords_pack(stopword_set *set)
{
    for (int k = 0; k < set->n; k++) {
        set->packed[k] = 0;
        if (set->lens[k] <= sizeof(uint64_t)) memcpy(&set->packed[k], set->words[k], set->lens[k]);
    }
    set->multiplier = STOP_MULTIPLIER_FIRST;
    set->single_probe = false;
    if (set->max_len > sizeof(uint64_t)) {
        stopwords_place(set);
        return;
    }
    for (int t = 0; t <= STOP_MULTIPLIER_TRIES; t++, set->multiplier += STOP_MULTIPLIER_STEP)
        if (stopwords_place(set)) {
            set->single_probe = true;
            return;
        }
    set->multiplier = STOP_MULTIPLIER_FIRST;
    stopwords_place(set);
}

bool stopwords_init(stopword_set *set, const char *list)
{
    memset(set, 0, sizeof *set);
    set->copy = xstrdup(list);
    set->words = xcalloc(STOPWORDS_MAX, sizeof *set->words);
    set->lens = xcalloc(STOPWORDS_MAX, sizeof *set->lens);
    set->packed = xcalloc(STOPWORDS_MAX, sizeof *set->packed);
    char *save = NULL;
    for (char *w = strtok_r(set->copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
        if (set->n == STOPWORDS_MAX) {
            stopwords_free(set);
            return false;
        }
        set->words[set->n] = w;
        set->lens[set->n] = strlen(w);
        if (set->lens[set->n] > set->max_len) set->max_len = set->lens[set->n];
        set->n++;
    }
    stopwords_pack(set);
    return true;
}

void stopwords_free(stopword_set *set)
{
    free(set->copy);
    free(set->words);
    free(set->lens);
    free(set->packed);
    memset(set, 0, sizeof *set);
}
