/* shard_writer.c - token documents in, shard files + manifest out.
 *
 * Tokens fill a frame buffer of SHARD_FRAME_BYTES; a full frame goes to the
 * worker pool, which compresses frames independently (so any thread count
 * gives the same bytes), and comes back in order to be appended to the shard
 * file with its seek-table entry. A document that fits in one frame but not
 * in the rest of the current one starts a new frame, so reading it needs one
 * frame's decompression. */
#include "shard_writer.h"

#include <errno.h>
#include <inttypes.h>
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
#include "core/util.h"
#include "shards/manifest.h"
#include "shards/seek_table.h"
#include "shards/shard_format.h"
#include "shards/shard_index.h"

#define MAX_ZSTD_LEVEL 22
#define UINT16_VOCAB_LIMIT 65536u
#define CPU_SAMPLE_EVERY 64 /* documents per reading of the adding thread's CPU clock */
#define ZSTD_CHECKSUM_BYTES 4 /* a frame's last field: the content checksum (RFC 8878, 3.1.1) */

typedef struct frame_job {
    uint8_t *data; /* decompressed token bytes */
    size_t len;
    uint8_t *comp; /* compressed frame, filled by a worker */
    size_t clen;
    uint32_t checksum;
    double cpu; /* seconds its compression took */
    struct frame_job *next_free;
} frame_job;

struct shard_writer {
    char *dir;
    shard_writer_options o;
    int dtype_bytes;
    size_t frame_cap; /* bytes per full frame */
    wpool *pool;
    ZSTD_CCtx **cctx; /* one per worker */
    frame_job *cur, *free_jobs;

    /* the shard being written */
    bool shard_open;
    uint32_t shard_no;
    char *tok_path;
    woutput *out;
    seek_entry *entries;
    uint32_t nentries, entries_cap;
    uint64_t shard_tokens;
    uint64_t *ends;
    uint64_t nends, ends_cap;
    bool continues;
    XXH3_state_t *token_hash, *file_hash;
    uint64_t file_bytes;

    shard_manifest m; /* finished shards and totals */
    double cpu;       /* seconds spent compressing frames */
    double waited;    /* seconds the adding thread waited for the pool */
    double adding;    /* seconds (monotonic, less the waits) spent adding documents */
    double sampled_cpu, sampled_adding; /* the sampled documents: CPU clock, and monotonic less the waits */
    uint32_t shards_cap;
    char err[256];
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
    if (!text || !(*text == '-' || (*text >= '0' && *text <= '9'))) return false; /* strtol would skip spaces */
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v == 0 || v < ZSTD_minCLevel() || v > MAX_ZSTD_LEVEL) return false;
    *level = (int)v;
    return true;
}

/* Compresses a frame. Its seek-table checksum, the low 32 bits of XXH64
 * (seed 0) of its content, is the frame's own content checksum, which zstd
 * writes little-endian as the frame's last 4 bytes: taken from there, not
 * computed a second time. */
static void compress_frame(void *ctx, int worker, void *item)
{
    shard_writer *w = ctx;
    frame_job *job = item;
    double started = thread_cpu_seconds();
    size_t bound = ZSTD_compressBound(job->len);
    job->comp = xrealloc(job->comp, bound);
    size_t r = ZSTD_compress2(w->cctx[worker], job->comp, bound, job->data, job->len);
    if (ZSTD_isError(r)) dief(EXIT_FATAL, "zstd: %s", ZSTD_getErrorName(r));
    job->clen = r;
    job->checksum = get_le32(job->comp + r - ZSTD_CHECKSUM_BYTES);
    job->cpu = thread_cpu_seconds() - started;
}

static frame_job *new_job(shard_writer *w)
{
    frame_job *job = w->free_jobs;
    if (job) {
        w->free_jobs = job->next_free;
    } else {
        job = xcalloc(1, sizeof *job);
        job->data = xmalloc(w->frame_cap);
    }
    job->len = 0;
    return job;
}

static void shard_put(shard_writer *w, const void *p, size_t n)
{
    output_write(w->out, p, n);
    XXH3_64bits_update(w->file_hash, p, n);
    w->file_bytes += n;
}

/* Appends a compressed frame to the shard file and recycles its job. */
static void emit_frame(shard_writer *w, frame_job *job)
{
    w->cpu += job->cpu;
    shard_put(w, job->comp, job->clen);
    if (w->nentries == w->entries_cap) {
        w->entries_cap = w->entries_cap ? 2 * w->entries_cap : 64;
        w->entries = xrealloc(w->entries, w->entries_cap * sizeof *w->entries);
    }
    w->entries[w->nentries++] = (seek_entry){(uint32_t)job->clen, (uint32_t)job->len, job->checksum};
    job->next_free = w->free_jobs;
    w->free_jobs = job;
}

/* The oldest frame in the pool, once compressed; the wait is counted. */
static frame_job *oldest_frame(shard_writer *w)
{
    double started = now_seconds();
    frame_job *job = pool_pop(w->pool);
    w->waited += now_seconds() - started;
    return job;
}

static void flush_frame(shard_writer *w)
{
    if (w->cur->len == 0) return;
    XXH3_64bits_update(w->token_hash, w->cur->data, w->cur->len);
    if (pool_full(w->pool)) emit_frame(w, oldest_frame(w));
    pool_push(w->pool, w->cur);
    w->cur = new_job(w);
}

static char *shard_path(const shard_writer *w, uint32_t no, const char *suffix)
{
    wbuf b = WBUF_INIT;
    buf_printf(&b, "%s/" SHARD_NAME_FMT "%s", w->dir, no, suffix);
    return b.data;
}

static void open_shard(shard_writer *w, bool continues)
{
    w->tok_path = shard_path(w, w->shard_no, SHARD_TOKENS_SUFFIX);
    w->out = output_open(w->tok_path, 0);
    w->shard_open = true;
    w->continues = continues;
    w->nentries = 0;
    w->shard_tokens = 0;
    w->nends = 0;
    w->file_bytes = 0;
    XXH3_64bits_reset(w->token_hash);
    XXH3_64bits_reset(w->file_hash);
}

static void push_end(shard_writer *w)
{
    if (w->nends == w->ends_cap) {
        w->ends_cap = w->ends_cap ? 2 * w->ends_cap : 1024;
        w->ends = xrealloc(w->ends, w->ends_cap * sizeof *w->ends);
    }
    w->ends[w->nends++] = w->shard_tokens;
}

static char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return xstrdup(slash ? slash + 1 : path);
}

/* Writes out the last frames, the seek table and the index; records the shard. */
static void finish_shard(shard_writer *w)
{
    flush_frame(w);
    while (!pool_empty(w->pool)) emit_frame(w, oldest_frame(w));
    wbuf tail = WBUF_INIT;
    seek_table_encode(w->entries, w->nentries, &tail);
    shard_put(w, tail.data, tail.len);
    output_close(w->out);
    w->out = NULL;

    buf_clear(&tail);
    shard_index x = {w->continues ? SHARD_INDEX_CONTINUES : 0, w->nends, w->shard_tokens, w->ends};
    shard_index_encode(&x, &tail);
    char *idx_path = shard_path(w, w->shard_no, SHARD_INDEX_SUFFIX);
    woutput *idx = output_open(idx_path, 0);
    output_write(idx, tail.data, tail.len);
    output_close(idx);
    buf_free(&tail);

    if (w->m.nshards == w->shards_cap) {
        w->shards_cap = w->shards_cap ? 2 * w->shards_cap : 16;
        w->m.shards = xrealloc(w->m.shards, w->shards_cap * sizeof *w->m.shards);
    }
    manifest_shard *s = &w->m.shards[w->m.nshards++];
    s->file = base_name(w->tok_path);
    s->index = base_name(idx_path);
    s->tokens = w->shard_tokens;
    s->documents = w->nends;
    s->compressed_bytes = w->file_bytes;
    s->xxh3 = XXH3_64bits_digest(w->token_hash);
    s->file_xxh3 = XXH3_64bits_digest(w->file_hash);
    s->continues = w->continues;
    w->m.compressed_bytes += w->file_bytes;
    free(idx_path);
    free(w->tok_path);
    w->tok_path = NULL;
    w->shard_open = false;
    w->shard_no++;
}

static inline void encode_token(shard_writer *w, uint8_t *p, uint32_t id)
{
    if (w->dtype_bytes == 2) put_le16(p, (uint16_t)id);
    else put_le32(p, id);
}

/* Appends n validated ids, cutting frames when full and, with split_docs,
 * shards at exactly shard_tokens. */
static void put_tokens(shard_writer *w, const uint32_t *ids, size_t n)
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
        uint8_t *p = w->cur->data + w->cur->len;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (w->dtype_bytes == 4) memcpy(p, ids, k * sizeof *ids); /* u32 LE is the ids' own layout */
        else
#endif
            for (size_t i = 0; i < k; i++, p += w->dtype_bytes) encode_token(w, p, ids[i]);
        w->cur->len += k * (size_t)w->dtype_bytes;
        w->shard_tokens += k;
        w->m.tokens += k;
        ids += k;
        n -= k;
        if (w->cur->len == w->frame_cap) flush_frame(w);
    }
}

/* The time spent here is counted by the monotonic clock, less the waits for
 * the pool; the thread's CPU clock, a system call (~0.6 us, twice per
 * document on the thread that feeds every shard), is read for one document
 * in CPU_SAMPLE_EVERY only, to scale that time down to CPU time when the
 * thread was preempted. */
int shard_writer_add_document(shard_writer *w, const uint32_t *ids, size_t n)
{
    bool sample = w->m.documents % CPU_SAMPLE_EVERY == 0;
    double cpu_started = sample ? thread_cpu_seconds() : 0;
    double started = now_seconds(), waited = w->waited;
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) top = ids[i] > top ? ids[i] : top; /* vectorised; the search below is rare */
    for (size_t i = 0; top >= w->o.vocab_size && i < n; i++)
        if (ids[i] >= w->o.vocab_size) {
            snprintf(w->err, sizeof w->err, "token %zu of %zu is id %" PRIu32 ", not below the vocabulary size %" PRIu64,
                     i, n, ids[i], w->o.vocab_size);
            return -1;
        }
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
    if (w->o.prepend_bos) put_tokens(w, &bos, 1);
    put_tokens(w, ids, n);
    if (w->o.append_eos) put_tokens(w, &eos, 1);
    push_end(w);
    double busy = now_seconds() - started - (w->waited - waited);
    w->adding += busy;
    if (sample) {
        w->sampled_adding += busy;
        w->sampled_cpu += thread_cpu_seconds() - cpu_started; /* a blocked wait takes no CPU */
    }
    w->m.documents++;
    return 0;
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
    return w->cpu + w->adding * (share < 1 ? share : 1);
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
    else if (o->zstd_level == 0 || o->zstd_level < ZSTD_minCLevel() || o->zstd_level > MAX_ZSTD_LEVEL)
        why = "zstd level must be from 1 to 22, or negative (faster)";
    else if (o->vocab_sha256 && strspn(o->vocab_sha256, "0123456789abcdef") != 64) why = "vocab sha256 must be 64 lowercase hex digits";
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
    w->cctx = xcalloc((size_t)threads, sizeof *w->cctx);
    for (int i = 0; i < threads; i++) {
        w->cctx[i] = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(w->cctx[i], ZSTD_c_compressionLevel, o->zstd_level);
        ZSTD_CCtx_setParameter(w->cctx[i], ZSTD_c_checksumFlag, 1);
        ZSTD_CCtx_setParameter(w->cctx[i], ZSTD_c_contentSizeFlag, 1);
    }
    w->pool = pool_create(threads, 0, compress_frame, w);
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
    return w;
}

static void free_writer(shard_writer *w)
{
    while (w->free_jobs) {
        frame_job *j = w->free_jobs;
        w->free_jobs = j->next_free;
        free(j->data);
        free(j->comp);
        free(j);
    }
    free(w->cur->data);
    free(w->cur->comp);
    free(w->cur);
    int threads = pool_threads(w->pool);
    pool_destroy(w->pool);
    for (int i = 0; i < threads; i++) ZSTD_freeCCtx(w->cctx[i]);
    free(w->cctx);
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

int shard_writer_close(shard_writer *w)
{
    if (w->shard_open) finish_shard(w);
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
    while (!pool_empty(w->pool)) {
        frame_job *job = pool_pop(w->pool);
        job->next_free = w->free_jobs;
        w->free_jobs = job;
    }
    if (w->out) output_abort(w->out);
    free_writer(w);
}
