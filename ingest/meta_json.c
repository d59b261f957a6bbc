/* meta_json.c - recursive-descent JSON visitor with a depth cap. */
#include "ingest/meta_json.h"

#include <string.h>

typedef struct {
    const char *s, *end;
    json_visit_fn fn;
    void *ctx;
    jvalue keys[JSON_VISIT_MAX_DEPTH + 1];
    int failed;
} visitor;

static void skip_ws(visitor *v)
{
    while (v->s < v->end && (*v->s == ' ' || *v->s == '\t' || *v->s == '\n' || *v->s == '\r')) v->s++;
}

/* Scans a string at v->s (on the opening quote) into out. */
static int scan_string(visitor *v, jvalue *out)
{
    const char *p = v->s + 1;
    int esc = 0;
    while (p < v->end && *p != '"') {
        if (*p == '\\') {
            esc = 1;
            p++;
        }
        p++;
    }
    if (p >= v->end) return -1;
    out->p = v->s + 1;
    out->len = (size_t)(p - out->p);
    out->kind = JSON_STRING;
    out->has_escapes = esc;
    v->s = p + 1;
    return 0;
}

static int visit_value(visitor *v, int depth);

/* Skips an object or array without visiting (too deep). Brackets inside strings are ignored. */
static int skip_container(visitor *v)
{
    int level = 0;
    while (v->s < v->end) {
        char c = *v->s;
        if (c == '"') {
            jvalue tmp;
            if (scan_string(v, &tmp)) return -1;
            continue;
        }
        if (c == '{' || c == '[') level++;
        if (c == '}' || c == ']') {
            level--;
            if (level == 0) {
                v->s++;
                return 0;
            }
        }
        v->s++;
    }
    return -1;
}

static int visit_container(visitor *v, int depth)
{
    char close = *v->s == '{' ? '}' : ']';
    int object = close == '}';
    if (depth >= JSON_VISIT_MAX_DEPTH) return skip_container(v);
    v->s++;
    skip_ws(v);
    if (v->s < v->end && *v->s == close) {
        v->s++;
        return 0;
    }
    for (;;) {
        skip_ws(v);
        if (object) {
            if (v->s >= v->end || *v->s != '"' || scan_string(v, &v->keys[depth])) return -1;
            skip_ws(v);
            if (v->s >= v->end || *v->s != ':') return -1;
            v->s++;
        } else {
            memset(&v->keys[depth], 0, sizeof v->keys[depth]);
        }
        if (visit_value(v, depth + 1)) return -1;
        skip_ws(v);
        if (v->s >= v->end) return -1;
        if (*v->s == ',') {
            v->s++;
            continue;
        }
        if (*v->s == close) {
            v->s++;
            return 0;
        }
        return -1;
    }
}

static int visit_value(visitor *v, int depth)
{
    skip_ws(v);
    if (v->s >= v->end) return -1;
    char c = *v->s;
    if (c == '{' || c == '[') return visit_container(v, depth);
    jvalue val;
    memset(&val, 0, sizeof val);
    if (c == '"') {
        if (scan_string(v, &val)) return -1;
    } else {
        const char *start = v->s;
        while (v->s < v->end && !strchr(",]} \t\r\n", *v->s)) v->s++;
        if (v->s == start) return -1;
        val.p = start;
        val.len = (size_t)(v->s - start);
        val.kind = (c == '-' || (c >= '0' && c <= '9')) ? JSON_NUMBER : JSON_LITERAL;
    }
    v->fn(v->ctx, v->keys, depth, &val);
    return 0;
}

int json_visit(const char *s, size_t n, json_visit_fn fn, void *ctx)
{
    visitor v = {.s = s, .end = s + n, .fn = fn, .ctx = ctx};
    for (;;) {
        skip_ws(&v);
        if (v.s >= v.end) return 0;
        if (visit_value(&v, 0)) return -1;
    }
}

int json_is(const jvalue *v, const char *lit)
{
    size_t n = strlen(lit);
    return v->kind == JSON_STRING && !v->has_escapes && v->len == n && !memcmp(v->p, lit, n);
}
