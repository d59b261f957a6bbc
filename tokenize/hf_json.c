/* hf_json.c - the JSON tree of hf_json.h. As strict as serde_json's
 * from_str, which Hugging Face tokenizers reads a tokenizer.json with
 * (Tokenizer::from_file: read_to_string, then serde_json::from_str): the
 * text is UTF-8, strings hold no raw control characters and no lone
 * surrogate escapes, numbers follow RFC 8259's grammar and are finite. */
#include "tokenize/hf_json.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"

#define HJ_MAX_CONTAINERS 127 /* nested arrays and objects: serde_json's recursion limit (128) less one */
#define HJ_BLOCK_BYTES (4u << 20) /* the usual size of a block of nodes */
#define HJ_STACK_START 64 /* members of the open containers, before growing */
#define HJ_FIRST_PRINTABLE 0x20 /* bytes below are control characters, raw only outside strings */
#define HJ_NUMBER_SHORT 64 /* room for a number on the stack (serde_json writes at most 24 characters) */

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
        char tmp[HJ_NUMBER_SHORT], *copy = k < sizeof tmp ? tmp : xmalloc(k + 1); /* strtod needs its NUL */
        memcpy(copy, c->p, k);
        copy[k] = 0;
        n->type = HJ_NUMBER;
        n->number = strtod(copy, NULL);
        if (copy != tmp) free(copy);
        if (isinf(n->number)) {
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
