#include "doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void doc_clear(wdoc *d)
{
    buf_clear(&d->id);
    buf_clear(&d->text);
    buf_clear(&d->url);
    buf_clear(&d->date);
    buf_clear(&d->source);
    buf_clear(&d->meta);
}

void doc_free(wdoc *d)
{
    buf_free(&d->id);
    buf_free(&d->text);
    buf_free(&d->url);
    buf_free(&d->date);
    buf_free(&d->source);
    buf_free(&d->meta);
}

static void put_field(wbuf *line, const char *key, const wbuf *val, bool always)
{
    if (!always && val->len == 0) return;
    if (line->data[line->len - 1] != '{') buf_putc(line, ',');
    json_put_key(line, key);
    json_put_string(line, val->data ? val->data : "", val->len);
}

void doc_write(const wdoc *d, wbuf *line)
{
    buf_reserve(line, d->text.len + d->meta.len + 256);
    buf_putc(line, '{');
    put_field(line, "id", &d->id, false);
    put_field(line, "text", &d->text, true);
    put_field(line, "url", &d->url, false);
    put_field(line, "date", &d->date, false);
    put_field(line, "source", &d->source, false);
    if (d->meta.len) {
        buf_append(line, ",\"metadata\":{", 13);
        buf_append(line, d->meta.data, d->meta.len);
        buf_putc(line, '}');
    }
    buf_append(line, "}\n", 2);
}

static void meta_sep(wbuf *meta, const char *key)
{
    if (meta->len) buf_putc(meta, ',');
    json_put_key(meta, key);
}

void meta_add_str(wbuf *meta, const char *key, const char *val, size_t len)
{
    meta_sep(meta, key);
    json_put_string(meta, val, len);
}

void meta_add_int(wbuf *meta, const char *key, long long val)
{
    meta_sep(meta, key);
    buf_printf(meta, "%lld", val);
}

void meta_add_num(wbuf *meta, const char *key, double val)
{
    meta_sep(meta, key);
    if (val != val || val > 1e300 || val < -1e300) buf_puts(meta, "null"); /* JSON has no NaN/inf */
    else buf_printf(meta, "%.6g", val);
}

void meta_add_raw(wbuf *meta, const char *key, const char *json, size_t len)
{
    meta_sep(meta, key);
    buf_append(meta, json, len);
}

/* True when the object text between its braces holds no member. */
static bool object_is_empty(const char *p, size_t len)
{
    for (size_t i = 1; i + 1 < len; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r') return false;
    return true;
}

/* Where a value sits in the line, quotes included. */
static size_t value_start(const char *line, const jvalue *v)
{
    return (size_t)(v->p - line) - (v->kind == JSON_STRING ? 1 : 0);
}

static size_t value_end(const char *line, const jvalue *v)
{
    return (size_t)(v->p - line) + v->len + (v->kind == JSON_STRING ? 1 : 0);
}

/* True when the members text members[0, n) has a member named as key. */
static bool has_member(const char *members, size_t n, const jvalue *key)
{
    wbuf decoded = WBUF_INIT; /* used only by a name with escapes */
    size_t len;
    const char *name = json_string(key, &decoded, &len);
    bool found = json_has_member(members, n, name, len);
    buf_free(&decoded);
    return found;
}

/* True when the metadata object's members text has a member that extra
 * (members text too) sets again. */
static bool sets_again(const char *members, size_t n, const wbuf *extra)
{
    size_t at = 0;
    jmember m;
    while (json_next_member(extra->data, extra->len, &at, &m))
        if (has_member(members, n, &m.key)) return true;
    return false;
}

/* The members text of the old metadata without those extra sets again,
 * then extra's. */
static void put_merged_members(wbuf *out, const char *members, size_t n, const wbuf *extra)
{
    size_t at = 0;
    jmember m;
    while (json_next_member(members, n, &at, &m)) {
        if (has_member(extra->data, extra->len, &m.key)) continue;
        buf_append(out, members + m.from, m.to - m.from);
        buf_putc(out, ',');
    }
    buf_append(out, extra->data, extra->len);
}

void doc_rewrite(const char *line, size_t len, const jdoc *doc,
                 const char *new_text, size_t new_text_len,
                 const wbuf *extra_meta, wbuf *out)
{
    bool add_meta = extra_meta && extra_meta->len;
    buf_reserve(out, len + new_text_len + (add_meta ? extra_meta->len + 16 : 0) + 2);

    /* Two possible edits, applied in line order: the text value is replaced;
     * the metadata object gains members before its '}', or, when it has
     * members of the names added, its members are written again without
     * them (a metadata value that is not an object becomes one that keeps
     * it under "metadata"). */
    typedef struct { size_t from, to; int what; } edit;
    enum { EDIT_TEXT, EDIT_META_APPEND, EDIT_META_MERGE, EDIT_META_REPLACE };
    edit edits[2];
    int nedits = 0;
    bool object = doc->metadata.kind == JSON_OBJECT;
    const char *members = object ? doc->metadata.p + 1 : NULL; /* between its braces */
    size_t nmembers = object ? doc->metadata.len - 2 : 0;
    if (new_text && doc->text.kind)
        edits[nedits++] = (edit){value_start(line, &doc->text), value_end(line, &doc->text), EDIT_TEXT};
    if (add_meta && object && sets_again(members, nmembers, extra_meta)) {
        size_t open = value_start(line, &doc->metadata) + 1;
        edits[nedits++] = (edit){open, open + nmembers, EDIT_META_MERGE};
    } else if (add_meta && object) {
        size_t close = value_end(line, &doc->metadata) - 1;
        edits[nedits++] = (edit){close, close, EDIT_META_APPEND};
    } else if (add_meta && doc->metadata.kind) {
        edits[nedits++] = (edit){value_start(line, &doc->metadata), value_end(line, &doc->metadata), EDIT_META_REPLACE};
    }
    if (nedits == 2 && edits[1].from < edits[0].from) {
        edit t = edits[0];
        edits[0] = edits[1];
        edits[1] = t;
    }
    size_t pos = 0;
    for (int k = 0; k < nedits; k++) {
        buf_append(out, line + pos, edits[k].from - pos);
        switch (edits[k].what) {
        case EDIT_TEXT: json_put_string(out, new_text, new_text_len); break;
        case EDIT_META_APPEND:
            if (!object_is_empty(doc->metadata.p, doc->metadata.len)) buf_putc(out, ',');
            buf_append(out, extra_meta->data, extra_meta->len);
            break;
        case EDIT_META_MERGE: put_merged_members(out, members, nmembers, extra_meta); break;
        default: /* a value that is not an object, kept under "metadata" in the new one (null holds nothing) */
            buf_putc(out, '{');
            if (!json_is_null(&doc->metadata)) {
                buf_append(out, "\"metadata\":", 11);
                buf_append(out, line + edits[k].from, edits[k].to - edits[k].from);
                buf_putc(out, ',');
            }
            buf_append(out, extra_meta->data, extra_meta->len);
            buf_putc(out, '}');
            break;
        }
        pos = edits[k].to;
    }
    /* Up to the final brace, then the fields the line lacked. */
    buf_append(out, line + pos, doc->close_brace - pos);
    size_t open = 0;
    while (line[open] != '{') open++;
    bool empty_obj = object_is_empty(line + open, doc->close_brace - open + 1);
    if (new_text && !doc->text.kind) {
        if (!empty_obj) buf_putc(out, ',');
        json_put_key(out, "text");
        json_put_string(out, new_text, new_text_len);
        empty_obj = false;
    }
    if (add_meta && !doc->metadata.kind) {
        if (!empty_obj) buf_putc(out, ',');
        buf_append(out, "\"metadata\":{", 12);
        buf_append(out, extra_meta->data, extra_meta->len);
        buf_putc(out, '}');
    }
    buf_append(out, line + doc->close_brace, len - doc->close_brace);
    buf_putc(out, '\n');
}

/* Skips JSON blanks forward from i (up to n). */
static size_t blanks_after(const char *s, size_t i, size_t n)
{
    while (i < n && json_is_blank(s[i])) i++;
    return i;
}

/* The final '}' of line, whose '{' is line[open], when it is a valid JSON
 * object with a top-level "reject" member (a rejects line given again), else 0. */
static size_t rejected_before(const char *line, size_t len, size_t open)
{
    if (!json_may_hold_name(line, len, "reject", 6)) return 0;
    jdoc d;
    const char *err;
    size_t pos;
    if (json_scan_doc(line, len, &d, &err, &pos) != 0) return 0;
    return json_has_member(line + open + 1, d.close_brace - open - 1, "reject", 6) ? d.close_brace : 0;
}

void doc_reject_line(const char *line, size_t len, const char *stage, const char *reason,
                     const char *extra_members, wbuf *out)
{
    size_t brace = 0;
    while (brace < len && line[brace] != '{') brace++;
    size_t close = rejected_before(line, len, brace);
    buf_append(out, line, brace + 1 <= len ? brace + 1 : len);
    buf_append(out, "\"reject\":{\"stage\":", 18);
    json_put_string(out, stage, strlen(stage));
    buf_append(out, ",\"reason\":", 10);
    json_put_string(out, reason, strlen(reason));
    if (extra_members && *extra_members) {
        buf_putc(out, ',');
        buf_puts(out, extra_members);
    }
    buf_putc(out, '}');
    if (close) { /* the old reject member gives way to the new one */
        json_put_members_except(out, line + brace + 1, close - brace - 1, "reject", 6, true);
        buf_append(out, line + close, len - close);
        buf_putc(out, '\n');
        return;
    }
    /* a comma unless the original object was empty */
    size_t rest = brace + 1;
    size_t k = blanks_after(line, rest, len);
    if (k < len && line[k] != '}') buf_putc(out, ',');
    if (rest < len) buf_append(out, line + rest, len - rest);
    buf_putc(out, '\n');
}

static char *text_name; /* NULL: "text" */

bool doc_set_text_name(const char *name)
{
    if (strpbrk(name, "\r\n")) return false;
    free(text_name);
    text_name = strcmp(name, "text") ? xstrdup(name) : NULL;
    return true;
}

const char *doc_text_name(void) { return text_name ? text_name : "text"; }

bool doc_text_renamed(void) { return text_name != NULL; }

/* Skips JSON blanks backward from i (down to 0). */
static size_t blanks_before(const char *s, size_t i)
{
    while (i > 0 && json_is_blank(s[i - 1])) i--;
    return i;
}

const char *doc_normalize_line(const char *line, size_t len, wbuf *out, const char **err, size_t *err_pos)
{
    jdoc doc;
    jnamed at;
    if (json_scan_doc_named(line, len, doc_text_name(), &doc, &at, err, err_pos) != 0) return "bad_json";
    if (doc.text.kind != JSON_STRING) return "missing_text";
    bool plain = at.plain.kind != JSON_MISSING;
    bool meta_null = json_is_null(&doc.metadata); /* holds nothing: becomes {"text":...} */
    if (plain) { /* the old "text" goes into metadata, which must be an object without one, or null */
        jdoc meta;
        if (at.plains > 1) return "text_clash"; /* moving one would leave another to be read as the text */
        if (doc.metadata.kind && doc.metadata.kind != JSON_OBJECT && !meta_null) return "text_clash";
        if (doc.metadata.kind && json_scan_doc(doc.metadata.p, doc.metadata.len, &meta, NULL, NULL) == 0 &&
            meta.text.kind)
            return "text_clash";
    }
    /* Up to three edits, in line order: the text's name, the old "text"
     * member taken out with one comma beside it, its value put into metadata. */
    typedef struct { size_t from, to; int what; } edit;
    enum { EDIT_NAME, EDIT_DROP, EDIT_META };
    edit edits[3];
    int nedits = 0;
    size_t name_at = (size_t)(at.name.p - line) - 1;
    edits[nedits++] = (edit){name_at, name_at + at.name.len + 2, EDIT_NAME};
    if (plain) {
        size_t from = (size_t)(at.plain_name.p - line) - 1, to = value_end(line, &at.plain);
        size_t next = blanks_after(line, to, len);
        if (line[next] == ',') to = next + 1; /* a member follows: take the comma after it */
        else from = blanks_before(line, from) - 1; /* the last member: take the comma before it */
        edits[nedits++] = (edit){from, to, EDIT_DROP};
        if (meta_null) { /* the null itself gives way to the object */
            edits[nedits++] = (edit){value_start(line, &doc.metadata), value_end(line, &doc.metadata), EDIT_META};
        } else {
            size_t meta_at = doc.metadata.kind ? value_end(line, &doc.metadata) - 1 : doc.close_brace;
            edits[nedits++] = (edit){meta_at, meta_at, EDIT_META};
        }
    }
    for (int i = 1; i < nedits; i++) /* insertion sort: three at most */
        for (int k = i; k > 0 && edits[k].from < edits[k - 1].from; k--) {
            edit t = edits[k];
            edits[k] = edits[k - 1];
            edits[k - 1] = t;
        }
    buf_reserve(out, len + 32);
    size_t pos = 0;
    for (int k = 0; k < nedits; k++) {
        buf_append(out, line + pos, edits[k].from - pos);
        if (edits[k].what == EDIT_NAME) {
            buf_append(out, "\"text\"", 6);
        } else if (edits[k].what == EDIT_META) {
            size_t v = value_start(line, &at.plain), vlen = value_end(line, &at.plain) - v;
            if (!doc.metadata.kind) buf_append(out, ",\"metadata\":{", 13);
            else if (meta_null) buf_putc(out, '{');
            else if (!object_is_empty(doc.metadata.p, doc.metadata.len)) buf_putc(out, ',');
            buf_append(out, "\"text\":", 7);
            buf_append(out, line + v, vlen);
            if (!doc.metadata.kind || meta_null) buf_putc(out, '}');
        }
        pos = edits[k].to;
    }
    buf_append(out, line + pos, len - pos);
    buf_putc(out, '\n');
    return NULL;
}

void doc_describe_failure(const char *reason, char *out, size_t n)
{
    if (!strcmp(reason, "text_clash"))
        snprintf(out, n, "document has \"%s\" (--text-column) and a \"text\" member, which has no place in its "
                 "metadata (not an object or null, or one with a \"text\"), or several \"text\" members", doc_text_name());
    else
        snprintf(out, n, "document has no \"%s\" string", doc_text_name());
}
