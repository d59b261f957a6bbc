/* token_format.c - token ids as JSON (see token_format.h). */
#include "tokenize/token_format.h"

#include <string.h>

#include "core/json.h"

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

#define TOKENS_NAME "tokens"

/* Appends line[0..close_brace) without its "tokens" members (a line
 * tokenized before): the new ids replace them, so no line holds the name
 * twice. Lines whose bytes cannot hold the name (json_may_hold_name) are
 * copied without a walk. */
static void put_without_tokens(wbuf *out, const char *line, size_t close_brace)
{
    size_t open = 0;
    while (open < close_brace && line[open] != '{') open++;
    const char *members = line + open + 1;
    size_t n = close_brace - open - 1, len = strlen(TOKENS_NAME);
    if (!json_may_hold_name(members, n, TOKENS_NAME, len) || !json_has_member(members, n, TOKENS_NAME, len)) {
        buf_append(out, line, close_brace);
        return;
    }
    buf_append(out, line, open + 1);
    json_put_members_except(out, members, n, TOKENS_NAME, len, false);
}

/* True when out ends inside an object with no member yet ("{" and blanks). */
static bool object_still_empty(const wbuf *out)
{
    size_t i = out->len;
    while (i > 0 && json_is_blank(out->data[i - 1])) i--;
    return i > 0 && out->data[i - 1] == '{';
}

void token_format_jsonl(wbuf *out, const char *line, size_t close_brace, uint32_t bos, const uint32_t *ids, size_t n,
                        uint32_t eos)
{
    put_without_tokens(out, line, close_brace);
    buf_puts(out, object_still_empty(out) ? "\"tokens\":[" : ",\"tokens\":[");
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
