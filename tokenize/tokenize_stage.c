/* tokenize_stage.c - the tokenize stage: documents in, token ids out. */
#include "tokenize/tokenize_stage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/output.h"
#include "core/util.h"
#include "gpu/bpe.h"
#include "shards/vocab_hash.h"
#include "tokenize/hf_gpu.h"
#include "tokenize/token_format.h"
#include "tokenize/tokenize_blocks.h"
#include "tokenize/vocab_cache.h"

#define DEFAULT_ENCODING "cl100k_base"
/* --device auto keeps to the CPU for input files smaller than this in all
 * (bytes on disk). Measured on the 16-core H100 machine (2026-11-26,
 * bench/results/gpu-tokenize-path-2026-11-26.md): the GPU path costs about
 * 0.4 s of CUDA start-up (the CPU encodes meanwhile) and 0.3 s of CUDA
 * teardown at exit, so it loses to the CPU at 607 MB of JSONL (1.10 s
 * against 0.84 s) and wins at 946 MB (1.13-1.49 s against 1.44 s). */
#define AUTO_GPU_MIN_BYTES ((uint64_t)1 << 30)
/* Environment variable for tests: "cpu" or "emulate" runs the block path
 * (tokenize_blocks.h) with the CPU encoder or the emulated GPU code. */
#define BLOCKS_TEST_ENV "WINNOW_TOKENIZE_BLOCKS"
#define IDS_PER_TEXT_BYTE_BOUND 2 /* bytes of text per id reserved up front (ids grow beyond if needed) */

typedef struct {
    wbuf text, line;
    tok_ids ids;
    bpe_scratch scratch;
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
} tokenize_ctx;

/* Appends one document's ids to ids with BOS/EOS as asked; 0, or
 * tokenizer_encode's error (the ids appended are then incomplete). */
static int encode_doc(tokenize_ctx *c, worker_state *ws, const stage_doc *d, tok_ids *ids)
{
    size_t len;
    buf_clear(&ws->text);
    const char *text = json_string(&d->json.text, &ws->text, &len);
    if (c->bos) ids_push(ids, c->tok->bos);
    int rc = tokenizer_encode(c->tok, text, len, c->allow_special, &ws->scratch, ids);
    if (c->eos) ids_push(ids, c->tok->eos);
    return rc;
}

/* Document i of b, which tokenizer_encode refused with error code: reported and failed. */
static void fail_doc(const tokenize_ctx *c, worker_state *ws, stage_batch *b, int i, int code)
{
    stage_doc *d = &b->docs[i];
    buf_clear(&ws->line);
    tokenizer_encode_error(code, &ws->line);
    warnf("%s: %s %llu: a regex of %s could not finish on the document's text (%s); document skipped", b->file,
          b->unit, (unsigned long long)d->lineno, c->tok->name, ws->line.data);
    d->verdict = DOC_FAIL;
    d->reason = TOKENIZER_REGEX_FAILURE;
}

/* The line with ,"tokens":[...] added as its last member. */
static void rewrite_with_tokens(const stage_doc *d, const tok_ids *ids, wbuf *line)
{
    buf_clear(line);
    token_format_jsonl(line, d->line, d->json.close_brace, TOKEN_FORMAT_NONE, ids->ids, ids->n, TOKEN_FORMAT_NONE);
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
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        tok_ids *ids = bi ? &bi->ids : &ws->ids; /* bin and shards: straight into the batch's ids */
        size_t first = bi ? bi->ids.n : 0;
        ws->ids.n = 0;
        int rc = encode_doc(c, ws, d, ids);
        if (rc) {
            ids->n = first; /* none of its ids stay */
            fail_doc(c, ws, b, i, rc);
            continue;
        }
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

/* --format shards: each document's ids to the shard writer, in input order
 * (lent to it until the batch's ids are released). */
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
        if (c->sink->stats) shard_writer_add_borrowed_counted(c->sink->writer, ids, n, c->sink->stats);
        else shard_writer_add_borrowed(c->sink->writer, ids, n);
        at += n;
    }
    shard_writer_release(c->sink->writer);
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

bool tokenize_inputs_sized(const stage_opts *so, uint64_t *total)
{
    *total = 0;
    for (int i = 0; i < so->ninputs; i++) {
        struct stat st;
        if (!strcmp(so->inputs[i], "-") || stat(so->inputs[i], &st) || !S_ISREG(st.st_mode)) return false;
        *total += (uint64_t)st.st_size;
    }
    return true;
}

/* Whether the block path (tokenize_blocks.h) runs, and with which encoder:
 * --device gpu, and auto when a GPU is usable and the input is not known to
 * be small (input of unknown size starts on the CPU and takes the GPU once
 * TB_STREAM_GPU_BYTES have come); BLOCKS_TEST_ENV (tests) forces it with a
 * GPU-less encoder.
 * --device gpu exits 1 when no GPU is usable (the block path finds out
 * while it encodes the first blocks, and refuses before any output); --allow-special always runs
 * on the CPU engine path (special tokens are split out before
 * pre-tokenisation). A tokenizer.json goes to the GPU only when the device
 * encodes every stage of its pipeline exactly (tokenize/hf_gpu.h); others,
 * and SentencePiece models (encoded by libsentencepiece), run on the CPU,
 * with a note under --device gpu. */
static bool choose_blocks(const tokenizer *t, const tokenize_options *o, const stage_opts *so, tb_encoder *enc)
{
    const char *test = getenv(BLOCKS_TEST_ENV);
    wbuf hf_why = WBUF_INIT;
    hf_gpu_plan plan;
    bool gpu_encodes = !t->sp && (!t->hf || hf_gpu_plan_of(t->hf, &t->vocab, &plan, &hf_why));
    if (t->sp) buf_puts(&hf_why, "a SentencePiece model (libsentencepiece encodes it)");
    if (test && *test && !o->allow_special && gpu_encodes) {
        buf_free(&hf_why);
        if (!strcmp(test, "cpu")) *enc = TB_ENCODE_CPU;
        else if (!strcmp(test, "emulate")) *enc = TB_ENCODE_EMULATE;
        else dief(EXIT_USAGE, "%s must be cpu or emulate, not '%s'", BLOCKS_TEST_ENV, test);
        return true;
    }
    bool automatic = !strcmp(o->device, "auto");
    uint64_t total;
    bool sized = tokenize_inputs_sized(so, &total);
    bool cpu = !strcmp(o->device, "cpu") ||
               (automatic && (o->allow_special || !gpu_encodes || (sized && total < AUTO_GPU_MIN_BYTES)));
    if (!cpu && o->allow_special) dief(EXIT_USAGE, "--device gpu does not take --allow-special (use --device cpu)");
    if (!cpu && !gpu_encodes) {
        warnf("--device gpu: %s: %s; encoding on the CPU", t->name, hf_why.data);
        cpu = true;
    }
    buf_free(&hf_why);
    if (cpu) return false;
    if (automatic && !sized) { /* no CUDA call yet: a short stream never starts the driver */
        *enc = TB_ENCODE_GPU_LATER;
        return gpu_bpe_maybe_present();
    }
    *enc = TB_ENCODE_GPU;
    if (!automatic) return true; /* the block path checks the GPU on its own thread while the CPU encodes */
    wbuf why = WBUF_INIT;
    bool usable = gpu_bpe_usable(&why);
    buf_free(&why);
    return usable;
}

void tokenize_check(const tokenizer *t, const tokenize_options *o)
{
    if (o->eos && t->eos == VOCAB_NO_TOKEN) dief(EXIT_USAGE, "%s has no end-of-text token: use --no-eos", t->name);
    if (o->bos && t->bos == VOCAB_NO_TOKEN) dief(EXIT_USAGE, "%s has no begin-of-text token", t->name);
}

int tokenize_run(const tokenizer *t, const tokenize_options *o, const stage_opts *so, tokenize_format format,
                 const tokenize_shard_sink *sink)
{
    tb_encoder enc;
    if (choose_blocks(t, o, so, &enc)) return tokenize_blocks_run(t, o, so, format, sink, enc);
    tokenize_ctx c = {.tok = t, .format = format, .allow_special = o->allow_special, .eos = o->eos, .bos = o->bos,
                      .sink = sink};
    c.workers = xcalloc((size_t)so->threads, sizeof *c.workers);
    stage_ops ops = {
        .name = "tokenize",
        .ctx = &c,
        .map = tokenize_map,
        .emit = format == TOKENIZE_BIN ? tokenize_emit_bin : format == TOKENIZE_SHARDS ? tokenize_emit_shards : NULL,
    };
    int rc = stage_run(so, &ops);
    for (int w = 0; w < so->threads; w++) {
        worker_state *ws = &c.workers[w];
        buf_free(&ws->text);
        buf_free(&ws->line);
        ids_free(&ws->ids);
        bpe_scratch_free(&ws->scratch);
    }
    free(c.workers);
    return rc;
}
