/* meta.c - page metadata (author, published date, description) from <meta>
 * tags and JSON-LD, as collected by the walk. */
#include <ctype.h>
#include <string.h>

#include "core/doc.h"
#include "core/json.h"
#include "ingest/charset.h"
#include "ingest/extract.h"
#include "ingest/meta_json.h"

/* Longest value kept for each field; longer ones are cut at a character boundary. */
#define AUTHOR_MAX 200
#define DATE_MAX 64
#define DESCRIPTION_MAX 1000

/* <meta> names in order of preference for each field. */
static const char *const author_keys[] = {"author", "article:author", "dc.creator", "parsely-author",
                                          "sailthru.author", "citation_author"};
static const char *const date_keys[] = {"article:published_time", "datepublished", "og:article:published_time",
                                        "pubdate", "publishdate", "date", "dc.date.issued", "dc.date",
                                        "citation_publication_date", "parsely-pub-date", "sailthru.date"};
static const char *const description_keys[] = {"description", "og:description", "twitter:description",
                                               "dc.description"};

typedef struct {
    wbuf author, published, description;
    wbuf scratch;
} found;

/* The value of the most preferred <meta> key present, or NULL. */
static const char *meta_lookup(const html_walk *w, const char *const *keys, size_t nkeys, size_t *len)
{
    const char *bestv = NULL;
    size_t best_rank = nkeys;
    const char *p = w->meta_kv.data, *end = p ? p + w->meta_kv.len : NULL;
    while (p && p < end) {
        const char *key = p;
        const char *val = key + strlen(key) + 1;
        if (val >= end) break;
        for (size_t r = 0; r < best_rank; r++)
            if (!strcmp(key, keys[r])) {
                best_rank = r;
                bestv = val;
                *len = strlen(val);
                break;
            }
        p = val + strlen(val) + 1;
    }
    return bestv;
}

/* Sets dst to s[0..n) with whitespace runs collapsed and trimmed, unless dst is already set. */
static void set_once(wbuf *dst, const char *s, size_t n)
{
    if (dst->len) return;
    int space = 0;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            space = 1;
            continue;
        }
        if (space && dst->len) buf_putc(dst, ' ');
        space = 0;
        buf_putc(dst, s[i]);
    }
}

static int key_is(const jvalue *k, const char *name)
{
    return json_is(k, name);
}

/* JSON-LD: "author": "X" | {"name": "X"} | [{"name": "X"}], "datePublished", "description". */
static void on_jsonld(void *ctx, const jvalue *keys, int depth, const jvalue *value)
{
    found *f = ctx;
    if (value->kind != JSON_STRING || depth < 1) return;
    const jvalue *last = &keys[depth - 1];
    int under_author = key_is(last, "author") || key_is(last, "creator") ||
                       (depth >= 2 && key_is(last, "name") &&
                        (key_is(&keys[depth - 2], "author") || key_is(&keys[depth - 2], "creator"))) ||
                       (depth >= 3 && key_is(last, "name") && keys[depth - 2].kind == JSON_MISSING &&
                        key_is(&keys[depth - 3], "author"));
    size_t n;
    if (under_author && !f->author.len) {
        const char *s = json_string(value, &f->scratch, &n);
        set_once(&f->author, s, n);
    } else if (key_is(last, "datePublished") && !f->published.len) {
        const char *s = json_string(value, &f->scratch, &n);
        set_once(&f->published, s, n);
    } else if (key_is(last, "description") && depth <= 2 && !f->description.len) {
        const char *s = json_string(value, &f->scratch, &n);
        set_once(&f->description, s, n);
    }
}

/* Appends key:value with value cut to max bytes (at a character boundary) and NFC-normalised. */
static void add_field(wbuf *meta, const char *key, const wbuf *v, size_t max, wbuf *scratch)
{
    if (!v->len) return;
    size_t n = v->len;
    if (n > max) {
        n = max;
        while (n && ((unsigned char)v->data[n] & 0xC0) == 0x80) n--;
    }
    buf_clear(scratch);
    utf8_append_nfc(scratch, v->data, n);
    meta_add_str(meta, key, scratch->data, scratch->len);
}

void extract_metadata(const html_walk *w, wbuf *meta)
{
    found f = {WBUF_INIT, WBUF_INIT, WBUF_INIT, WBUF_INIT};
    if (w->jsonld.len) json_visit(w->jsonld.data, w->jsonld.len, on_jsonld, &f);
    size_t n;
    const char *v;
    if ((v = meta_lookup(w, author_keys, sizeof author_keys / sizeof *author_keys, &n)) &&
        strncmp(v, "http", 4)) /* article:author is often a profile URL */
        set_once(&f.author, v, n);
    if ((v = meta_lookup(w, date_keys, sizeof date_keys / sizeof *date_keys, &n))) set_once(&f.published, v, n);
    if ((v = meta_lookup(w, description_keys, sizeof description_keys / sizeof *description_keys, &n)))
        set_once(&f.description, v, n);
    add_field(meta, "author", &f.author, AUTHOR_MAX, &f.scratch);
    add_field(meta, "published", &f.published, DATE_MAX, &f.scratch);
    add_field(meta, "description", &f.description, DESCRIPTION_MAX, &f.scratch);
    buf_free(&f.author);
    buf_free(&f.published);
    buf_free(&f.description);
    buf_free(&f.scratch);
}
