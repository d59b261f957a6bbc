/* vocab_tiktoken.c - the tiktoken vocabulary format: "BASE64 RANK\n" lines. */
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tokenize/vocab_load.h"

#define MAX_TOKEN_BYTES 4096 /* longer tokens are refused */
#define LOAD_BATCH 16        /* lines parsed before their tokens are added */

#define BASE64_MAX_PAD 2
/* EVP_DecodeBlock writes the padding as zero bytes: room for the longest token's */
#define TOKEN_DECODE_ROOM (MAX_TOKEN_BYTES + BASE64_MAX_PAD)

static bool is_base64_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/* True when s[0..n) is base64 letters with at most two '=' at the end only.
 * EVP_DecodeBlock takes an '=' anywhere as six zero bits and skips blanks
 * around the text, so "YQ==YQ==" would be 4 bytes (Python's b64decode, which
 * tiktoken uses, stops at the padding: b"a") and "YQ=A" 2 (Python refuses it):
 * a token not in canonical base64 is refused instead. */
static bool base64_canonical(const char *s, size_t n)
{
    size_t pad = 0;
    while (pad < BASE64_MAX_PAD && pad < n && s[n - 1 - pad] == '=') pad++;
    for (size_t i = 0; i < n - pad; i++)
        if (!is_base64_letter(s[i])) return false;
    return true;
}

/* Decodes standard base64 (with padding) into out; returns the length or -1. */
static int base64_decode(const char *s, size_t n, unsigned char *out)
{
    if (n == 0 || n % 4 || n / 4 * 3 > TOKEN_DECODE_ROOM || !base64_canonical(s, n)) return -1;
    int len = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
    if (len < 0) return -1;
    /* EVP_DecodeBlock counts padding as zero bytes */
    if (s[n - 1] == '=') len--;
    if (s[n - 2] == '=') len--;
    return len;
}

/* Parses one non-empty line "BASE64 RANK" into bytes (*blen of them) and
 * *rank; -1 with a message naming line lineno when it is malformed. */
static int parse_line(const char *line, size_t len, size_t lineno, unsigned char *bytes, int *blen, uint32_t *rank,
                      wbuf *err)
{
    const char *sp = memchr(line, ' ', len);
    if (!sp) {
        buf_printf(err, "line %zu: expected \"BASE64 RANK\"", lineno);
        return -1;
    }
    size_t b64_len = (size_t)(sp - line);
    *blen = b64_len / 4 * 3 > TOKEN_DECODE_ROOM ? MAX_TOKEN_BYTES + 1 : base64_decode(line, b64_len, bytes);
    if (*blen > MAX_TOKEN_BYTES) {
        buf_printf(err, "line %zu: token of more than %d bytes (winnow's limit)", lineno, MAX_TOKEN_BYTES);
        return -1;
    }
    if (*blen <= 0) {
        buf_printf(err, "line %zu: bad base64 token", lineno);
        return -1;
    }
    unsigned long long r = 0;
    size_t digits = 0;
    for (const char *p = sp + 1; p < line + len; p++, digits++) {
        if (*p < '0' || *p > '9' || r > UINT32_MAX / 10) {
            buf_printf(err, "line %zu: bad rank", lineno);
            return -1;
        }
        r = r * 10 + (unsigned)(*p - '0');
    }
    if (!digits || r > VOCAB_MAX_ID) {
        buf_printf(err, "line %zu: bad rank", lineno);
        return -1;
    }
    *rank = (uint32_t)r;
    return 0;
}

/* A parsed line waiting to be added. */
typedef struct {
    unsigned char bytes[TOKEN_DECODE_ROOM];
    int len;
    uint32_t rank;
    uint64_t hash; /* vocab_hash of the bytes */
    size_t lineno;
} pending_token;

/* Adds the batch's tokens in order; -1 with a message at a repeated one. */
static int add_batch(tok_vocab *v, pending_token *batch, int k, wbuf *err)
{
    for (int i = 0; i < k; i++) {
        batch[i].hash = vocab_hash(batch[i].bytes, (size_t)batch[i].len);
        vocab_prefetch_add(v, batch[i].hash);
    }
    for (int i = 0; i < k; i++)
        if (!vocab_add_hashed(v, batch[i].bytes, (size_t)batch[i].len, batch[i].hash, batch[i].rank, batch[i].rank)) {
            buf_printf(err, "line %zu: token or rank %u given twice", batch[i].lineno, batch[i].rank);
            return -1;
        }
    return 0;
}

int vocab_parse_tiktoken(tok_vocab *v, const char *text, size_t n, wbuf *err)
{
    size_t lineno = 0, lines = 0;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(text + n - p))); p++) lines++;
    vocab_reserve(v, lines + 1, n / 4 * 3); /* a token a line, of at most 3 bytes per 4 base64 characters */
    /* lines are added in batches whose hash slots load together */
    pending_token *batch = xmalloc(LOAD_BATCH * sizeof *batch);
    int k = 0, rc = 0;
    for (size_t pos = 0; pos < n && rc == 0;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - line) : n - pos;
        pos += len + 1;
        lineno++;
        if (len && line[len - 1] == '\r') len--;
        if (len == 0) continue;
        pending_token *t = &batch[k];
        t->lineno = lineno;
        rc = parse_line(line, len, lineno, t->bytes, &t->len, &t->rank, err);
        if (rc == 0 && ++k == LOAD_BATCH) rc = add_batch(v, batch, k, err), k = 0;
    }
    if (rc == 0) rc = add_batch(v, batch, k, err);
    free(batch);
    if (rc == 0 && v->ntokens == 0) {
        buf_printf(err, "no tokens");
        rc = -1;
    }
    return rc;
}
