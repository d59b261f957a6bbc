/* ingest_work.c - what the ingest workers do with a batch: HTML to text,
 * texts to valid NFC UTF-8, JSON lines normalised, all into document lines. */
#include "ingest/ingest_batch.h"

#include <stdio.h>
#include <string.h>

#include "core/doc.h"
#include "core/json.h"
#include "core/util.h"
#include "ingest/charset.h"

arena_str batch_put(ingest_batch *b, const char *p, size_t n)
{
    arena_str s = {b->arena.len, n};
    if (n) buf_append(&b->arena, p, n);
    else buf_reserve(&b->arena, 0);
    return s;
}

ingest_job *batch_add_job(ingest_batch *b, job_kind kind)
{
    if (b->njobs == b->cap) {
        b->cap = b->cap ? b->cap * 2 : BATCH_JOBS;
        b->jobs = xrealloc(b->jobs, (size_t)b->cap * sizeof *b->jobs);
    }
    ingest_job *j = &b->jobs[b->njobs++];
    memset(j, 0, sizeof *j);
    j->kind = kind;
    return j;
}

static void put_member(wbuf *line, const char *key, const char *v, size_t n)
{
    if (line->data[line->len - 1] != '{') buf_putc(line, ',');
    json_put_key(line, key);
    json_put_string(line, v, n);
}

void ingest_doc_write(const ingest_doc *d, const char *text, size_t text_len, const wbuf *extra_meta, wbuf *line)
{
    if (!text) text = d->text, text_len = d->text_len;
    bool extra = extra_meta && extra_meta->len;
    buf_putc(line, '{');
    put_member(line, "id", d->id, d->id_len);
    put_member(line, "text", text, text_len);
    if (d->url_len) put_member(line, "url", d->url, d->url_len);
    if (d->date_len) put_member(line, "date", d->date, d->date_len);
    if (d->source_len) put_member(line, "source", d->source, d->source_len);
    if (d->meta_len || extra) {
        buf_append(line, ",\"metadata\":{", 13);
        buf_append(line, d->meta, d->meta_len);
        if (d->meta_len && extra) buf_putc(line, ',');
        if (extra) buf_append(line, extra_meta->data, extra_meta->len);
        buf_putc(line, '}');
    }
    buf_append(line, "}\n", 2);
}

/* The fields of a document made from job j. */
static void job_doc(const ingest_batch *b, const ingest_job *j, const char *text, size_t text_len, const wbuf *meta,
                    ingest_doc *d)
{
    memset(d, 0, sizeof *d);
    d->id = batch_str(b, j->id), d->id_len = j->id.len;
    d->text = text, d->text_len = text_len;
    d->url = batch_str(b, j->url), d->url_len = j->url.len;
    d->date = batch_str(b, j->date), d->date_len = j->date.len;
    d->source = batch_str(b, j->source), d->source_len = j->source.len;
    d->meta = meta->len ? meta->data : "", d->meta_len = meta->len;
}

/* Writes a made document's line, or hands the document to the hook (with
 * the size its line would have). */
static void put_doc(ingest_worker *w, ingest_batch *b, const ingest_options *o, ingest_doc *d)
{
    b->stats.out++;
    if (!o->hook) {
        ingest_doc_write(d, NULL, 0, NULL, &b->out);
        return;
    }
    if (d->line) {
        d->line_size = d->line_len + 1;
    } else { /* the line without its text, plus the text as it would be written */
        buf_clear(&w->line);
        ingest_doc_write(d, "", 0, NULL, &w->line);
        d->line_size = w->line.len - 2 + json_string_size(d->text, d->text_len);
    }
    b->stats.bytes_out += d->line_size;
    double started = now_seconds(); /* a clock read in user space: the thread's CPU clock is a system call */
    o->hook->doc(o->hook->ctx, w->index, d, &b->out, &b->hook_rejects, &b->hook_stats);
    w->hook_wall += now_seconds() - started;
}

void ingest_reject(ingest_batch *b, const char *reason, const char *id, size_t id_len, const char *url,
                   size_t url_len, const char *source, size_t source_len, const char *extra_meta)
{
    wbuf line = WBUF_INIT;
    buf_putc(&line, '{');
    put_member(&line, "id", id, id_len);
    if (url_len) put_member(&line, "url", url, url_len);
    if (source) put_member(&line, "source", source, source_len);
    if (extra_meta && *extra_meta) {
        buf_append(&line, ",\"metadata\":{", 13);
        buf_puts(&line, extra_meta);
        buf_putc(&line, '}');
    }
    buf_putc(&line, '}');
    doc_reject_line(line.data, line.len, "ingest", reason, NULL, &b->rejects);
    buf_free(&line);
}

/* True when s holds something other than white space. */
static bool has_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r') return true;
    return false;
}

static void job_drop(ingest_batch *b, const ingest_job *j, const char *reason, bool want_rejects)
{
    stats_drop(&b->stats, reason);
    if (!want_rejects) return;
    wbuf meta = WBUF_INIT;
    if (j->from_warc) meta_add_int(&meta, "warc_offset", (long long)j->warc_offset);
    ingest_reject(b, reason, batch_str(b, j->id), j->id.len, batch_str(b, j->url), j->url.len,
                  j->source.len ? batch_str(b, j->source) : NULL, j->source.len, meta.data);
    buf_free(&meta);
}

static void common_meta(wbuf *meta, const ingest_batch *b, const ingest_job *j)
{
    if (j->content_type[0]) meta_add_str(meta, "content_type", j->content_type, strlen(j->content_type));
    if (j->http_status) meta_add_int(meta, "http_status", j->http_status);
    if (j->from_warc) {
        meta_add_str(meta, "warc_file", batch_str(b, j->source), j->source.len);
        meta_add_int(meta, "warc_offset", (long long)j->warc_offset);
    }
}

static void charset_meta(wbuf *meta, const charset_info *ci)
{
    meta_add_str(meta, "charset", ci->name, strlen(ci->name));
    const char *src = charset_source_name(ci->source);
    meta_add_str(meta, "charset_source", src, strlen(src));
}

/* True (after saying so and counting it as failed `replacement_charset`)
 * when the document's charset is the Encoding Standard's "replacement"
 * encoding: its decoder gives one U+FFFD for the whole input, so nothing of
 * the page could come out, and decoding the bytes some other way (iconv
 * still knows ISO-2022-KR/CN) is what the standard forbids. */
static bool refuse_replacement(ingest_batch *b, const ingest_job *j, const charset_info *ci)
{
    if (!charset_is_replacement(ci)) return false;
    if (j->from_warc)
        warnf("%.*s: record %llu at offset %llu: charset from %s is one the Encoding Standard decodes as a single "
              "U+FFFD (iso-2022-kr/cn, hz-gb-2312); skipped",
              (int)j->source.len, batch_str(b, j->source), (unsigned long long)j->ordinal,
              (unsigned long long)j->warc_offset, charset_source_name(ci->source));
    else
        warnf("%.*s: document %llu: charset from %s is one the Encoding Standard decodes as a single U+FFFD "
              "(iso-2022-kr/cn, hz-gb-2312); skipped",
              (int)j->source.len, batch_str(b, j->source), (unsigned long long)j->ordinal,
              charset_source_name(ci->source));
    stats_fail(&b->stats, "replacement_charset");
    return true;
}

static void run_html(ingest_worker *w, ingest_batch *b, const ingest_job *j, const ingest_options *o)
{
    html_result_clear(&w->html);
    html_extract(batch_str(b, j->payload), j->payload.len, j->charset[0] ? j->charset : NULL, o->extract, &w->html);
    if (refuse_replacement(b, j, &w->html.charset)) return;
    if (!has_text(w->html.text.data, w->html.text.len)) {
        job_drop(b, j, "empty_text", o->want_rejects);
        return;
    }
    buf_clear(&w->meta);
    common_meta(&w->meta, b, j);
    charset_meta(&w->meta, &w->html.charset);
    if (w->html.title.len) meta_add_str(&w->meta, "title", w->html.title.data, w->html.title.len);
    if (w->html.lang.len) meta_add_str(&w->meta, "html_lang", w->html.lang.data, w->html.lang.len);
    if (w->html.meta.len) {
        buf_putc(&w->meta, ',');
        buf_append(&w->meta, w->html.meta.data, w->html.meta.len);
    }
    ingest_doc d;
    job_doc(b, j, w->html.text.data, w->html.text.len, &w->meta, &d);
    put_doc(w, b, o, &d);
}

static void run_text(ingest_worker *w, ingest_batch *b, const ingest_job *j, const ingest_options *o)
{
    charset_info ci;
    buf_clear(&w->text);
    text_to_utf8(batch_str(b, j->payload), j->payload.len, j->charset[0] ? j->charset : NULL, 0, &w->text, &ci);
    if (refuse_replacement(b, j, &ci)) return;
    if (!has_text(w->text.data, w->text.len)) {
        job_drop(b, j, "empty_text", o->want_rejects);
        return;
    }
    buf_clear(&w->meta);
    common_meta(&w->meta, b, j);
    charset_meta(&w->meta, &ci);
    ingest_doc d;
    job_doc(b, j, w->text.data, w->text.len, &w->meta, &d);
    put_doc(w, b, o, &d);
}

/* Appends line with a string id: the source and line number when it has
 * none, its number as a string when it is one; ends with '\n'. */
static void with_string_id(ingest_worker *w, const ingest_batch *b, const ingest_job *j, const char *line, size_t len,
                           const jdoc *d, wbuf *out)
{
    if (d->id.kind == JSON_MISSING) {
        buf_clear(&w->tmp);
        buf_printf(&w->tmp, "%.*s#%llu", (int)j->source.len, batch_str(b, j->source),
                   (unsigned long long)j->ordinal);
        size_t brace = (size_t)(memchr(line, '{', len) - (void *)line);
        buf_append(out, line, brace + 1);
        json_put_key(out, "id");
        json_put_string(out, w->tmp.data, w->tmp.len);
        size_t k = brace + 1;
        while (k < len && (line[k] == ' ' || line[k] == '\t')) k++;
        if (k < len && line[k] != '}') buf_putc(out, ',');
        buf_append(out, line + brace + 1, len - brace - 1);
    } else { /* a number or other value: the same member as a string */
        size_t at = (size_t)(d->id.p - line);
        buf_append(out, line, at);
        if (d->id.kind == JSON_NUMBER) json_put_string(out, d->id.p, d->id.len);
        else {
            buf_clear(&w->tmp);
            buf_printf(&w->tmp, "%.*s#%llu", (int)j->source.len, batch_str(b, j->source),
                       (unsigned long long)j->ordinal);
            json_put_string(out, w->tmp.data, w->tmp.len);
        }
        buf_append(out, d->id.p + d->id.len, len - at - d->id.len);
    }
    buf_putc(out, '\n');
}

/* JSON line: checked, given an id when it has none (source + line number),
 * its id made a string when it is a number; everything else kept as is. */
static void run_jsonl(ingest_worker *w, ingest_batch *b, const ingest_job *j, const ingest_options *o)
{
    const char *line = batch_str(b, j->payload);
    size_t len = j->payload.len;
    jdoc d;
    const char *err;
    size_t err_pos, text_len = 0;
    int bad;
    if (doc_text_renamed()) { /* the line in winnow's shape is read instead */
        buf_clear(&w->renamed);
        const char *why = doc_normalize_line(line, len, &w->renamed, &err, &err_pos);
        if (why && strcmp(why, "bad_json")) {
            char what[256];
            doc_describe_failure(why, what, sizeof what);
            warnf("%.*s: %s %llu: %s; skipped", (int)j->source.len, batch_str(b, j->source),
                  j->element ? "element" : "line", (unsigned long long)j->ordinal, what);
            stats_fail(&b->stats, !strcmp(why, "missing_text") ? "no_text" : why);
            return;
        }
        if (!why) line = w->renamed.data, len = w->renamed.len - 1;
    }
    if (o->hook) { /* the hook gets the text decoded by the same pass */
        buf_clear(&w->text);
        buf_reserve(&w->text, len);
        bad = json_scan_doc_text(line, len, &d, w->text.data, &text_len, &err, &err_pos);
    } else {
        bad = json_scan_doc(line, len, &d, &err, &err_pos);
    }
    if (bad) {
        warnf("%.*s: %s %llu: %s at byte %zu; skipped", (int)j->source.len, batch_str(b, j->source),
              j->element ? "element" : "line", (unsigned long long)j->ordinal, err, err_pos + 1);
        stats_fail(&b->stats, "bad_json");
        return;
    }
    if (d.text.kind != JSON_STRING) {
        warnf("%.*s: %s %llu: no \"text\" string; skipped", (int)j->source.len, batch_str(b, j->source),
              j->element ? "element" : "line", (unsigned long long)j->ordinal);
        stats_fail(&b->stats, "no_text");
        return;
    }
    ingest_doc doc = {.line = line, .line_len = len, .json = &d, .text = w->text.data, .text_len = text_len};
    if (d.id.kind == JSON_STRING && !o->hook) {
        buf_append(&b->out, line, len);
        buf_putc(&b->out, '\n');
    } else if (d.id.kind != JSON_STRING) {
        wbuf *out = o->hook ? &w->line : &b->out;
        if (o->hook) buf_clear(out);
        with_string_id(w, b, j, line, len, &d, out);
        doc.line = out->data, doc.line_len = out->len - 1, doc.json = NULL;
    }
    if (o->hook) {
        put_doc(w, b, o, &doc);
        return;
    }
    b->stats.out++;
}

void ingest_run_batch(ingest_worker *w, ingest_batch *b, const ingest_options *o)
{
    double cpu_started = o->hook ? thread_cpu_seconds() : 0, started = now_seconds();
    w->hook_wall = 0;
    for (int i = 0; i < b->njobs; i++) {
        const ingest_job *j = &b->jobs[i];
        switch (j->kind) {
        case JOB_HTML: run_html(w, b, j, o); break;
        case JOB_TEXT: run_text(w, b, j, o); break;
        case JOB_JSONL: run_jsonl(w, b, j, o); break;
        }
    }
    /* the hook's share of the batch's CPU time: its share of the batch's
     * wall time (a thread preempted is so as often in the hook as out of it) */
    double wall = now_seconds() - started;
    b->hook_seconds = o->hook && wall > 0 ? (thread_cpu_seconds() - cpu_started) * (w->hook_wall / wall) : 0;
}
