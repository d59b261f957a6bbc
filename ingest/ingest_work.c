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

/* Appends {"id":..,"text":..,"url":..,"date":..,"source":..,"metadata":{..}}\n. */
static void write_doc(wbuf *line, const ingest_batch *b, const ingest_job *j, const char *text, size_t text_len,
                      const wbuf *meta)
{
    buf_putc(line, '{');
    put_member(line, "id", batch_str(b, j->id), j->id.len);
    put_member(line, "text", text, text_len);
    if (j->url.len) put_member(line, "url", batch_str(b, j->url), j->url.len);
    if (j->date.len) put_member(line, "date", batch_str(b, j->date), j->date.len);
    if (j->source.len) put_member(line, "source", batch_str(b, j->source), j->source.len);
    if (meta->len) {
        buf_append(line, ",\"metadata\":{", 13);
        buf_append(line, meta->data, meta->len);
        buf_putc(line, '}');
    }
    buf_append(line, "}\n", 2);
}

void ingest_reject(ingest_batch *b, const char *reason, const char *id, size_t id_len, const char *url,
                   size_t url_len, const char *source, const char *extra_meta)
{
    wbuf line = WBUF_INIT;
    buf_putc(&line, '{');
    put_member(&line, "id", id, id_len);
    if (url_len) put_member(&line, "url", url, url_len);
    if (source) put_member(&line, "source", source, strlen(source));
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
                  j->source.len ? batch_str(b, j->source) : NULL, meta.data);
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

static void run_html(ingest_worker *w, ingest_batch *b, const ingest_job *j, extract_mode mode, bool want_rejects)
{
    html_result_clear(&w->html);
    html_extract(batch_str(b, j->payload), j->payload.len, j->charset[0] ? j->charset : NULL, mode, &w->html);
    if (!has_text(w->html.text.data, w->html.text.len)) {
        job_drop(b, j, "empty_text", want_rejects);
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
    write_doc(&b->out, b, j, w->html.text.data, w->html.text.len, &w->meta);
    b->stats.out++;
}

static void run_text(ingest_worker *w, ingest_batch *b, const ingest_job *j, bool want_rejects)
{
    charset_info ci;
    buf_clear(&w->text);
    text_to_utf8(batch_str(b, j->payload), j->payload.len, j->charset[0] ? j->charset : NULL, 0, &w->text, &ci);
    if (!has_text(w->text.data, w->text.len)) {
        job_drop(b, j, "empty_text", want_rejects);
        return;
    }
    buf_clear(&w->meta);
    common_meta(&w->meta, b, j);
    charset_meta(&w->meta, &ci);
    write_doc(&b->out, b, j, w->text.data, w->text.len, &w->meta);
    b->stats.out++;
}

/* JSON line: checked, given an id when it has none (source + line number),
 * its id made a string when it is a number; everything else kept as is. */
static void run_jsonl(ingest_worker *w, ingest_batch *b, const ingest_job *j)
{
    const char *line = batch_str(b, j->payload);
    size_t len = j->payload.len;
    jdoc d;
    const char *err;
    size_t err_pos;
    if (json_scan_doc(line, len, &d, &err, &err_pos) != 0) {
        warnf("%.*s: line %llu: %s at byte %zu; skipped", (int)j->source.len, batch_str(b, j->source),
              (unsigned long long)j->ordinal, err, err_pos);
        stats_fail(&b->stats, "bad_json");
        return;
    }
    if (d.text.kind != JSON_STRING) {
        warnf("%.*s: line %llu: no \"text\" string; skipped", (int)j->source.len, batch_str(b, j->source),
              (unsigned long long)j->ordinal);
        stats_fail(&b->stats, "no_text");
        return;
    }
    if (d.id.kind == JSON_STRING) {
        buf_append(&b->out, line, len);
        buf_putc(&b->out, '\n');
    } else if (d.id.kind == JSON_MISSING) {
        buf_clear(&w->tmp);
        buf_printf(&w->tmp, "%.*s#%llu", (int)j->source.len, batch_str(b, j->source),
                   (unsigned long long)j->ordinal);
        size_t brace = (size_t)(memchr(line, '{', len) - (void *)line);
        buf_append(&b->out, line, brace + 1);
        json_put_key(&b->out, "id");
        json_put_string(&b->out, w->tmp.data, w->tmp.len);
        size_t k = brace + 1;
        while (k < len && (line[k] == ' ' || line[k] == '\t')) k++;
        if (k < len && line[k] != '}') buf_putc(&b->out, ',');
        buf_append(&b->out, line + brace + 1, len - brace - 1);
        buf_putc(&b->out, '\n');
    } else { /* a number or other value: the same member as a string */
        size_t at = (size_t)(d.id.p - line);
        buf_append(&b->out, line, at);
        if (d.id.kind == JSON_NUMBER) json_put_string(&b->out, d.id.p, d.id.len);
        else {
            buf_clear(&w->tmp);
            buf_printf(&w->tmp, "%.*s#%llu", (int)j->source.len, batch_str(b, j->source),
                       (unsigned long long)j->ordinal);
            json_put_string(&b->out, w->tmp.data, w->tmp.len);
        }
        buf_append(&b->out, d.id.p + d.id.len, len - at - d.id.len);
        buf_putc(&b->out, '\n');
    }
    b->stats.out++;
}

void ingest_run_batch(ingest_worker *w, ingest_batch *b, extract_mode mode, bool want_rejects)
{
    for (int i = 0; i < b->njobs; i++) {
        const ingest_job *j = &b->jobs[i];
        switch (j->kind) {
        case JOB_HTML: run_html(w, b, j, mode, want_rejects); break;
        case JOB_TEXT: run_text(w, b, j, want_rejects); break;
        case JOB_JSONL: run_jsonl(w, b, j); break;
        }
    }
}
