/* jsonl_reader fuzz target: scan any bytes as a document line; the baseline
 * and AVX2 scanners must agree on everything; when it scans, unescaping,
 * re-writing, rewriting and renaming (--text-column) must hold their
 * promises; json_scan_doc_text must agree with json_scan_doc and
 * json_unescape. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/json.h"
#include "core/simd.h"
#include "core/utf8.h"
#include "tokenize/token_format.h"

static bool same_value(const jvalue *a, const jvalue *b)
{
    return a->p == b->p && a->len == b->len && a->kind == b->kind && a->has_escapes == b->has_escapes;
}

static bool same_doc(const jdoc *a, const jdoc *b)
{
    return same_value(&a->id, &b->id) && same_value(&a->text, &b->text) && same_value(&a->url, &b->url) &&
           same_value(&a->date, &b->date) && same_value(&a->source, &b->source) &&
           same_value(&a->metadata, &b->metadata) && a->close_brace == b->close_brace;
}

/* json_scan_doc_text gives json_scan_doc's verdict, error, position and
 * fields, and the text json_unescape gives, written into room of exactly the
 * line's length (the sanitizer catches a byte past it). */
static void check_text_scan(const char *line, size_t size, int rc, const jdoc *doc, const char *err, size_t pos,
                            const wbuf *text)
{
    char *room = malloc(size ? size : 1);
    jdoc d;
    const char *e = NULL;
    size_t p = 0, n = 0;
    int r = json_scan_doc_text(line, size, &d, room, &n, &e, &p);
    if (r != rc || (r && (p != pos || strcmp(e, err)))) abort();
    if (!r && !same_doc(&d, doc)) abort();
    if (!r && d.text.kind == JSON_STRING && (n != text->len || memcmp(room, text->data, n))) abort();
    if (!r && d.text.kind != JSON_STRING && n) abort();
    free(room);
}

/* --text-column content on a line that scans: doc_normalize_line refuses it
 * only for the reasons it names, and what it writes scans with its "text"
 * the "content" string of the line (decoded the same), an old "text" kept
 * in an object metadata. */
/* How many members named name[0, len) the object value v (or a line's
 * top level, v NULL: line[0, close]) has. */
static int members_named(const char *line, size_t close, const jvalue *v, const char *name, size_t len)
{
    size_t open = 0;
    while (!v && line[open] != '{') open++;
    const char *members = v ? v->p + 1 : line + open + 1;
    size_t n = v ? v->len - 2 : close - open - 1, at = 0;
    jmember m;
    int count = 0;
    while (json_next_member(members, n, &at, &m)) count += json_member_is(&m, name, len);
    return count;
}

static void check_normalize(const char *line, size_t size)
{
    static bool named;
    if (!named) named = doc_set_text_name("content");
    jdoc d, n;
    jnamed at;
    const char *err;
    size_t pos;
    if (json_scan_doc_named(line, size, "content", &d, &at, &err, &pos) != 0) abort();
    wbuf out = WBUF_INIT, want = WBUF_INIT, got = WBUF_INIT;
    const char *why = doc_normalize_line(line, size, &out, &err, &pos);
    if (why) {
        bool missing = d.text.kind != JSON_STRING;
        if (strcmp(why, missing ? "missing_text" : "text_clash") || out.len) abort();
        if (!missing && at.plain.kind == JSON_MISSING) abort();
    } else if (at.plains > 1) {
        abort(); /* a second "text" would be read as the text */
    } else {
        if (d.text.kind != JSON_STRING || out.data[out.len - 1] != '\n') abort();
        if (json_scan_doc(out.data, out.len - 1, &n, &err, &pos) != 0 || n.text.kind != JSON_STRING) abort();
        json_unescape(&d.text, &want);
        json_unescape(&n.text, &got);
        if (want.len != got.len || memcmp(want.data, got.data, want.len)) abort();
        if (at.plain.kind && n.metadata.kind != JSON_OBJECT) abort();
    }
    buf_free(&out);
    buf_free(&want);
    buf_free(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jdoc d;
    const char *err;
    size_t pos;
    const char *line = (const char *)data;
    simd_force_baseline(true);
    jdoc base;
    const char *base_err;
    size_t base_pos;
    int base_rc = json_scan_doc(line, size, &base, &base_err, &base_pos);
    wbuf base_text = WBUF_INIT;
    if (base_rc == 0 && base.text.kind == JSON_STRING) json_unescape(&base.text, &base_text);
    bool base_valid = utf8_valid(line, size);
    check_text_scan(line, size, base_rc, &base, base_err, base_pos, &base_text);
    simd_force_baseline(false);
    check_text_scan(line, size, base_rc, &base, base_err, base_pos, &base_text);
    int rc = json_scan_doc(line, size, &d, &err, &pos);
    if (rc != base_rc || utf8_valid(line, size) != base_valid) abort();
    if (rc != 0) {
        if (pos > size || pos != base_pos || strcmp(err, base_err)) abort();
        buf_free(&base_text);
        return 0;
    }
    if (!same_doc(&d, &base)) abort();
    check_normalize(line, size);
    wbuf text = WBUF_INIT, out = WBUF_INIT, meta = WBUF_INIT;
    if (d.text.kind == JSON_STRING) {
        json_unescape(&d.text, &text);
        if (!utf8_valid(text.data ? text.data : "", text.len)) abort();
        if (text.len != base_text.len || memcmp(text.data, base_text.data, text.len)) abort();
    }
    buf_free(&base_text);
    meta_add_str(&meta, "k", "v", 1);
    doc_rewrite(line, size, &d, "new", 3, &meta, &out);
    jdoc d2;
    if (json_scan_doc(out.data, out.len - 1, &d2, &err, &pos) != 0) abort(); /* a rewrite is valid JSON */
    /* ... whose metadata is an object holding the member added once */
    if (d2.metadata.kind != JSON_OBJECT || members_named(out.data, 0, &d2.metadata, "k", 1) != 1) abort();
    buf_clear(&out);
    doc_reject_line(line, size, "fuzz", "reason", NULL, &out);
    if (json_scan_doc(out.data, out.len - 1, &d2, &err, &pos) != 0) abort();
    if (members_named(out.data, d2.close_brace, NULL, "reject", 6) != 1) abort(); /* one reject member */
    buf_clear(&out);
    static const uint32_t ids[] = {7, 100257};
    token_format_jsonl(&out, line, d.close_brace, TOKEN_FORMAT_NONE, ids, 2, TOKEN_FORMAT_NONE);
    if (json_scan_doc(out.data, out.len - 1, &d2, &err, &pos) != 0) abort();
    if (members_named(out.data, d2.close_brace, NULL, "tokens", 6) != 1) abort(); /* one tokens member */
    buf_clear(&out);
    json_put_string(&out, line, size);
    buf_free(&text);
    buf_free(&out);
    buf_free(&meta);
    return 0;
}
