/* hf_json.c - the JSON tree of hf_json.h. */
#include "tokenize/hf_json.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"

#define HJ_MAX_DEPTH 64 /* tokenizer.json nests about 6 deep */
#define HJ_BLOCK_BYTES (4u << 20) /* the usual size of a block of nodes */
#define HJ_STACK_START 64 /* members of the open containers, before growing */

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
    while (q < c->end && *q != '"' && *q != '\\') q++;
    memcpy(d, c->p, (size_t)(q - c->p)); /* up to the first escape, or all of it (most strings) */
    d += q - c->p;
    c->p = q;
    while (c->p < c->end && *c->p != '"') {
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
            if (cp >= 0xD800 && cp < 0xDC00 && c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' &&
                hex4_at(c->p + 2) >= 0xDC00 && hex4_at(c->p + 2) < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)hex4_at(c->p + 2) - 0xDC00);
                c->p += 6;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = UTF8_REPLACEMENT; /* a lone surrogate */
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

static bool hj_value(hj_cursor *c, hj_node *n, int depth)
{
    hj_ws(c);
    if (depth > HJ_MAX_DEPTH) {
        hj_fail(c, "nested too deep");
        return false;
    }
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
        n->type = ch == '{' ? HJ_OBJECT : HJ_ARRAY;
        c->p++;
        return hj_container(c, n, ch == '{', depth);
    }
    if (hj_literal(c, "null")) return n->type = HJ_NULL, true;
    if (hj_literal(c, "true")) return n->type = HJ_BOOL, n->boolean = true, true;
    if (hj_literal(c, "false")) return n->type = HJ_BOOL, n->boolean = false, true;
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        char tmp[64];
        size_t k = 0;
        while (c->p + k < c->end && k < sizeof tmp - 1 && strchr("+-.eE0123456789", c->p[k])) {
            tmp[k] = c->p[k];
            k++;
        }
        tmp[k] = 0;
        char *endp;
        n->type = HJ_NUMBER;
        n->number = strtod(tmp, &endp);
        if (endp == tmp) {
            hj_fail(c, "bad number");
            return false;
        }
        c->p += endp - tmp;
        return true;
    }
    hj_fail(c, "unexpected character");
    return false;
}

int hj_parse(const char *text, size_t n, hj_doc *doc, wbuf *err)
{
    memset(doc, 0, sizeof *doc);
    doc->strings = xmalloc(n + 1);
    hj_cursor c = {text, text + n, text, err, false, doc, doc->strings, NULL, NULL, 0, 0};
    if (hj_value(&c, &doc->root, 0)) {
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
