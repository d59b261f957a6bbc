/* json.c - a validating one-pass JSON scanner for document lines, and the
 * string writer. Strings are scanned 16 bytes at a time (SSE2): a block with
 * no quote, backslash, control byte or non-ASCII byte is skipped whole. */
#include "json.h"

#include <emmintrin.h>
#include <string.h>

#include "utf8.h"

#define JSON_MAX_DEPTH 512

typedef struct {
    const char *s;
    size_t n, i;
    const char *err;
    int depth;
} scanner;

static int fail(scanner *sc, const char *why)
{
    if (!sc->err) sc->err = why;
    return -1;
}

static inline void skip_ws(scanner *sc)
{
    while (sc->i < sc->n) {
        char c = sc->s[sc->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        sc->i++;
    }
}

/* Mask of the bytes in a 16-byte block that end the fast path: '"', '\\',
 * control bytes (< 0x20) and non-ASCII bytes (>= 0x80). */
static inline unsigned special_mask(const char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i bslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    /* signed compare: bytes >= 0x80 are negative, so v < 0x20 catches both */
    __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, bslash), low));
}

static inline int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Scans a string starting at the opening quote; fills v. */
static int scan_string(scanner *sc, jvalue *v)
{
    const char *s = sc->s;
    size_t i = sc->i + 1, n = sc->n;
    bool escapes = false;
    for (;;) {
        while (i + 16 <= n) {
            unsigned m = special_mask(s + i);
            if (!m) { i += 16; continue; }
            i += (size_t)__builtin_ctz(m);
            break;
        }
        if (i >= n) return fail(sc, "unterminated string");
        unsigned char c = (unsigned char)s[i];
        if (c == '"') break;
        if (c == '\\') {
            escapes = true;
            if (i + 1 >= n) return fail(sc, "unterminated string");
            char e = s[i + 1];
            if (e == 'u') {
                if (i + 6 > n || !is_hex(s[i + 2]) || !is_hex(s[i + 3]) || !is_hex(s[i + 4]) || !is_hex(s[i + 5])) {
                    sc->i = i;
                    return fail(sc, "bad \\u escape");
                }
                i += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                i += 2;
            } else {
                sc->i = i;
                return fail(sc, "bad escape");
            }
        } else if (c < 0x20) {
            sc->i = i;
            return fail(sc, "control character in string");
        } else if (c >= 0x80) {
            size_t k = utf8_valid_seq((const unsigned char *)s + i, n - i);
            if (!k) {
                sc->i = i;
                return fail(sc, "invalid UTF-8 in string");
            }
            i += k;
        } else {
            i++;
        }
    }
    v->p = s + sc->i + 1;
    v->len = i - sc->i - 1;
    v->kind = JSON_STRING;
    v->has_escapes = escapes;
    sc->i = i + 1;
    return 0;
}

static int scan_number(scanner *sc)
{
    const char *s = sc->s;
    size_t i = sc->i, n = sc->n;
    if (i < n && s[i] == '-') i++;
    if (i >= n) return fail(sc, "bad number");
    if (s[i] == '0') i++;
    else if (s[i] >= '1' && s[i] <= '9') while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    else return fail(sc, "bad number");
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') { sc->i = i; return fail(sc, "bad number"); }
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || s[i] < '0' || s[i] > '9') { sc->i = i; return fail(sc, "bad number"); }
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    sc->i = i;
    return 0;
}

static int scan_value(scanner *sc, jvalue *v, jdoc *doc);

static int scan_container(scanner *sc, jdoc *doc)
{
    char open = sc->s[sc->i];
    char close = open == '{' ? '}' : ']';
    if (++sc->depth > JSON_MAX_DEPTH) return fail(sc, "nesting too deep");
    sc->i++;
    skip_ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == close) {
        if (doc) doc->close_brace = sc->i;
        sc->i++;
        sc->depth--;
        return 0;
    }
    for (;;) {
        jvalue key = {0}, val = {0};
        skip_ws(sc);
        if (open == '{') {
            if (sc->i >= sc->n || sc->s[sc->i] != '"') return fail(sc, "expected a member name");
            if (scan_string(sc, &key)) return -1;
            skip_ws(sc);
            if (sc->i >= sc->n || sc->s[sc->i] != ':') return fail(sc, "expected ':'");
            sc->i++;
            skip_ws(sc);
        }
        jdoc *inner = NULL; /* only top-level members are recorded */
        if (scan_value(sc, &val, inner)) return -1;
        if (doc && open == '{' && !key.has_escapes) {
            jvalue *slot = NULL;
            switch (key.len) {
            case 2: if (!memcmp(key.p, "id", 2)) slot = &doc->id; break;
            case 3: if (!memcmp(key.p, "url", 3)) slot = &doc->url; break;
            case 4:
                if (!memcmp(key.p, "text", 4)) slot = &doc->text;
                else if (!memcmp(key.p, "date", 4)) slot = &doc->date;
                break;
            case 6: if (!memcmp(key.p, "source", 6)) slot = &doc->source; break;
            case 8: if (!memcmp(key.p, "metadata", 8)) slot = &doc->metadata; break;
            default: break;
            }
            if (slot) *slot = val;
        }
        skip_ws(sc);
        if (sc->i >= sc->n) return fail(sc, open == '{' ? "unterminated object" : "unterminated array");
        char c = sc->s[sc->i];
        if (c == ',') { sc->i++; continue; }
        if (c == close) {
            if (doc) doc->close_brace = sc->i;
            sc->i++;
            sc->depth--;
            return 0;
        }
        return fail(sc, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int scan_literal(scanner *sc, const char *word)
{
    size_t k = strlen(word);
    if (sc->n - sc->i < k || memcmp(sc->s + sc->i, word, k)) return fail(sc, "unexpected character");
    sc->i += k;
    return 0;
}

static int scan_value(scanner *sc, jvalue *v, jdoc *doc)
{
    if (sc->i >= sc->n) return fail(sc, "missing value");
    size_t start = sc->i;
    char c = sc->s[sc->i];
    int r;
    json_kind kind;
    switch (c) {
    case '"': return scan_string(sc, v);
    case '{': r = scan_container(sc, doc); kind = JSON_OBJECT; break;
    case '[': r = scan_container(sc, NULL); kind = JSON_ARRAY; break;
    case 't': r = scan_literal(sc, "true"); kind = JSON_LITERAL; break;
    case 'f': r = scan_literal(sc, "false"); kind = JSON_LITERAL; break;
    case 'n': r = scan_literal(sc, "null"); kind = JSON_LITERAL; break;
    default: r = scan_number(sc); kind = JSON_NUMBER; break;
    }
    if (r) return r;
    v->p = sc->s + start;
    v->len = sc->i - start;
    v->kind = kind;
    v->has_escapes = false;
    return 0;
}

int json_scan_doc(const char *line, size_t len, jdoc *doc, const char **err, size_t *err_pos)
{
    scanner sc = {line, len, 0, NULL, 0};
    memset(doc, 0, sizeof *doc);
    skip_ws(&sc);
    if (sc.i >= sc.n || line[sc.i] != '{') {
        fail(&sc, sc.i >= sc.n ? "empty line" : "not a JSON object");
    } else if (scan_container(&sc, doc) == 0) {
        skip_ws(&sc);
        if (sc.i == sc.n) return 0;
        fail(&sc, "trailing characters after the object");
    }
    if (err) *err = sc.err;
    if (err_pos) *err_pos = sc.i;
    return -1;
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* Copies s[0..) to o up to the first backslash before end, 16 bytes at a
 * time (o has room: unescaped text is never longer than escaped); returns
 * how many bytes were copied. */
static inline size_t copy_to_backslash(const char *s, const char *end, char *o)
{
    const char *p = s;
    for (; end - p >= 16; p += 16, o += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        _mm_storeu_si128((__m128i *)o, v);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
        if (m) return (size_t)(p - s) + (size_t)__builtin_ctz(m);
    }
    while (p < end && *p != '\\') *o++ = *p++;
    return (size_t)(p - s);
}

void json_unescape(const jvalue *v, wbuf *out)
{
    const char *s = v->p, *end = s + v->len;
    buf_reserve(out, v->len); /* every escape is at least as long as what it stands for */
    while (s < end) {
        size_t run = copy_to_backslash(s, end, out->data + out->len);
        out->len += run;
        s += run;
        if (s >= end) break;
        s++; /* the backslash */
        if (s >= end) break;
        char e = *s++;
        switch (e) {
        case 'b': out->data[out->len++] = '\b'; break;
        case 'f': out->data[out->len++] = '\f'; break;
        case 'n': out->data[out->len++] = '\n'; break;
        case 'r': out->data[out->len++] = '\r'; break;
        case 't': out->data[out->len++] = '\t'; break;
        case 'u': {
            if (end - s < 4) { s = end; break; }
            uint32_t cp = hex4(s);
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                    uint32_t lo = hex4(s + 2);
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        s += 6;
                    } else cp = UTF8_REPLACEMENT;
                } else cp = UTF8_REPLACEMENT;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = UTF8_REPLACEMENT;
            }
            utf8_append(out, cp);
            break;
        }
        default: out->data[out->len++] = e; break; /* \" \\ \/ */
        }
    }
    out->data[out->len] = 0;
}

const char *json_string(const jvalue *v, wbuf *scratch, size_t *len)
{
    if (v->kind != JSON_STRING) { *len = 0; return ""; }
    if (!v->has_escapes) { *len = v->len; return v->p; }
    buf_clear(scratch);
    json_unescape(v, scratch);
    *len = scratch->len;
    return scratch->data;
}

static const char hexdigits[] = "0123456789abcdef";

void json_put_string(wbuf *out, const char *s, size_t n)
{
    buf_reserve(out, n + 2);
    buf_putc(out, '"');
    size_t i = 0, run = 0;
    while (i < n) {
        while (i + 16 <= n) {
            unsigned m = special_mask(s + i);
            if (!m) { i += 16; continue; }
            i += (size_t)__builtin_ctz(m);
            break;
        }
        if (i >= n) break;
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t k = utf8_valid_seq((const unsigned char *)s + i, n - i);
            if (k) { i += k; continue; }
            buf_append(out, s + run, i - run);
            buf_append(out, "\xEF\xBF\xBD", 3);
            run = ++i;
            continue;
        }
        if (c != '"' && c != '\\' && c >= 0x20) { i++; continue; }
        buf_append(out, s + run, i - run);
        switch (c) {
        case '"': buf_append(out, "\\\"", 2); break;
        case '\\': buf_append(out, "\\\\", 2); break;
        case '\n': buf_append(out, "\\n", 2); break;
        case '\r': buf_append(out, "\\r", 2); break;
        case '\t': buf_append(out, "\\t", 2); break;
        case '\b': buf_append(out, "\\b", 2); break;
        case '\f': buf_append(out, "\\f", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hexdigits[c >> 4], hexdigits[c & 15]};
            buf_append(out, u, 6);
        }
        }
        run = ++i;
    }
    buf_append(out, s + run, n - run);
    buf_putc(out, '"');
}

void json_put_key(wbuf *out, const char *key)
{
    buf_putc(out, '"');
    buf_puts(out, key);
    buf_append(out, "\":", 2);
}
