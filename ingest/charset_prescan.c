/* charset_prescan.c - the HTML Standard's "prescan a byte stream to
 * determine its encoding" (13.2.3.2) with its "get an attribute" and
 * "extracting a character encoding from a meta element" steps: a <meta
 * charset> counts, a charset in a content attribute only beside
 * http-equiv="content-type", the first of a repeated attribute wins, tags and
 * comments are skipped whole (a "<meta" inside another tag's quoted attribute
 * value is no meta), and a label no encoding has is passed over. */
#include <stdio.h>
#include <string.h>

#include "ingest/charset.h"

/* How far into a page a <meta charset> is looked for (WHATWG advises 1024;
 * real pages put long scripts first). */
#define META_SNIFF_BYTES 8192
/* The longest label kept (the standard's longest is 19 bytes). */
#define LABEL_MAX 40

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int is_letter(unsigned char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static int lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* True when s[0..n) is word (lower case) in any case. */
static int equals_ci(const char *s, size_t n, const char *word)
{
    if (strlen(word) != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)s[i]) != word[i]) return 0;
    return 1;
}

/* A span of the input: [from, to). */
typedef struct {
    size_t from, to;
} span;

/* "Get an attribute" at *pos: returns 1 with its name and value, 0 at the
 * tag's '>' (no more attributes; *pos stays on it), -1 when the input ends. */
static int get_attribute(const char *p, size_t n, size_t *pos, span *name, span *value)
{
    size_t i = *pos;
    while (i < n && (is_space((unsigned char)p[i]) || p[i] == '/')) i++;
    if (i >= n) return -1;
    if (p[i] == '>') {
        *pos = i;
        return 0;
    }
    name->from = i;
    value->from = value->to = i;
    for (;; i++) { /* the name: a first '=' belongs to it */
        if (i >= n) return -1;
        unsigned char c = (unsigned char)p[i];
        if ((c == '=' && i > name->from) || is_space(c) || c == '/' || c == '>') break;
    }
    name->to = i;
    if (p[i] == '/' || p[i] == '>') {
        *pos = i;
        return 1;
    }
    while (i < n && is_space((unsigned char)p[i])) i++;
    if (i >= n) return -1;
    if (p[i] != '=') {
        *pos = i;
        return 1;
    }
    i++;
    while (i < n && is_space((unsigned char)p[i])) i++;
    if (i >= n) return -1;
    if (p[i] == '"' || p[i] == '\'') {
        const char *close = memchr(p + i + 1, p[i], n - i - 1);
        if (!close) return -1;
        value->from = i + 1;
        value->to = (size_t)(close - p);
        *pos = value->to + 1;
        return 1;
    }
    if (p[i] == '>') {
        *pos = i;
        return 1;
    }
    value->from = i;
    while (i < n && !is_space((unsigned char)p[i]) && p[i] != '>') i++;
    if (i >= n) return -1;
    value->to = i;
    *pos = i;
    return 1;
}

/* "Getting an encoding" from label s[0..n): ASCII whitespace trimmed, then a
 * label some encoding has; its iconv name goes to out. Returns 1, or 0 for
 * failure. */
static int get_encoding(const char *s, size_t n, char *out, size_t size)
{
    while (n && is_space((unsigned char)*s)) s++, n--;
    while (n && is_space((unsigned char)s[n - 1])) n--;
    if (!n || n >= LABEL_MAX) return 0;
    char label[LABEL_MAX];
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(is_letter(c) || (c >= '0' && c <= '9') || strchr("-_.:", c))) return 0; /* no label holds others */
        label[i] = (char)c;
    }
    label[n] = 0;
    return charset_resolve_label(label, out, size);
}

/* "Extracting a character encoding from a meta element" from a content
 * value: 1 with the encoding in out, 0 for none or failure. */
static int encoding_from_content(const char *s, size_t n, char *out, size_t size)
{
    size_t i = 0;
    for (;;) {
        while (i + 7 <= n && !equals_ci(s + i, 7, "charset")) i++;
        if (i + 7 > n) return 0;
        i += 7;
        while (i < n && is_space((unsigned char)s[i])) i++;
        if (i < n && s[i] == '=') break;
    }
    i++;
    while (i < n && is_space((unsigned char)s[i])) i++;
    if (i >= n) return 0;
    if (s[i] == '"' || s[i] == '\'') {
        const char *close = memchr(s + i + 1, s[i], n - i - 1);
        return close && get_encoding(s + i + 1, (size_t)(close - s) - i - 1, out, size);
    }
    size_t end = i;
    while (end < n && !is_space((unsigned char)s[end]) && s[end] != ';') end++;
    return get_encoding(s + i, end - i, out, size);
}

/* The attributes of a <meta> from *pos: 1 with its encoding in out, 0 when
 * it declares none (or needs a pragma it lacks), -1 when the input ends. */
static int meta_encoding(const char *p, size_t n, size_t *pos, char *out, size_t size)
{
    enum { UNSET, NO, YES } need_pragma = UNSET;
    int got_pragma = 0, seen_http_equiv = 0, seen_content = 0, seen_charset = 0;
    int charset = 0; /* 0 null, 1 found, -1 failure */
    span name, value;
    int r;
    while ((r = get_attribute(p, n, pos, &name, &value)) == 1) {
        const char *nm = p + name.from, *v = p + value.from;
        size_t nlen = name.to - name.from, vlen = value.to - value.from;
        if (equals_ci(nm, nlen, "http-equiv")) {
            if (seen_http_equiv++) continue;
            if (equals_ci(v, vlen, "content-type")) got_pragma = 1;
        } else if (equals_ci(nm, nlen, "content")) {
            if (seen_content++) continue;
            if (!charset && encoding_from_content(v, vlen, out, size)) {
                charset = 1;
                need_pragma = YES;
            }
        } else if (equals_ci(nm, nlen, "charset")) {
            if (seen_charset++) continue;
            if (!charset) {
                charset = get_encoding(v, vlen, out, size) ? 1 : -1;
                need_pragma = NO;
            }
        }
    }
    if (r < 0) return -1;
    if (need_pragma == UNSET || (need_pragma == YES && !got_pragma) || charset != 1) return 0;
    /* a page that could be read as ASCII to find its meta is not UTF-16, and
     * x-user-defined in a meta means windows-1252 */
    if (!strcmp(out, "UTF-16LE") || !strcmp(out, "UTF-16BE")) snprintf(out, size, "UTF-8");
    else if (!strcmp(out, "X-USER-DEFINED")) snprintf(out, size, "WINDOWS-1252");
    return 1;
}

int charset_sniff_meta(const char *p, size_t n, char *name, size_t name_size)
{
    if (n > META_SNIFF_BYTES) n = META_SNIFF_BYTES;
    char found[LABEL_MAX];
    size_t i = 0;
    while (i < n) {
        const char *lt = memchr(p + i, '<', n - i);
        if (!lt) return 0;
        i = (size_t)(lt - p);
        if (n - i >= 4 && !memcmp(p + i, "<!--", 4)) { /* to the first "-->" after the '<' ("<!-->" included) */
            size_t k = i + 2;
            while (k + 2 < n && !(p[k] == '-' && p[k + 1] == '-' && p[k + 2] == '>')) k++;
            if (k + 2 >= n) return 0;
            i = k + 3;
            continue;
        }
        if (n - i >= 6 && equals_ci(p + i + 1, 4, "meta") && (is_space((unsigned char)p[i + 5]) || p[i + 5] == '/')) {
            size_t pos = i + 6;
            int r = meta_encoding(p, n, &pos, found, sizeof found);
            if (r < 0) return 0;
            if (r) {
                snprintf(name, name_size, "%s", found);
                return 1;
            }
            i = pos + 1;
            continue;
        }
        size_t k = i + 1;
        if (k < n && p[k] == '/') k++;
        if (k < n && is_letter((unsigned char)p[k])) { /* a tag: its name, then its attributes */
            while (k < n && !is_space((unsigned char)p[k]) && p[k] != '>') k++;
            span a, b;
            int r;
            while ((r = get_attribute(p, n, &k, &a, &b)) == 1) {}
            if (r < 0) return 0;
            i = k + 1;
            continue;
        }
        if (i + 1 < n && (p[i + 1] == '!' || p[i + 1] == '/' || p[i + 1] == '?')) {
            const char *gt = memchr(p + i, '>', n - i);
            if (!gt) return 0;
            i = (size_t)(gt - p) + 1;
            continue;
        }
        i++;
    }
    return 0;
}
