/* json.c - a validating one-pass JSON scanner for document lines, and the
 * string writer. The whole line's UTF-8 is validated first with vector code;
 * string bodies are then taken 64 bytes at a time: one mask of the window's
 * quotes, backslashes and control bytes is walked bit by bit, so an escape
 * costs a few bit operations, not a new window. json_scan_doc_text() writes
 * the "text" value's decoded bytes during that walk. A line that is not
 * valid UTF-8 is scanned stopping at every non-ASCII byte too, to report
 * where it breaks. */
#include "json.h"

#include <immintrin.h>
#include <string.h>

#include "simd.h"
#include "utf8.h"

#define JSON_MAX_DEPTH 512
/* "metadata": the longest member name a document records. */
#define FIELD_NAME_MAX 8
/* Bytes one escape may take (\uXXXX) for one byte of such a name. */
#define ESCAPE_MAX_LEN 6

typedef struct {
    const char *s;
    size_t n, i;
    const char *err;
    int depth;
    bool utf8_checked; /* the whole line is valid UTF-8: strings need not check it */
    char *text_out;    /* json_scan_doc_text: where the top-level "text" string is decoded */
    size_t text_len;   /* its decoded length */
    const char *text_name; /* json_scan_doc_named: the member read as the text, and where it is told */
    size_t text_name_len;
    jnamed *named;
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

/* Mask of the bytes in a 16-byte block that end a plain run in a string:
 * '"', '\\', control bytes (< 0x20) and, when stop_high, bytes >= 0x80. */
static inline unsigned special_mask(__m128i v, bool stop_high)
{
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i bslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    /* signed v < 0x20 also catches bytes >= 0x80; unsigned min(v, 0x1F) == v does not */
    __m128i low = stop_high ? _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))
                            : _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, bslash), low));
}

static inline bool is_special(unsigned char c, bool stop_high)
{
    return c == '"' || c == '\\' || c < 0x20 || (stop_high && c >= 0x80);
}

/* The first special byte at or after i (see special_mask), or n. */
static inline size_t find_special_sse(const char *s, size_t i, size_t n, bool stop_high)
{
    while (i + 16 <= n) {
        unsigned m = special_mask(_mm_loadu_si128((const __m128i *)(s + i)), stop_high);
        if (m) return i + (size_t)__builtin_ctz(m);
        i += 16;
    }
    while (i < n && !is_special((unsigned char)s[i], stop_high)) i++;
    return i;
}

/* What each one-letter escape stands for; 0 for letters that are not one
 * (\\u is handled on its own). A table, not a switch: it costs no branch. */
static const unsigned char escaped_byte[256] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t'};

static inline int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Scans a string starting at the opening quote in a line not known to be
 * valid UTF-8 (it stops at every byte >= 0x80 to check it); fills v. */
static int scan_string_unchecked(scanner *sc, jvalue *v)
{
    const char *s = sc->s;
    size_t i = sc->i + 1, n = sc->n;
    bool escapes = false;
    for (;;) {
        i = find_special_sse(s, i, n, true);
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
            } else if (escaped_byte[(unsigned char)e]) {
                i += 2;
            } else {
                sc->i = i;
                return fail(sc, "bad escape");
            }
        } else if (c < 0x20) {
            sc->i = i;
            return fail(sc, "control character in string");
        } else {
            size_t k = utf8_valid_seq((const unsigned char *)s + i, n - i);
            if (!k) {
                sc->i = i;
                return fail(sc, "invalid UTF-8 in string");
            }
            i += k;
        }
    }
    v->p = s + sc->i + 1;
    v->len = i - sc->i - 1;
    v->kind = JSON_STRING;
    v->has_escapes = escapes;
    sc->i = i + 1;
    return 0;
}

enum { WINDOW = 64 }; /* bytes of string body one mask covers */

/* Bit k set when byte k of the 64 at p is '"', '\\' or a control byte. */
static inline uint64_t special_bits(const char *p)
{
    uint64_t m = 0;
    for (int k = 0; k < WINDOW / 16; k++)
        m |= (uint64_t)special_mask(_mm_loadu_si128((const __m128i *)(p + 16 * k)), false) << (16 * k);
    return m;
}

/* The same with AVX2. */
__attribute__((target("avx2"))) static inline uint64_t special_bits_avx2(const char *p)
{
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\'), ctl = _mm256_set1_epi8(0x1F);
    uint64_t m = 0;
    for (int k = 0; k < 2; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + 32 * k));
        __m256i hit = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, bslash)),
                                      _mm256_cmpeq_epi8(_mm256_min_epu8(v, ctl), v));
        m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(hit) << (32 * k);
    }
    return m;
}

/* Copies the 64 bytes at s to d. */
__attribute__((target("avx2"))) static inline void copy_window_avx2(char *d, const char *s)
{
    _mm256_storeu_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
    _mm256_storeu_si256((__m256i *)(d + 32), _mm256_loadu_si256((const __m256i *)(s + 32)));
}

/* The same, with AVX2 where avx2 says so. */
static inline void copy_window(char *d, const char *s, bool avx2)
{
    if (avx2) {
        copy_window_avx2(d, s);
        return;
    }
    for (int k = 0; k < WINDOW / 16; k++)
        _mm_storeu_si128((__m128i *)(d + 16 * k), _mm_loadu_si128((const __m128i *)(s + 16 * k)));
}

/* The special bits of s[i, n) (i < n, fewer than 64 bytes): read from the
 * line's last 64 bytes when it has them, so nothing past its end is read. */
static inline uint64_t special_bits_tail(const char *s, size_t i, size_t n)
{
    if (n >= WINDOW) return special_bits(s + n - WINDOW) >> (WINDOW - (n - i));
    char tail[WINDOW];
    memset(tail, 'x', sizeof tail);
    memcpy(tail, s + i, n - i);
    return special_bits(tail);
}

/* Copies n bytes from s to d in 16-byte vectors while a whole vector lies
 * before src_end; so it may write up to 15 bytes past d + n. */
static inline void copy_run(char *d, const char *s, size_t n, const char *src_end)
{
    while (n >= 16 || (n && src_end - s >= 16)) {
        _mm_storeu_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
        size_t k = n < 16 ? n : 16;
        d += k, s += k, n -= k;
    }
    memcpy(d, s, n);
}

/* The value of 4 hex digits (checked already). */
static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

/* The code point of a \u escape whose value is cp and whose next bytes are
 * q..end: a high surrogate followed by a \u escape of a low one is the pair's
 * code point, with *after set past both; any other surrogate is U+FFFD (UTF-8
 * cannot hold a lone one), with *after = q, as for every other value. */
static inline uint32_t join_surrogates(uint32_t cp, const char *q, const char *end, const char **after)
{
    *after = q;
    if (cp < 0xD800 || cp > 0xDFFF) return cp;
    if (cp <= 0xDBFF && end - q >= 6 && q[0] == '\\' && q[1] == 'u' && is_hex(q[2]) && is_hex(q[3]) &&
        is_hex(q[4]) && is_hex(q[5])) {
        uint32_t lo = hex4(q + 2);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
            *after = q + 6;
            return 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
    }
    return UTF8_REPLACEMENT;
}

/* The escape at s[at] (a backslash) checked: returns the offset after it, or
 * 0 when it is bad (sc's error set). With d, writes what it stands for there
 * and moves *d past it, surrogates joined by join_surrogates(). */
static inline size_t take_escape(scanner *sc, size_t at, char **d)
{
    const char *s = sc->s;
    size_t n = sc->n;
    if (at + 1 >= n) return fail(sc, "unterminated string"), 0;
    unsigned char e = (unsigned char)s[at + 1];
    if (e != 'u') {
        if (!escaped_byte[e]) {
            sc->i = at;
            return fail(sc, "bad escape"), 0;
        }
        if (d) *(*d)++ = (char)escaped_byte[e];
        return at + 2;
    }
    if (at + 6 > n || !is_hex(s[at + 2]) || !is_hex(s[at + 3]) || !is_hex(s[at + 4]) || !is_hex(s[at + 5])) {
        sc->i = at;
        return fail(sc, "bad \\u escape"), 0;
    }
    if (!d) return at + 6;
    const char *after;
    *d = utf8_put(*d, join_surrogates(hex4(s + at + 2), s + at + 6, s + n, &after));
    return (size_t)(after - s);
}

/* Scans a string starting at the opening quote in a UTF-8-checked line;
 * fills v. With out, also writes the decoded value there (room: see
 * json_scan_doc_text) and its length to *out_len: a whole window is stored
 * first and, after each escape, the 64 bytes that follow it, so the plain
 * runs between escapes are in place when the walk reaches their end. */
__attribute__((always_inline)) static inline int scan_string_windows(scanner *sc, jvalue *v, char *out,
                                                                     size_t *out_len, bool avx2)
{
    const char *s = sc->s;
    const size_t n = sc->n;
    size_t i = sc->i + 1; /* the window's start */
    /* with out: decoded bytes of s[.., i + off) end here; an integer, since
     * without out there is nothing to point into (no arithmetic on NULL) */
    uintptr_t d = (uintptr_t)out;
    bool escapes = false;
    for (;;) {
        if (i >= n) return fail(sc, "unterminated string");
        bool whole = i + WINDOW <= n;
        uint64_t m = !whole ? special_bits_tail(s, i, n) : avx2 ? special_bits_avx2(s + i) : special_bits(s + i);
        if (out && whole) copy_window((char *)d, s + i, avx2);
        if (!m) {
            if (!whole) return fail(sc, "unterminated string");
            d += WINDOW;
            i += WINDOW;
            continue;
        }
        size_t off = 0, next = whole ? i + WINDOW : n;
        for (;;) {
            size_t k = (size_t)__builtin_ctzll(m), at = i + k;
            if (out && !whole) copy_run((char *)d, s + i + off, k - off, s + n);
            d += k - off;
            unsigned char c = (unsigned char)s[at];
            if (c == '"') {
                v->p = s + sc->i + 1;
                v->len = at - sc->i - 1;
                v->kind = JSON_STRING;
                v->has_escapes = escapes;
                sc->i = at + 1;
                if (out) *out_len = (size_t)(d - (uintptr_t)out);
                return 0;
            }
            if (c != '\\') {
                sc->i = at;
                return fail(sc, "control character in string");
            }
            escapes = true;
            char *dp = (char *)d;
            size_t after = take_escape(sc, at, out ? &dp : NULL);
            d = (uintptr_t)dp;
            if (!after) return -1;
            if (after >= next) { /* the escape ends this window */
                i = after;
                break;
            }
            off = after - i;
            if (out && whole) { /* the window's rest after the escape, in place */
                if (after + WINDOW <= n) copy_window((char *)d, s + after, avx2);
                else copy_run((char *)d, s + after, WINDOW - off, s + n);
            }
            m &= ~0ULL << off;
            if (!m) { /* plain to the window's end */
                if (!whole) return fail(sc, "unterminated string");
                d += WINDOW - off;
                i += WINDOW;
                break;
            }
        }
    }
}

__attribute__((target("avx2"))) static int scan_string_avx2(scanner *sc, jvalue *v)
{
    return scan_string_windows(sc, v, NULL, NULL, true);
}
__attribute__((target("avx2"))) static int scan_text_string_avx2(scanner *sc, jvalue *v)
{
    return scan_string_windows(sc, v, sc->text_out, &sc->text_len, true);
}

/* Scans a string starting at the opening quote; fills v. */
static int scan_string(scanner *sc, jvalue *v)
{
    if (!sc->utf8_checked) return scan_string_unchecked(sc, v);
    if (simd_avx2()) return scan_string_avx2(sc, v);
    return scan_string_windows(sc, v, NULL, NULL, false);
}

/* The same, writing the decoded value to sc->text_out (sc->text_len). */
static int scan_text_string(scanner *sc, jvalue *v)
{
    if (simd_avx2()) return scan_text_string_avx2(sc, v);
    return scan_string_windows(sc, v, sc->text_out, &sc->text_len, false);
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

/* The bytes member name key stands for, when it may be one of the names a
 * document records; else NULL. Escapes are decoded into room (FIELD_NAME_MAX *
 * ESCAPE_MAX_LEN bytes): "te\u0078t" is "text", as RFC 8259 (section 8.3)
 * and Python's json compare names. */
static const char *field_name(const jvalue *key, char *room, size_t *len)
{
    if (!key->has_escapes) {
        *len = key->len;
        return key->p;
    }
    if (key->len > FIELD_NAME_MAX * ESCAPE_MAX_LEN) return NULL;
    *len = json_unescape_into(key, room);
    return room;
}

/* True when member name key, its escapes decoded, is the len bytes at name. */
static bool key_is(const jvalue *key, const char *name, size_t len)
{
    if (!key->has_escapes) return key->len == len && !memcmp(key->p, name, len);
    const char *s = key->p, *end = key->p + key->len;
    size_t at = 0;
    while (s < end) {
        char room[4];
        const char *piece = s;
        size_t n = 1;
        if (*s == '\\') {
            s++;
            n = (size_t)(utf8_put(room, json_escape_codepoint(&s, end)) - room);
            piece = room;
        } else {
            s++;
        }
        if (at + n > len || memcmp(name + at, piece, n)) return false;
        at += n;
    }
    return at == len;
}

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
        char name_room[FIELD_NAME_MAX * ESCAPE_MAX_LEN];
        size_t name_len = 0;
        const char *name = doc && open == '{' ? field_name(&key, name_room, &name_len) : NULL;
        bool named_text = name && name_len == 4 && !memcmp(name, "text", 4);
        bool is_text = sc->named ? doc && open == '{' && key_is(&key, sc->text_name, sc->text_name_len) : named_text;
        bool text_out = is_text && sc->text_out && sc->i < sc->n && sc->s[sc->i] == '"';
        if (text_out ? scan_text_string(sc, &val) : scan_value(sc, &val, inner)) return -1;
        if (is_text && sc->named) {
            doc->text = val;
            sc->named->name = key;
        } else if (named_text && sc->named) {
            sc->named->plain_name = key;
            sc->named->plain = val;
            sc->named->plains++;
        } else if (name) {
            jvalue *slot = NULL;
            switch (name_len) {
            case 2: if (!memcmp(name, "id", 2)) slot = &doc->id; break;
            case 3: if (!memcmp(name, "url", 3)) slot = &doc->url; break;
            case 4:
                if (named_text) slot = &doc->text;
                else if (!memcmp(name, "date", 4)) slot = &doc->date;
                break;
            case 6: if (!memcmp(name, "source", 6)) slot = &doc->source; break;
            case 8: if (!memcmp(name, "metadata", 8)) slot = &doc->metadata; break;
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

/* json_scan_doc(); with text_out, json_scan_doc_text(); with named, json_scan_doc_named(). */
static int scan_doc(const char *line, size_t len, jdoc *doc, char *text_out, size_t *text_len, jnamed *named,
                    const char *text_name, const char **err, size_t *err_pos)
{
    scanner sc = {line, len, 0, NULL, 0, utf8_valid(line, len), NULL, 0, text_name, 0, named};
    if (sc.utf8_checked) sc.text_out = text_out;
    if (named) {
        memset(named, 0, sizeof *named);
        sc.text_name_len = strlen(text_name);
    }
    memset(doc, 0, sizeof *doc);
    skip_ws(&sc);
    if (sc.i >= sc.n || line[sc.i] != '{') {
        bool bom = sc.n - sc.i >= 3 && !memcmp(line + sc.i, "\xEF\xBB\xBF", 3);
        fail(&sc, sc.i >= sc.n ? "empty line" : bom ? "a UTF-8 byte order mark before the object" : "not a JSON object");
    } else if (scan_container(&sc, doc) == 0) {
        skip_ws(&sc);
        if (sc.i == sc.n) {
            if (!text_out) return 0;
            if (doc->text.kind != JSON_STRING) *text_len = 0;
            else if (sc.text_out) *text_len = sc.text_len;
            else *text_len = json_unescape_into(&doc->text, text_out); /* not reached: such a line fails */
            return 0;
        }
        fail(&sc, "trailing characters after the object");
    }
    if (err) *err = sc.err;
    if (err_pos) *err_pos = sc.i;
    return -1;
}

int json_scan_doc(const char *line, size_t len, jdoc *doc, const char **err, size_t *err_pos)
{
    return scan_doc(line, len, doc, NULL, NULL, NULL, NULL, err, err_pos);
}

int json_scan_doc_text(const char *line, size_t len, jdoc *doc, char *text_out, size_t *text_len, const char **err,
                       size_t *err_pos)
{
    return scan_doc(line, len, doc, text_out, text_len, NULL, NULL, err, err_pos);
}

int json_scan_doc_named(const char *line, size_t len, const char *text_name, jdoc *doc, jnamed *where,
                        const char **err, size_t *err_pos)
{
    return scan_doc(line, len, doc, NULL, NULL, where, text_name, err, err_pos);
}

uint32_t json_escape_codepoint(const char **sp, const char *end)
{
    const char *s = *sp;
    unsigned char e = (unsigned char)*s++;
    uint32_t cp;
    if (e != 'u') {
        cp = escaped_byte[e] ? escaped_byte[e] : e; /* the scanner lets only valid ones through */
    } else if (end - s < 4) {
        s = end;
        cp = UTF8_REPLACEMENT;
    } else {
        cp = join_surrogates(hex4(s), s + 4, end, &s);
    }
    *sp = s;
    return cp;
}

/* Decodes the escape after a backslash at s (end bounds it) to d; advances both. */
__attribute__((always_inline)) static inline void unescape_one(const char **sp, char **dp, const char *end)
{
    *dp = utf8_put(*dp, json_escape_codepoint(sp, end));
}

/* Decoding never makes a string longer (an escape of 2, 6 or 12 bytes gives at
 * most 1, 3 or 4), so the output is written in place with whole-block stores:
 * each 16-byte block is copied, then the write position moves to its first
 * backslash, if any. Returns the end of the output. */
static char *unescape_sse(const char *s, const char *end, char *d)
{
    const __m128i bslash = _mm_set1_epi8('\\');
    while (s < end) {
        if (end - s >= 16) {
            __m128i block = _mm_loadu_si128((const __m128i *)s);
            _mm_storeu_si128((__m128i *)d, block);
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(block, bslash));
            if (!m) {
                s += 16;
                d += 16;
                continue;
            }
            unsigned k = (unsigned)__builtin_ctz(m);
            s += k;
            d += k;
        } else {
            while (s < end && *s != '\\') *d++ = *s++;
            if (s == end) break;
        }
        s++; /* the backslash */
        if (s >= end) break;
        unescape_one(&s, &d, end);
    }
    return d;
}

/* The same with 32-byte blocks. */
__attribute__((target("avx2"))) static char *unescape_avx2(const char *s, const char *end, char *d)
{
    const __m256i bslash = _mm256_set1_epi8('\\');
    while (end - s >= 32) {
        __m256i block = _mm256_loadu_si256((const __m256i *)s);
        _mm256_storeu_si256((__m256i *)d, block);
        unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(block, bslash));
        if (!m) {
            s += 32;
            d += 32;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctz(m);
        s += k + 1;
        d += k;
        if (s >= end) return d;
        unescape_one(&s, &d, end);
    }
    return unescape_sse(s, end, d);
}

void json_unescape(const jvalue *v, wbuf *out)
{
    buf_reserve(out, v->len + 32);
    char *d = out->data + out->len;
    d = simd_avx2() ? unescape_avx2(v->p, v->p + v->len, d) : unescape_sse(v->p, v->p + v->len, d);
    out->len = (size_t)(d - out->data);
    out->data[out->len] = 0;
}

size_t json_unescape_into(const jvalue *v, char *out)
{
    char *d = simd_avx2() ? unescape_avx2(v->p, v->p + v->len, out) : unescape_sse(v->p, v->p + v->len, out);
    return (size_t)(d - out);
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

/* The escape that stands for the byte c (below 0x20, '"' or '\\') in a JSON string; its length. */
static size_t escape_of(unsigned char c, char esc[6])
{
    static const char short_escape[] = {['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r',
                                        ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f'};
    esc[0] = '\\';
    if (c < sizeof short_escape && short_escape[c]) {
        esc[1] = short_escape[c];
        return 2;
    }
    esc[1] = 'u', esc[2] = '0', esc[3] = '0', esc[4] = hexdigits[c >> 4], esc[5] = hexdigits[c & 15];
    return 6;
}

/* Appends s as a quoted JSON string to out, or only counts its bytes when
 * out is NULL; returns that count. */
static size_t put_string(wbuf *out, const char *s, size_t n)
{
    if (out) {
        buf_reserve(out, n + 2);
        buf_putc(out, '"');
    }
    size_t i = 0, run = 0, size = n + 2;
    while (i < n) {
        while (i + 16 <= n) {
            unsigned m = special_mask(_mm_loadu_si128((const __m128i *)(s + i)), true);
            if (!m) { i += 16; continue; }
            i += (size_t)__builtin_ctz(m);
            break;
        }
        if (i >= n) break;
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            size_t k = utf8_valid_seq((const unsigned char *)s + i, n - i);
            if (k) { i += k; continue; }
            if (out) {
                buf_append(out, s + run, i - run);
                buf_append(out, "\xEF\xBF\xBD", 3);
            }
            size_t bad = utf8_invalid_len((const unsigned char *)s + i, n - i);
            size = size + 3 - bad; /* a maximal subpart becomes one U+FFFD, as utf8_repair() */
            run = i += bad;
            continue;
        }
        if (c != '"' && c != '\\' && c >= 0x20) { i++; continue; }
        char esc[6];
        size_t k = escape_of(c, esc);
        if (out) {
            buf_append(out, s + run, i - run);
            buf_append(out, esc, k);
        }
        size += k - 1;
        run = ++i;
    }
    if (out) {
        buf_append(out, s + run, n - run);
        buf_putc(out, '"');
    }
    return size;
}

void json_put_string(wbuf *out, const char *s, size_t n) { put_string(out, s, n); }

size_t json_string_size(const char *s, size_t n) { return put_string(NULL, s, n); }

void json_put_key(wbuf *out, const char *key)
{
    buf_putc(out, '"');
    buf_puts(out, key);
    buf_append(out, "\":", 2);
}

/* The end of the string whose opening quote is p[i]: past its closing
 * quote (the first one after an even run of backslashes). */
static size_t string_end(const char *p, size_t n, size_t i)
{
    size_t j = i + 1;
    for (;;) {
        const char *q = j < n ? memchr(p + j, '"', n - j) : NULL;
        if (!q) return n;
        size_t k = (size_t)(q - p), slashes = 0;
        while (k - slashes > i + 1 && p[k - slashes - 1] == '\\') slashes++;
        if (slashes % 2 == 0) return k + 1;
        j = k + 1;
    }
}

/* The end of the valid JSON value that starts at p[i]. */
static size_t value_end(const char *p, size_t n, size_t i)
{
    int depth = 0;
    while (i < n) {
        char ch = p[i];
        if (ch == '"') {
            i = string_end(p, n, i);
            if (!depth) return i;
            continue;
        }
        if (ch == '{' || ch == '[') depth++;
        else if (ch == '}' || ch == ']') {
            if (!depth) return i; /* the end of a scalar at the object's close */
            if (!--depth) return i + 1;
        } else if (!depth && (ch == ',' || json_is_blank(ch))) return i;
        i++;
    }
    return n;
}

bool json_next_member(const char *obj, size_t n, size_t *pos, jmember *m)
{
    size_t i = *pos;
    while (i < n && (obj[i] == ',' || json_is_blank(obj[i]))) i++;
    if (i >= n || obj[i] != '"') return false;
    m->from = i;
    size_t name_end = value_end(obj, n, i);
    m->key = (jvalue){obj + i + 1, name_end - i - 2, JSON_STRING, memchr(obj + i, '\\', name_end - i) != NULL};
    i = name_end;
    while (i < n && obj[i] != ':') i++;
    i++;
    while (i < n && json_is_blank(obj[i])) i++;
    m->value_from = i;
    m->to = value_end(obj, n, i);
    *pos = m->to;
    return true;
}

bool json_may_hold_name(const char *text, size_t n, const char *name, size_t len)
{
    return memmem(text, n, name, len) || memmem(text, n, "\\u", 2);
}

bool json_member_is(const jmember *m, const char *name, size_t len)
{
    if (!m->key.has_escapes) return m->key.len == len && !memcmp(m->key.p, name, len);
    wbuf decoded = WBUF_INIT;
    size_t n;
    const char *p = json_string(&m->key, &decoded, &n);
    bool same = n == len && !memcmp(p, name, len);
    buf_free(&decoded);
    return same;
}

bool json_has_member(const char *members, size_t n, const char *name, size_t len)
{
    size_t at = 0;
    jmember m;
    while (json_next_member(members, n, &at, &m))
        if (json_member_is(&m, name, len)) return true;
    return false;
}

void json_put_members_except(wbuf *out, const char *members, size_t n, const char *name, size_t len,
                             bool comma_first)
{
    size_t at = 0;
    jmember m;
    bool comma = comma_first;
    while (json_next_member(members, n, &at, &m)) {
        if (json_member_is(&m, name, len)) continue;
        if (comma) buf_putc(out, ',');
        buf_append(out, members + m.from, m.to - m.from);
        comma = true;
    }
}
