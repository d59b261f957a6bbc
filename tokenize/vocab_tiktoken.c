/* vocab_tiktoken.c - the tiktoken vocabulary format: "BASE64 RANK\n" lines. */
#include <openssl/evp.h>
#include <stdlib.h>

#include "tokenize/vocab_load.h"

#define MAX_TOKEN_BYTES 4096 /* longer lines are malformed */

/* Decodes standard base64 (with padding) into out; returns the length or -1. */
static int base64_decode(const char *s, size_t n, unsigned char *out)
{
    if (n == 0 || n % 4 || n / 4 * 3 > MAX_TOKEN_BYTES) return -1;
    int len = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
    if (len < 0) return -1;
    /* EVP_DecodeBlock counts padding as zero bytes */
    if (s[n - 1] == '=') len--;
    if (s[n - 2] == '=') len--;
    return len;
}

int vocab_parse_tiktoken(tok_vocab *v, const char *text, size_t n, wbuf *err)
{
    unsigned char bytes[MAX_TOKEN_BYTES];
    size_t lineno = 0;
    for (size_t pos = 0; pos < n;) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - line) : n - pos;
        pos += len + 1;
        lineno++;
        if (len && line[len - 1] == '\r') len--;
        if (len == 0) continue;
        const char *sp = memchr(line, ' ', len);
        if (!sp) {
            buf_printf(err, "line %zu: expected \"BASE64 RANK\"", lineno);
            return -1;
        }
        int blen = base64_decode(line, (size_t)(sp - line), bytes);
        if (blen <= 0) {
            buf_printf(err, "line %zu: bad base64 token", lineno);
            return -1;
        }
        unsigned long long rank = 0;
        size_t digits = 0;
        for (const char *p = sp + 1; p < line + len; p++, digits++) {
            if (*p < '0' || *p > '9' || rank > UINT32_MAX / 10) {
                buf_printf(err, "line %zu: bad rank", lineno);
                return -1;
            }
            rank = rank * 10 + (unsigned)(*p - '0');
        }
        if (!digits || rank > VOCAB_MAX_ID) {
            buf_printf(err, "line %zu: bad rank", lineno);
            return -1;
        }
        if (!vocab_add(v, bytes, (size_t)blen, (uint32_t)rank, (uint32_t)rank)) {
            buf_printf(err, "line %zu: token or rank %llu given twice", lineno, rank);
            return -1;
        }
    }
    if (v->ntokens == 0) {
        buf_printf(err, "no tokens");
        return -1;
    }
    return 0;
}
