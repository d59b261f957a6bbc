/* sp_tokenizer.c - a SentencePiece .model as a winnow tokenizer (see
 * sp_tokenizer.h); the encoding itself is SentencePiece's (sp_model.h). */
#include "tokenize/sp_tokenizer.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tokenize/sp_check.h"
#include "tokenize/sp_model.h"

#define PROTO_PIECES_TAG 0x0A /* ModelProto.pieces and SentencePiece.piece: field 1, length-delimited */
#define VARINT_MORE 0x80      /* a varint byte with more bytes after it */
#define VARINT_MAX_BYTES 10
#define VARINT_BITS 7         /* payload bits per varint byte */
#define SP_ERROR_BYTES 512

/* Reads the varint at p[*i..n) into *v; false when it is cut off or too long. */
static bool read_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *v)
{
    *v = 0;
    for (unsigned k = 0; *i < n && k < VARINT_MAX_BYTES; k++) {
        uint8_t b = p[(*i)++];
        *v |= (uint64_t)(b & ~VARINT_MORE) << (VARINT_BITS * k);
        if (!(b & VARINT_MORE)) return true;
    }
    return false;
}

/* The first piece (a SentencePiece message inside the file, its piece string
 * inside that) must fit where its lengths say: a tiktoken file that starts
 * with three blank lines also starts with three 0x0A bytes, but its "lengths"
 * (10, then a base64 letter or 10 again) never fit. */
bool sp_tokenizer_sniff(const char *data, size_t n)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t i = 0;
    uint64_t piece_msg, piece_str;
    if (n == 0 || p[i++] != PROTO_PIECES_TAG || !read_varint(p, n, &i, &piece_msg) || piece_msg > n - i) return false;
    size_t end = i + (size_t)piece_msg;
    if (i == end || p[i++] != PROTO_PIECES_TAG || !read_varint(p, end, &i, &piece_str)) return false;
    return piece_str <= end - i;
}

/* Adds the model's pieces to t's vocabulary: control symbols as special
 * tokens (by name), the others as ordinary tokens (their piece strings). */
static int fill_vocab(tokenizer *t, int size, wbuf *err)
{
    vocab_reserve(&t->vocab, (size_t)size, 0);
    for (int id = 0; id < size; id++) {
        size_t len;
        const char *piece = sp_model_piece(t->sp, id, &len);
        if (sp_model_is_control(t->sp, id)) {
            if (!len || memchr(piece, 0, len)) {
                buf_printf(err, "piece %d: a control symbol that is empty or holds a NUL byte is not supported", id);
                return -1;
            }
            vocab_add_special(&t->vocab, piece, (uint32_t)id);
        } else if (!vocab_add(&t->vocab, piece, len, (uint32_t)id, (uint32_t)id)) {
            buf_printf(err, "piece %d: an empty or repeated piece string is not supported", id);
            return -1;
        }
    }
    vocab_finish(&t->vocab);
    return 0;
}

/* Ordinary text every usable model encodes. SentencePiece's encoder fails
 * on a damaged model (a piece that such text needs marked as a control
 * symbol, found by the fuzzer) only when it meets that text, which would
 * stop a run mid-way; such a model is refused at load instead. */
#define PROBE(s) {s, sizeof s - 1}
static const struct {
    const char *s;
    size_t n;
} probe_texts[] = {
    PROBE(""), PROBE(" "), PROBE("  a  b  "), PROBE("Hello world 12345 3.14"), PROBE("<s>x</s><pad><unk><mask></s"),
    PROBE("\xff\xfe invalid \xc3"), PROBE("a\0b"), PROBE("\t\n\r!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    PROBE("\xe2\x96\x81\xe2\x96\x81 \xf0\x9f\x98\x80 \xe4\xb8\xad\xe6\x96\x87"),
};

const char *sp_tokenizer_probe_text(size_t i, size_t *n)
{
    if (i >= sizeof probe_texts / sizeof *probe_texts) return NULL;
    *n = probe_texts[i].n;
    return probe_texts[i].s;
}

/* Refuses (returns -1 with the reason) a model that cannot encode the probe texts. */
static int check_encodes(const tokenizer *t, wbuf *err)
{
    char msg[SP_ERROR_BYTES];
    const int *ids;
    const char *text;
    size_t n;
    for (size_t i = 0; (text = sp_tokenizer_probe_text(i, &n)); i++)
        if (sp_model_encode(t->sp, text, n, &ids, msg, sizeof msg) < 0) {
            buf_printf(err, "the model cannot encode ordinary text (a damaged .model?): %s", msg);
            return -1;
        }
    return 0;
}

/* A reserved id of the model as a token id (VOCAB_NO_TOKEN for -1). */
static uint32_t reserved_id(int id, int size)
{
    return id >= 0 && id < size ? (uint32_t)id : VOCAB_NO_TOKEN;
}

int sp_tokenizer_load(tokenizer *t, const char *data, size_t n, wbuf *err)
{
    char msg[SP_ERROR_BYTES];
    if (sp_model_check(data, n, err)) return -1;
    t->sp = sp_model_load(data, n, msg, sizeof msg);
    if (!t->sp) {
        buf_printf(err, "%s", msg);
        return -1;
    }
    int size = sp_model_size(t->sp);
    if (size <= 0 || (uint32_t)size > VOCAB_MAX_ID + 1u) {
        buf_printf(err, "the model has %d pieces (1 to %u are supported)", size, VOCAB_MAX_ID + 1u);
        return -1;
    }
    if (fill_vocab(t, size, err) || check_encodes(t, err)) return -1;
    /* no post-processor: winnow's convention, the end-of-text token after
     * each document when the model has one, no BOS unless asked */
    t->bos = reserved_id(sp_model_bos(t->sp), size);
    t->eos = reserved_id(sp_model_eos(t->sp), size);
    t->eos_default = t->eos != VOCAB_NO_TOKEN;
    t->bos_default = false;
    return 0;
}

/* Appends SentencePiece's ids of s[0..n). */
static void encode_text(const tokenizer *t, const char *s, size_t n, tok_ids *out)
{
    char msg[SP_ERROR_BYTES];
    const int *ids;
    long k = sp_model_encode(t->sp, s, n, &ids, msg, sizeof msg);
    if (k < 0) dief(EXIT_FATAL, "%s: %s", t->name, msg);
    ids_reserve(out, (size_t)k);
    for (long i = 0; i < k; i++) out->ids[out->n++] = (uint32_t)ids[i];
}

/* The index of the longest control symbol written at s[pos..n), or -1. */
static int control_at(const tok_vocab *v, const char *s, size_t n, size_t pos)
{
    int best = -1;
    size_t best_len = 0;
    for (int i = 0; i < v->nspecials; i++) {
        size_t len = strlen(v->specials[i].name);
        if (len > best_len && len <= n - pos && !memcmp(s + pos, v->specials[i].name, len)) best = i, best_len = len;
    }
    return best;
}

void sp_tokenizer_encode(const tokenizer *t, const char *s, size_t n, bool allow_special, tok_ids *out)
{
    const tok_vocab *v = &t->vocab;
    if (!allow_special || !v->nspecials) {
        encode_text(t, s, n, out);
        return;
    }
    bool first_byte[256] = {false};
    for (int i = 0; i < v->nspecials; i++) first_byte[(uint8_t)v->specials[i].name[0]] = true;
    size_t start = 0;
    for (size_t pos = 0; pos < n; pos++) {
        int k = first_byte[(uint8_t)s[pos]] ? control_at(v, s, n, pos) : -1;
        if (k < 0) continue;
        encode_text(t, s + start, pos - start, out);
        ids_push(out, v->specials[k].id);
        pos += strlen(v->specials[k].name) - 1;
        start = pos + 1;
    }
    encode_text(t, s + start, n - start, out);
}

/* Appends SentencePiece's text of the run ids[0..n). */
static void decode_run(const tokenizer *t, const int *ids, size_t n, wbuf *out)
{
    if (!n) return;
    char msg[SP_ERROR_BYTES];
    const char *text;
    long len = sp_model_decode(t->sp, ids, n, &text, msg, sizeof msg);
    if (len < 0) dief(EXIT_FATAL, "%s: %s", t->name, msg);
    buf_append(out, text, (size_t)len);
}

size_t sp_tokenizer_decode(const tokenizer *t, const uint32_t *ids, size_t n, wbuf *out)
{
    int *run = xmalloc((n ? n : 1) * sizeof *run);
    size_t nrun = 0, unknown = 0, size = (size_t)sp_model_size(t->sp);
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= size) {
            unknown++;
        } else if (sp_model_is_control(t->sp, (int)ids[i])) {
            decode_run(t, run, nrun, out);
            nrun = 0;
            size_t len;
            const uint8_t *name = vocab_token_bytes(&t->vocab, ids[i], &len);
            buf_append(out, name, len);
        } else {
            run[nrun++] = (int)ids[i];
        }
    }
    decode_run(t, run, nrun, out);
    free(run);
    return unknown;
}
