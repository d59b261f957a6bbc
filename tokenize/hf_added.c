/* hf_added.c - tokenizer.json added_tokens, matched in the text as HF's
 * AddedVocabulary does: tokens with normalized=false are found in the raw
 * text, the others (by their normalized content) in the normalized text;
 * leftmost-longest, non-overlapping; single_word keeps a match only between
 * non-word characters; lstrip/rstrip take the white space before/after the
 * token into it. */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

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
    set->first_byte[(uint8_t)content[0]] = true;
    for (int i = 0; i < set->nlengths; i++)
        if (set->lengths[i] == len) return;
    set->lengths = xrealloc(set->lengths, (size_t)(set->nlengths + 1) * sizeof *set->lengths);
    int i = set->nlengths++;
    while (i > 0 && set->lengths[i - 1] < len) {
        set->lengths[i] = set->lengths[i - 1];
        i--;
    }
    set->lengths[i] = (uint32_t)len;
}

int hf_added_load(hf_pipeline *p, const hj_node *list, wbuf *err)
{
    vocab_init(&p->raw_set.by_content);
    vocab_init(&p->normalized_set.by_content);
    if (!list || list->type == HJ_NULL) return 0;
    if (list->type != HJ_ARRAY) {
        buf_printf(err, "added_tokens: not an array");
        return -1;
    }
    p->added = xcalloc(list->len ? list->len : 1, sizeof *p->added);
    hf_scratch h = {0};
    hf_scratch_init(&h);
    wbuf norm = WBUF_INIT, tmp = WBUF_INIT;
    int rc = 0;
    for (size_t i = 0; i < list->len && !rc; i++) {
        const hj_node *a = &list->items[i], *id = hj_get(a, "id"), *content = hj_get(a, "content");
        if (!id || id->type != HJ_NUMBER || id->number < 0 || id->number > VOCAB_MAX_ID ||
            !content || content->type != HJ_STRING || !content->len) {
            buf_printf(err, "added_tokens[%zu]: needs an id (0..%u) and a non-empty content", i, VOCAB_MAX_ID);
            rc = -1;
            break;
        }
        hf_added_token *t = &p->added[p->nadded++];
        t->id = (uint32_t)id->number;
        t->special = get_flag(a, "special", false);
        t->lstrip = get_flag(a, "lstrip", false);
        t->rstrip = get_flag(a, "rstrip", false);
        t->single_word = get_flag(a, "single_word", false);
        t->normalized = get_flag(a, "normalized", !t->special);
        const char *c = content->str;
        size_t len = content->len;
        if (t->normalized) {
            hf_normalize(p, c, len, &h, &norm, &tmp);
            c = norm.data, len = norm.len;
        }
        t->content = xmalloc(len + 1);
        memcpy(t->content, c, len);
        t->content[len] = 0;
        t->len = len;
        if (len) set_add(t->normalized ? &p->normalized_set : &p->raw_set, t->content, len, (uint32_t)(p->nadded - 1));
    }
    hf_scratch_free(&h);
    buf_free(&norm);
    buf_free(&tmp);
    return rc;
}

void hf_added_free(hf_pipeline *p)
{
    for (int i = 0; i < p->nadded; i++) free(p->added[i].content);
    free(p->added);
    hf_added_set *sets[2] = {&p->raw_set, &p->normalized_set};
    for (int k = 0; k < 2; k++) {
        vocab_free(&sets[k]->by_content);
        free(sets[k]->lengths);
    }
}

static bool white_space(uint32_t cp)
{
    return (cp >= 9 && cp <= 13) || cp == ' ' || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

/* Rust's char::is_alphanumeric, by general category (letters and numbers). */
static bool word_char(uint32_t cp)
{
    utf8proc_category_t c = utf8proc_category((utf8proc_int32_t)cp);
    return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) || (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
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

size_t hf_added_split(const hf_pipeline *p, const hf_added_set *set, const char *s, size_t n, hf_added_span **spans,
                      size_t *cap)
{
    size_t k = 0, text_from = 0, floor = 0;
#define PUSH_SPAN(a, b, i)                                                                         \
    do {                                                                                           \
        if (k == *cap) *spans = xrealloc(*spans, (*cap = *cap ? 2 * *cap : 16) * sizeof **spans); \
        (*spans)[k++] = (hf_added_span){(a), (b), (i)};                                            \
    } while (0)
    for (size_t pos = 0; set->nlengths && pos < n;) {
        if (!set->first_byte[(uint8_t)s[pos]]) {
            pos++;
            continue;
        }
        uint32_t index = VOCAB_NO_TOKEN;
        size_t len = 0;
        for (int i = 0; i < set->nlengths && index == VOCAB_NO_TOKEN; i++) {
            len = set->lengths[i];
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
