/* hf_decode.c - ids back to text through a tokenizer.json's decoder, as
 * HF tokenizers 0.23's decode(ids, skip_special_tokens=false): each id's
 * token string (an added token's: its content, or the normalizer's form of
 * it for a normalized token the normalizer changes; else the model's vocab
 * string), then the decoder's steps over the list of strings: Replace
 * (literal), ByteFallback, Fuse, Strip, Metaspace, ByteLevel, WordPiece,
 * BPEDecoder, CTC, Sequence; without a decoder, the strings joined with
 * spaces. A byte-level model holds its tokens as their bytes: when its
 * decoder starts with ByteLevel, that step is done here on the ids (a model
 * token is its bytes, another string goes through ByteLevel's rule);
 * otherwise its tokens are written back in the byte alphabet first. A
 * decoder winnow does not implement (a Regex Replace, a step without the
 * members HF requires) loads, but decoding with it is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"

#define REPLACEMENT_CHAR "\xEF\xBF\xBD"

/* ---- strings by id ---- */

void hf_id_strings_put(hf_id_strings *t, uint32_t id, const char *s, size_t len)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->items = xrealloc(t->items, t->cap * sizeof *t->items);
    }
    hf_id_string *e = &t->items[t->n++];
    e->id = id;
    e->len = (uint32_t)len;
    e->s = xmalloc(len + 1);
    memcpy(e->s, s, len);
    e->s[len] = 0;
}

static int by_id(const void *a, const void *b)
{
    const hf_id_string *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

void hf_id_strings_finish(hf_id_strings *t)
{
    if (t->n) qsort(t->items, t->n, sizeof *t->items, by_id);
}

const char *hf_id_strings_get(const hf_id_strings *t, uint32_t id, size_t *len)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->items[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo == t->n || t->items[lo].id != id) return NULL;
    *len = t->items[lo].len;
    return t->items[lo].s;
}

void hf_id_strings_free(hf_id_strings *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->items[i].s);
    free(t->items);
    memset(t, 0, sizeof *t);
}

/* ---- loading ---- */

static hf_decode_step *add_step(hf_pipeline *p, hf_decode_kind kind)
{
    p->dec = xrealloc(p->dec, (size_t)(p->ndec + 1) * sizeof *p->dec);
    hf_decode_step *st = &p->dec[p->ndec++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    return st;
}

static char *dup_string(const hj_node *n, size_t *len)
{
    *len = n->len;
    char *d = xmalloc(n->len + 1);
    memcpy(d, n->str, n->len + 1);
    return d;
}

/* Decoding is refused, saying why (the first reason stands). */
static void refuse(hf_pipeline *p, const char *what, const char *type)
{
    if (p->decoder_unsupported) return;
    p->decoder_unsupported = true;
    snprintf(p->decoder_type, sizeof p->decoder_type, "%s%s", what, type);
}

static bool is_string(const hj_node *n) { return n && n->type == HJ_STRING; }

/* One decoder node (a Sequence: its decoders in order). */
static void load_step(hf_pipeline *p, const hj_node *node)
{
    const char *type = hj_get_str(node, "type");
    const hj_node *v, *c;
    if (!type) type = "(none)";
    if (!strcmp(type, "Sequence")) {
        const hj_node *list = hj_get(node, "decoders");
        for (size_t i = 0; list && list->type == HJ_ARRAY && i < list->len; i++) load_step(p, &list->items[i]);
    } else if (!strcmp(type, "ByteLevel")) {
        if (p->bpe.byte_level && !p->ndec && !p->decoder_bytes) p->decoder_bytes = true; /* done on the ids */
        else add_step(p, HD_BYTE_LEVEL);
    } else if (!strcmp(type, "ByteFallback")) {
        add_step(p, HD_BYTE_FALLBACK);
    } else if (!strcmp(type, "Fuse")) {
        add_step(p, HD_FUSE);
    } else if (!strcmp(type, "Replace")) {
        v = hj_get(hj_get(node, "pattern"), "String"), c = hj_get(node, "content");
        if (!is_string(v) || !v->len || !is_string(c)) {
            refuse(p, "the decoder Replace without a String pattern", "");
            return;
        }
        hf_decode_step *st = add_step(p, HD_REPLACE);
        st->from = dup_string(v, &st->from_len);
        st->to = dup_string(c, &st->to_len);
    } else if (!strcmp(type, "Strip")) {
        v = hj_get(node, "content");
        if (!is_string(v) || !v->len || utf8_valid_seq((const unsigned char *)v->str, v->len) != v->len) {
            refuse(p, "the decoder Strip without one character", "");
            return;
        }
        hf_decode_step *st = add_step(p, HD_STRIP);
        st->from = dup_string(v, &st->from_len);
        const hj_node *a = hj_get(node, "start"), *b = hj_get(node, "stop");
        st->start = a && a->type == HJ_NUMBER ? (size_t)a->number : 0;
        st->stop = b && b->type == HJ_NUMBER ? (size_t)b->number : 0;
    } else if (!strcmp(type, "Metaspace")) {
        hf_decode_step *st = add_step(p, HD_METASPACE);
        const hj_node *r = hj_get(node, "replacement");
        if (is_string(r)) st->from = dup_string(r, &st->from_len);
        else st->from = xstrdup("\xE2\x96\x81"), st->from_len = 3;
        const char *scheme = hj_get_str(node, "prepend_scheme");
        const hj_node *aps = hj_get(node, "add_prefix_space");
        st->start = scheme ? strcmp(scheme, "never") != 0 : !(aps && aps->type == HJ_BOOL && !aps->boolean);
    } else if (!strcmp(type, "WordPiece")) {
        v = hj_get(node, "prefix"), c = hj_get(node, "cleanup");
        if (!is_string(v) || !c || c->type != HJ_BOOL) {
            refuse(p, "the decoder WordPiece without prefix and cleanup", "");
            return;
        }
        hf_decode_step *st = add_step(p, HD_WORDPIECE);
        st->from = dup_string(v, &st->from_len);
        st->start = c->boolean;
    } else if (!strcmp(type, "BPEDecoder")) {
        v = hj_get(node, "suffix");
        if (!is_string(v) || !v->len) {
            refuse(p, "the decoder BPEDecoder without a suffix", "");
            return;
        }
        hf_decode_step *st = add_step(p, HD_BPE_SUFFIX);
        st->from = dup_string(v, &st->from_len);
    } else if (!strcmp(type, "CTC")) {
        v = hj_get(node, "pad_token"), c = hj_get(node, "word_delimiter_token");
        const hj_node *clean = hj_get(node, "cleanup");
        if (!is_string(v) || !v->len || !is_string(c) || !c->len || !clean || clean->type != HJ_BOOL) {
            refuse(p, "the decoder CTC without pad_token, word_delimiter_token and cleanup", "");
            return;
        }
        hf_decode_step *st = add_step(p, HD_CTC);
        st->from = dup_string(v, &st->from_len);
        st->to = dup_string(c, &st->to_len);
        st->start = clean->boolean;
    } else {
        refuse(p, "the decoder ", type);
    }
}

void hf_decoder_load(hf_pipeline *p, const hj_node *node)
{
    if (!node || node->type == HJ_NULL) p->decoder_none = true;
    else load_step(p, node);
}

void hf_decoder_free(hf_pipeline *p)
{
    for (int i = 0; i < p->ndec; i++) {
        free(p->dec[i].from);
        free(p->dec[i].to);
    }
    free(p->dec);
    hf_id_strings_free(&p->added_names);
}

/* ---- decoding ---- */

/* The token strings: back to back in text, token i at off[i] .. off[i + 1]. */
typedef struct {
    wbuf text;
    size_t *off;
    size_t n, cap;
} strings;

static void strings_push(strings *s, const void *p, size_t len)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->off = xrealloc(s->off, s->cap * sizeof *s->off);
    }
    if (!s->n) s->off[0] = 0;
    buf_append(&s->text, len ? p : "", len);
    s->off[++s->n] = s->text.len;
}

/* Pushes bytes as one string, each maximal invalid UTF-8 subpart one U+FFFD (Rust's from_utf8_lossy). */
static void strings_push_lossy(strings *s, const wbuf *bytes, wbuf *tmp)
{
    buf_clear(tmp);
    utf8_repair(tmp, bytes->data ? bytes->data : "", bytes->len);
    strings_push(s, tmp->data, tmp->len);
}

static void strings_free(strings *s)
{
    buf_free(&s->text);
    free(s->off);
    memset(s, 0, sizeof *s);
}

/* The byte a ByteFallback token "<0xXX>" stands for, or -1: HF takes
 * u8::from_str_radix of its two middle bytes, which also reads "+X". */
static int fallback_byte(const char *t, size_t len)
{
    static const char hex[] = "0123456789abcdef0123456789ABCDEF";
    if (len != 6 || memcmp(t, "<0x", 3) || t[5] != '>') return -1;
    const char *hi = t[3] == '+' ? hex : memchr(hex, t[3], 32), *lo = memchr(hex, t[4], 32);
    if (!hi || !lo) return -1;
    return (int)((hi - hex) % 16 * 16 + (lo - hex) % 16);
}

/* Appends s[0..n) to out with every from replaced by to (Rust's str::replace). */
static void replace_all(wbuf *out, const char *s, size_t n, const char *from, size_t from_len, const char *to,
                        size_t to_len)
{
    for (size_t k = 0; k < n;) {
        if (n - k >= from_len && !memcmp(s + k, from, from_len)) {
            buf_append(out, to, to_len);
            k += from_len;
        } else {
            buf_putc(out, s[k++]);
        }
    }
}

/* WordPiece's cleanup: these replacements, in this order, over the token. */
static void wordpiece_cleanup(wbuf *tok, wbuf *tmp)
{
    static const char *const pairs[][2] = {{" .", "."},       {" ?", "?"},   {" !", "!"},   {" ,", ","},
                                           {" ' ", "'"},      {" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"},
                                           {" 's", "'s"},     {" 've", "'ve"}, {" 're", "'re"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        buf_clear(tmp);
        replace_all(tmp, tok->data ? tok->data : "", tok->len, pairs[i][0], strlen(pairs[i][0]), pairs[i][1],
                    strlen(pairs[i][1]));
        buf_clear(tok);
        buf_append(tok, tmp->data ? tmp->data : "", tmp->len);
    }
}

/* ByteLevel's decode of one token string (HF's decode_chain): the bytes its
 * characters stand for, or the string itself when one is not of the alphabet. */
static void byte_level_token(const char *t, size_t len, wbuf *out)
{
    size_t mark = out->len;
    if (!hf_bytes_of_chars(t, len, out)) {
        out->len = mark;
        buf_append(out, t, len);
    }
}

/* One step over in into out. */
static void apply(const hf_decode_step *st, const strings *in, strings *out)
{
    wbuf tok = WBUF_INIT, bytes = WBUF_INIT, tmp = WBUF_INIT;
    for (size_t i = 0; i < in->n; i++) {
        const char *t = in->text.data + in->off[i];
        size_t len = in->off[i + 1] - in->off[i];
        buf_clear(&tok);
        switch (st->kind) {
        case HD_REPLACE:
            replace_all(&tok, t, len, st->from, st->from_len, st->to, st->to_len);
            strings_push(out, tok.data, tok.len);
            break;
        case HD_METASPACE: /* HF: each replacement a space, none in the first token (unless never) */
            replace_all(&tok, t, len, st->from, st->from_len, " ", i == 0 && st->start ? 0 : 1);
            strings_push(out, tok.data, tok.len);
            break;
        case HD_WORDPIECE: { /* HF: a token after the first loses the prefix, or gets a space */
            bool prefixed = len >= st->from_len && !memcmp(t, st->from, st->from_len);
            if (i > 0 && prefixed) t += st->from_len, len -= st->from_len;
            else if (i > 0) buf_putc(&tok, ' ');
            buf_append(&tok, t, len);
            if (st->start) wordpiece_cleanup(&tok, &tmp);
            strings_push(out, tok.data, tok.len);
            break;
        }
        case HD_STRIP: {
            size_t a = 0, b = len;
            for (size_t k = 0; k < st->start && b - a >= st->from_len && !memcmp(t + a, st->from, st->from_len); k++)
                a += st->from_len;
            for (size_t k = 0; k < st->stop && b - a >= st->from_len && !memcmp(t + b - st->from_len, st->from, st->from_len); k++)
                b -= st->from_len;
            strings_push(out, t + a, b - a);
            break;
        }
        case HD_BPE_SUFFIX: /* HF: the suffix a space, in the last token nothing */
            replace_all(&tok, t, len, st->from, st->from_len, " ", i + 1 < in->n);
            strings_push(out, tok.data, tok.len);
            break;
        case HD_CTC: { /* HF: a token like the one before it goes; pads go, and (cleanup) delimiters become spaces */
            size_t prev = i ? in->off[i] - in->off[i - 1] : 0;
            if (i && prev == len && !memcmp(t - prev, t, len)) break;
            replace_all(&tok, t, len, st->from, st->from_len, "", 0);
            if (st->start) {
                wordpiece_cleanup(&tok, &tmp);
                buf_clear(&tmp);
                replace_all(&tmp, tok.data ? tok.data : "", tok.len, st->to, st->to_len, " ", 1);
                buf_clear(&tok);
                buf_append(&tok, tmp.data ? tmp.data : "", tmp.len);
            }
            if (tok.len) strings_push(out, tok.data, tok.len);
            break;
        }
        case HD_BYTE_LEVEL: /* HF: all the tokens' bytes, one lossy UTF-8 string (below) */
            byte_level_token(t, len, &bytes);
            break;
        case HD_FUSE:
            if (!out->n) strings_push(out, "", 0);
            buf_append(&out->text, t, len);
            out->off[1] = out->text.len;
            break;
        case HD_BYTE_FALLBACK: {
            int b = fallback_byte(t, len);
            if (b >= 0) buf_putc(&bytes, (char)b);
            bool last = i + 1 == in->n;
            if ((b < 0 || last) && bytes.len) { /* the run of byte tokens before this one */
                if (utf8_valid(bytes.data, bytes.len)) strings_push(out, bytes.data, bytes.len);
                else
                    for (size_t k = 0; k < bytes.len; k++) strings_push(out, REPLACEMENT_CHAR, 3);
                buf_clear(&bytes);
            }
            if (b < 0) strings_push(out, t, len);
            break;
        }
        }
    }
    if (st->kind == HD_BYTE_LEVEL) strings_push_lossy(out, &bytes, &tmp);
    buf_free(&tok);
    buf_free(&bytes);
    buf_free(&tmp);
}

/* The string HF's decode starts from for id (NULL: none): an added token's,
 * else the model's; *model_bytes: a byte-level model's token, held as its bytes. */
static const char *token_string(const hf_pipeline *p, const tok_vocab *vocab, uint32_t id, size_t *len,
                                bool *model_bytes)
{
    const char *s = hf_id_strings_get(&p->added_names, id, len);
    *model_bytes = false;
    if (s) return s;
    s = (const char *)vocab_token_bytes(vocab, id, len);
    if (s) {
        *model_bytes = p->bpe.byte_level;
        return s;
    }
    return hf_id_strings_get(&p->bpe.odd_names, id, len);
}

bool hf_decode_knows(const hf_pipeline *p, const tok_vocab *vocab, uint32_t id)
{
    size_t len;
    bool model_bytes;
    return token_string(p, vocab, id, &len, &model_bytes) != NULL;
}

void hf_decode(const hf_pipeline *p, const tok_vocab *vocab, const uint32_t *ids, size_t n, wbuf *out,
               size_t *unknown)
{
    strings a = {0}, b = {0};
    wbuf bytes = WBUF_INIT, tmp = WBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        bool model_bytes;
        const char *t = token_string(p, vocab, ids[i], &len, &model_bytes);
        if (!t) {
            ++*unknown;
        } else if (p->decoder_bytes) { /* the decoder's first step, ByteLevel */
            if (model_bytes) buf_append(&bytes, t, len);
            else byte_level_token(t, len, &bytes);
        } else if (model_bytes) { /* the token as HF holds it: in the byte alphabet */
            hf_byte_chars((const uint8_t *)t, len, &tmp);
            strings_push(&a, tmp.data, tmp.len);
        } else {
            strings_push(&a, t, len);
        }
    }
    if (p->decoder_bytes) strings_push_lossy(&a, &bytes, &tmp);
    for (int k = 0; k < p->ndec; k++) {
        b.n = 0;
        buf_clear(&b.text);
        apply(&p->dec[k], &a, &b);
        strings tmp_list = a;
        a = b;
        b = tmp_list;
    }
    for (size_t i = 0; i < a.n; i++) { /* without a decoder HF joins the strings with spaces */
        if (i && p->decoder_none) buf_putc(out, ' ');
        if (a.off[i + 1] > a.off[i]) buf_append(out, a.text.data + a.off[i], a.off[i + 1] - a.off[i]);
    }
    strings_free(&a);
    strings_free(&b);
    buf_free(&bytes);
    buf_free(&tmp);
}
