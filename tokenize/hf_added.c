/* hf_added.c - tokenizer.json added_tokens, matched in the text as HF's
 * AddedVocabulary does: tokens with normalized=false are found in the raw
 * text, the others (by their normalized content) in the normalized text;
 * leftmost-longest, non-overlapping; single_word keeps a match only between
 * non-word characters; lstrip/rstrip take the white space before/after the
 * token into it. */
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"

static bool get_flag(const hj_node *o, const char *key, bool dflt)
{
    const hj_node *v = hj_get(o, key);
    return v && v->type == HJ_BOOL ? v->boolean : dflt;
}

static void set_add(hf_added_set *set, const char *content, size_t len, uint32_t index)
{
    if (!vocab_add(&set->by_content, content, len, index, index)) return; /* the same content twice: the first */
    uint8_t b = (uint8_t)content[0];
    if (!set->first_byte[b] && set->nfirsts >= 0)
        set->nfirsts = set->nfirsts < HF_ADDED_FIRSTS ? (set->firsts[set->nfirsts] = b, set->nfirsts + 1) : -1;
    set->first_byte[b] = true;
    if (len == 1) set->one_byte[b] = index + 1;
    else set->seconds[b][(uint8_t)content[1] / 64] |= 1ull << ((uint8_t)content[1] % 64);
    if (len < HF_ADDED_PREFIX) set->short_lengths[(uint8_t)content[0]] |= (uint8_t)(1u << len);
    else vocab_add(&set->prefixes, content, HF_ADDED_PREFIX, index, index); /* false: a known prefix */
    for (int i = 0; i < set->nlengths; i++)
        if (set->lengths[i] == len) return;
    set->lengths = xrealloc(set->lengths, (size_t)(set->nlengths + 1) * sizeof *set->lengths);
    int i = set->nlengths++;
    if (len >= HF_ADDED_PREFIX) set->nlong++;
    while (i > 0 && set->lengths[i - 1] < len) {
        set->lengths[i] = set->lengths[i - 1];
        i--;
    }
    set->lengths[i] = (uint32_t)len;
}

/* One entry of added_tokens as HF keeps it. */
typedef struct {
    const char *content;
    size_t len;
    bool special, lstrip, rstrip, single_word, normalized;
} entry;

static bool same_entry(const entry *a, const entry *b)
{
    return a->len == b->len && !memcmp(a->content, b->content, a->len) && a->special == b->special &&
           a->lstrip == b->lstrip && a->rstrip == b->rstrip && a->single_word == b->single_word &&
           a->normalized == b->normalized;
}

/* The ids given out so far and, by id, the entry that holds it last (HF's
 * added_tokens_map_r): an open-addressing table of ids with their entries. */
typedef struct {
    uint32_t *id; /* VOCAB_NO_TOKEN: empty */
    int *entry;
    char **normed; /* HF's normalized_cache: the normalizer's form of a normalized entry's content it changed */
    size_t *normed_len;
    size_t mask;
    uint32_t *order; /* the ids in the order they were first given */
    size_t n;
} id_table;

static void id_table_init(id_table *t, size_t n)
{
    size_t slots = 16;
    while (slots < 2 * n + 2) slots *= 2;
    t->id = xmalloc(slots * sizeof *t->id);
    t->entry = xmalloc(slots * sizeof *t->entry);
    t->normed = xcalloc(slots, sizeof *t->normed);
    t->normed_len = xcalloc(slots, sizeof *t->normed_len);
    t->order = xmalloc((n + 1) * sizeof *t->order);
    for (size_t i = 0; i < slots; i++) t->id[i] = VOCAB_NO_TOKEN;
    t->mask = slots - 1;
    t->n = 0;
}

/* The slot of id (where it is, or where it goes). */
static size_t id_table_slot(const id_table *t, uint32_t id)
{
    size_t i = (size_t)(id * 0x9E3779B1u) & t->mask;
    while (t->id[i] != VOCAB_NO_TOKEN && t->id[i] != id) i = (i + 1) & t->mask;
    return i;
}

static void id_table_free(id_table *t)
{
    for (size_t i = 0; i <= t->mask; i++) free(t->normed[i]);
    free(t->normed);
    free(t->normed_len);
    free(t->id);
    free(t->entry);
    free(t->order);
}

/* Adds one pattern: an entry matched by (its normalized) content, giving id. */
static void add_pattern(hf_pipeline *p, const entry *e, uint32_t id, hf_scratch *h, wbuf *norm, wbuf *tmp)
{
    const char *c = e->content;
    size_t len = e->len;
    if (e->normalized) {
        hf_normalize(p, c, len, h, norm, tmp);
        c = norm->data, len = norm->len;
    }
    hf_added_token *t = &p->added[p->nadded++];
    t->content = xmalloc(len + 1);
    memcpy(t->content, c ? c : "", len);
    t->content[len] = 0;
    t->len = len;
    t->id = id;
    t->special = e->special;
    t->normalized = e->normalized;
    if (len) set_add(e->normalized ? &p->normalized_set : &p->raw_set, t->content, len, (uint32_t)(p->nadded - 1));
}

/* HF 0.23 (AddedVocabulary::add_tokens) keeps, by id, the normalizer's form
 * of a normalized token's content when it differs, and decodes the id as
 * that form (a later entry of the id that does not differ keeps it). */
static void remember_normalized(const hf_pipeline *p, const entry *e, id_table *t, size_t slot, hf_scratch *h,
                                wbuf *norm, wbuf *tmp)
{
    hf_normalize(p, e->content, e->len, h, norm, tmp);
    if (norm->len == e->len && !memcmp(norm->data, e->content, e->len)) return;
    free(t->normed[slot]);
    t->normed[slot] = xmalloc(norm->len + 1);
    memcpy(t->normed[slot], norm->data ? norm->data : "", norm->len);
    t->normed_len[slot] = norm->len;
}

int hf_added_load(hf_pipeline *p, const hj_node *list, tok_vocab *vocab, wbuf *err)
{
    vocab_init(&p->raw_set.by_content);
    vocab_init(&p->normalized_set.by_content);
    vocab_init(&p->raw_set.prefixes);
    vocab_init(&p->normalized_set.prefixes);
    if (!list || list->type == HJ_NULL) return 0;
    if (list->type != HJ_ARRAY) {
        buf_printf(err, "added_tokens: not an array");
        return -1;
    }
    size_t n = list->len;
    entry *entries = xcalloc(n + 1, sizeof *entries);
    /* HF ignores the ids written in the file and gives them out again, one
     * token at a time (AddedVocabulary::add_tokens): the model's id of the
     * content, else one past the largest so far (at least the vocab size) */
    id_table by_id;
    id_table_init(&by_id, n);
    int *specials = xcalloc(n + 1, sizeof *specials), *ordinary = xcalloc(n + 1, sizeof *ordinary);
    size_t nspecials = 0, nordinary = 0;
    hf_scratch h = {0};
    hf_scratch_init(&h);
    wbuf norm = WBUF_INIT, tmp = WBUF_INIT;
    tok_vocab content_id, special_set;                   /* content -> id; special contents */
    vocab_init(&content_id);
    vocab_init(&special_set);
    uint32_t max_id = 0;
    bool any_id = false;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const hj_node *a = &list->items[i], *content = hj_get(a, "content");
        if (!content || content->type != HJ_STRING) {
            buf_printf(err, "added_tokens[%zu].content: not a string", i);
            rc = -1;
            break;
        }
        entry *e = &entries[i];
        *e = (entry){content->str, content->len, get_flag(a, "special", false), get_flag(a, "lstrip", false),
                     get_flag(a, "rstrip", false), get_flag(a, "single_word", false), false};
        e->normalized = get_flag(a, "normalized", !e->special);
        if (!e->len) continue;
        if (e->special && vocab_find(&special_set, (const uint8_t *)e->content, e->len) == VOCAB_NO_TOKEN) {
            vocab_add(&special_set, e->content, e->len, (uint32_t)nspecials, 0);
            specials[nspecials++] = (int)i;
        }
        uint32_t id = vocab_find(&content_id, (const uint8_t *)e->content, e->len);
        if (id != VOCAB_NO_TOKEN) { /* only the entry holding this content's id can equal it */
            size_t slot = id_table_slot(&by_id, id);
            if (by_id.id[slot] == id && same_entry(&entries[by_id.entry[slot]], e)) continue;
        } else {
            id = hf_bpe_token_to_id(&p->bpe, vocab, e->content, e->len);
            if (id == VOCAB_NO_TOKEN)
                id = !any_id ? p->bpe.vocab_size
                     : (max_id >= p->bpe.vocab_size || !p->bpe.vocab_size) ? max_id + 1 : p->bpe.vocab_size;
            if (id > VOCAB_MAX_ID) {
                buf_printf(err, "added_tokens[%zu]: id %u is too large", i, id);
                rc = -1;
                break;
            }
            vocab_add(&content_id, e->content, e->len, id, id);
        }
        if (!any_id || id > max_id) max_id = id;
        any_id = true;
        size_t slot = id_table_slot(&by_id, id);
        if (by_id.id[slot] != id) {
            by_id.id[slot] = id;
            by_id.order[by_id.n++] = id;
        }
        by_id.entry[slot] = (int)i;
        if (e->normalized && p->nnorm) remember_normalized(p, e, &by_id, slot, &h, &norm, &tmp);
        if (vocab_find(&special_set, (const uint8_t *)e->content, e->len) == VOCAB_NO_TOKEN) ordinary[nordinary++] = (int)i;
    }
    if (!rc) {
        /* the patterns: special tokens, then the others, in file order; a
         * match takes the flags of the token that holds its id last */
        p->added = xcalloc(nspecials + nordinary + 1, sizeof *p->added);
        for (size_t k = 0; k < nspecials + nordinary; k++) {
            int i = k < nspecials ? specials[k] : ordinary[k - nspecials];
            uint32_t id = vocab_find(&content_id, (const uint8_t *)entries[i].content, entries[i].len);
            add_pattern(p, &entries[i], id, &h, &norm, &tmp);
            if (h.regex_error) { /* its normalized content would be wrong */
                buf_printf(err, "added_tokens[%d].content: the normalizer's regex could not finish on it: ", i);
                hf_regex_error_text(h.regex_error, err);
                rc = -1;
                break;
            }
            const entry *owner = &entries[by_id.entry[id_table_slot(&by_id, id)]];
            hf_added_token *t = &p->added[p->nadded - 1];
            t->lstrip = owner->lstrip, t->rstrip = owner->rstrip, t->single_word = owner->single_word;
        }
        for (size_t j = 0; !rc && j < by_id.n; j++) { /* an added id's name; decoding shows HF's string of it */
            size_t slot = id_table_slot(&by_id, by_id.order[j]);
            const entry *e = &entries[by_id.entry[slot]];
            char *c = xmalloc(e->len + 1);
            memcpy(c, e->content, e->len);
            c[e->len] = 0;
            vocab_add_special(vocab, c, by_id.order[j]);
            free(c);
            if (by_id.normed[slot]) hf_id_strings_put(&p->added_names, by_id.order[j], by_id.normed[slot], by_id.normed_len[slot]);
            else hf_id_strings_put(&p->added_names, by_id.order[j], e->content, e->len);
        }
        hf_id_strings_finish(&p->added_names);
    }
    hf_scratch_free(&h);
    buf_free(&norm);
    buf_free(&tmp);
    vocab_free(&content_id);
    vocab_free(&special_set);
    free(entries);
    id_table_free(&by_id);
    free(specials);
    free(ordinary);
    return rc;
}

void hf_added_free(hf_pipeline *p)
{
    for (int i = 0; i < p->nadded; i++) free(p->added[i].content);
    free(p->added);
    hf_added_set *sets[2] = {&p->raw_set, &p->normalized_set};
    for (int k = 0; k < 2; k++) {
        vocab_free(&sets[k]->by_content);
        vocab_free(&sets[k]->prefixes);
        free(sets[k]->lengths);
    }
}

static bool white_space(uint32_t cp)
{
    return (cp >= 9 && cp <= 13) || cp == ' ' || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

/* Rust regex's \w (UTS #18's word character), which HF's single_word tests:
 * Alphabetic (letters, letter numbers, and symbols such as U+24B6 circled A),
 * marks, decimal digits, connector punctuation, and Join_Control (ZWNJ, ZWJ). */
static bool word_char(uint32_t cp)
{
    UChar32 c = (UChar32)cp;
    return u_hasBinaryProperty(c, UCHAR_ALPHABETIC) || u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL) ||
           (U_GET_GC_MASK(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

/* The character that ends at s[end) (end > 0). */
static uint32_t char_before(const char *s, size_t end, size_t *start)
{
    size_t k = end - 1;
    while (k > 0 && end - k < 4 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    size_t len;
    uint32_t cp = utf8_valid_seq((const unsigned char *)s + k, end - k) == end - k
                      ? utf8_decode((const unsigned char *)s + k, end - k, &len)
                      : (k = end - 1, 0xFFFD);
    *start = k;
    return cp;
}

static uint32_t char_after(const char *s, size_t n, size_t at, size_t *len)
{
    *len = utf8_valid_seq((const unsigned char *)s + at, n - at);
    if (!*len) {
        *len = 1;
        return 0xFFFD;
    }
    return utf8_decode((const unsigned char *)s + at, n - at, len);
}

#define SCAN_WIDTH 16

/* The first place from pos where a byte of the set's firsts (want, one
 * vector each, HF_ADDED_FIRSTS) is, or n. */
static size_t next_first_byte(const hf_added_set *set, const __m128i *want, const char *s, size_t n, size_t pos)
{
    for (; pos + SCAN_WIDTH <= n; pos += SCAN_WIDTH) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + pos)), hit = _mm_setzero_si128();
        for (int i = 0; i < HF_ADDED_FIRSTS; i++) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, want[i]));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m) return pos + (size_t)__builtin_ctz(m);
    }
    while (pos < n && !set->first_byte[(uint8_t)s[pos]]) pos++;
    return pos;
}

/* Whether a token of two bytes or more may start at s[pos] (pos + 1 < n). */
static inline bool may_start_long(const hf_added_set *set, const char *s, size_t pos)
{
    uint8_t b = (uint8_t)s[pos + 1];
    return set->seconds[(uint8_t)s[pos]][b / 64] >> (b % 64) & 1;
}

size_t hf_added_split(const hf_pipeline *p, const hf_added_set *set, const char *s, size_t n, hf_added_span **spans,
                      size_t *cap)
{
    size_t k = 0, text_from = 0, floor = 0;
#define PUSH_SPAN(a, b, i)                                                                         \
    do {                                                                                           \
        if (k == *cap) *spans = xrealloc(*spans, (*cap = *cap ? 2 * *cap : 16) * sizeof **spans); \
        (*spans)[k++] = (hf_added_span){(a), (b), (i)};                                            \
    } while (0)
    __m128i want[HF_ADDED_FIRSTS]; /* the first bytes to look for, 16 places at a time */
    for (int i = 0; i < HF_ADDED_FIRSTS; i++) want[i] = _mm_set1_epi8((char)set->firsts[i < set->nfirsts ? i : 0]);
    for (size_t pos = 0; set->nlengths && pos < n;) {
        if (!set->first_byte[(uint8_t)s[pos]]) {
            pos = set->nfirsts > 0 ? next_first_byte(set, want, s, n, pos + 1) : pos + 1;
            continue;
        }
        uint32_t index = VOCAB_NO_TOKEN;
        size_t len = 1;
        if (pos + 1 == n || !may_start_long(set, s, pos)) { /* at most the one-byte token: no lookup */
            if (!set->one_byte[(uint8_t)s[pos]]) {
                pos++;
                continue;
            }
            index = set->one_byte[(uint8_t)s[pos]] - 1;
        }
        bool long_ok = index == VOCAB_NO_TOKEN && n - pos >= HF_ADDED_PREFIX &&
                       vocab_find(&set->prefixes, (const uint8_t *)s + pos, HF_ADDED_PREFIX) != VOCAB_NO_TOKEN;
        for (int i = long_ok ? 0 : set->nlong; i < set->nlengths && index == VOCAB_NO_TOKEN; i++) {
            len = set->lengths[i];
            if (len >= HF_ADDED_PREFIX ? !long_ok : !(set->short_lengths[(uint8_t)s[pos]] >> len & 1)) continue;
            if (len <= n - pos) index = vocab_find(&set->by_content, (const uint8_t *)s + pos, len);
        }
        if (index == VOCAB_NO_TOKEN) {
            pos++;
            continue;
        }
        const hf_added_token *t = &p->added[index];
        size_t start = pos, stop = pos + len, clen;
        pos = stop; /* the next match starts after this one, kept or not */
        if (t->single_word) {
            size_t at;
            bool start_ok = start == 0 || !word_char(char_before(s, start, &at));
            bool stop_ok = stop == n || !word_char(char_after(s, n, stop, &clen));
            if (!start_ok || !stop_ok) continue;
        }
        if (t->lstrip) {
            size_t at;
            while (start > floor && white_space(char_before(s, start, &at))) start = at;
        }
        if (t->rstrip)
            while (stop < n && white_space(char_after(s, n, stop, &clen))) stop += clen;
        if (start > text_from) PUSH_SPAN(text_from, start, -1);
        PUSH_SPAN(start, stop, (int)index);
        text_from = floor = stop;
        if (pos < stop) pos = stop;
    }
    if (text_from < n || k == 0) PUSH_SPAN(text_from, n, -1);
#undef PUSH_SPAN
    return k;
}
