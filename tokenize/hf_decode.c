/* hf_decode.c - ids back to text through a tokenizer.json's decoder, as
 * HF's decode(ids, skip_special_tokens=false): each id's token string (an
 * added token's content, else the vocab string; byte-level tokens are
 * already their bytes here, which is what the ByteLevel decoder makes of
 * them), then the decoder's steps over the list of strings: Replace
 * (literal), ByteFallback, Fuse, Strip, Metaspace, ByteLevel, Sequence.
 * Another decoder type loads, but decoding with it is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"

#define REPLACEMENT_CHAR "\xEF\xBF\xBD"

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

void hf_decoder_load(hf_pipeline *p, const hj_node *node)
{
    if (!node || node->type == HJ_NULL || p->decoder_unsupported) return;
    const char *type = hj_get_str(node, "type");
    const hj_node *v;
    if (!type) type = "(none)";
    if (!strcmp(type, "Sequence")) {
        const hj_node *list = hj_get(node, "decoders");
        for (size_t i = 0; list && list->type == HJ_ARRAY && i < list->len; i++) hf_decoder_load(p, &list->items[i]);
    } else if (!strcmp(type, "ByteLevel") && p->bpe.byte_level) {
        /* byte-level tokens are held as their bytes already */
    } else if (!strcmp(type, "ByteLevel") && p->bpe.byte_chars) {
        add_step(p, HD_BYTE_LEVEL); /* a WordPiece or WordLevel vocab written in the byte-level alphabet */
    } else if (!strcmp(type, "ByteFallback")) {
        add_step(p, HD_BYTE_FALLBACK);
    } else if (!strcmp(type, "Fuse")) {
        add_step(p, HD_FUSE);
    } else if (!strcmp(type, "Replace") && (v = hj_get(hj_get(node, "pattern"), "String")) && v->type == HJ_STRING &&
               v->len && hj_get(node, "content") && hj_get(node, "content")->type == HJ_STRING) {
        hf_decode_step *st = add_step(p, HD_REPLACE);
        st->from = dup_string(v, &st->from_len);
        st->to = dup_string(hj_get(node, "content"), &st->to_len);
    } else if (!strcmp(type, "Strip") && (v = hj_get(node, "content")) && v->type == HJ_STRING &&
               utf8_valid_seq((const unsigned char *)v->str, v->len) == v->len) {
        hf_decode_step *st = add_step(p, HD_STRIP);
        st->from = dup_string(v, &st->from_len);
        const hj_node *a = hj_get(node, "start"), *b = hj_get(node, "stop");
        st->start = a && a->type == HJ_NUMBER ? (size_t)a->number : 0;
        st->stop = b && b->type == HJ_NUMBER ? (size_t)b->number : 0;
    } else if (!strcmp(type, "Metaspace")) {
        hf_decode_step *st = add_step(p, HD_METASPACE);
        const hj_node *r = hj_get(node, "replacement");
        if (r && r->type == HJ_STRING) st->from = dup_string(r, &st->from_len);
        else st->from = xstrdup("\xE2\x96\x81"), st->from_len = 3;
        const char *scheme = hj_get_str(node, "prepend_scheme");
        const hj_node *aps = hj_get(node, "add_prefix_space");
        st->start = scheme ? strcmp(scheme, "never") != 0 : !(aps && aps->type == HJ_BOOL && !aps->boolean);
    } else {
        p->decoder_unsupported = true;
        snprintf(p->decoder_type, sizeof p->decoder_type, "%s", type);
    }
}

void hf_decoder_free(hf_pipeline *p)
{
    for (int i = 0; i < p->ndec; i++) {
        free(p->dec[i].from);
        free(p->dec[i].to);
    }
    free(p->dec);
}

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
    buf_append(&s->text, p, len);
    s->off[++s->n] = s->text.len;
}

static void strings_free(strings *s)
{
    buf_free(&s->text);
    free(s->off);
    memset(s, 0, sizeof *s);
}

/* The byte a "<0xXX>" token stands for, or -1. */
static int fallback_byte(const char *t, size_t len)
{
    unsigned b;
    char hex[3] = {0};
    if (len != 6 || memcmp(t, "<0x", 3) || t[5] != '>') return -1;
    memcpy(hex, t + 3, 2);
    return strspn(hex, "0123456789abcdefABCDEF") == 2 && sscanf(hex, "%2x", &b) == 1 ? (int)b : -1;
}

/* One step over in into out. */
static void apply(const hf_decode_step *st, const strings *in, strings *out)
{
    wbuf tok = WBUF_INIT, bytes = WBUF_INIT;
    for (size_t i = 0; i < in->n; i++) {
        const char *t = in->text.data + in->off[i];
        size_t len = in->off[i + 1] - in->off[i];
        buf_clear(&tok);
        switch (st->kind) {
        case HD_METASPACE:
        case HD_REPLACE:
            for (size_t k = 0; k < len;) {
                if (len - k >= st->from_len && !memcmp(t + k, st->from, st->from_len)) {
                    if (st->kind == HD_REPLACE) buf_append(&tok, st->to, st->to_len);
                    else if (!(i == 0 && st->start)) buf_putc(&tok, ' '); /* HF: none in the first token */
                    k += st->from_len;
                } else {
                    buf_putc(&tok, t[k++]);
                }
            }
            strings_push(out, tok.data, tok.len);
            break;
        case HD_STRIP: {
            size_t a = 0, b = len;
            for (size_t k = 0; k < st->start && b - a >= st->from_len && !memcmp(t + a, st->from, st->from_len); k++)
                a += st->from_len;
            for (size_t k = 0; k < st->stop && b - a >= st->from_len && !memcmp(t + b - st->from_len, st->from, st->from_len); k++)
                b -= st->from_len;
            strings_push(out, t + a, b - a);
            break;
        }
        case HD_BYTE_LEVEL: /* HF: each character's byte; a token with another character stays as it is */
            if (hf_bytes_of_chars(t, len, &tok)) strings_push(out, tok.data, tok.len);
            else strings_push(out, t, len);
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
    buf_free(&tok);
    buf_free(&bytes);
}

void hf_decode(const hf_pipeline *p, const tok_vocab *vocab, const uint32_t *ids, size_t n, wbuf *out,
               size_t *unknown)
{
    strings a = {0}, b = {0};
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *t = vocab_token_bytes(vocab, ids[i], &len);
        if (t) strings_push(&a, t, len);
        else ++*unknown;
    }
    for (int k = 0; k < p->ndec; k++) {
        b.n = 0;
        buf_clear(&b.text);
        apply(&p->dec[k], &a, &b);
        strings tmp = a;
        a = b;
        b = tmp;
    }
    buf_append(out, a.text.data ? a.text.data : "", a.text.len);
    strings_free(&a);
    strings_free(&b);
}
