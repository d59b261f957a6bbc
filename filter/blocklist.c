/* blocklist.c - hash-set matching of blocked URLs and words. */
#include "filter/blocklist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include <xxhash.h>

#include "core/utf8.h"
#include "core/util.h"
#include "filter/count_table.h"
#include "filter/uchar.h"

void lowercase_utf8(const char *s, size_t n, wbuf *out)
{
    buf_reserve(out, n);
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 128) {
            buf_putc(out, (char)tolower(c));
            i++;
            continue;
        }
        size_t a = i;
        uint32_t cp = uc_next(s, n, &i);
        uint32_t lower = (uint32_t)utf8proc_tolower((utf8proc_int32_t)cp);
        if (lower == cp)
            buf_append(out, s + a, i - a); /* unchanged, invalid bytes too */
        else
            utf8_append(out, lower);
    }
}

/* Calls line(ctx, text, len) for each non-empty, trimmed, non-comment line. */
static size_t read_lines(const char *path, void (*line)(void *, char *, size_t), void *ctx)
{
    FILE *f = fopen(path, "r");
    if (!f) dief(EXIT_USAGE, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, count = 0;
    ssize_t len;
    int lineno = 0;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        lineno++;
        if (memchr(buf, 0, (size_t)len)) dief(EXIT_USAGE, "%s: line %d: a NUL byte; not a text file?", path, lineno);
        char *s = buf;
        while (len > 0 && isspace((unsigned char)s[len - 1])) s[--len] = 0;
        while (*s && isspace((unsigned char)*s)) s++, len--;
        if (len <= 0 || *s == '#') continue;
        line(ctx, s, (size_t)len);
        count++;
    }
    if (ferror(f)) dief(EXIT_FATAL, "%s: read error", path);
    free(buf);
    fclose(f);
    return count;
}

/* ---- URLs ---- */

struct url_blocklist {
    count_table domains, urls;
    size_t n;
    wbuf scratch;
};

/* True when the n bytes at s are a URL scheme (RFC 3986 3.1: a letter, then
 * letters, digits, '+', '-' or '.'). */
static bool is_scheme(const char *s, size_t n)
{
    if (!n || !isalpha((unsigned char)s[0])) return false;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.') return false;
    return true;
}

/* Lower-cases url, drops its scheme, "www.", user info, port, query and
 * fragment and a final '/'; returns host length (within out). */
static size_t normalize_url(const char *url, size_t len, wbuf *out)
{
    buf_clear(out);
    const char *scheme = len > 3 ? memchr(url, ':', len < 16 ? len : 16) : NULL;
    if (scheme && (size_t)(url + len - scheme) >= 3 && scheme[1] == '/' && scheme[2] == '/' &&
        is_scheme(url, (size_t)(scheme - url))) {
        len -= (size_t)(scheme + 3 - url);
        url = scheme + 3;
    }
    size_t host_end = 0;
    while (host_end < len && url[host_end] != '/' && url[host_end] != '?' && url[host_end] != '#') host_end++;
    const char *at = memchr(url, '@', host_end);
    size_t host_start = at ? (size_t)(at - url) + 1 : 0;
    size_t port = host_start;
    if (port < host_end && url[port] == '[') { /* an IPv6 literal (RFC 3986): its colons are not the port's */
        const char *close = memchr(url + port, ']', host_end - port);
        if (close) port = (size_t)(close - url);
    }
    while (port < host_end && url[port] != ':') port++;
    if (port - host_start > 4 && strncasecmp(url + host_start, "www.", 4) == 0) host_start += 4;
    for (size_t i = host_start; i < port; i++) buf_putc(out, (char)tolower((unsigned char)url[i]));
    size_t host_len = out->len;
    size_t path_end = host_end;
    while (path_end < len && url[path_end] != '?' && url[path_end] != '#') path_end++;
    buf_append(out, url + host_end, path_end - host_end);
    while (out->len > host_len && out->data[out->len - 1] == '/') out->data[--out->len] = 0;
    return host_len;
}

static void add_url_entry(void *ctx, char *s, size_t len)
{
    url_blocklist *b = ctx;
    size_t host_len = normalize_url(s, len, &b->scratch);
    if (b->scratch.len == host_len)
        ct_add(&b->domains, XXH3_64bits(b->scratch.data, host_len), 0);
    else
        ct_add(&b->urls, XXH3_64bits(b->scratch.data, b->scratch.len), 0);
}

/* Lines of a file, to size the tables before filling them. */
static size_t count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) dief(EXIT_USAGE, "%s: %s", path, strerror(errno));
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n + 1;
}

url_blocklist *url_blocklist_load(const char *path)
{
    url_blocklist *b = xcalloc(1, sizeof *b);
    size_t lines = count_lines(path);
    ct_reset(&b->domains, lines);
    ct_reset(&b->urls, lines);
    b->n = read_lines(path, add_url_entry, b);
    return b;
}

bool url_blocklist_match(const url_blocklist *b, const char *url, size_t len, wbuf *scratch)
{
    size_t host_len = normalize_url(url, len, scratch);
    const wbuf norm = *scratch;
    bool hit = false;
    if (norm.len > host_len && ct_find(&b->urls, XXH3_64bits(norm.data, norm.len))) hit = true;
    /* the host and each parent domain */
    for (size_t i = 0; !hit && i < host_len; i++)
        if (i == 0 || norm.data[i - 1] == '.')
            hit = ct_find(&b->domains, XXH3_64bits(norm.data + i, host_len - i)) != NULL;
    return hit;
}

size_t url_blocklist_size(const url_blocklist *b) { return b->n; }

void url_blocklist_free(url_blocklist *b)
{
    if (!b) return;
    ct_free(&b->domains);
    ct_free(&b->urls);
    buf_free(&b->scratch);
    free(b);
}

/* ---- words ---- */

typedef struct {
    char *text;
    size_t len;
    int next; /* next entry with the same first word, or -1 */
} word_entry;

struct word_blocklist {
    count_table first_words; /* hash of an entry's first word -> first entry index */
    word_entry *entries;
    size_t n, cap;
    int *odd;                /* entries that start with a non-word character */
    size_t nodd;
    wbuf scratch;
};

static bool word_char_at(const char *s, size_t n, size_t i, size_t *next)
{
    size_t t = i;
    uint32_t cp = uc_next(s, n, &t);
    if (next) *next = t;
    return uc_is_word(cp);
}

/* End of the run of word characters starting at i. */
static size_t word_run_end(const char *s, size_t n, size_t i)
{
    size_t next;
    while (i < n && word_char_at(s, n, i, &next)) i = next;
    return i;
}

static void add_word_entry(void *ctx, char *s, size_t len)
{
    word_blocklist *b = ctx;
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->entries = xrealloc(b->entries, b->cap * sizeof *b->entries);
    }
    buf_clear(&b->scratch);
    lowercase_utf8(s, len, &b->scratch);
    word_entry *e = &b->entries[b->n];
    e->text = xmalloc(b->scratch.len + 1);
    memcpy(e->text, b->scratch.data, b->scratch.len + 1);
    e->len = b->scratch.len;
    e->next = -1;
    size_t first_end = word_run_end(e->text, e->len, 0);
    if (first_end == 0) {
        b->odd = xrealloc(b->odd, (b->nodd + 1) * sizeof *b->odd);
        b->odd[b->nodd++] = (int)b->n;
    } else {
        ct_slot *slot = ct_add(&b->first_words, XXH3_64bits(e->text, first_end), (uint32_t)b->n);
        if (slot->count > 1) { /* chain behind the first entry with this first word */
            int k = (int)slot->first;
            while (b->entries[k].next >= 0) k = b->entries[k].next;
            b->entries[k].next = (int)b->n;
        }
    }
    b->n++;
}

word_blocklist *word_blocklist_load(const char *path)
{
    word_blocklist *b = xcalloc(1, sizeof *b);
    ct_reset(&b->first_words, count_lines(path));
    read_lines(path, add_word_entry, b);
    return b;
}

/* Entry e at text position i, with a non-word character (or the end) after it. */
static bool entry_at(const word_entry *e, const char *t, size_t n, size_t i)
{
    if (n - i < e->len || memcmp(t + i, e->text, e->len) != 0) return false;
    return i + e->len == n || !word_char_at(t, n, i + e->len, NULL);
}

bool word_blocklist_match(const word_blocklist *b, const char *text, size_t n, wbuf *scratch)
{
    if (b->n == 0) return false;
    buf_clear(scratch);
    lowercase_utf8(text, n, scratch);
    const char *t = scratch->data;
    size_t len = scratch->len;
    bool prev_word = false;
    for (size_t i = 0; i < len;) {
        size_t next;
        bool is_word = word_char_at(t, len, i, &next);
        if (is_word && !prev_word) {
            size_t end = word_run_end(t, len, i);
            ct_slot *slot = ct_find(&b->first_words, XXH3_64bits(t + i, end - i));
            for (int k = slot ? (int)slot->first : -1; k >= 0; k = b->entries[k].next)
                if (entry_at(&b->entries[k], t, len, i)) return true;
            i = end;
            prev_word = true;
            continue;
        }
        if (!is_word && b->nodd) /* entries starting with a non-word character: after a non-word or at 0 */
            for (size_t k = 0; k < b->nodd; k++)
                if ((i == 0 || !prev_word) && entry_at(&b->entries[b->odd[k]], t, len, i)) return true;
        prev_word = is_word;
        i = next;
    }
    return false;
}

size_t word_blocklist_size(const word_blocklist *b) { return b->n; }

void word_blocklist_free(word_blocklist *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n; i++) free(b->entries[i].text);
    free(b->entries);
    free(b->odd);
    ct_free(&b->first_words);
    buf_free(&b->scratch);
    free(b);
}
