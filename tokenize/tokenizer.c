/* tokenizer.c - loading an encoding, encoding and decoding text. */
#include "tokenize/tokenizer.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tokenize/encoding.h"
#include "tokenize/hf_json.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/sp_model.h"
#include "tokenize/sp_tokenizer.h"
#include "tokenize/vocab_load.h"

#define SHA256_HEX 65
#define UTF8_BOM "\xEF\xBB\xBF"
#define UTF8_BOM_LEN 3

static void sha256_hex(const char *p, size_t n, char hex[SHA256_HEX])
{
    unsigned char md[32];
    EVP_Digest(p, n, md, NULL, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static char *read_vocab_file(const char *path, size_t *n, wbuf *err)
{
    char *data = read_file(path, n);
    if (!data) buf_printf(err, "%s: %s", path, strerror(errno));
    return data;
}

/* True when the text looks like a tokenizer.json (starts with '{'). */
static bool looks_like_json(const char *text, size_t n)
{
    size_t i = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) i++;
    return i < n && text[i] == '{';
}

/* The members of a tokenizer.json that Hugging Face reads. Its reader
 * (TokenizerVisitor) skips any other key without reading its value, so
 * serde_json then fails on the ':' after it: HF refuses the file. */
static const char *const HF_MEMBERS[] = {"version",       "truncation",     "padding", "added_tokens", "normalizer",
                                         "pre_tokenizer", "post_processor", "decoder", "model"};
#define HF_MEMBER_COUNT (sizeof HF_MEMBERS / sizeof *HF_MEMBERS)

/* NULL when the type of member key's value v is one HF takes, else what
 * it must be: HF reads each member as it comes, a repeated one too. The
 * contents of truncation and padding are not checked (winnow ignores them). */
static const char *member_type_problem(const char *key, const hj_node *v)
{
    if (!strcmp(key, "version") && v->type != HJ_STRING) return "must be a string";
    if (!strcmp(key, "added_tokens") && v->type != HJ_ARRAY) return "must be an array";
    if ((!strcmp(key, "truncation") || !strcmp(key, "padding")) && v->type != HJ_NULL && v->type != HJ_OBJECT)
        return "must be null or an object";
    return NULL;
}

/* Checks the members of the root object as HF's reader takes them; -1 with a message. */
static int check_members(const hj_node *root, wbuf *err)
{
    if (root->type != HJ_OBJECT) return 0; /* refused as not an object by hf_pipeline_load */
    for (size_t i = 0; i < root->len; i++) {
        size_t k = 0;
        while (k < HF_MEMBER_COUNT && strcmp(root->keys[i], HF_MEMBERS[k])) k++;
        const char *why = k == HF_MEMBER_COUNT ? "not a member of a tokenizer.json"
                                               : member_type_problem(root->keys[i], &root->items[i]);
        if (why) {
            buf_printf(err, "\"%.64s\": %s (Hugging Face tokenizers refuses the file)", root->keys[i], why);
            return -1;
        }
    }
    return 0;
}

/* Loads a tokenizer.json: its pipeline, and the tokens by id into t->vocab. */
static int load_hf(tokenizer *t, const char *text, size_t n, wbuf *err)
{
    hj_doc doc;
    if (hj_parse(text, n, &doc, err)) return -1;
    if (check_members(&doc.root, err)) {
        hj_free(&doc);
        return -1;
    }
    t->hf = xmalloc(sizeof *t->hf);
    int rc = hf_pipeline_load(t->hf, &doc.root, &t->vocab, err);
    hj_free(&doc);
    if (rc) {
        hf_pipeline_free(t->hf);
        free(t->hf);
        t->hf = NULL;
        return -1;
    }
    vocab_finish(&t->vocab);
    if (t->hf->has_template) { /* the ids the file adds, and add them by default */
        t->bos = t->hf->bos;
        t->eos = t->hf->eos;
        t->bos_default = t->bos != VOCAB_NO_TOKEN;
        t->eos_default = t->eos != VOCAB_NO_TOKEN;
    } else { /* as for tiktoken files: <|endoftext|> after each document, when there is one */
        t->bos = t->eos = vocab_special_id(&t->vocab, "<|endoftext|>");
        t->eos_default = t->eos != VOCAB_NO_TOKEN;
    }
    return 0;
}

/* tokenizer_load_mem, except that a failure may leave t holding memory. */
static int load_mem(tokenizer *t, const char *name, const char *text, size_t n, int family, wbuf *err)
{
    memset(t, 0, sizeof *t);
    vocab_init(&t->vocab);
    t->eos = t->bos = VOCAB_NO_TOKEN;
    t->eos_default = true;
    const encoding_info *e = name ? encoding_find(name) : NULL;
    if (name && !e) {
        buf_printf(err, "unknown encoding '%s'", name);
        return -1;
    }
    if (sp_tokenizer_sniff(text, n)) {
        if (!e) return sp_tokenizer_load(t, text, n, err);
        buf_printf(err, "a SentencePiece model says its own pipeline: give it without --encoding");
        return -1;
    }
    if (looks_like_json(text, n)) {
        if (!e) return load_hf(t, text, n, err);
        buf_printf(err, "a tokenizer.json says its own pipeline: give it without --encoding");
        return -1;
    }
    bool bom = n >= UTF8_BOM_LEN && !memcmp(text, UTF8_BOM, UTF8_BOM_LEN);
    if (bom && looks_like_json(text + UTF8_BOM_LEN, n - UTF8_BOM_LEN)) {
        buf_printf(err, "a tokenizer.json with a byte order mark before its '{' (Hugging Face refuses it)");
        return -1;
    }
    if (e) family = (int)e->family;
    if (family < 0) {
        buf_printf(err, "a tiktoken file needs --encoding or --pattern to say its pre-tokeniser");
        return -1;
    }
    if (vocab_parse_tiktoken(&t->vocab, text, n, err)) return -1;
    vocab_finish(&t->vocab);
    const char *incomplete = vocab_check_complete(&t->vocab);
    if (incomplete) {
        buf_printf(err, "%s", incomplete);
        return -1;
    }
    t->family = (pretok_family)family;
    if (e) {
        encoding_add_specials(e, &t->vocab);
        t->eos = vocab_special_id(&t->vocab, e->eos);
        t->bos = vocab_special_id(&t->vocab, e->bos);
        snprintf(t->name, sizeof t->name, "%s", e->name);
    } else {
        t->eos = vocab_special_id(&t->vocab, "<|endoftext|>");
        t->bos = t->eos;
    }
    return 0;
}

int tokenizer_load_mem(tokenizer *t, const char *name, const char *text, size_t n, int family, wbuf *err)
{
    int rc = load_mem(t, name, text, n, family, err);
    if (rc) { /* nothing is left to free */
        tokenizer_free(t);
        memset(t, 0, sizeof *t);
    }
    return rc;
}

int tokenizer_load(tokenizer *t, const char *name, const char *path, int family, wbuf *err)
{
    size_t n;
    char *text = read_vocab_file(path, &n, err);
    if (!text) {
        memset(t, 0, sizeof *t);
        return -1;
    }
    const encoding_info *e = name ? encoding_find(name) : NULL;
    if (e) {
        char hex[SHA256_HEX];
        sha256_hex(text, n, hex);
        if (strcmp(hex, e->sha256)) {
            buf_printf(err, "%s: sha256 %s is not %s's published %s", path, hex, e->name, e->sha256);
            free(text);
            memset(t, 0, sizeof *t);
            return -1;
        }
    }
    int rc = tokenizer_load_mem(t, name, text, n, family, err);
    if (rc == 0 && !name) {
        const char *base = strrchr(path, '/');
        snprintf(t->name, sizeof t->name, "%s", base ? base + 1 : path);
    }
    if (rc && err->len) {
        wbuf msg = WBUF_INIT;
        buf_printf(&msg, "%s: %s", path, err->data);
        buf_clear(err);
        buf_append(err, msg.data, msg.len);
        buf_free(&msg);
    }
    free(text);
    return rc;
}

const char *tokenizer_decode_refused(const tokenizer *t)
{
    return t->hf && t->hf->decoder_unsupported ? t->hf->decoder_type : NULL;
}

void tokenizer_free(tokenizer *t)
{
    if (t->hf) hf_pipeline_free(t->hf);
    free(t->hf);
    t->hf = NULL;
    if (t->sp) sp_model_free(t->sp);
    t->sp = NULL;
    vocab_free(&t->vocab);
}

#define PIECE_BATCH 32 /* pieces split ahead, so their memory loads overlap */
#define RECENT_MERGE (BPE_NOT_RECENT - 1) /* never an id: the recent lookups hold the piece's merge */

/* A batch of pieces on its way through three stages (see encode_ordinary). */
typedef struct {
    size_t bound[PIECE_BATCH + 1]; /* piece i is s[bound[i]..bound[i+1]) */
    uint64_t hash[PIECE_BATCH], head[PIECE_BATCH], tail[PIECE_BATCH];
    uint32_t len[PIECE_BATCH];
    const bpe_hot_entry *recent[PIECE_BATCH]; /* the piece's recent-lookup entry */
    /* after probe_batch: the id, VOCAB_NO_TOKEN, BPE_NOT_RECENT or RECENT_MERGE */
    uint32_t id[PIECE_BATCH];
    int k;                    /* pieces */
} piece_batch;

/* Stage 1: splits up to PIECE_BATCH pieces from pos, hashes them and starts
 * loading their recent-lookup entries; b->k is 0 at the end of the text. */
static void split_batch(const tokenizer *t, const uint8_t *s, size_t n, size_t pos, const bpe_scratch *scratch,
                        piece_batch *b)
{
    b->bound[0] = pos;
    b->k = pos < n ? pretok_split(t->family, &uclass_tiktoken, s, n, pos, b->bound + 1, PIECE_BATCH) : 0;
    for (int i = 0; i < b->k; i++) {
        size_t at = b->bound[i], len = b->bound[i + 1] - at;
        bool wide = at + 2 * VOCAB_HEAD_BYTES <= n;
        uint64_t head = wide ? vocab_head_wide(s + at, len) : vocab_head(s + at, len);
        uint64_t tail = len > VOCAB_HEAD_BYTES ? vocab_tail(s + at, len, wide) : 0;
        uint64_t hash = vocab_hash_parts(s + at, len, head, tail);
        b->head[i] = head, b->tail[i] = tail, b->hash[i] = hash, b->len[i] = (uint32_t)len;
        b->recent[i] = bpe_recent_entry(scratch, hash);
        __builtin_prefetch(b->recent[i]);
    }
}

/* Stage 2: takes the answers the recent lookups hold and starts loading the
 * vocabulary's hash slots of the other pieces, and the remembered merges of
 * the pieces that are not (or may not be) one token. */
static void probe_batch(const tok_vocab *v, const bpe_scratch *scratch, piece_batch *b)
{
    for (int i = 0; i < b->k; i++) {
        const bpe_hot_entry *e = b->recent[i];
        bool hit = bpe_recent_holds(e, b->len[i], b->head[i], b->tail[i]);
        b->id[i] = !hit ? BPE_NOT_RECENT : e->ids[1] == VOCAB_NO_TOKEN ? e->ids[0] : RECENT_MERGE;
        if (!hit) vocab_prefetch(v, b->hash[i], b->len[i]);
        if (b->id[i] >= BPE_NOT_RECENT) bpe_prefetch_merge(scratch, b->hash[i], b->len[i]);
    }
}

/* Appends the ids of piece i of the batch when the recent lookups still
 * hold its merge; false when they no longer do. */
static bool take_recent_merge(const piece_batch *b, int i, const bpe_scratch *scratch, tok_ids *out)
{
    const bpe_hot_entry *e = bpe_recent_entry(scratch, b->hash[i]);
    if (!bpe_recent_holds(e, b->len[i], b->head[i], b->tail[i]) || e->ids[1] == VOCAB_NO_TOKEN) return false;
    for (int k = 0; k < BPE_HOT_IDS && e->ids[k] != VOCAB_NO_TOKEN; k++) out->ids[out->n++] = e->ids[k];
    return true;
}

/* Stage 3: appends the ids of the batch's pieces: looked up whole, merged
 * when a piece is not a single token (and the merge of a short piece
 * remembered among the recent lookups). */
static void encode_batch(const tok_vocab *v, const uint8_t *s, const piece_batch *b, bpe_scratch *scratch,
                         tok_ids *out)
{
    ids_reserve(out, (size_t)b->k * BPE_HOT_IDS);
    for (int i = 0; i < b->k; i++) {
        uint32_t id = b->id[i];
        if (id == BPE_NOT_RECENT)
            id = bpe_lookup_token(v, scratch, s + b->bound[i], b->len[i], b->head[i], b->tail[i], b->hash[i]);
        if (id <= VOCAB_MAX_ID) {
            out->ids[out->n++] = id;
        } else if (id != RECENT_MERGE || !take_recent_merge(b, i, scratch, out)) {
            size_t first = out->n;
            bpe_merge_piece(v, s + b->bound[i], b->len[i], b->hash[i], scratch, out);
            bpe_remember_piece(scratch, b->len[i], b->head[i], b->tail[i], b->hash[i], out->ids + first,
                               out->n - first);
            ids_reserve(out, (size_t)(b->k - i) * BPE_HOT_IDS);
        }
    }
}

#define STAGES 3

/* Encodes ordinary text (no special tokens) in batches of pieces through
 * three stages, each batch a stage behind the one before, so that what a
 * stage starts loading has arrived when the next stage needs it. */
static void encode_ordinary(const tokenizer *t, const uint8_t *s, size_t n, bpe_scratch *scratch, tok_ids *out)
{
    const tok_vocab *v = &t->vocab;
    piece_batch batch[STAGES];
    bpe_scratch_ready(v, scratch);
    split_batch(t, s, n, 0, scratch, &batch[0]);
    split_batch(t, s, n, batch[0].bound[batch[0].k], scratch, &batch[1]);
    probe_batch(v, scratch, &batch[0]);
    for (int b = 0; batch[b].k; b = (b + 1) % STAGES) {
        piece_batch *next = &batch[(b + 1) % STAGES], *after = &batch[(b + 2) % STAGES];
        split_batch(t, s, n, next->bound[next->k], scratch, after);
        probe_batch(v, scratch, next);
        encode_batch(v, s, &batch[b], scratch, out);
    }
}

/* The longest special token at s[pos..n), or -1. */
static int special_at(const tok_vocab *v, const uint8_t *s, size_t n, size_t pos)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < v->nspecials; i++) {
        const char *name = v->specials[i].name;
        size_t len = strlen(name);
        if ((uint8_t)name[0] == s[pos] && len <= n - pos && len > best_len && !memcmp(s + pos, name, len))
            best = i, best_len = len;
    }
    return best;
}

int tokenizer_encode(const tokenizer *t, const char *text, size_t n, bool allow_special, bpe_scratch *scratch,
                     tok_ids *out)
{
    if (t->hf) return hf_encode(t->hf, &t->vocab, text, n, allow_special, scratch, out);
    if (t->sp) {
        sp_tokenizer_encode(t, text, n, allow_special, out);
        return 0;
    }
    const uint8_t *s = (const uint8_t *)text;
    if (!allow_special || t->vocab.nspecials == 0) {
        encode_ordinary(t, s, n, scratch, out);
        return 0;
    }
    bool first_byte[256] = {false};
    for (int i = 0; i < t->vocab.nspecials; i++) first_byte[(uint8_t)t->vocab.specials[i].name[0]] = true;
    size_t start = 0;
    for (size_t pos = 0; pos < n; pos++) {
        if (!first_byte[s[pos]]) continue;
        int k = special_at(&t->vocab, s, n, pos);
        if (k < 0) continue;
        encode_ordinary(t, s + start, pos - start, scratch, out);
        ids_push(out, t->vocab.specials[k].id);
        pos += strlen(t->vocab.specials[k].name) - 1;
        start = pos + 1;
    }
    encode_ordinary(t, s + start, n - start, scratch, out);
    return 0;
}

bool tokenizer_knows_id(const tokenizer *t, uint32_t id)
{
    size_t len;
    if (t->sp) return id < (uint32_t)sp_model_size(t->sp);
    if (t->hf) return hf_decode_knows(t->hf, &t->vocab, id);
    return vocab_token_bytes(&t->vocab, id, &len) != NULL;
}

size_t tokenizer_first_unknown(const tokenizer *t, const uint32_t *ids, size_t n)
{
    size_t i = 0;
    while (i < n && tokenizer_knows_id(t, ids[i])) i++;
    return i;
}

void tokenizer_encode_error(int code, wbuf *out)
{
    hf_regex_error_text(code, out);
}

size_t tokenizer_decode(const tokenizer *t, const uint32_t *ids, size_t n, wbuf *out)
{
    size_t unknown = 0;
    if (t->hf) {
        hf_decode(t->hf, &t->vocab, ids, n, out, &unknown);
        return unknown;
    }
    if (t->sp) return sp_tokenizer_decode(t, ids, n, out);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *b = vocab_token_bytes(&t->vocab, ids[i], &len);
        if (b) buf_append(out, b, len);
        else unknown++;
    }
    return unknown;
}
