/* docs_unit.c - ingest -> filter for one input file, in this process. */
#include "pipeline/docs_unit.h"

#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/output.h"
#include "core/stage.h"
#include "core/utf8.h"
#include "core/util.h"
#include "ingest/ingest.h"

/* What one worker thread of the filter owns. */
typedef struct {
    filter_worker *w; /* made on first use */
    wbuf line, meta;
} filter_thread;

typedef struct {
    const filter *f;
    filter_thread *threads;
    woutput *docs, *ingest_rejects, *filter_rejects;
    bool want_rejects;
    wstats filter_stats;
    double filter_cpu; /* the workers' seconds in the filter, as ingest measured them per batch */
    double write_cpu;  /* main thread: writing the kept documents and the filter's rejects */
} unit;

/* True when d must go to the filter as its JSON line to be judged exactly
 * as `winnow filter` would: bytes the line would repair, or a URL the
 * filter would look for in the metadata. */
static bool needs_line(const unit *u, const ingest_doc *d)
{
    if (d->line) return true;
    if (!d->url_len && filter_wants_url(u->f)) return true;
    return !utf8_valid(d->text, d->text_len) || !utf8_valid(d->url, d->url_len);
}

/* The JSON line path: what `winnow filter` does with a line. */
static const char *filter_line(const unit *u, filter_thread *t, const ingest_doc *d, wbuf *out, wbuf *rejects,
                               wstats *stats)
{
    const char *line = d->line;
    size_t len = d->line_len;
    if (!line) {
        buf_clear(&t->line);
        ingest_doc_write(d, NULL, 0, NULL, &t->line);
        line = t->line.data;
        len = t->line.len - 1;
    }
    jdoc json;
    if (!d->json) { /* a line ingest made or rewrote: scanned here */
        const char *err;
        size_t pos;
        if (json_scan_doc(line, len, &json, &err, &pos) != 0 || json.text.kind != JSON_STRING) {
            stats_fail(stats, "bad_json"); /* ingest only makes valid documents: not expected */
            return NULL;
        }
    }
    bool rewritten;
    /* a JSON Lines input's line comes scanned, its text decoded (ingest_doc.json) */
    const char *reason = d->line ? filter_json_line_text(u->f, t->w, line, len, d->json ? d->json : &json, d->text,
                                                         d->text_len, out, &rewritten)
                                 : filter_json_line(u->f, t->w, line, len, &json, out, &rewritten);
    if (reason && u->want_rejects) doc_reject_line(line, len, "filter", reason, NULL, rejects);
    if (!reason && !rewritten) {
        buf_append(out, line, len);
        buf_putc(out, '\n');
    }
    return reason;
}

/* The fields path: the document's text and URL as ingest made them. */
static const char *filter_fields(const unit *u, filter_thread *t, const ingest_doc *d, wbuf *out, wbuf *rejects)
{
    filter_result r;
    filter_document(u->f, t->w, d->text, d->text_len, d->url_len ? d->url : NULL, d->url_len, &r);
    if (r.reason) {
        if (u->want_rejects) {
            buf_clear(&t->line);
            ingest_doc_write(d, NULL, 0, NULL, &t->line);
            doc_reject_line(t->line.data, t->line.len - 1, "filter", r.reason, NULL, rejects);
        }
        return r.reason;
    }
    buf_clear(&t->meta);
    filter_result_meta(&r, &t->meta);
    ingest_doc_write(d, r.text_changed ? r.text : NULL, r.text_len, &t->meta, out);
    return NULL;
}

/* The ingest hook: one document through the filter, counted as the filter stage. */
static void on_document(void *ctx, int worker, const ingest_doc *d, wbuf *out, wbuf *rejects, wstats *stats)
{
    unit *u = ctx;
    filter_thread *t = &u->threads[worker];
    if (!t->w) t->w = filter_worker_create(u->f);
    size_t before = out->len;
    uint64_t failed = stats->failed;
    stats->in++;
    stats->bytes_in += d->line_size;
    const char *reason = needs_line(u, d) ? filter_line(u, t, d, out, rejects, stats) : filter_fields(u, t, d, out, rejects);
    if (reason) stats_drop(stats, reason);
    else if (stats->failed == failed) stats->out++;
    stats->bytes_out += out->len - before;
}

static void on_filter_batch(void *ctx, const char *rejects, size_t len, const wstats *stats, double seconds)
{
    unit *u = ctx;
    u->filter_cpu += seconds;
    double started = thread_cpu_seconds();
    if (len) output_write(u->filter_rejects, rejects, len);
    stats_merge(&u->filter_stats, stats);
    u->write_cpu += thread_cpu_seconds() - started;
}

static void on_docs(void *ctx, const char *lines, size_t len)
{
    unit *u = ctx;
    double started = thread_cpu_seconds();
    output_write(u->docs, lines, len);
    if (u->f) u->write_cpu += thread_cpu_seconds() - started;
}

static void on_ingest_rejects(void *ctx, const char *lines, size_t len)
{
    output_write(((unit *)ctx)->ingest_rejects, lines, len);
}

/* WORK/KIND/NNNNNN.STAGE.SUFFIX (the caller frees). */
static char *unit_path(const pl_docs_unit *d, const char *kind, const char *stage, const char *suffix)
{
    return pl_path(d->p, "%s/%06d.%s.%s", kind, d->input, stage, suffix);
}

int pl_docs_unit_run(const pl_docs_unit *d)
{
    const pl_plan *p = d->p;
    unit u = {0};
    u.f = d->f;
    u.want_rejects = p->cfg.rejects;
    stats_init(&u.filter_stats);
    u.threads = xcalloc((size_t)d->threads, sizeof *u.threads);
    int level = p->cfg.compress ? PL_WORK_ZSTD_LEVEL : 0;
    u.docs = output_open(d->part, level);
    if (u.want_rejects) {
        char *path = unit_path(d, "rejects", "ingest", "jsonl");
        u.ingest_rejects = output_open(path, 0);
        free(path);
        if (u.f) {
            path = unit_path(d, "rejects", "filter", "jsonl");
            u.filter_rejects = output_open(path, 0);
            free(path);
        }
    }
    ingest_doc_hook hook = {on_document, on_filter_batch, &u};
    ingest_options io = p->stages.ingest;
    io.threads = d->threads;
    io.want_rejects = u.want_rejects;
    io.hook = u.f ? &hook : NULL;
    ingest_sink sink = {on_docs, on_ingest_rejects, &u};
    ingest *g = ingest_create(&io, &sink);
    int status = ingest_path(g, p->files[d->input]) == 0 ? EXIT_OK : EXIT_FATAL;
    ingest_flush(g);

    double started = thread_cpu_seconds();
    output_close(u.docs);
    if (u.filter_rejects) output_close(u.filter_rejects);
    if (u.f) u.write_cpu += thread_cpu_seconds() - started;
    if (u.ingest_rejects) output_close(u.ingest_rejects);
    double filter_cpu = u.filter_cpu + u.write_cpu;
    for (int k = 0; k < d->threads; k++) {
        filter_worker_destroy(u.threads[k].w);
        buf_free(&u.threads[k].line);
        buf_free(&u.threads[k].meta);
    }
    char *path = unit_path(d, "stats", "ingest", "json");
    stats_write_json_timed(ingest_stats(g), "ingest", path, process_cpu_seconds() - filter_cpu);
    free(path);
    if (u.f) {
        path = unit_path(d, "stats", "filter", "json");
        stats_write_json_timed(&u.filter_stats, "filter", path, filter_cpu);
        free(path);
    }
    ingest_destroy(g);
    stats_free(&u.filter_stats);
    free(u.threads);
    return status;
}
