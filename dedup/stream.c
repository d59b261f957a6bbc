/* stream.c - streaming dedup on the stage engine: workers fingerprint
 * batches and look their keys up in the partitioned index (map), the
 * engine's writer thread combines each document's answers in input order
 * (reduce). */
#include "dedup/stream.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/util.h"
#include "dedup/index.h"

/* What map() hands reduce() for a batch; reused batch after batch. */
typedef struct stream_batch {
    batch_prints prints;
    batch_lookup lookup;
    struct stream_batch *next_free;
} stream_batch;

typedef struct {
    const dedup_config *config;
    signer_set signers;
    dedup_index index;
    uint64_t reported_table, reported_side; /* index bytes already given to stats */
    wbuf extra, line;
    pthread_mutex_t free_lock;
    stream_batch *free_list;
    bool gpu_required; /* --device gpu's check has passed (writer thread) */
} stream_ctx;

static void stream_map(void *ctx, int worker, stage_batch *b)
{
    stream_ctx *s = ctx;
    dedup_times *t = &s->signers.times;
    uint64_t start = t->on ? dedup_now_ns() : 0;
    pthread_mutex_lock(&s->free_lock);
    stream_batch *sb = s->free_list;
    if (sb) s->free_list = sb->next_free;
    pthread_mutex_unlock(&s->free_lock);
    if (!sb) sb = xcalloc(1, sizeof *sb);
    signer_set_prints_into(&s->signers, worker, b, &sb->prints);
    uint64_t looked = t->on ? dedup_now_ns() : 0;
    dedup_index_lookup(&s->index, b, &sb->prints, &sb->lookup);
    b->user = sb;
    if (t->on) {
        uint64_t end = dedup_now_ns();
        atomic_fetch_add(&t->index_ns, end - looked);
        atomic_fetch_add(&t->map_ns, end - start);
    }
}

/* Writes `"dup_of":"ID"` for the earliest document collided with. */
static void dup_of_member(stream_ctx *s, uint32_t first, wbuf *out)
{
    size_t len;
    const char *id = dedup_index_id(&s->index, first, &len);
    buf_clear(out);
    json_put_key(out, "dup_of");
    json_put_string(out, id, len);
}

/* Before the first output: --device gpu exits 1 here when the check that
 * began with the run found no usable GPU. */
static void require_gpu_once(stream_ctx *s)
{
    if (s->gpu_required) return;
    signer_set_require_gpu(&s->signers);
    s->gpu_required = true;
}

static void stream_end(void *ctx)
{
    require_gpu_once(ctx);
}

static void stream_reduce(void *ctx, stage_batch *b)
{
    stream_ctx *s = ctx;
    stream_batch *sb = b->user;
    require_gpu_once(s);
    batch_prints *bp = &sb->prints;
    const minhash_params *p = &s->config->params;
    int indexed = 0;
    dedup_index_wait(&s->index, &sb->lookup);
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) {
            dedup_index_remember(&s->index, d->ordinal, NULL, "", 0);
            continue;
        }
        indexed++;
        size_t id_len = 0;
        const char *id = s->index.keep_ids && d->json.id.kind == JSON_STRING ? json_string(&d->json.id, &s->line, &id_len) : "";
        dedup_index_remember(&s->index, d->ordinal, bp->sigs + (size_t)i * p->k, id, id_len);
        uint32_t first;
        dup_kind kind = dedup_index_decide(&s->index, bp, &sb->lookup, i, &first);
        if (kind == DUP_NONE) continue;
        const char *reason = kind == DUP_EXACT ? "exact_dup" : "near_dup";
        dup_of_member(s, first, &s->extra);
        if (s->config->mark) {
            buf_putc(&s->extra, ','); /* after dup_of */
            json_put_key(&s->extra, "dup_reason");
            json_put_string(&s->extra, reason, strlen(reason));
            buf_clear(&s->line);
            doc_rewrite(d->line, d->len, &d->json, NULL, 0, &s->extra, &s->line);
            stage_doc_rewrite(b, i, &s->line);
            stats_add(&b->stats, kind == DUP_EXACT ? "marked_exact_dup" : "marked_near_dup", 1);
        } else {
            stage_doc_drop(b, i, reason, s->extra.data);
        }
    }
    uint64_t table = dedup_index_table_bytes(&s->index), side = dedup_index_side_bytes(&s->index);
    stats_add(&b->stats, "index_bytes", (double)table - (double)s->reported_table);
    stats_add(&b->stats, "id_and_signature_bytes", (double)side - (double)s->reported_side);
    stats_add(&b->stats, "indexed_docs", (double)indexed);
    s->reported_table = table;
    s->reported_side = side;
    pthread_mutex_lock(&s->free_lock);
    sb->next_free = s->free_list;
    s->free_list = sb;
    pthread_mutex_unlock(&s->free_lock);
    b->user = NULL;
}

/* WINNOW_DEDUP_TIMES's second line: where the engine's threads spent the run
 * (the workers' time outside map, the reading and writer threads' waits). */
static void report_engine_times(const stage_times *t)
{
    double outside = (t->workers_ns - atomic_load(&t->map_ns)) / 1e9, read = atomic_load(&t->read_ns) / 1e9,
           split = atomic_load(&t->split_ns) / 1e9, scan = atomic_load(&t->scan_ns) / 1e9,
           numbered = atomic_load(&t->numbered_ns) / 1e9, first = t->before_first_ns / 1e9, last = t->after_last_ns / 1e9;
    fprintf(stderr,
            "dedup engine times: workers %.2f worker-s from the start to the last joined, map %.2f; outside map %.2f: "
            "read %.2f, split %.2f, JSON scan %.2f, waiting to be numbered %.2f, before the first batch %.2f, "
            "after the last %.2f, idle between batches %.2f; reading thread waited %.3f s for the oldest batch's map, "
            "%.3f s for the writer; writer thread busy %.3f s\n",
            t->workers_ns / 1e9, atomic_load(&t->map_ns) / 1e9, outside, read, split, scan, numbered, first, last,
            outside - read - split - scan - numbered - first - last, t->reader_oldest_ns / 1e9,
            t->reader_writer_ns / 1e9, t->writer_ns / 1e9);
}

#define MAX_BATCH_KIB (1u << 20)

/* The input bytes per stage batch a run asks the engine for:
 * WINNOW_DEDUP_BATCH_KIB, a knob for measuring (each batch is one GPU call
 * per worker: 2 MiB batches cut the GPU's kernel time by a third on long
 * documents, bench/results/dedup-gpu-pinned-2026-11-27.md), else the
 * engine's default (0). */
static size_t batch_bytes_wanted(void)
{
    const char *v = getenv("WINNOW_DEDUP_BATCH_KIB");
    long kib = v ? atol(v) : 0;
    return kib >= 1 && kib <= (long)MAX_BATCH_KIB ? (size_t)kib << 10 : 0;
}

int dedup_stream_run(const stage_opts *o, const dedup_config *c)
{
    stream_ctx s = {.config = c};
    pthread_mutex_init(&s.free_lock, NULL);
    signer_set_init(&s.signers, c, o->threads);
    bool keep_ids = o->rejects_path || c->mark;
    dedup_index_init(&s.index, &c->params, c->expected_docs, o->threads, keep_ids, c->verify);
    stage_ops ops = {.name = "dedup", .ctx = &s, .map = stream_map, .reduce = stream_reduce,
                     .end = stream_end};
    double started = now_seconds();
    stage_opts timed = *o;
    if (!timed.batch_bytes) timed.batch_bytes = batch_bytes_wanted();
    stage_times engine_times = {0};
    if (s.signers.times.on) {
        s.signers.times.run_began_s = dedup_process_age_s();
        timed.times = &engine_times;
    }
    int status = stage_run(&timed, &ops);
    double ran = now_seconds();
    dedup_index_free(&s.index); /* (its tables: up to GBs; freeing them is timed too) */
    for (stream_batch *sb = s.free_list, *next; sb; sb = next) {
        next = sb->next_free;
        batch_prints_release(&sb->prints);
        batch_lookup_free(&sb->lookup);
        free(sb);
    }
    pthread_mutex_destroy(&s.free_lock);
    signer_set_free(&s.signers);
    if (s.signers.times.on) {
        dedup_times_report(&s.signers.times, o->threads, ran - started, now_seconds() - ran);
        report_engine_times(&engine_times);
    }
    buf_free(&s.extra);
    buf_free(&s.line);
    return status;
}
