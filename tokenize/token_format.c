/* token_format.c - token ids as JSON (see token_format.h). */
#include "tokenize/token_format.h"

#include <string.h>

#define U32_DIGITS 10

/* Writes the decimal digits of v at p; returns the end. */
static inline char *write_u32(char *p, uint32_t v)
{
    char tmp[U32_DIGITS], *t = tmp + U32_DIGITS;
    do *--t = (char)('0' + v % 10), v /= 10;
    while (v);
    size_t n = (size_t)(tmp + U32_DIGITS - t);
    memcpy(p, t, n);
    return p + n;
}

void token_format_jsonl(wbuf *out, const char *line, size_t close_brace, uint32_t bos, const uint32_t *ids, size_t n,
                        uint32_t eos)
{
    buf_append(out, line, close_brace);
    buf_puts(out, ",\"tokens\":[");
    buf_reserve(out, (n + 2) * (U32_DIGITS + 1) + 3);
    char *p = out->data + out->len, *first = p;
    if (bos != TOKEN_FORMAT_NONE) p = write_u32(p, bos);
    for (size_t k = 0; k < n; k++) {
        if (p != first) *p++ = ',';
        p = write_u32(p, ids[k]);
    }
    if (eos != TOKEN_FORMAT_NONE) {
        if (p != first) *p++ = ',';
        p = write_u32(p, eos);
    }
    memcpy(p, "]}\n", 3);
    out->len = (size_t)(p + 3 - out->data);
}
