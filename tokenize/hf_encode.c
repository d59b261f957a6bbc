/* hf_encode.c - the tokenizer.json pipeline as a whole: loading the parts
 * in order (normalizer, pre_tokenizer, model, added_tokens, post_processor)
 * and encoding a text through them (see hf_pipeline.h). */
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/hf_precompiled.h"

#define JIT_STACK_START (32 * 1024)
#define JIT_STACK_MAX (8 * 1024 * 1024) /* deep backtracking on long runs must not fail a match */
#define MATCH_PAIRS 16
#define PREFETCH_AHEAD 8 /* pieces between starting to load a remembered word and using it */

void hf_scratch_init(hf_scratch *h)
{
    if (h->md) return;
    h->jit = pcre2_jit_stack_create(JIT_STACK_START, JIT_STACK_MAX, NULL);
    h->mctx = pcre2_match_context_create(NULL);
    if (!h->jit || !h->mctx) dief(1, "out of memory");
    pcre2_jit_stack_assign(h->mctx, NULL, h->jit);
    h->md = pcre2_match_data_create(MATCH_PAIRS, NULL);
    if (!h->md) dief(1, "out of memory");
}

void hf_pieces_free(hf_pieces *p)
{
    buf_free(&p->text);
    free(p->off);
    free(p->len);
    free(p->aligned);
    free(p->spans);
}

static void cache_clear(hf_scratch *h)
{
    free(h->cache);
    free(h->mid);
    free(h->chars);
    h->cache = NULL;
    h->mid = NULL;
    h->chars = NULL;
}

void hf_scratch_free(hf_scratch *h)
{
    if (h->md) pcre2_match_data_free(h->md);
    if (h->mctx) pcre2_match_context_free(h->mctx);
    if (h->jit) pcre2_jit_stack_free(h->jit);
    buf_free(&h->norm);
    buf_free(&h->norm_tmp);
    buf_free(&h->piece);
    hf_pieces_free(&h->pieces);
    hf_pieces_free(&h->pieces_tmp);
    buf_free(&h->byte_chars);
    buf_free(&h->affixed);
    hf_pieces_free(&h->byte_pieces);
    free(h->raw_spans);
    free(h->norm_spans);
    free(h->sym);
    free(h->heap);
    free(h->cuts);
    free(h->cut_hash);
    free(h->lattice);
    cache_clear(h);
    memset(h, 0, sizeof *h);
}

int hf_match(const pcre2_code *re, const char *s, size_t n, size_t pos, hf_scratch *h)
{
    int rc = pcre2_match(re, (PCRE2_SPTR)(s ? s : ""), n, pos, 0, h->md, h->mctx);
    if (rc < 0 && rc != PCRE2_ERROR_NOMATCH && !h->regex_error) h->regex_error = rc;
    return rc;
}

/* The id of special token name in a TemplateProcessing's special_tokens. */
static uint32_t template_id(const hj_node *pp, const char *name)
{
    const hj_node *sp = hj_get(hj_get(pp, "special_tokens"), name), *ids = hj_get(sp, "ids");
    if (!ids || ids->type != HJ_ARRAY || ids->len != 1 || ids->items[0].type != HJ_NUMBER) return VOCAB_NO_TOKEN;
    return (uint32_t)ids->items[0].number;
}

/* BOS/EOS of a post_processor: the one special token before and after the
 * text of a TemplateProcessing's single template, or a Bert/Roberta
 * processor's cls and sep. Several tokens on one side leave that side unset. */
static void read_post_processor(hf_pipeline *p, const hj_node *pp)
{
    const char *type = hj_get_str(pp, "type");
    if (!type) return;
    if (!strcmp(type, "Sequence")) {
        const hj_node *list = hj_get(pp, "processors");
        for (size_t i = 0; list && list->type == HJ_ARRAY && i < list->len; i++) read_post_processor(p, &list->items[i]);
        return;
    }
    if (!strcmp(type, "BertProcessing") || !strcmp(type, "RobertaProcessing")) {
        p->has_template = true;
        const hj_node *cls = hj_get(pp, "cls"), *sep = hj_get(pp, "sep");
        if (cls && cls->type == HJ_ARRAY && cls->len == 2 && cls->items[1].type == HJ_NUMBER) p->bos = (uint32_t)cls->items[1].number;
        if (sep && sep->type == HJ_ARRAY && sep->len == 2 && sep->items[1].type == HJ_NUMBER) p->eos = (uint32_t)sep->items[1].number;
        return;
    }
    if (strcmp(type, "TemplateProcessing")) return;
    const hj_node *single = hj_get(pp, "single");
    if (!single || single->type != HJ_ARRAY) return;
    p->has_template = true;
    int before = 0, after = 0;
    bool seen_text = false;
    uint32_t bos = VOCAB_NO_TOKEN, eos = VOCAB_NO_TOKEN;
    for (size_t i = 0; i < single->len; i++) {
        const hj_node *it = &single->items[i];
        if (hj_get(it, "Sequence")) {
            seen_text = true;
            continue;
        }
        const char *name = hj_get_str(hj_get(it, "SpecialToken"), "id");
        if (!name) continue;
        if (seen_text) eos = template_id(pp, name), after++;
        else bos = template_id(pp, name), before++;
    }
    p->bos = before == 1 ? bos : VOCAB_NO_TOKEN;
    p->eos = after == 1 ? eos : VOCAB_NO_TOKEN;
}

static bool has_byte_level(const hf_pipeline *p)
{
    for (int i = 0; i < p->npre; i++)
        if (p->pre[i].kind == HP_BYTE_LEVEL) return true;
    return false;
}

/* Whether member key of o is a string (HF's serde reads a String there). */
static bool is_string(const hj_node *o, const char *key)
{
    const hj_node *v = hj_get(o, key);
    return v && v->type == HJ_STRING;
}

/* The model type of a model without "type", as HF's untagged ModelWrapper
 * picks it: the first of BPE (vocab and merges), WordPiece (unk_token,
 * continuing_subword_prefix, max_input_chars_per_word and vocab),
 * WordLevel (unk_token and vocab) and Unigram (vocab a list) whose members
 * are there with the types it reads; NULL when none is. A BPE whose
 * members HF cannot read is refused by the BPE loader (HF would try the
 * later types). */
static const char *untagged_model_type(const hj_node *model)
{
    const hj_node *voc = hj_get(model, "vocab"), *max = hj_get(model, "max_input_chars_per_word");
    if (voc && hj_get(model, "merges")) return "BPE";
    bool vocab_map = voc && voc->type == HJ_OBJECT;
    if (vocab_map && is_string(model, "unk_token") && is_string(model, "continuing_subword_prefix") && max &&
        max->type == HJ_NUMBER && max->number >= 0 && max->number == (double)(uint64_t)max->number)
        return "WordPiece";
    if (vocab_map && is_string(model, "unk_token")) return "WordLevel";
    if (voc && voc->type == HJ_ARRAY) return "Unigram";
    return NULL;
}

int hf_pipeline_load(hf_pipeline *p, const hj_node *root, tok_vocab *vocab, wbuf *err)
{
    memset(p, 0, sizeof *p);
    p->bos = p->eos = VOCAB_NO_TOKEN;
    if (!root || root->type != HJ_OBJECT) {
        buf_printf(err, "not a JSON object");
        return -1;
    }
    const char *version = hj_get_str(root, "version");
    if (version && strcmp(version, "1.0")) { /* HF refuses the file too */
        buf_printf(err, "version: \"%.32s\" is not 1.0", version);
        return -1;
    }
    if (hf_normalizer_load(p, hj_get(root, "normalizer"), "normalizer", err)) return -1;
    if (hf_pretok_load(p, hj_get(root, "pre_tokenizer"), "pre_tokenizer", err)) return -1;
    hf_pretok_skip_unmatchable(p);
    const hj_node *model = hj_get(root, "model");
    if (!model || model->type != HJ_OBJECT) {
        buf_printf(err, "model: missing");
        return -1;
    }
    const hj_node *tagged = hj_get(model, "type");
    if (tagged && tagged->type != HJ_STRING) {
        buf_printf(err, "model.type: not a string");
        return -1;
    }
    const char *type = tagged ? tagged->str : untagged_model_type(model);
    if (type && !strcmp(type, "WordPiece")) {
        if (hf_wordpiece_load(&p->bpe, model, vocab, err)) return -1;
        p->bpe.byte_chars = has_byte_level(p);
    } else if (type && !strcmp(type, "WordLevel")) {
        if (hf_wordlevel_load(&p->bpe, model, vocab, err)) return -1;
        p->bpe.byte_chars = has_byte_level(p);
    } else if (type && !strcmp(type, "Unigram")) {
        if (has_byte_level(p)) {
            buf_printf(err, "model.type: Unigram after a ByteLevel pre-tokenizer is not supported");
            return -1;
        }
        if (hf_unigram_load(&p->bpe, model, vocab, err)) return -1;
    } else if (!type || strcmp(type, "BPE")) {
        if (type) buf_printf(err, "model.type: %s is not supported (BPE, WordPiece, WordLevel and Unigram are)", type);
        else buf_printf(err, "model: no type, and not the members of a BPE, WordPiece, WordLevel or Unigram model");
        return -1;
    } else if (hf_bpe_load(&p->bpe, model, has_byte_level(p), vocab, err)) {
        return -1;
    }
    if (hf_added_load(p, hj_get(root, "added_tokens"), vocab, err)) return -1;
    read_post_processor(p, hj_get(root, "post_processor"));
    hf_decoder_load(p, hj_get(root, "decoder"));
    return 0;
}

void hf_pipeline_free(hf_pipeline *p)
{
    for (int i = 0; i < p->nnorm; i++) {
        free(p->norm[i].pattern);
        free(p->norm[i].content);
        if (p->norm[i].re) pcre2_code_free(p->norm[i].re);
        if (p->norm[i].re_fast) pcre2_code_free(p->norm[i].re_fast);
        hf_charsmap_free(p->norm[i].charsmap);
    }
    free(p->norm);
    for (int i = 0; i < p->npre; i++) {
        free(p->pre[i].literal);
        if (p->pre[i].re) pcre2_code_free(p->pre[i].re);
        if (p->pre[i].re_fast) pcre2_code_free(p->pre[i].re_fast);
    }
    free(p->pre);
    hf_bpe_free(&p->bpe);
    hf_added_free(p);
    hf_decoder_free(p);
    memset(p, 0, sizeof *p);
}

/* Normalized text s[0..n) that holds no added token: pre-tokenized, then each piece through the model. */
static void encode_text(const hf_pipeline *p, const tok_vocab *vocab, const char *s, size_t n, size_t z,
                        hf_scratch *h, tok_ids *out)
{
    if (!n) return;
    hf_pretokenize(p, s, n, z, h, &h->pieces, &h->pieces_tmp);
    if (h->regex_error) return; /* the pieces are wrong: the document fails */
    const hf_pieces *pc = &h->pieces;
    const uint8_t *base = (const uint8_t *)hf_piece_text(pc);
    if (p->bpe.byte_chars) { /* the model reads the pieces as ByteLevel wrote them */
        for (size_t i = 0; i < pc->n; i++) {
            hf_byte_chars(base + pc->off[i], pc->len[i], &h->byte_chars);
            const uint8_t *w = (const uint8_t *)h->byte_chars.data;
            hf_bpe_encode(&p->bpe, vocab, w, h->byte_chars.len, hf_word_hash(&p->bpe, w, h->byte_chars.len), h, out);
        }
        return;
    }
    /* where the pieces' text ends: s itself (base), or the pre-tokenizer's copy */
    const uint8_t *end = pc->base ? (const uint8_t *)s + n : base + pc->text.len;
    uint64_t hash[PREFETCH_AHEAD];
    for (size_t i = 0; i < pc->n && i < PREFETCH_AHEAD; i++) {
        hash[i] = hf_word_hash_in(&p->bpe, base + pc->off[i], pc->len[i], end);
        hf_bpe_prefetch(h, hash[i], pc->len[i]);
    }
    for (size_t i = 0; i < pc->n; i++) {
        uint64_t hi = hash[i % PREFETCH_AHEAD];
        size_t ahead = i + PREFETCH_AHEAD;
        if (ahead < pc->n) { /* the word a few pieces on: its remembered entry starts loading now */
            uint64_t ha = hf_word_hash_in(&p->bpe, base + pc->off[ahead], pc->len[ahead], end);
            hash[ahead % PREFETCH_AHEAD] = ha;
            hf_bpe_prefetch(h, ha, pc->len[ahead]);
            if (p->bpe.ignore_merges) vocab_prefetch(vocab, ha, pc->len[ahead]);
        }
        hf_bpe_encode(&p->bpe, vocab, base + pc->off[i], pc->len[i], hi, h, out);
    }
}

int hf_encode(const hf_pipeline *p, const tok_vocab *vocab, const char *s, size_t n, bool match_added,
              bpe_scratch *scratch, tok_ids *out)
{
    if (!scratch->hf) scratch->hf = xcalloc(1, sizeof *scratch->hf);
    hf_scratch *h = scratch->hf;
    hf_scratch_init(h);
    if (h->owner != p) {
        cache_clear(h);
        h->owner = p;
    }
    h->regex_error = 0;
    hf_added_span whole = {0, n, -1};
    const hf_added_span *raw = &whole;
    size_t nraw = 1;
    if (match_added) {
        nraw = hf_added_split(p, &p->raw_set, s, n, &h->raw_spans, &h->raw_cap);
        raw = h->raw_spans;
    }
    for (size_t r = 0; r < nraw && !h->regex_error; r++) {
        if (raw[r].index >= 0) {
            ids_push(out, p->added[raw[r].index].id);
            continue;
        }
        const char *text = s + raw[r].start;
        size_t len = raw[r].end - raw[r].start;
        /* the bytes at the document's original offset 0 (Metaspace's "first"): its first character */
        size_t z = raw[r].start == 0 ? hf_first_char_len(text, len) : 0;
        if (p->nnorm) {
            z = hf_normalize_aligned(p, text, len, z, h, &h->norm, &h->norm_tmp);
            text = h->norm.data, len = h->norm.len;
            if (h->regex_error) break; /* the normalized text is wrong */
        }
        if (!match_added || !p->normalized_set.nlengths) {
            encode_text(p, vocab, text, len, z, h, out);
            continue;
        }
        size_t nn = hf_added_split(p, &p->normalized_set, text, len, &h->norm_spans, &h->norm_cap);
        for (size_t k = 0; k < nn; k++) {
            const hf_added_span *sp = &h->norm_spans[k];
            if (sp->index >= 0) {
                ids_push(out, p->added[sp->index].id);
                continue;
            }
            size_t span_z = z > sp->start ? z - sp->start : 0; /* its bytes at offset 0 */
            encode_text(p, vocab, text + sp->start, sp->end - sp->start, span_z, h, out);
        }
    }
    return h->regex_error;
}
