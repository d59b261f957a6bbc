/* hf_wordpiece.c - HF tokenizers' WordPiece model: a word longer than
 * max_input_chars_per_word characters is the unknown token; otherwise,
 * from its start, the longest vocab string that begins there (after the
 * first piece, with continuing_subword_prefix put before it), shortening
 * one character at a time; a word with a place where nothing matches is the
 * unknown token as a whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"

#define DEFAULT_MAX_CHARS 100 /* HF's default max_input_chars_per_word */

int hf_wordpiece_load(hf_bpe *m, const hj_node *model, tok_vocab *vocab, wbuf *err)
{
    memset(m, 0, sizeof *m);
    m->wordpiece = true;
    m->unk = VOCAB_NO_TOKEN;
    for (int b = 0; b < 256; b++) m->byte_token[b] = VOCAB_NO_TOKEN;
    vocab_init(&m->odd_keys);
    const hj_node *voc = hj_get(model, "vocab"), *max = hj_get(model, "max_input_chars_per_word");
    if (!voc || voc->type != HJ_OBJECT) {
        buf_printf(err, "model.vocab: not an object");
        return -1;
    }
    m->vocab_size = (uint32_t)voc->len;
    for (size_t i = 0; i < voc->len; i++) {
        const hj_node *idn = &voc->items[i];
        const char *key = voc->keys[i];
        if (idn->type != HJ_NUMBER || idn->number < 0 || idn->number > VOCAB_MAX_ID || idn->number != (uint32_t)idn->number) {
            buf_printf(err, "model.vocab[\"%.64s\"]: not a token id (0..%u)", key, VOCAB_MAX_ID);
            return -1;
        }
        uint32_t id = (uint32_t)idn->number;
        if (key[0] && !vocab_add(vocab, key, strlen(key), id, id) && vocab_find(vocab, (const uint8_t *)key, strlen(key)) != id) {
            buf_printf(err, "model.vocab[\"%.64s\"]: id %u is given to another token too", key, id);
            return -1;
        }
    }
    const char *unk = hj_get_str(model, "unk_token"), *prefix = hj_get_str(model, "continuing_subword_prefix");
    m->unk = unk && unk[0] ? vocab_find(vocab, (const uint8_t *)unk, strlen(unk)) : VOCAB_NO_TOKEN;
    if (m->unk == VOCAB_NO_TOKEN) { /* HF fails at encoding then; refuse it now */
        buf_printf(err, "model.unk_token: \"%.64s\" is not in the vocab", unk ? unk : "");
        return -1;
    }
    m->wp_prefix = xstrdup(prefix ? prefix : "##");
    m->wp_prefix_len = strlen(m->wp_prefix);
    m->wp_max_chars = max && max->type == HJ_NUMBER && max->number >= 0 ? (size_t)max->number : DEFAULT_MAX_CHARS;
    return 0;
}

/* The length of the character that ends at s[end) (end > 0). */
static size_t last_char_len(const uint8_t *s, size_t end)
{
    size_t k = end - 1;
    while (k > 0 && end - k < 4 && (s[k] & 0xC0) == 0x80) k--;
    return utf8_valid_seq(s + k, end - k) == end - k ? end - k : 1;
}

void hf_wordpiece_word(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, wbuf *tmp, tok_ids *out)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; chars++) {
        size_t len = utf8_valid_seq(s + i, n - i);
        i += len ? len : 1;
    }
    size_t first = out->n;
    if (chars <= m->wp_max_chars) {
        for (size_t start = 0; start < n;) {
            uint32_t id = VOCAB_NO_TOKEN;
            size_t end = n;
            for (; end > start; end -= last_char_len(s, end)) {
                buf_clear(tmp);
                if (start) buf_append(tmp, m->wp_prefix, m->wp_prefix_len);
                buf_append(tmp, s + start, end - start);
                if ((id = vocab_find(vocab, (const uint8_t *)tmp->data, tmp->len)) != VOCAB_NO_TOKEN) break;
            }
            if (id == VOCAB_NO_TOKEN) {
                out->n = first; /* a place where nothing matches: the whole word is unknown */
                break;
            }
            ids_push(out, id);
            start = end;
        }
        if (out->n > first || !n) return;
    }
    ids_push(out, m->unk);
}
