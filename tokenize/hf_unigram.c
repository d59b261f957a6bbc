/* hf_unigram.c - HF tokenizers' Unigram model (SentencePiece unigram):
 * the segmentation of a word into vocab pieces with the highest sum of
 * scores (Viterbi, left to right, a later equal score does not replace an
 * earlier one); a character no piece starts with costs the lowest score
 * minus 10 as the unknown piece, and runs of unknown pieces fuse; a piece
 * that is not in the vocab (a fused unknown run) becomes its "<0xXX>" byte
 * tokens with byte_fallback, else the unknown id. Scores are doubles added
 * in HF's order, so ties break the same way. */
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"

#define UNK_PENALTY 10.0 /* HF's K_UNK_PENALTY */

typedef struct {
    double score;
    uint32_t id;
    int64_t from; /* -1: no path ends here yet */
} lattice_node;

int hf_unigram_load(hf_bpe *m, const hj_node *model, tok_vocab *vocab, wbuf *err)
{
    memset(m, 0, sizeof *m);
    m->unigram = true;
    m->unk = VOCAB_NO_TOKEN;
    for (int b = 0; b < 256; b++) m->byte_token[b] = VOCAB_NO_TOKEN;
    vocab_init(&m->odd_keys);
    const hj_node *voc = hj_get(model, "vocab"), *unk = hj_get(model, "unk_id"), *bf = hj_get(model, "byte_fallback");
    if (!voc || voc->type != HJ_ARRAY || voc->len > VOCAB_MAX_ID) {
        buf_printf(err, "model.vocab: not an array of [piece, score]");
        return -1;
    }
    m->vocab_size = (uint32_t)voc->len;
    m->ug_score = xmalloc((voc->len + 1) * sizeof *m->ug_score);
    double min_score = 0;
    for (size_t i = 0; i < voc->len; i++) {
        const hj_node *e = &voc->items[i];
        if (e->type != HJ_ARRAY || e->len != 2 || e->items[0].type != HJ_STRING || e->items[1].type != HJ_NUMBER) {
            buf_printf(err, "model.vocab[%zu]: not [piece, score]", i);
            return -1;
        }
        const hj_node *piece = &e->items[0];
        m->ug_score[i] = e->items[1].number;
        if (!i || m->ug_score[i] < min_score) min_score = m->ug_score[i];
        if (!piece->len) continue;
        if (!vocab_add(vocab, piece->str, piece->len, (uint32_t)i, (uint32_t)i)) continue; /* a repeated piece: the first */
        int k = 0;
        while (k < m->ug_nlengths && m->ug_lengths[k] != piece->len) k++;
        if (k == m->ug_nlengths) {
            m->ug_lengths = xrealloc(m->ug_lengths, (size_t)(k + 1) * sizeof *m->ug_lengths);
            m->ug_lengths[m->ug_nlengths++] = (uint32_t)piece->len;
        }
    }
    for (int i = 1; i < m->ug_nlengths; i++) /* shortest first */
        for (int j = i; j > 0 && m->ug_lengths[j - 1] > m->ug_lengths[j]; j--) {
            uint32_t t = m->ug_lengths[j];
            m->ug_lengths[j] = m->ug_lengths[j - 1];
            m->ug_lengths[j - 1] = t;
        }
    m->ug_unk_score = min_score - UNK_PENALTY;
    if (!unk || unk->type != HJ_NUMBER || unk->number < 0 || unk->number >= (double)voc->len) {
        /* without one HF fails on any text with a character no piece covers */
        buf_printf(err, "model.unk_id: must be an index of model.vocab");
        return -1;
    }
    m->unk = (uint32_t)unk->number;
    m->byte_fallback = bf && bf->type == HJ_BOOL && bf->boolean;
    if (m->byte_fallback)
        for (int b = 0; b < 256; b++) {
            static const char digits[] = "0123456789ABCDEF";
            char name[7] = {'<', '0', 'x', digits[b >> 4], digits[b & 15], '>', 0};
            m->byte_token[b] = vocab_find(vocab, (const uint8_t *)name, 6);
        }
    return 0;
}

/* Appends the id of one piece of the best path (tokenize's lookup of its string). */
static void piece_ids(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *p, size_t len, tok_ids *out)
{
    uint32_t id = vocab_find(vocab, p, len);
    if (id != VOCAB_NO_TOKEN) {
        ids_push(out, id);
        return;
    }
    bool bytes = m->byte_fallback;
    for (size_t k = 0; k < len && bytes; k++) bytes = m->byte_token[p[k]] != VOCAB_NO_TOKEN;
    if (bytes)
        for (size_t k = 0; k < len; k++) ids_push(out, m->byte_token[p[k]]);
    else if (m->unk != VOCAB_NO_TOKEN)
        ids_push(out, m->unk);
}

void hf_unigram_word(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, hf_scratch *h, tok_ids *out)
{
    if (h->lattice_cap < n + 1) {
        h->lattice_cap = n + 1;
        h->lattice = xrealloc(h->lattice, h->lattice_cap * sizeof(lattice_node));
    }
    lattice_node *best = h->lattice;
    for (size_t i = 0; i <= n; i++) best[i] = (lattice_node){0, 0, -1};
    for (size_t at = 0; at < n;) {
        double here = best[at].score;
        size_t mblen = utf8_valid_seq(s + at, n - at);
        if (!mblen) mblen = 1;
        bool single = false;
        for (int k = 0; k < m->ug_nlengths && m->ug_lengths[k] <= n - at; k++) {
            size_t len = m->ug_lengths[k];
            uint32_t id = vocab_find(vocab, s + at, len);
            if (id == VOCAB_NO_TOKEN) continue;
            double cand = m->ug_score[id] + here;
            lattice_node *t = &best[at + len];
            if (t->from < 0 || cand > t->score) *t = (lattice_node){cand, id, (int64_t)at};
            if (len == mblen) single = true;
        }
        if (!single) {
            lattice_node *t = &best[at + mblen];
            double cand = m->ug_unk_score + here;
            if (t->from < 0 || cand > t->score) *t = (lattice_node){cand, m->unk, (int64_t)at};
        }
        at += mblen;
    }
    /* back from the end: the pieces in reverse, unknown runs fused */
    size_t end = n, unk_end = 0;
    bool in_unk = false;
    uint32_t *starts = NULL;
    size_t nstarts = 0, cap = 0;
    while (end > 0) {
        const lattice_node *node = &best[end];
        size_t start = (size_t)node->from;
        bool unk = m->unk != VOCAB_NO_TOKEN && node->id == m->unk;
        if (!unk && in_unk) { /* the fused unknown run [start of run, unk_end) ends here */
            if (nstarts + 2 > cap) starts = xrealloc(starts, (cap = 2 * cap + 16) * sizeof *starts);
            starts[nstarts++] = (uint32_t)end, starts[nstarts++] = (uint32_t)unk_end;
            in_unk = false;
        }
        if (unk) {
            if (!in_unk) unk_end = end;
            in_unk = true;
        } else {
            if (nstarts + 2 > cap) starts = xrealloc(starts, (cap = 2 * cap + 16) * sizeof *starts);
            starts[nstarts++] = (uint32_t)start, starts[nstarts++] = (uint32_t)end;
        }
        end = start;
    }
    if (in_unk) {
        if (nstarts + 2 > cap) starts = xrealloc(starts, (cap = 2 * cap + 16) * sizeof *starts);
        starts[nstarts++] = 0, starts[nstarts++] = (uint32_t)unk_end;
    }
    for (size_t k = nstarts; k >= 2; k -= 2) piece_ids(m, vocab, s + starts[k - 2], starts[k - 1] - starts[k - 2], out);
    free(starts);
}
