/* hf_json.c - the JSON tree of hf_json.h. */
#include "tokenize/hf_json.h"

#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"

#define HJ_MAX_DEPTH 64 /* tokenizer.json nests about 6 deep */

typedef struct {
    const char *p, *end, *start;
    wbuf *err;
    bool failed;
} hj_cursor;

static void hj_fail(hj_cursor *c, const char *what)
{
    if (!c->failed) buf_printf(c->err, "byte %zu: %s", (size_t)(c->p - c->start), what);
    c->failed = true;
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

/* Reads a string (cursor on the opening quote) into a new NUL-terminated buffer. */
static bool hj_string(hj_cursor *c, char **out, size_t *len)
{
    wbuf b = WBUF_INIT;
    c->p++;
    const char *q = c->p;
    while (q < c->end && *q != '"' && *q != '\\') q++;
    if (q < c->end && *q == '"') { /* no escape: the bytes as they are (most strings) */
        *len = (size_t)(q - c->p);
        *out = xmalloc(*len + 1);
        memcpy(*out, c->p, *len);
        (*out)[*len] = 0;
        c->p = q + 1;
        return true;
    }
    buf_append(&b, c->p, (size_t)(q - c->p));
    c->p = q;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p != '\\') {
            buf_putc(&b, *c->p++);
            continue;
        }
        if (c->end - c->p < 2) break;
        char e = c->p[1];
        c->p += 2;
        const char *simple = e ? strchr("\"\\/bfnrt", e) : NULL;
        if (simple) {
            buf_putc(&b, "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
        } else if (e == 'u' && c->end - c->p >= 4 && hex4_at(c->p) >= 0) {
            uint32_t cp = (uint32_t)hex4_at(c->p);
            c->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' &&
                hex4_at(c->p + 2) >= 0xDC00 && hex4_at(c->p + 2) < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)hex4_at(c->p + 2) - 0xDC00);
                c->p += 6;
            }
            utf8_append(&b, cp);
        } else {
            hj_fail(c, "bad escape in string");
            buf_free(&b);
            return false;
        }
    }
    if (c->p >= c->end) {
        hj_fail(c, "unterminated string");
        buf_free(&b);
        return false;
    }
    c->p++;
    buf_putc(&b, 0);
    *len = b.len - 1;
    *out = b.data;
    return true;
}

static bool hj_value(hj_cursor *c, hj_node *n, int depth);

/* Reads the members of an array or object (cursor after the opening bracket). */
static bool hj_container(hj_cursor *c, hj_node *n, bool object, int depth)
{
    size_t cap = 0;
    char close = object ? '}' : ']';
    hj_ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        if (n->len == cap) {
            cap = cap ? 2 * cap : 2; /* most arrays are merges: two strings */
            n->items = xrealloc(n->items, cap * sizeof *n->items);
            if (object) n->keys = xrealloc(n->keys, cap * sizeof *n->keys);
        }
        hj_node *item = &n->items[n->len];
        memset(item, 0, sizeof *item);
        if (object) {
            hj_ws(c);
            size_t klen;
            if (c->p >= c->end || *c->p != '"') {
                hj_fail(c, "expected a member name");
                return false;
            }
            if (!hj_string(c, &n->keys[n->len], &klen)) return false;
            hj_ws(c);
            if (c->p >= c->end || *c->p != ':') {
                free(n->keys[n->len]);
                hj_fail(c, "expected ':'");
                return false;
            }
            c->p++;
        }
        n->len++;
        if (!hj_value(c, item, depth + 1)) return false;
        hj_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == close) {
            c->p++;
            return true;
        }
        hj_fail(c, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
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

int hj_parse(const char *text, size_t n, hj_node *root, wbuf *err)
{
    hj_cursor c = {text, text + n, text, err, false};
    memset(root, 0, sizeof *root);
    if (hj_value(&c, root, 0)) {
        hj_ws(&c);
        if (c.p != c.end) hj_fail(&c, "text after the JSON value");
    }
    if (c.failed) {
        hj_free(root);
        return -1;
    }
    return 0;
}

void hj_free(hj_node *node)
{
    if (node->type == HJ_ARRAY || node->type == HJ_OBJECT) {
        for (size_t i = 0; i < node->len; i++) {
            hj_free(&node->items[i]);
            if (node->keys) free(node->keys[i]);
        }
        free(node->items);
        free(node->keys);
    }
    free(node->str);
    memset(node, 0, sizeof *node);
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
