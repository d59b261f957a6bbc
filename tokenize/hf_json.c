/* hf_json.c - the JSON tree of hf_json.h. As strict as serde_json's
 * from_str, which Hugging Face tokenizers reads a tokenizer.json with
 * (Tokenizer::from_file: read_to_string, then serde_json::from_str): the
 * text is UTF-8, strings hold no raw control characters and no lone
 * surrogate escapes, numbers follow RFC 8259's grammar and are finite. */
#include "tokenize/hf_json.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"

#define HJ_MAX_CONTAINERS 127 /* nested arrays and objects: serde_json's recursion limit (128) less one */
#define HJ_BLOCK_BYTES (4u << 20) /* the usual size of a block of nodes */
#define HJ_STACK_START 64 /* members of the open containers, before growing */
#define HJ_FIRST_PRINTABLE 0x20 /* bytes below are control characters, raw only outside strings */
#define POW10_MAX 308 /* serde_json's table of powers of ten: 1e0 .. 1e308 */
#define EXACT_POW10_MAX 22 /* 10^22 = 2^22 * 5^22 and 5^22 < 2^53: the largest a double holds exactly */

/* A block of nodes and key arrays (one of a document's). */
struct hj_block {
    struct hj_block *next;
    size_t used, size;
    max_align_t data[];
};

typedef struct {
    const char *p, *end, *start;
    wbuf *err;
    bool failed;
    hj_doc *doc;
    char *str_end;          /* where the next string goes in doc->strings */
    hj_node *stack;         /* the members read so far of the open containers */
    char **stack_keys;
    size_t nstack, stack_cap;
} hj_cursor;

static void hj_fail(hj_cursor *c, const char *what)
{
    if (!c->failed) buf_printf(c->err, "byte %zu: %s", (size_t)(c->p - c->start), what);
    c->failed = true;
}

/* n bytes (a multiple of 8) of the document's blocks. */
static void *hj_alloc(hj_doc *doc, size_t n)
{
    struct hj_block *b = doc->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = n > HJ_BLOCK_BYTES ? n : HJ_BLOCK_BYTES;
        b = xmalloc(sizeof *b + size);
        b->next = doc->blocks, b->used = 0, b->size = size;
        doc->blocks = b;
    }
    void *at = (char *)b->data + b->used;
    b->used += n;
    return at;
}

static void hj_ws(hj_cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
}

static int hex_digit(char h)
{
    return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
}

static int hex4_at(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(p[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Reads a string (cursor on the opening quote) into the document's strings,
 * NUL-terminated: decoded, a string never takes more room than it had in
 * the text with its quotes, so the text's size is enough for all. */
static bool hj_string(hj_cursor *c, char **out, size_t *len)
{
    c->p++;
    char *d = c->str_end;
    *out = d;
    const char *q = c->p;
    while (q < c->end && *q != '"' && *q != '\\' && (unsigned char)*q >= HJ_FIRST_PRINTABLE) q++;
    memcpy(d, c->p, (size_t)(q - c->p)); /* up to the first escape, or all of it (most strings) */
    d += q - c->p;
    c->p = q;
    while (c->p < c->end && *c->p != '"') {
        if ((unsigned char)*c->p < HJ_FIRST_PRINTABLE) {
            hj_fail(c, "a control character in a string (JSON escapes it; Hugging Face refuses the file)");
            return false;
        }
        if (*c->p != '\\') {
            *d++ = *c->p++;
            continue;
        }
        if (c->end - c->p < 2) break;
        char e = c->p[1];
        c->p += 2;
        const char *simple = e ? strchr("\"\\/bfnrt", e) : NULL;
        if (simple) {
            *d++ = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
        } else if (e == 'u' && c->end - c->p >= 4 && hex4_at(c->p) >= 0) {
            uint32_t cp = (uint32_t)hex4_at(c->p);
            c->p += 4;
            if (cp >= 0xD800 && cp <= 0xDFFF) { /* a UTF-16 pair: the high half, then an escape of the low */
                int low = c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' ? hex4_at(c->p + 2) : -1;
                if (cp >= 0xDC00 || low < 0xDC00 || low > 0xDFFF) {
                    hj_fail(c, "a \\u escape of a lone surrogate (Hugging Face refuses the file)");
                    return false;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
                c->p += 6;
            }
            d = utf8_put(d, cp);
        } else {
            hj_fail(c, "bad escape in string");
            return false;
        }
    }
    if (c->p >= c->end) {
        hj_fail(c, "unterminated string");
        return false;
    }
    c->p++;
    *d = 0;
    *len = (size_t)(d - *out);
    c->str_end = d + 1;
    return true;
}

/* 10^k as the double nearest to it, for k in 0 .. POW10_MAX (serde_json's POW10 literals). */
static double pow10_of(int k)
{
    if (k <= EXACT_POW10_MAX) { /* every product exact */
        double r = 1;
        while (k--) r *= 10;
        return r;
    }
    char literal[8];
    snprintf(literal, sizeof literal, "1e%d", k);
    return strtod(literal, NULL); /* glibc's strtod rounds to nearest */
}

/* Whether significand * 10 + digit overflows a u64 (serde_json's overflow! test). */
static bool u64_overflows(uint64_t significand, unsigned digit)
{
    return significand >= UINT64_MAX / 10 && (significand > UINT64_MAX / 10 || digit > UINT64_MAX % 10);
}

/* The value of the number p[0..end) (RFC 8259's grammar, checked) as
 * serde_json reads it without its float_roundtrip feature, as Hugging Face
 * tokenizers is built: the digits that fit a u64 as the significand (the
 * integer part's others raise the exponent, the fraction's others are
 * dropped), then (double)significand times or divided by one power of ten.
 * That is not always the nearest double (-9.517477035522461 reads one ulp
 * off), and a Unigram score read otherwise breaks ties the other way.
 * Returns false where serde_json fails: the value would be infinite. */
static bool serde_number(const char *p, const char *end, double *out)
{
    bool negative = *p == '-';
    p += negative;
    uint64_t significand = 0;
    int64_t exponent = 0; /* stays far inside int32 but for absurd inputs, clamped below */
    bool dropping = false;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        unsigned digit = (unsigned)(*p - '0');
        dropping = dropping || u64_overflows(significand, digit);
        if (dropping) exponent++;
        else significand = significand * 10 + digit;
    }
    if (p < end && *p == '.')
        for (p++, dropping = false; p < end && *p >= '0' && *p <= '9'; p++) {
            unsigned digit = (unsigned)(*p - '0');
            dropping = dropping || u64_overflows(significand, digit);
            if (!dropping) significand = significand * 10 + digit, exponent--;
        }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool positive_exp = *p != '-';
        p += *p == '+' || *p == '-';
        int32_t e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            int digit = *p - '0';
            if (e >= INT32_MAX / 10 && (e > INT32_MAX / 10 || digit > INT32_MAX % 10)) { /* the exponent overflows */
                if (significand && positive_exp) return false;
                *out = negative ? -0.0 : 0.0;
                return true;
            }
            e = e * 10 + digit;
        }
        exponent += positive_exp ? e : -(int64_t)e;
    }
    if (exponent > INT32_MAX) exponent = INT32_MAX; /* i32 saturating arithmetic */
    if (exponent < -INT32_MAX) exponent = -INT32_MAX; /* (i32::MIN behaves the same: no table entry) */
    double f = (double)significand;
    for (;;) {
        if (llabs(exponent) <= POW10_MAX) {
            if (exponent >= 0) {
                f *= pow10_of((int)exponent);
                if (isinf(f)) return false;
            } else {
                f /= pow10_of((int)-exponent);
            }
            break;
        }
        if (f == 0) break;
        if (exponent >= 0) return false;
        f /= pow10_of(POW10_MAX);
        exponent += POW10_MAX;
    }
    *out = negative ? -f : f;
    return true;
}

static bool hj_value(hj_cursor *c, hj_node *n, int depth);

/* Reads the members of an array or object (cursor after the opening
 * bracket): each onto the cursor's stack, then all into one array of the
 * document's blocks. */
static bool hj_container(hj_cursor *c, hj_node *n, bool object, int depth)
{
    char close = object ? '}' : ']';
    size_t base = c->nstack;
    hj_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        hj_node item;
        char *key = NULL;
        memset(&item, 0, sizeof item);
        if (object) {
            hj_ws(c);
            size_t klen;
            if (c->p >= c->end || *c->p != '"') {
                hj_fail(c, "expected a member name");
                return false;
            }
            if (!hj_string(c, &key, &klen)) return false;
            if (strlen(key) != klen) { /* keys are C strings here */
                hj_fail(c, "a member name holding \\u0000 (not supported)");
                return false;
            }
            hj_ws(c);
            if (c->p >= c->end || *c->p != ':') {
                hj_fail(c, "expected ':'");
                return false;
            }
            c->p++;
        }
        if (!hj_value(c, &item, depth + 1)) return false;
        if (c->nstack == c->stack_cap) {
            c->stack_cap = c->stack_cap ? 2 * c->stack_cap : HJ_STACK_START;
            c->stack = xrealloc(c->stack, c->stack_cap * sizeof *c->stack);
            c->stack_keys = xrealloc(c->stack_keys, c->stack_cap * sizeof *c->stack_keys);
        }
        c->stack[c->nstack] = item;
        c->stack_keys[c->nstack++] = key;
        hj_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == close) {
            c->p++;
            break;
        }
        hj_fail(c, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
    n->len = c->nstack - base;
    n->items = hj_alloc(c->doc, n->len * sizeof *n->items);
    memcpy(n->items, c->stack + base, n->len * sizeof *n->items);
    if (object) {
        n->keys = hj_alloc(c->doc, n->len * sizeof *n->keys);
        memcpy(n->keys, c->stack_keys + base, n->len * sizeof *n->keys);
    }
    c->nstack = base;
    return true;
}

static bool hj_literal(hj_cursor *c, const char *word)
{
    size_t k = strlen(word);
    if ((size_t)(c->end - c->p) >= k && !memcmp(c->p, word, k)) {
        c->p += k;
        return true;
    }
    return false;
}

static bool is_digit(const char *p, const char *end)
{
    return p < end && *p >= '0' && *p <= '9';
}

/* The length of the number at p by RFC 8259's grammar
 * (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or 0. */
static size_t number_len(const char *p, const char *end)
{
    const char *q = p + (p < end && *p == '-');
    if (!is_digit(q, end)) return 0;
    if (*q++ != '0')
        while (is_digit(q, end)) q++;
    if (q < end && *q == '.') {
        if (!is_digit(++q, end)) return 0;
        while (is_digit(q, end)) q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-')) q++;
        if (!is_digit(q, end)) return 0;
        while (is_digit(q, end)) q++;
    }
    return (size_t)(q - p);
}

static bool hj_value(hj_cursor *c, hj_node *n, int depth)
{
    hj_ws(c);
    if (c->p >= c->end) {
        hj_fail(c, "unexpected end");
        return false;
    }
    char ch = *c->p;
    if (ch == '"') {
        n->type = HJ_STRING;
        return hj_string(c, &n->str, &n->len);
    }
    if (ch == '{' || ch == '[') {
        if (depth >= HJ_MAX_CONTAINERS) {
            hj_fail(c, "nested too deep (more than 127 arrays and objects, serde_json's limit)");
            return false;
        }
        n->type = ch == '{' ? HJ_OBJECT : HJ_ARRAY;
        c->p++;
        return hj_container(c, n, ch == '{', depth);
    }
    if (hj_literal(c, "null")) return n->type = HJ_NULL, true;
    if (hj_literal(c, "true")) return n->type = HJ_BOOL, n->boolean = true, true;
    if (hj_literal(c, "false")) return n->type = HJ_BOOL, n->boolean = false, true;
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        size_t k = number_len(c->p, c->end);
        if (!k || (c->p + k < c->end && strchr("+-.eE0123456789", c->p[k]))) {
            hj_fail(c, "bad number (RFC 8259: no leading zero, digits after '.' and 'e')");
            return false;
        }
        n->type = HJ_NUMBER;
        if (!serde_number(c->p, c->p + k, &n->number)) {
            hj_fail(c, "number out of range");
            return false;
        }
        c->p += k;
        return true;
    }
    hj_fail(c, "unexpected character");
    return false;
}

/* The offset of the first byte of text[0..n) that is not UTF-8, or n. */
static size_t first_non_utf8(const char *text, size_t n)
{
    if (utf8_valid(text, n)) return n;
    size_t i = 0;
    for (size_t k; i < n && (k = utf8_valid_seq((const unsigned char *)text + i, n - i)); i += k) {}
    return i;
}

int hj_parse(const char *text, size_t n, hj_doc *doc, wbuf *err)
{
    memset(doc, 0, sizeof *doc);
    doc->strings = xmalloc(n + 1);
    hj_cursor c = {text, text + n, text, err, false, doc, doc->strings, NULL, NULL, 0, 0};
    size_t bad = first_non_utf8(text, n);
    if (bad < n) {
        c.p = text + bad;
        hj_fail(&c, "not UTF-8 (Hugging Face tokenizers reads the file as a UTF-8 string)");
    } else if (hj_value(&c, &doc->root, 0)) {
        hj_ws(&c);
        if (c.p != c.end) hj_fail(&c, "text after the JSON value");
    }
    free(c.stack);
    free(c.stack_keys);
    if (c.failed) {
        hj_free(doc);
        return -1;
    }
    return 0;
}

void hj_free(hj_doc *doc)
{
    for (struct hj_block *b = doc->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(doc->strings);
    memset(doc, 0, sizeof *doc);
}

const hj_node *hj_get(const hj_node *o, const char *key)
{
    if (!o || o->type != HJ_OBJECT) return NULL;
    for (size_t i = o->len; i-- > 0;) /* the last of duplicate keys, as serde */
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}

const char *hj_get_str(const hj_node *o, const char *key)
{
    const hj_node *v = hj_get(o, key);
    return v && v->type == HJ_STRING ? v->str : NULL;
}

bool hj_is_null(const hj_node *o, const char *key)
{
    const hj_node *v = hj_get(o, key);
    return !v || v->type == HJ_NULL;
}
