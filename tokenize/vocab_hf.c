/* vocab_hf.c - Hugging Face tokenizer.json, byte-level BPE models.
 *
 * Reads model.vocab (token string -> id), model.merges ("a b" strings or
 * ["a","b"] pairs, in priority order), added_tokens (those marked special
 * become special tokens) and the pre_tokenizer: ByteLevel (the GPT-2
 * pattern) or a Sequence of Split(pattern) and ByteLevel, where the pattern
 * must be one of the three families. Token strings are in GPT-2's byte-level
 * alphabet (each byte shown as one printable code point) and are mapped back
 * to bytes. A merged token's rank is 256 + the index of the first merge that
 * makes it, which for GPT-2 equals tiktoken's r50k ranks; tokens no merge
 * makes (other than single bytes) are left out, as HF's BPE never outputs
 * them. The JSON reader is a small cursor with explicit depth, no recursion. */
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/pretokenize.h"
#include "tokenize/vocab_load.h"

#define BYTE_ALPHABET 512 /* code points used by the byte-level alphabet */
#define NO_BYTE (-1)
#define MAX_DEPTH 256

typedef struct {
    const char *p, *end, *start;
    wbuf *err;
    bool failed;
} cursor;

static void fail(cursor *c, const char *what)
{
    if (!c->failed) buf_printf(c->err, "byte %zu: %s", (size_t)(c->p - c->start), what);
    c->failed = true;
}

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char h = p[i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Reads a JSON string into out (decoded). */
static bool read_string(cursor *c, wbuf *out)
{
    buf_clear(out);
    if (!eat(c, '"')) {
        fail(c, "expected a string");
        return false;
    }
    while (c->p < c->end && *c->p != '"') {
        if (*c->p != '\\') {
            buf_putc(out, *c->p++);
            continue;
        }
        if (c->end - c->p < 2) break;
        char e = c->p[1];
        c->p += 2;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            buf_putc(out, decoded[simple - "\"\\/bfnrt"]);
        } else if (e == 'u' && c->end - c->p >= 4 && hex4(c->p) >= 0) {
            uint32_t cp = (uint32_t)hex4(c->p);
            c->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' &&
                hex4(c->p + 2) >= 0xDC00 && hex4(c->p + 2) < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)hex4(c->p + 2) - 0xDC00);
                c->p += 6;
            }
            utf8_append(out, cp);
        } else {
            fail(c, "bad escape in string");
            return false;
        }
    }
    if (c->p >= c->end) {
        fail(c, "unterminated string");
        return false;
    }
    c->p++;
    return true;
}

/* Skips one value of any kind, nesting tracked with a counter. */
static void skip_value(cursor *c)
{
    int depth = 0;
    wbuf scratch = WBUF_INIT;
    do {
        skip_ws(c);
        if (c->p >= c->end) {
            fail(c, "unexpected end");
            break;
        }
        char ch = *c->p;
        if (ch == '"') {
            if (!read_string(c, &scratch)) break;
        } else if (ch == '{' || ch == '[') {
            if (++depth > MAX_DEPTH) {
                fail(c, "nested too deep");
                break;
            }
            c->p++;
        } else if (ch == '}' || ch == ']') {
            depth--;
            c->p++;
        } else if (ch == ',' || ch == ':') {
            c->p++;
        } else {
            while (c->p < c->end && !strchr(",:]} \t\r\n", *c->p)) c->p++;
        }
    } while (depth > 0 && !c->failed);
    buf_free(&scratch);
}

/* Reads an integer value. */
static bool read_uint(cursor *c, uint32_t *v)
{
    skip_ws(c);
    unsigned long long x = 0;
    const char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && x < UINT32_MAX) x = x * 10 + (unsigned)(*c->p++ - '0');
    if (c->p == s || x > VOCAB_MAX_ID) {
        fail(c, "expected a token id (at most 16777215)");
        return false;
    }
    *v = (uint32_t)x;
    return true;
}

/* Iterates an object: call with *first = true; returns true with the key in
 * key for each member (the cursor then sits before its value). */
static bool next_member(cursor *c, bool *first, wbuf *key)
{
    if (c->failed) return false;
    if (*first) {
        if (!eat(c, '{')) {
            fail(c, "expected an object");
            return false;
        }
        *first = false;
        if (eat(c, '}')) return false;
    } else if (!eat(c, ',')) {
        if (!eat(c, '}')) fail(c, "expected ',' or '}'");
        return false;
    }
    if (!read_string(c, key)) return false;
    if (!eat(c, ':')) {
        fail(c, "expected ':'");
        return false;
    }
    return true;
}

/* Iterates an array the same way. */
static bool next_element(cursor *c, bool *first)
{
    if (c->failed) return false;
    if (*first) {
        if (!eat(c, '[')) {
            fail(c, "expected an array");
            return false;
        }
        *first = false;
        return !eat(c, ']');
    }
    if (eat(c, ',')) return true;
    if (!eat(c, ']')) fail(c, "expected ',' or ']'");
    return false;
}

static bool is_null(cursor *c)
{
    skip_ws(c);
    if (c->end - c->p >= 4 && !memcmp(c->p, "null", 4)) {
        c->p += 4;
        return true;
    }
    return false;
}

/* ---- GPT-2's byte-level alphabet ---- */

/* byte_of[cp]: the byte that code point cp stands for, or NO_BYTE. */
static void byte_alphabet(int byte_of[BYTE_ALPHABET])
{
    for (int i = 0; i < BYTE_ALPHABET; i++) byte_of[i] = NO_BYTE;
    int next = 256;
    for (int b = 0; b < 256; b++) {
        bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        byte_of[printable ? b : next++] = b;
    }
}

/* Maps a token string in the byte-level alphabet to bytes; false when it is not one. */
static bool to_bytes(const int byte_of[BYTE_ALPHABET], const wbuf *s, wbuf *out)
{
    buf_clear(out);
    for (size_t i = 0; i < s->len;) {
        size_t len;
        uint32_t cp = utf8_decode((const unsigned char *)s->data + i, s->len - i, &len);
        if (cp >= BYTE_ALPHABET || byte_of[cp] == NO_BYTE) return false;
        buf_putc(out, (char)byte_of[cp]);
        i += len;
    }
    return out->len > 0;
}

/* ---- the model ---- */

typedef struct {
    char **str; /* by id: token string (alphabet form), NULL when absent */
    uint32_t n, cap;
} hf_vocab;

static void read_vocab(cursor *c, hf_vocab *hv)
{
    wbuf key = WBUF_INIT;
    bool first = true;
    while (next_member(c, &first, &key)) {
        uint32_t id;
        if (!read_uint(c, &id)) break;
        if (id >= hv->cap) {
            uint32_t cap = id + 1 > 2 * hv->cap ? id + 1 : 2 * hv->cap;
            hv->str = xrealloc(hv->str, cap * sizeof *hv->str);
            memset(hv->str + hv->cap, 0, (cap - hv->cap) * sizeof *hv->str);
            hv->cap = cap;
        }
        if (id >= hv->n) hv->n = id + 1;
        if (hv->str[id]) {
            fail(c, "token id given twice");
            break;
        }
        hv->str[id] = xstrdup(key.data ? key.data : "");
    }
    buf_free(&key);
}

/* One merge: "a b" or ["a","b"]; sets joined to a+b. */
static bool read_merge(cursor *c, wbuf *joined, wbuf *tmp)
{
    skip_ws(c);
    buf_clear(joined);
    if (c->p < c->end && *c->p == '[') {
        bool first = true;
        int parts = 0;
        while (next_element(c, &first)) {
            if (!read_string(c, tmp)) return false;
            buf_append(joined, tmp->data, tmp->len);
            parts++;
        }
        if (parts != 2) fail(c, "a merge must have two parts");
        return !c->failed;
    }
    if (!read_string(c, tmp)) return false;
    const char *sp = memchr(tmp->data, ' ', tmp->len);
    if (!sp) {
        fail(c, "a merge must be \"A B\"");
        return false;
    }
    buf_append(joined, tmp->data, (size_t)(sp - tmp->data));
    buf_append(joined, sp + 1, tmp->len - (size_t)(sp - tmp->data) - 1);
    return true;
}

/* Reads pre_tokenizer; sets *family or fails. */
static void read_pre_tokenizer(cursor *c, int *family)
{
    wbuf key = WBUF_INIT, val = WBUF_INIT;
    bool first = true, sequence = false, byte_level = false;
    int split_family = -1;
    while (next_member(c, &first, &key)) {
        if (!strcmp(key.data, "type")) {
            read_string(c, &val);
            if (!strcmp(val.data, "ByteLevel")) byte_level = true;
            else if (!strcmp(val.data, "Sequence")) sequence = true;
            else fail(c, "unsupported pre_tokenizer type (ByteLevel or Sequence of Split + ByteLevel)");
        } else if (!strcmp(key.data, "pretokenizers")) {
            bool el = true;
            while (next_element(c, &el)) {
                bool mf = true;
                while (next_member(c, &mf, &key)) {
                    if (!strcmp(key.data, "type")) {
                        read_string(c, &val);
                        if (!strcmp(val.data, "ByteLevel")) byte_level = true;
                        else if (strcmp(val.data, "Split")) fail(c, "unsupported pre_tokenizer in Sequence");
                    } else if (!strcmp(key.data, "pattern")) {
                        bool pf = true;
                        while (next_member(c, &pf, &key)) {
                            read_string(c, &val);
                            if (strcmp(key.data, "Regex")) fail(c, "Split pattern must be a Regex");
                            else if ((split_family = pretok_family_of_pattern(val.data)) < 0)
                                fail(c, "Split pattern is not one of the gpt2, cl100k or o200k patterns");
                        }
                    } else skip_value(c);
                }
            }
        } else skip_value(c);
    }
    if (!c->failed && !byte_level) fail(c, "pre_tokenizer has no ByteLevel step: not a byte-level BPE");
    if (!c->failed) *family = sequence ? split_family : PRETOK_GPT2;
    if (!c->failed && *family < 0) fail(c, "Sequence pre_tokenizer without a Split pattern");
    buf_free(&key);
    buf_free(&val);
}

typedef struct {
    char *content;
    uint32_t id;
} hf_added;

int vocab_looks_like_json(const char *text, size_t n)
{
    size_t i = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) i++;
    return i < n && text[i] == '{';
}

int vocab_parse_hf_json(tok_vocab *v, const char *text, size_t n, int *family, wbuf *err)
{
    cursor c = {text, text + n, text, err, false};
    hf_vocab hv = {NULL, 0, 0};
    hf_added *added = NULL;
    int nadded = 0, merges_at = -1;
    bool have_pre = false;
    wbuf key = WBUF_INIT, val = WBUF_INIT, tmp = WBUF_INIT;
    bool first = true;
    while (next_member(&c, &first, &key)) {
        if (!strcmp(key.data, "model")) {
            bool mf = true;
            while (next_member(&c, &mf, &key)) {
                if (!strcmp(key.data, "type")) {
                    read_string(&c, &val);
                    if (strcmp(val.data, "BPE")) fail(&c, "model.type is not BPE");
                } else if (!strcmp(key.data, "vocab")) read_vocab(&c, &hv);
                else if (!strcmp(key.data, "merges")) {
                    merges_at = (int)(c.p - text); /* read after the vocab, which may come later */
                    skip_value(&c);
                } else skip_value(&c);
            }
        } else if (!strcmp(key.data, "pre_tokenizer")) {
            have_pre = !is_null(&c);
            if (have_pre) read_pre_tokenizer(&c, family);
        } else if (!strcmp(key.data, "normalizer")) {
            if (!is_null(&c)) fail(&c, "a normalizer is not supported (byte-level BPE has none)");
        } else if (!strcmp(key.data, "added_tokens")) {
            bool el = true;
            while (next_element(&c, &el)) {
                bool af = true, special = false;
                uint32_t id = VOCAB_NO_TOKEN;
                wbuf content = WBUF_INIT;
                while (next_member(&c, &af, &key)) {
                    if (!strcmp(key.data, "id")) read_uint(&c, &id);
                    else if (!strcmp(key.data, "content")) read_string(&c, &content);
                    else if (!strcmp(key.data, "special")) {
                        skip_ws(&c);
                        special = c.end - c.p >= 4 && !memcmp(c.p, "true", 4);
                        skip_value(&c);
                    } else skip_value(&c);
                }
                if (special && id != VOCAB_NO_TOKEN && content.len) {
                    added = xrealloc(added, (nadded + 1) * sizeof *added);
                    added[nadded++] = (hf_added){xstrdup(content.data), id};
                }
                buf_free(&content);
            }
        } else skip_value(&c);
    }
    if (!c.failed && !have_pre) fail(&c, "no pre_tokenizer");
    if (!c.failed && (!hv.n || merges_at < 0)) fail(&c, "no model.vocab or model.merges");

    int byte_of[BYTE_ALPHABET];
    byte_alphabet(byte_of);
    bool *is_added = xcalloc(hv.n + 1, sizeof *is_added);
    for (int i = 0; i < nadded; i++)
        if (added[i].id < hv.n) is_added[added[i].id] = true;
    /* single bytes first (rank = byte value), then merged tokens in merge order */
    for (uint32_t id = 0; id < hv.n && !c.failed; id++) {
        if (!hv.str[id] || is_added[id]) continue;
        wbuf s = {hv.str[id], strlen(hv.str[id]), 0};
        if (to_bytes(byte_of, &s, &tmp) && tmp.len == 1) vocab_add(v, tmp.data, 1, id, (uint8_t)tmp.data[0]);
    }
    if (!c.failed) {
        /* token string -> id, to find each merge's result */
        tok_vocab by_string;
        vocab_init(&by_string);
        for (uint32_t id = 0; id < hv.n; id++)
            if (hv.str[id] && !is_added[id]) vocab_add(&by_string, hv.str[id], strlen(hv.str[id]), id, id);
        cursor m = {text + merges_at, text + n, text, err, false};
        bool el = true;
        uint32_t rank = 256;
        while (next_element(&m, &el)) {
            if (!read_merge(&m, &val, &tmp)) break;
            uint32_t id = vocab_find(&by_string, (const uint8_t *)val.data, val.len);
            if (id == VOCAB_NO_TOKEN) {
                fail(&m, "a merge makes a token that is not in the vocab");
                break;
            }
            wbuf s = {hv.str[id], strlen(hv.str[id]), 0};
            if (!to_bytes(byte_of, &s, &tmp)) {
                fail(&m, "a token is not in the byte-level alphabet");
                break;
            }
            vocab_add(v, tmp.data, tmp.len, id, rank++); /* false: made by an earlier merge */
        }
        c.failed |= m.failed;
        vocab_free(&by_string);
    }
    for (int i = 0; i < nadded; i++) {
        if (!c.failed) vocab_add_special(v, added[i].content, added[i].id);
        free(added[i].content);
    }
    for (uint32_t id = 0; id < hv.n; id++) free(hv.str[id]);
    free(hv.str);
    free(added);
    free(is_added);
    buf_free(&key);
    buf_free(&val);
    buf_free(&tmp);
    return c.failed ? -1 : 0;
}
