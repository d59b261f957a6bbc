/* tokenize_stage.c - the tokenize stage: documents in, token ids out. */
#include "tokenize/tokenize_stage.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/output.h"
#include "core/util.h"
#include "gpu/bpe.h"
#include "shards/vocab_hash.h"
#include "tokenize/vocab_cache.h"

#define DEFAULT_ENCODING "cl100k_base"
#define U32_DIGITS 10
/* With the GPU each batch is one encode call with a fixed cost, so batches
 * are read much bigger than the engine's default. */
#define GPU_BATCH_BYTES ((size_t)32 << 20)
/* --device auto keeps to the CPU for input files smaller than this in all. */
#define AUTO_GPU_MIN_BYTES ((uint64_t)256 << 20)
#define IDS_PER_TEXT_BYTE_BOUND 2 /* bytes of text per id reserved up front (ids grow beyond if needed) */

typedef struct {
    wbuf text, line;
    tok_ids ids;
    bpe_scratch scratch;
    /* --device gpu: the batch's texts back to back, their ids, per-document ends */
    wbuf batch_text;
    tok_ids batch_ids;
    size_t *doc_end, doc_cap;
} worker_state;

/* Ids of one batch for --format bin: per document a count (0 for documents
 * that are not written) and the ids back to back. */
typedef struct {
    uint32_t *count;
    tok_ids ids;
} batch_ids;

typedef struct {
    const tokenizer *tok;
    tokenize_format format;
    bool allow_special, eos, bos;
    worker_state *workers;
    const tokenize_shard_sink *sink; /* TOKENIZE_SHARDS */
    uint64_t bin_offset;             /* TOKENIZE_SHARDS: bytes of the --format bin stream it stands for */
    gpu_bpe *gpu; /* NULL: the CPU path */
    pthread_mutex_t gpu_lock;
} tokenize_ctx;

/* Writes the decimal digits of v at p; returns the end. */
static inline char *write_u32(char *p, uint32_t v)
{
    char tmp[U32_DIGITS], *t = tmp + U32_DIGITS;
    do *--t = (char)('0' + v % 10), v /= 10;
    while (v);
    size_t n = (size_t)(tmp + U32_DIGITS - t);
    memcpy(p, t, n);
    return p + n;
}

/* Appends one document's ids to ids with BOS/EOS as asked. */
static void encode_doc(tokenize_ctx *c, worker_state *ws, const stage_doc *d, tok_ids *ids)
{
    size_t len;
    buf_clear(&ws->text);
    const char *text = json_string(&d->json.text, &ws->text, &len);
    if (c->bos) ids_push(ids, c->tok->bos);
    tokenizer_encode(c->tok, text, len, c->allow_special, &ws->scratch, ids);
    if (c->eos) ids_push(ids, c->tok->eos);
}

/* --device gpu: encodes the texts of the batch's documents in one call to
 * the GPU (one batch at a time); false after a CUDA error, with a warning. */
static bool encode_batch_gpu(tokenize_ctx *c, worker_state *ws, const stage_batch *b)
{
    buf_clear(&ws->batch_text);
    const char **texts = xmalloc(((size_t)b->n + 1) * sizeof *texts);
    size_t *lens = xmalloc(((size_t)b->n + 1) * sizeof *lens), *at = xmalloc(((size_t)b->n + 1) * sizeof *at);
    for (int i = 0; i < b->n; i++) {
        const stage_doc *d = &b->docs[i];
        lens[i] = 0;
        at[i] = ws->batch_text.len;
        if (d->verdict == DOC_FAIL) continue;
        buf_clear(&ws->text);
        const char *text = json_string(&d->json.text, &ws->text, &lens[i]);
        buf_append(&ws->batch_text, text, lens[i]);
    }
    for (int i = 0; i < b->n; i++) texts[i] = ws->batch_text.data + at[i];
    if ((size_t)b->n > ws->doc_cap) {
        ws->doc_cap = (size_t)b->n;
        ws->doc_end = xrealloc(ws->doc_end, ws->doc_cap * sizeof *ws->doc_end);
    }
    ws->batch_ids.n = 0;
    wbuf err = WBUF_INIT;
    pthread_mutex_lock(&c->gpu_lock);
    int rc = gpu_bpe_encode(c->gpu, texts, lens, (size_t)b->n, &ws->batch_ids, ws->doc_end, &err);
    pthread_mutex_unlock(&c->gpu_lock);
    if (rc) warnf("tokenize: %s; this batch goes to the CPU", err.data);
    buf_free(&err);
    free(texts), free(lens), free(at);
    return rc == 0;
}

/* Appends document i's ids from the GPU batch to ids with BOS/EOS as asked. */
static void take_gpu_ids(tokenize_ctx *c, worker_state *ws, int i, tok_ids *ids)
{
    size_t from = i ? ws->doc_end[i - 1] : 0;
    if (c->bos) ids_push(ids, c->tok->bos);
    for (size_t k = from; k < ws->doc_end[i]; k++) ids_push(ids, ws->batch_ids.ids[k]);
    if (c->eos) ids_push(ids, c->tok->eos);
}

/* The line with ,"tokens":[...] added as its last member. */
static void rewrite_with_tokens(const stage_doc *d, const tok_ids *ids, wbuf *line)
{
    buf_clear(line);
    buf_append(line, d->line, d->json.close_brace);
    buf_puts(line, ",\"tokens\":[");
    buf_reserve(line, ids->n * (U32_DIGITS + 1));
    char *p = line->data + line->len;
    for (size_t k = 0; k < ids->n; k++) {
        if (k) *p++ = ',';
        p = write_u32(p, ids->ids[k]);
    }
    line->len = (size_t)(p - line->data);
    buf_puts(line, "]}\n");
}

static void tokenize_map(void *ctx, int worker, stage_batch *b)
{
    tokenize_ctx *c = ctx;
    worker_state *ws = &c->workers[worker];
    batch_ids *bi = NULL;
    if (c->format != TOKENIZE_JSONL) {
        bi = xcalloc(1, sizeof *bi);
        bi->count = xcalloc((size_t)b->n + 1, sizeof *bi->count);
        b->user = bi;
        /* room for one id per two text bytes (more than any real text needs),
         * so the ids never move while growing; pages never written cost nothing */
        size_t text_bytes = 0;
        for (int i = 0; i < b->n; i++) text_bytes += b->docs[i].json.text.len;
        ids_reserve(&bi->ids, text_bytes / IDS_PER_TEXT_BYTE_BOUND + 3 * (size_t)b->n);
    }
    size_t ntokens = 0;
    bool on_gpu = c->gpu && encode_batch_gpu(c, ws, b);
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        tok_ids *ids = bi ? &bi->ids : &ws->ids; /* bin and shards: straight into the batch's ids */
        size_t first = bi ? bi->ids.n : 0;
        ws->ids.n = 0;
        if (on_gpu) take_gpu_ids(c, ws, i, ids);
        else encode_doc(c, ws, d, ids);
        ntokens += ids->n - first;
        if (bi) {
            bi->count[i] = (uint32_t)(ids->n - first);
        } else {
            rewrite_with_tokens(d, &ws->ids, &ws->line);
            stage_doc_rewrite(b, i, &ws->line);
        }
    }
    stats_add(&b->stats, "tokens", (double)ntokens);
}

/* Frees the batch's ids once they are written. */
static void release_batch_ids(stage_batch *b)
{
    batch_ids *bi = b->user;
    ids_free(&bi->ids);
    free(bi->count);
    free(bi);
    b->user = NULL;
}

static void tokenize_emit_bin(void *ctx, stage_batch *b, woutput *out)
{
    (void)ctx;
    batch_ids *bi = b->user;
    size_t at = 0;
    for (int i = 0; i < b->n; i++) {
        if (b->docs[i].verdict == DOC_FAIL) continue;
        uint32_t n = bi->count[i];
        output_write(out, &n, sizeof n); /* little-endian hosts only (x86-64, arm64) */
        output_write(out, bi->ids.ids + at, n * sizeof *bi->ids.ids);
        at += n;
    }
    release_batch_ids(b);
}

/* --format shards: each document's ids to the shard writer, in input order. */
static void tokenize_emit_shards(void *ctx, stage_batch *b, woutput *out)
{
    tokenize_ctx *c = ctx;
    (void)out;
    batch_ids *bi = b->user;
    size_t at = 0;
    for (int i = 0; i < b->n; i++) {
        if (b->docs[i].verdict == DOC_FAIL) continue;
        uint32_t n = bi->count[i];
        const uint32_t *ids = bi->ids.ids + at;
        if (c->sink->stats)
            shard_writer_add_counted(c->sink->writer, ids, n, c->sink->stats, b->file, b->docs[i].ordinal, c->bin_offset);
        else if (shard_writer_add_document(c->sink->writer, ids, n))
            dief(EXIT_FATAL, "%s: document %llu: %s", b->file, (unsigned long long)b->docs[i].ordinal,
                 shard_writer_error(c->sink->writer));
        c->bin_offset += 4 + 4 * (uint64_t)n;
        at += n;
    }
    release_batch_ids(b);
}

void tokenize_load(tokenizer *t, const tokenize_options *o, char sha256[65])
{
    const char *encoding = o->encoding, *vocab = o->vocab, *pattern = o->pattern;
    int family = -1;
    if (pattern) {
        static const char *const names[PRETOK_NFAMILIES] = {"gpt2", "cl100k", "o200k"};
        for (int f = 0; f < PRETOK_NFAMILIES; f++)
            if (!strcmp(pattern, names[f])) family = f;
        if (family < 0) dief(EXIT_USAGE, "--pattern must be gpt2, cl100k or o200k, not '%s'", pattern);
    }
    if (!encoding && !vocab) encoding = DEFAULT_ENCODING;
    const encoding_info *e = encoding ? encoding_find(encoding) : NULL;
    if (encoding && !e) dief(EXIT_USAGE, "unknown encoding '%s' (see winnow vocab list)", encoding);
    wbuf path = WBUF_INIT, err = WBUF_INIT;
    if (vocab) buf_puts(&path, vocab);
    else {
        vocab_cache_path(e, &path);
        FILE *f = fopen(path.data, "rb");
        if (!f)
            dief(EXIT_USAGE, "no vocabulary for %s in the cache (%s): run `winnow vocab fetch %s` or give --vocab",
                 e->name, path.data, encoding);
        fclose(f);
    }
    if (tokenizer_load(t, e ? e->name : NULL, path.data, family, &err)) dief(EXIT_USAGE, "%s", err.data);
    if (e) snprintf(sha256, 65, "%s", e->sha256); /* tokenizer_load checked the file against it */
    else if (vocab_file_sha256(path.data, sha256)) exit(EXIT_USAGE);
    buf_free(&path);
    buf_free(&err);
}

/* Whether every input is a regular file and together they hold fewer than
 * AUTO_GPU_MIN_BYTES: work a CUDA start-up (about 0.6-0.9 s) would not pay for. */
static bool inputs_small(const stage_opts *so)
{
    if (so->ninputs <= 0) return false; /* stdin: the size is unknown */
    uint64_t total = 0;
    for (int i = 0; i < so->ninputs; i++) {
        struct stat st;
        if (stat(so->inputs[i], &st) || !S_ISREG(st.st_mode)) return false;
        total += (uint64_t)st.st_size;
    }
    return total < AUTO_GPU_MIN_BYTES;
}

/* Sets c->gpu as --device asks: auto takes the GPU when one is usable and
 * the input is not known to be small, gpu exits 1 when none is.
 * --allow-special and tokenizer.json pipelines always run on the CPU. */
static void open_gpu(tokenize_ctx *c, const char *device, const stage_opts *so)
{
    bool automatic = !strcmp(device, "auto");
    if (!strcmp(device, "cpu") || (automatic && (c->allow_special || c->tok->hf || inputs_small(so)))) return;
    wbuf why = WBUF_INIT;
    if (c->allow_special) dief(EXIT_USAGE, "--device gpu does not take --allow-special (use --device cpu)");
    if (c->tok->hf) dief(EXIT_USAGE, "--device gpu: a tokenizer.json pipeline runs on the CPU (use --device cpu)");
    if (gpu_bpe_usable(&why)) c->gpu = gpu_bpe_open(c->tok, GPU_BPE_DEVICE, &why);
    if (!c->gpu && !strcmp(device, "gpu")) dief(EXIT_USAGE, "--device gpu: %s", why.data);
    pthread_mutex_init(&c->gpu_lock, NULL);
    buf_free(&why);
}

void tokenize_check(const tokenizer *t, const tokenize_options *o)
{
    if (o->eos && t->eos == VOCAB_NO_TOKEN) dief(EXIT_USAGE, "%s has no end-of-text token: use --no-eos", t->name);
    if (o->bos && t->bos == VOCAB_NO_TOKEN) dief(EXIT_USAGE, "%s has no begin-of-text token", t->name);
}

int tokenize_run(const tokenizer *t, const tokenize_options *o, const stage_opts *so, tokenize_format format,
                 const tokenize_shard_sink *sink)
{
    tokenize_ctx c = {.tok = t, .format = format, .allow_special = o->allow_special, .eos = o->eos, .bos = o->bos,
                      .sink = sink};
    c.workers = xcalloc((size_t)so->threads, sizeof *c.workers);
    open_gpu(&c, o->device, so);
    stage_ops ops = {
        .name = "tokenize",
        .ctx = &c,
        .map = tokenize_map,
        .emit = format == TOKENIZE_BIN ? tokenize_emit_bin : format == TOKENIZE_SHARDS ? tokenize_emit_shards : NULL,
    };
    stage_opts run_opts = *so;
    if (c.gpu) run_opts.batch_bytes = GPU_BATCH_BYTES;
    int rc = stage_run(&run_opts, &ops);
    for (int w = 0; w < so->threads; w++) {
        worker_state *ws = &c.workers[w];
        buf_free(&ws->text);
        buf_free(&ws->line);
        ids_free(&ws->ids);
        bpe_scratch_free(&ws->scratch);
        buf_free(&ws->batch_text);
        ids_free(&ws->batch_ids);
        free(ws->doc_end);
    }
    gpu_bpe_close(c.gpu);
    free(c.workers);
    return rc;
}
