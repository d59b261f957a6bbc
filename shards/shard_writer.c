/* shard_writer.c - token documents in, shard files + manifest out.
 *
 * Three kinds of thread, so that no single thread touches every byte:
 * - the caller's thread lays documents out in frames of SHARD_FRAME_BYTES
 *   (copying their ids, or, for borrowed documents, only noting where they
 *   are) and decides where shards end;
 * - a pool of `threads` workers copies the borrowed ids into their frames,
 *   checking them, and compresses frames independently (so any thread count
 *   gives the same bytes), by libzstd or, at --level tlz, by winnow's token
 *   encoder (shards/tlz.h);
 * - one emitter thread takes the frames back in order and appends them to
 *   the shard file (XXH3-64 of the tokens and of the file as written, the
 *   seek-table entry), and at a shard's end writes its seek table and index
 *   and hands both files to a closer thread, which syncs and renames them
 *   while the next shard is written.
 * A document that fits in one frame but not in the rest of the current one
 * starts a new frame, so reading it needs one frame's decompression. */
#include "shard_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/output.h"
#include "core/pool.h"
#include "core/utf8.h"
#include "core/util.h"
#include "core/xxh3_fast.h"
#include "shards/manifest.h"
#include "shards/seek_table.h"
#include "shards/shard_format.h"
#include "shards/shard_index.h"
#include "shards/tlz.h"

#define MAX_ZSTD_LEVEL 22
#define UINT16_VOCAB_LIMIT 65536u
#define CPU_SAMPLE_EVERY 64 /* documents per reading of the adding thread's CPU clock */
#define ZSTD_CHECKSUM_BYTES 4 /* a frame's last field: the content checksum (RFC 8878, 3.1.1) */
#define CLOSES_IN_FLIGHT 8    /* finished files the closer may hold before the emitter waits */
#define NS_PER_SECOND 1e9
#define TIMES_ENV "WINNOW_SHARD_TIMES" /* set: shard_writer_close() prints where each thread's time went */

typedef enum { JOB_FRAME, JOB_SHARD_START, JOB_SHARD_END, JOB_STOP } job_kind;

/* Ids of a borrowed document not yet copied into their frame. */
typedef struct {
    const uint32_t *ids; /* the caller's, valid until shard_writer_release() */
    size_t n;
    size_t at;    /* byte offset in the frame */
    uint64_t doc; /* the document's number in the writer, for a message */
    size_t first, doc_n; /* where the piece begins in its document, and the document's ids, for a message */
} borrowed_piece;

/* What passes through the pool, in order: a frame, a shard's start or end, or the end. */
typedef struct frame_job {
    job_kind kind;
    uint8_t *data; /* decompressed token bytes */
    size_t len;
    borrowed_piece *pieces; /* copied into data by a worker before it compresses */
    size_t npieces, pieces_cap;
    uint8_t *comp; /* compressed frame, filled by a worker */
    size_t clen;
    uint32_t checksum;
    char *bad; /* why a borrowed id cannot be stored; fatal when the frame is emitted */
    woutput *out; /* JOB_SHARD_START: the shard file, created by the caller's thread, and its name */
    char *path;
    uint64_t *ends; /* JOB_SHARD_END: the shard's document ends, tokens, flag */
    uint64_t nends, tokens;
    bool continues;
    bool abort; /* JOB_STOP: end without finishing the open shard */
    struct frame_job *next_free;
} frame_job;

struct shard_writer {
    char *dir;
    shard_writer_options o;
    int dtype_bytes;
    size_t frame_cap; /* bytes per full frame */
    wpool *pool;
    ZSTD_CCtx **cctx; /* one per worker, or: */
    tlz_ctx **tlz;    /* one per worker, at SHARD_LEVEL_TLZ */
    pthread_mutex_t lock; /* free_jobs, borrowed_frames */
    pthread_cond_t gathered; /* borrowed_frames fell to 0 */
    frame_job *free_jobs;
    uint64_t borrowed_frames; /* frames in the pool whose borrowed ids are not copied yet */
    _Atomic uint64_t compress_ns; /* CPU time the workers spent on frames */

    /* the caller's side: the frame being filled and the shard's layout */
    frame_job *cur;
    bool shard_open;
    uint64_t shard_tokens;
    uint64_t *ends;
    uint64_t nends, ends_cap;
    bool continues;
    const uint32_t *doc_ids; /* the borrowed document being laid out, and its ids */
    size_t doc_n;
    uint32_t shards_opened;
    double waited;    /* seconds the adding thread waited for the pool */
    double adding;    /* seconds (monotonic, less the waits) spent adding documents */
    double sampled_cpu, sampled_adding; /* the sampled documents: CPU clock, and monotonic less the waits */
    char err[256];

    /* the emitter's side: the shard file being written */
    pthread_t emitter;
    wpool *closer; /* syncs and renames finished files */
    uint32_t shard_no; /* the shard being written (shards_opened runs ahead) */
    char *tok_path;
    woutput *out;
    seek_entry *entries;
    uint32_t nentries, entries_cap;
    XXH3_state_t *token_hash, *file_hash;
    uint64_t file_bytes;
    uint32_t shards_cap;
    double emit_busy, emit_hash, emit_wait, closing; /* seconds, for TIMES_ENV */

    shard_manifest m; /* documents and tokens counted by the caller; shards by the emitter */
};

void shard_writer_options_init(shard_writer_options *o)
{
    memset(o, 0, sizeof *o);
    o->eos_id = -1;
    o->bos_id = -1;
    o->append_eos = true;
    o->shard_tokens = SHARD_DEFAULT_TOKENS;
    o->zstd_level = SHARD_DEFAULT_LEVEL;
    o->threads = 1;
}

bool shard_level_parse(const char *text, int *level)
{
    char *end;
    errno = 0;
    if (text && !strcmp(text, "tlz")) {
        *level = SHARD_LEVEL_TLZ;
        return true;
    }
    if (!text || !(*text == '-' || (*text >= '0' && *text <= '9'))) return false; /* strtol would skip spaces */
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v == 0 || v < ZSTD_minCLevel() || v > MAX_ZSTD_LEVEL) return false;
    *level = (int)v;
    return true;
}

static inline void encode_token(int dtype_bytes, uint8_t *p, uint32_t id)
{
    if (dtype_bytes == 2) put_le16(p, (uint16_t)id);
    else put_le32(p, id);
}

/* Stores n ids at dst in the shard's dtype. */
static void store_ids(int dtype_bytes, uint8_t *dst, const uint32_t *ids, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (dtype_bytes == 4) { /* u32 LE is the ids' own layout */
        memcpy(dst, ids, n * sizeof *ids);
        return;
    }
#endif
    for (size_t i = 0; i < n; i++, dst += dtype_bytes) encode_token(dtype_bytes, dst, ids[i]);
}

static uint32_t max_id(const uint32_t *ids, size_t n)
{
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) top = ids[i] > top ? ids[i] : top; /* vectorised */
    return top;
}

/* Copies a frame's borrowed ids into it; the first id not below the
 * vocabulary size is described in job->bad. */
static void gather(const shard_writer *w, frame_job *job)
{
    for (size_t k = 0; k < job->npieces; k++) {
        const borrowed_piece *p = &job->pieces[k];
        store_ids(w->dtype_bytes, job->data + p->at, p->ids, p->n);
        if (max_id(p->ids, p->n) < w->o.vocab_size || job->bad) continue; /* the ids just read: in cache */
        size_t i = 0;
        while (p->ids[i] < w->o.vocab_size) i++;
        wbuf b = WBUF_INIT;
        buf_printf(&b, "document %" PRIu64 " (counting from 0): token %zu of %zu is id %" PRIu32
                       ", not below the vocabulary size %" PRIu64,
                   p->doc, p->first + i, p->doc_n, p->ids[i], w->o.vocab_size);
        job->bad = b.data;
    }
    job->npieces = 0;
}

/* A worker's job: copies a frame's borrowed ids and compresses it. Its
 * seek-table checksum, the low 32 bits of XXH64 (seed 0) of its content, is
 * the frame's own content checksum, which zstd writes little-endian as the
 * frame's last 4 bytes: taken from there, not computed a second time. */
static void compress_frame(void *ctx, int worker, void *item)
{
    shard_writer *w = ctx;
    frame_job *job = item;
    if (job->kind != JOB_FRAME) return;
    double started = thread_cpu_seconds();
    if (job->npieces) {
        gather(w, job);
        pthread_mutex_lock(&w->lock);
        if (--w->borrowed_frames == 0) pthread_cond_broadcast(&w->gathered);
        pthread_mutex_unlock(&w->lock);
    }
    size_t bound = w->tlz ? tlz_frame_bound(job->len) : ZSTD_compressBound(job->len), r;
    job->comp = xrealloc(job->comp, bound);
    if (w->tlz) {
        r = tlz_compress_frame(w->tlz[worker], job->data, job->len, w->dtype_bytes, job->comp);
    } else {
        r = ZSTD_compress2(w->cctx[worker], job->comp, bound, job->data, job->len);
        if (ZSTD_isError(r)) dief(EXIT_FATAL, "zstd: %s", ZSTD_getErrorName(r));
    }
    job->clen = r;
    job->checksum = get_le32(job->comp + r - ZSTD_CHECKSUM_BYTES);
    atomic_fetch_add(&w->compress_ns, (uint64_t)((thread_cpu_seconds() - started) * NS_PER_SECOND));
}

static frame_job *new_job(shard_writer *w)
{
    pthread_mutex_lock(&w->lock);
    frame_job *job = w->free_jobs;
    if (job) w->free_jobs = job->next_free;
    pthread_mutex_unlock(&w->lock);
    if (!job) {
        job = xcalloc(1, sizeof *job);
        job->data = xmalloc(w->frame_cap);
    }
    job->len = 0;
    return job;
}

static void free_job(frame_job *job)
{
    free(job->data);
    free(job->pieces);
    free(job->comp);
    free(job->bad);
    free(job->ends);
    free(job->path);
    free(job);
}

/* Hands a job to the pool (which waits while the pool is full); the wait is counted. */
static void push_job(shard_writer *w, frame_job *job)
{
    double started = now_seconds();
    pool_push(w->pool, job);
    w->waited += now_seconds() - started;
}

/* ---- the emitter's side ---- */

static char *shard_path(const shard_writer *w, uint32_t no, const char *suffix)
{
    wbuf b = WBUF_INIT;
    buf_printf(&b, "%s/" SHARD_NAME_FMT "%s", w->dir, no, suffix);
    return b.data;
}

static char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return xstrdup(slash ? slash + 1 : path);
}

static void close_output(void *ctx, int worker, void *item)
{
    shard_writer *w = ctx;
    (void)worker;
    double started = now_seconds();
    output_close(item);
    w->closing += now_seconds() - started;
}

/* Gives a finished file to the closer thread (fsync and rename). */
static void hand_to_closer(shard_writer *w, woutput *out)
{
    if (pool_full(w->closer)) pool_pop(w->closer);
    pool_push(w->closer, out);
}

static void start_shard_file(shard_writer *w, frame_job *start)
{
    w->tok_path = start->path;
    start->path = NULL;
    w->out = start->out;
    w->nentries = 0;
    w->file_bytes = 0;
    XXH3_64bits_reset(w->token_hash);
    XXH3_64bits_reset(w->file_hash);
}

static void shard_put(shard_writer *w, const void *p, size_t n)
{
    output_write(w->out, p, n);
    xxh3_update(w->file_hash, p, n);
    w->file_bytes += n;
}

/* Appends a compressed frame to the shard file and recycles its job. */
static void emit_frame(shard_writer *w, frame_job *job)
{
    if (job->bad) dief(EXIT_FATAL, "shard writer: %s", job->bad);
    double started = now_seconds();
    xxh3_update(w->token_hash, job->data, job->len);
    w->emit_hash += now_seconds() - started;
    shard_put(w, job->comp, job->clen);
    if (w->nentries == w->entries_cap) {
        w->entries_cap = w->entries_cap ? 2 * w->entries_cap : 64;
        w->entries = xrealloc(w->entries, w->entries_cap * sizeof *w->entries);
    }
    w->entries[w->nentries++] = (seek_entry){(uint32_t)job->clen, (uint32_t)job->len, job->checksum};
    pthread_mutex_lock(&w->lock);
    job->next_free = w->free_jobs;
    w->free_jobs = job;
    pthread_mutex_unlock(&w->lock);
}

/* Writes the seek table and the index of the shard that ends; records it. */
static void emit_shard_end(shard_writer *w, const frame_job *end)
{
    wbuf tail = WBUF_INIT;
    seek_table_encode(w->entries, w->nentries, &tail);
    shard_put(w, tail.data, tail.len);
    hand_to_closer(w, w->out);
    w->out = NULL;

    buf_clear(&tail);
    shard_index x = {end->continues ? SHARD_INDEX_CONTINUES : 0, end->nends, end->tokens, end->ends};
    shard_index_encode(&x, &tail);
    char *idx_path = shard_path(w, w->shard_no, SHARD_INDEX_SUFFIX);
    woutput *idx = output_open(idx_path, 0);
    output_write(idx, tail.data, tail.len);
    hand_to_closer(w, idx);
    buf_free(&tail);

    if (w->m.nshards == w->shards_cap) {
        w->shards_cap = w->shards_cap ? 2 * w->shards_cap : 16;
        w->m.shards = xrealloc(w->m.shards, w->shards_cap * sizeof *w->m.shards);
    }
    manifest_shard *s = &w->m.shards[w->m.nshards++];
    s->file = base_name(w->tok_path);
    s->index = base_name(idx_path);
    s->tokens = end->tokens;
    s->documents = end->nends;
    s->compressed_bytes = w->file_bytes;
    s->xxh3 = XXH3_64bits_digest(w->token_hash);
    s->file_xxh3 = XXH3_64bits_digest(w->file_hash);
    s->continues = end->continues;
    w->m.compressed_bytes += w->file_bytes;
    free(idx_path);
    free(w->tok_path);
    w->tok_path = NULL;
    w->shard_no++;
}

/* The emitter thread: the pool's jobs in order, until JOB_STOP; then waits
 * for the closer. */
static void *emitter_main(void *arg)
{
    shard_writer *w = arg;
    for (;;) {
        double t0 = now_seconds();
        frame_job *job = pool_pop(w->pool);
        double t1 = now_seconds();
        w->emit_wait += t1 - t0;
        if (job->kind == JOB_FRAME) {
            emit_frame(w, job);
            w->emit_busy += now_seconds() - t1;
            continue;
        }
        if (job->kind == JOB_SHARD_START) start_shard_file(w, job);
        if (job->kind == JOB_SHARD_END) emit_shard_end(w, job);
        bool stop = job->kind == JOB_STOP, abort = job->abort;
        free_job(job);
        if (!stop) continue;
        if (abort && w->out) output_abort(w->out);
        if (abort) w->out = NULL;
        break;
    }
    while (!pool_empty(w->closer)) pool_pop(w->closer);
    return NULL;
}

/* ---- the caller's side ---- */

static frame_job *new_marker(job_kind kind)
{
    frame_job *job = xcalloc(1, sizeof *job);
    job->kind = kind;
    return job;
}

/* Sends the current frame to the pool and starts the next. */
static void flush_frame(shard_writer *w)
{
    if (w->cur->len == 0) return;
    if (w->cur->npieces) {
        pthread_mutex_lock(&w->lock);
        w->borrowed_frames++;
        pthread_mutex_unlock(&w->lock);
    }
    push_job(w, w->cur);
    w->cur = new_job(w);
}

/* Creates the next shard's file (its temporary name shows from now on that
 * the run is inside that shard) and tells the emitter. */
static void open_shard(shard_writer *w, bool continues)
{
    frame_job *start = new_marker(JOB_SHARD_START);
    start->path = shard_path(w, w->shards_opened++, SHARD_TOKENS_SUFFIX);
    start->out = output_open(start->path, 0);
    push_job(w, start);
    w->shard_open = true;
    w->continues = continues;
    w->shard_tokens = 0;
    w->nends = 0;
}

static void push_end(shard_writer *w)
{
    if (w->nends == w->ends_cap) {
        w->ends_cap = w->ends_cap ? 2 * w->ends_cap : 1024;
        w->ends = xrealloc(w->ends, w->ends_cap * sizeof *w->ends);
    }
    w->ends[w->nends++] = w->shard_tokens;
}

/* Sends the last frame and the shard's end (its index) to the emitter. */
static void finish_shard(shard_writer *w)
{
    flush_frame(w);
    frame_job *end = new_marker(JOB_SHARD_END);
    end->ends = w->ends;
    end->nends = w->nends;
    end->tokens = w->shard_tokens;
    end->continues = w->continues;
    w->ends = NULL;
    w->nends = w->ends_cap = 0;
    push_job(w, end);
    w->shard_open = false;
}

static void add_piece(shard_writer *w, const uint32_t *ids, size_t n)
{
    frame_job *job = w->cur;
    if (job->npieces == job->pieces_cap) {
        job->pieces_cap = job->pieces_cap ? 2 * job->pieces_cap : 256;
        job->pieces = xrealloc(job->pieces, job->pieces_cap * sizeof *job->pieces);
    }
    job->pieces[job->npieces++] =
        (borrowed_piece){ids, n, job->len, w->m.documents, (size_t)(ids - w->doc_ids), w->doc_n};
}

/* Appends n ids (copied now, or, when borrowed, noted for a worker to copy),
 * cutting frames when full and, with split_docs, shards at exactly
 * shard_tokens. */
static void put_tokens(shard_writer *w, const uint32_t *ids, size_t n, bool borrowed)
{
    while (n) {
        if (w->o.split_docs && w->shard_tokens == w->o.shard_tokens) {
            push_end(w); /* this shard's part of a document that goes on */
            finish_shard(w);
            open_shard(w, true);
        }
        size_t room = (w->frame_cap - w->cur->len) / (size_t)w->dtype_bytes;
        size_t k = n < room ? n : room;
        if (w->o.split_docs && k > w->o.shard_tokens - w->shard_tokens)
            k = (size_t)(w->o.shard_tokens - w->shard_tokens);
        if (borrowed) add_piece(w, ids, k);
        else store_ids(w->dtype_bytes, w->cur->data + w->cur->len, ids, k);
        w->cur->len += k * (size_t)w->dtype_bytes;
        w->shard_tokens += k;
        w->m.tokens += k;
        ids += k;
        n -= k;
        if (w->cur->len == w->frame_cap) flush_frame(w);
    }
}

/* Lays out one checked or borrowed document. The time spent here is counted
 * by the monotonic clock, less the waits for the pool; the thread's CPU
 * clock, a system call (~0.6 us, twice per document on the thread that feeds
 * every shard), is read for one document in CPU_SAMPLE_EVERY only, to scale
 * that time down to CPU time when the thread was preempted. */
static void add(shard_writer *w, const uint32_t *ids, size_t n, bool borrowed, bool sample, double cpu_started,
                double started)
{
    double waited = w->waited;
    uint64_t total = n + (w->o.prepend_bos ? 1 : 0) + (w->o.append_eos ? 1 : 0);
    if (w->shard_open && w->shard_tokens > 0 &&
        (w->o.split_docs ? w->shard_tokens == w->o.shard_tokens : w->shard_tokens + total > w->o.shard_tokens))
        finish_shard(w);
    if (!w->shard_open) open_shard(w, false);

    uint64_t piece = total;
    if (w->o.split_docs && piece > w->o.shard_tokens - w->shard_tokens) piece = w->o.shard_tokens - w->shard_tokens;
    uint64_t frame_tokens = w->frame_cap / (size_t)w->dtype_bytes;
    if (w->cur->len && w->cur->len / (size_t)w->dtype_bytes + piece > frame_tokens && piece <= frame_tokens)
        flush_frame(w);

    uint32_t bos = (uint32_t)w->o.bos_id, eos = (uint32_t)w->o.eos_id;
    if (w->o.prepend_bos) put_tokens(w, &bos, 1, false);
    w->doc_ids = ids;
    w->doc_n = n;
    put_tokens(w, ids, n, borrowed);
    if (w->o.append_eos) put_tokens(w, &eos, 1, false);
    push_end(w);
    double busy = now_seconds() - started - (w->waited - waited);
    w->adding += busy;
    if (sample) {
        w->sampled_adding += busy;
        w->sampled_cpu += thread_cpu_seconds() - cpu_started; /* a blocked wait takes no CPU */
    }
    w->m.documents++;
}

int shard_writer_add_document(shard_writer *w, const uint32_t *ids, size_t n)
{
    bool sample = w->m.documents % CPU_SAMPLE_EVERY == 0;
    double cpu_started = sample ? thread_cpu_seconds() : 0, started = now_seconds();
    uint32_t top = max_id(ids, n);
    for (size_t i = 0; top >= w->o.vocab_size && i < n; i++) /* rare */
        if (ids[i] >= w->o.vocab_size) {
            snprintf(w->err, sizeof w->err, "token %zu of %zu is id %" PRIu32 ", not below the vocabulary size %" PRIu64,
                     i, n, ids[i], w->o.vocab_size);
            return -1;
        }
    add(w, ids, n, false, sample, cpu_started, started);
    return 0;
}

void shard_writer_add_borrowed(shard_writer *w, const uint32_t *ids, size_t n)
{
    bool sample = w->m.documents % CPU_SAMPLE_EVERY == 0;
    add(w, ids, n, true, sample, sample ? thread_cpu_seconds() : 0, now_seconds());
}

void shard_writer_add_borrowed_counted(shard_writer *w, const uint32_t *ids, size_t n, wstats *st)
{
    st->in++;
    st->bytes_in += 4 + 4 * (uint64_t)n;
    shard_writer_add_borrowed(w, ids, n);
    st->out++;
}

void shard_writer_release(shard_writer *w)
{
    if (w->cur->npieces) gather(w, w->cur); /* at most one frame, on this thread */
    double started = now_seconds();
    pthread_mutex_lock(&w->lock);
    while (w->borrowed_frames) pthread_cond_wait(&w->gathered, &w->lock);
    pthread_mutex_unlock(&w->lock);
    w->waited += now_seconds() - started;
}

bool shard_writer_add_counted(shard_writer *w, const uint32_t *ids, size_t n, wstats *st, const char *source,
                              uint64_t doc, uint64_t offset)
{
    st->in++;
    st->bytes_in += 4 + 4 * (uint64_t)n;
    if (shard_writer_add_document(w, ids, n)) {
        warnf("%s: document %" PRIu64 " at offset %" PRIu64 ": %s; document skipped", source, doc, offset,
              shard_writer_error(w));
        stats_fail(st, "bad_id");
        return false;
    }
    st->out++;
    return true;
}

double shard_writer_cpu_seconds(const shard_writer *w)
{
    double share = w->sampled_adding > 0 ? w->sampled_cpu / w->sampled_adding : 1; /* CPU per monotonic second */
    return (double)atomic_load(&w->compress_ns) / NS_PER_SECOND + w->adding * (share < 1 ? share : 1);
}

const char *shard_writer_error(const shard_writer *w)
{
    return w->err;
}

uint64_t shard_writer_documents(const shard_writer *w)
{
    return w->m.documents;
}

uint64_t shard_writer_tokens(const shard_writer *w)
{
    return w->m.tokens;
}

static int make_dirs(const char *dir)
{
    char *p = xstrdup(dir);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0755) && errno != EEXIST) break;
        *s = '/';
    }
    int rc = mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

bool shard_writer_options_valid(const shard_writer_options *o)
{
    const char *why = NULL;
    if (o->vocab_size == 0 || o->vocab_size > UINT32_MAX) why = "the vocabulary size must be from 1 to 4294967295";
    else if (o->append_eos && (o->eos_id < 0 || (uint64_t)o->eos_id >= o->vocab_size)) why = "appending EOS needs an eos id below the vocabulary size";
    else if (o->prepend_bos && (o->bos_id < 0 || (uint64_t)o->bos_id >= o->vocab_size)) why = "prepending BOS needs a bos id below the vocabulary size";
    else if (o->eos_id >= 0 && (uint64_t)o->eos_id >= o->vocab_size) why = "the eos id is not below the vocabulary size";
    else if (o->bos_id >= 0 && (uint64_t)o->bos_id >= o->vocab_size) why = "the bos id is not below the vocabulary size";
    else if (o->shard_tokens == 0) why = "shard size must be at least one token";
    else if (o->zstd_level != SHARD_LEVEL_TLZ && (o->zstd_level < ZSTD_minCLevel() || o->zstd_level > MAX_ZSTD_LEVEL))
        why = "the level must be tlz, or a zstd level from 1 to 22, or negative (faster)";
    else if (o->tokenizer_name && !utf8_valid(o->tokenizer_name, strlen(o->tokenizer_name)))
        why = "the tokenizer name must be UTF-8 (the manifest is JSON)";
    else if (o->vocab_sha256 && (strlen(o->vocab_sha256) != 64 || strspn(o->vocab_sha256, "0123456789abcdef") != 64))
        why = "vocab sha256 must be 64 lowercase hex digits";
    if (why) warnf("shard writer: %s", why);
    return why == NULL;
}

shard_writer *shard_writer_open(const char *dir, const shard_writer_options *o)
{
    if (!shard_writer_options_valid(o)) return NULL;
    if (make_dirs(dir)) {
        warnf("%s: cannot create directory: %s", dir, strerror(errno));
        return NULL;
    }
    shard_writer *w = xcalloc(1, sizeof *w);
    w->dir = xstrdup(dir);
    char *manifest = xmalloc(strlen(dir) + sizeof "/" SHARD_MANIFEST);
    sprintf(manifest, "%s/%s", dir, SHARD_MANIFEST);
    if (unlink(manifest) && errno != ENOENT) {
        warnf("%s: cannot remove the old manifest: %s", manifest, strerror(errno));
        free(manifest);
        free(w->dir);
        free(w);
        return NULL;
    }
    free(manifest);
    output_remove_temporaries(dir); /* a killed writer's: never part of this run's output */
    w->o = *o;
    w->dtype_bytes = o->vocab_size <= UINT16_VOCAB_LIMIT ? 2 : 4;
    w->frame_cap = SHARD_FRAME_BYTES;
    int threads = o->threads > 0 ? o->threads : 1;
    if (o->zstd_level == SHARD_LEVEL_TLZ) {
        w->tlz = xcalloc((size_t)threads, sizeof *w->tlz);
        for (int i = 0; i < threads; i++) w->tlz[i] = tlz_ctx_new();
    } else {
        w->cctx = xcalloc((size_t)threads, sizeof *w->cctx);
        for (int i = 0; i < threads; i++) {
            w->cctx[i] = ZSTD_createCCtx();
            ZSTD_CCtx_setParameter(w->cctx[i], ZSTD_c_compressionLevel, o->zstd_level);
            ZSTD_CCtx_setParameter(w->cctx[i], ZSTD_c_checksumFlag, 1);
            ZSTD_CCtx_setParameter(w->cctx[i], ZSTD_c_contentSizeFlag, 1);
        }
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->gathered, NULL);
    atomic_init(&w->compress_ns, 0);
    w->pool = pool_create(threads, 0, compress_frame, w);
    w->closer = pool_create(1, CLOSES_IN_FLIGHT, close_output, w);
    w->cur = new_job(w);
    w->token_hash = XXH3_createState();
    w->file_hash = XXH3_createState();

    shard_manifest *m = &w->m;
    m->version = SHARD_FORMAT_VERSION;
    m->tokenizer = xstrdup(o->tokenizer_name ? o->tokenizer_name : "");
    m->vocab_sha256 = o->vocab_sha256 ? xstrdup(o->vocab_sha256) : NULL;
    m->vocab_size = o->vocab_size;
    m->dtype_bytes = w->dtype_bytes;
    m->eos = o->eos_id;
    m->bos = o->bos_id;
    m->eos_appended = o->append_eos;
    m->bos_prepended = o->prepend_bos;
    m->split_docs = o->split_docs;
    m->frame_bytes = SHARD_FRAME_BYTES;
    m->zstd_level = o->zstd_level;
    m->shard_tokens = o->shard_tokens;
    if (pthread_create(&w->emitter, NULL, emitter_main, w) != 0) dief(EXIT_FATAL, "cannot start the shard emitter thread");
    return w;
}

/* Sends the end through the pool and waits for the emitter and the closer. */
static void stop_emitter(shard_writer *w, bool abort)
{
    frame_job *stop = new_marker(JOB_STOP);
    stop->abort = abort;
    push_job(w, stop);
    pthread_join(w->emitter, NULL);
}

static void free_writer(shard_writer *w)
{
    while (w->free_jobs) {
        frame_job *j = w->free_jobs;
        w->free_jobs = j->next_free;
        free_job(j);
    }
    free_job(w->cur);
    int threads = pool_threads(w->pool);
    pool_destroy(w->pool);
    pool_destroy(w->closer);
    for (int i = 0; w->cctx && i < threads; i++) ZSTD_freeCCtx(w->cctx[i]);
    free(w->cctx);
    for (int i = 0; w->tlz && i < threads; i++) tlz_ctx_free(w->tlz[i]);
    free(w->tlz);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->gathered);
    XXH3_freeState(w->token_hash);
    XXH3_freeState(w->file_hash);
    free(w->entries);
    free(w->ends);
    free(w->tok_path);
    manifest_free(&w->m);
    free(w->dir);
    free(w);
}

/* Removes shard files numbered from `from` on, left by an earlier, larger run. */
static void remove_stale_shards(shard_writer *w, uint32_t from)
{
    for (uint32_t no = from;; no++) {
        char *tok = shard_path(w, no, SHARD_TOKENS_SUFFIX), *idx = shard_path(w, no, SHARD_INDEX_SUFFIX);
        bool found = unlink(tok) == 0;
        found |= unlink(idx) == 0;
        free(tok);
        free(idx);
        if (!found) break;
    }
}


/* Where each thread's time went, for TIMES_ENV. */
static void print_times(const shard_writer *w)
{
    fprintf(stderr,
            "shard writer (s): calling thread %.3f adding + %.3f waiting for the pool | compression CPU %.3f on %d "
            "threads | emitter %.3f busy (token hash %.3f) + %.3f waiting | closer (sync, rename) %.3f\n",
            w->adding, w->waited, (double)atomic_load(&w->compress_ns) / NS_PER_SECOND, pool_threads(w->pool),
            w->emit_busy, w->emit_hash, w->emit_wait, w->closing);
}

int shard_writer_close(shard_writer *w)
{
    if (w->shard_open) finish_shard(w);
    stop_emitter(w, false);
    if (getenv(TIMES_ENV)) print_times(w);
    remove_stale_shards(w, w->m.nshards);
    wbuf json = WBUF_INIT;
    manifest_write_json(&w->m, &json);
    char *path = xmalloc(strlen(w->dir) + sizeof "/" SHARD_MANIFEST);
    sprintf(path, "%s/%s", w->dir, SHARD_MANIFEST);
    woutput *out = output_open(path, 0);
    output_write(out, json.data, json.len);
    output_close(out);
    free(path);
    buf_free(&json);
    free_writer(w);
    return 0;
}

void shard_writer_abort(shard_writer *w)
{
    stop_emitter(w, true);
    free_writer(w);
}
