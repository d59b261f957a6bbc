/* cmd_tokenize.c - `winnow tokenize`: the document stream to token ids. */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/input.h"
#include "core/output.h"
#include "core/stage.h"
#include "core/util.h"
#include "shards/shard_writer.h"
#include "shards/vocab_hash.h"
#include "gpu/bpe.h"
#include "tokenize/tokenizer.h"
#include "tokenize/vocab_cache.h"

#define DEFAULT_ENCODING "cl100k_base"
#define U32_DIGITS 10
#define IDS_PER_TEXT_BYTE_BOUND 2 /* bytes of text per id reserved up front (ids grow beyond if needed) */

typedef enum { FORMAT_JSONL, FORMAT_BIN, FORMAT_SHARDS } out_format;

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
    tokenizer tok;
    out_format format;
    bool allow_special, eos, bos;
    worker_state *workers;
    shard_writer *shards; /* --format shards */
    gpu_bpe *gpu; /* NULL: the CPU path */
    pthread_mutex_t gpu_lock;
} tokenize_ctx;

enum { OPT_ENCODING = OPT_STAGE_FIRST_FREE, OPT_VOCAB, OPT_PATTERN, OPT_FORMAT, OPT_ALLOW_SPECIAL, OPT_EOS,
       OPT_NO_EOS, OPT_BOS, OPT_NO_BOS, OPT_DECODE, OPT_IDS, OPT_SHARD_TOKENS, OPT_SPLIT_DOCS, OPT_DEVICE };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: winnow tokenize [options] [files...]\n"
            "Adds token ids to each document: byte-exact with tiktoken (and Meta's Llama 3 tokenizer).\n\n"
            "  --encoding NAME     gpt2 (= r50k_base), p50k_base, p50k_edit, cl100k_base, o200k_base,\n"
            "                      llama3; its vocabulary comes from the cache (winnow vocab fetch NAME)\n"
            "                      or from --vocab (default: " DEFAULT_ENCODING ")\n"
            "  --vocab FILE        load the vocabulary from FILE: a .tiktoken file, Llama 3's\n"
            "                      tokenizer.model, or a Hugging Face tokenizer.json (byte-level BPE).\n"
            "                      With --encoding, FILE must be that encoding's (sha256 checked)\n"
            "  --pattern FAMILY    pre-tokeniser for a .tiktoken file given without --encoding:\n"
            "                      gpt2, cl100k or o200k\n"
            "  --format F          jsonl: each document line with a \"tokens\" array added (default)\n"
            "                      bin: per document a u32 LE count, then that many u32 LE ids\n"
            "                      shards: a shard directory at -o DIR (docs/shards.md); the default\n"
            "                      when -o names a directory or ends in '/'\n"
            "  --shard-tokens N    shards: tokens per shard, k/M/G suffixes (default: 100M)\n"
            "  --split-docs        shards: cut shards at exactly N tokens, splitting documents\n"
            "  --allow-special     special-token strings in the text become their ids (default:\n"
            "                      they are ordinary text, as tiktoken's encode_ordinary)\n"
            "  --eos, --no-eos     append the end-of-text token to each document (default: on)\n"
            "  --bos, --no-bos     put the begin-of-text token first (llama3: <|begin_of_text|>,\n"
            "                      others: <|endoftext|>; default: off)\n"
            "  --decode            read --format bin streams and write each document's text back as\n"
            "                      a JSON line {\"text\":...} (special tokens appear as their names)\n"
            "  --ids LIST          with --decode: write the text of these ids (\"15339,1917\") as raw\n"
            "                      bytes instead of reading streams\n"
            "  --device D          auto: the GPU when one is usable, else the CPU (default);\n"
            "                      cpu; gpu: fail when no GPU is usable. Same ids on both\n"
            "                      (--allow-special always runs on the CPU)\n\n");
    fputs(STAGE_COMMON_HELP, f);
}

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
    if (c->bos) ids_push(ids, c->tok.bos);
    tokenizer_encode(&c->tok, text, len, c->allow_special, &ws->scratch, ids);
    if (c->eos) ids_push(ids, c->tok.eos);
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
    if (c->bos) ids_push(ids, c->tok.bos);
    for (size_t k = from; k < ws->doc_end[i]; k++) ids_push(ids, ws->batch_ids.ids[k]);
    if (c->eos) ids_push(ids, c->tok.eos);
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
    if (c->format != FORMAT_JSONL) {
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
    ids_free(&bi->ids);
    free(bi->count);
    free(bi);
    b->user = NULL;
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
        if (shard_writer_add_document(c->shards, bi->ids.ids + at, n))
            dief(EXIT_FATAL, "%s: document %llu: %s", b->file, (unsigned long long)b->docs[i].ordinal,
                 shard_writer_error(c->shards));
        at += n;
    }
    ids_free(&bi->ids);
    free(bi->count);
    free(bi);
    b->user = NULL;
}

/* True when -o names a directory: an existing one, or a path ending in '/'. */
static bool output_is_dir(const char *path)
{
    struct stat st;
    if (!path || !strcmp(path, "-")) return false;
    return path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* --decode: bin streams back to JSON lines of text. */
static int decode_streams(const tokenizer *t, const stage_opts *o)
{
    woutput *out = output_open(o->output, o->zstd_level);
    int status = EXIT_OK, nin = o->ninputs ? o->ninputs : 1;
    tok_ids ids = {0};
    wbuf text = WBUF_INIT, line = WBUF_INIT;
    for (int f = 0; f < nin; f++) {
        const char *path = o->ninputs ? o->inputs[f] : "-";
        winput *in = input_open(path);
        if (!in) {
            status = EXIT_FATAL;
            continue;
        }
        uint32_t n;
        for (uint64_t doc = 0;; doc++) {
            uint64_t at = input_offset(in);
            size_t got = input_read(in, &n, sizeof n);
            if (got == 0) break;
            ids.n = 0;
            while (got == sizeof n && ids.n < n) {
                uint32_t id;
                if (input_read(in, &id, sizeof id) != sizeof id) break;
                ids_push(&ids, id);
            }
            if (got != sizeof n || ids.n != n) {
                warnf("%s: document %llu at offset %llu: stream ends inside the document", input_name(in),
                      (unsigned long long)doc, (unsigned long long)at);
                status = EXIT_FATAL;
                break;
            }
            buf_clear(&text);
            size_t unknown = tokenizer_decode(t, ids.ids, ids.n, &text);
            if (unknown)
                warnf("%s: document %llu at offset %llu: %zu ids not in the vocabulary, skipped", input_name(in),
                      (unsigned long long)doc, (unsigned long long)at, unknown);
            buf_clear(&line);
            buf_puts(&line, "{\"text\":");
            json_put_string(&line, text.data ? text.data : "", text.len);
            buf_puts(&line, "}\n");
            output_write(out, line.data, line.len);
        }
        input_close(in);
    }
    output_close(out);
    ids_free(&ids);
    buf_free(&text);
    buf_free(&line);
    return status;
}

/* --decode --ids LIST: the raw text of the ids in LIST on stdout. */
static int decode_id_list(const tokenizer *t, const char *list)
{
    tok_ids ids = {0};
    wbuf text = WBUF_INIT;
    for (const char *p = list; *p;) {
        char *end;
        unsigned long long id = strtoull(p, &end, 10);
        if (end == p || id > VOCAB_MAX_ID) dief(EXIT_USAGE, "--ids: not a list of token ids: '%s'", list);
        ids_push(&ids, (uint32_t)id);
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    size_t unknown = tokenizer_decode(t, ids.ids, ids.n, &text);
    if (unknown) warnf("--ids: %zu ids not in the vocabulary, skipped", unknown);
    fwrite(text.data ? text.data : "", 1, text.len, stdout);
    ids_free(&ids);
    buf_free(&text);
    return unknown ? EXIT_FATAL : EXIT_OK;
}

/* Loads the tokenizer the options name; exits 1 when it cannot. Sets the
 * vocabulary file's SHA-256 in sha256 (65 bytes). */
static void load_tokenizer(tokenizer *t, const char *encoding, const char *vocab, const char *pattern, char *sha256)
{
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

/* Sets c->gpu as --device asks: auto takes the GPU when one is usable,
 * gpu exits 1 when none is. --allow-special always runs on the CPU. */
static void open_gpu(tokenize_ctx *c, const char *device)
{
    if (!strcmp(device, "cpu") || (c->allow_special && !strcmp(device, "auto"))) return;
    wbuf why = WBUF_INIT;
    if (c->allow_special) dief(EXIT_USAGE, "--device gpu does not take --allow-special (use --device cpu)");
    if (gpu_bpe_usable(&why)) c->gpu = gpu_bpe_open(&c->tok, GPU_BPE_DEVICE, &why);
    if (!c->gpu && !strcmp(device, "gpu")) dief(EXIT_USAGE, "--device gpu: %s", why.data);
    pthread_mutex_init(&c->gpu_lock, NULL);
    buf_free(&why);
}

int cmd_tokenize(int argc, char **argv)
{
    static const struct option longopts[] = {
        STAGE_COMMON_LONGOPTS,
        {"encoding", required_argument, 0, OPT_ENCODING},
        {"vocab", required_argument, 0, OPT_VOCAB},
        {"pattern", required_argument, 0, OPT_PATTERN},
        {"format", required_argument, 0, OPT_FORMAT},
        {"allow-special", no_argument, 0, OPT_ALLOW_SPECIAL},
        {"eos", no_argument, 0, OPT_EOS},
        {"no-eos", no_argument, 0, OPT_NO_EOS},
        {"bos", no_argument, 0, OPT_BOS},
        {"no-bos", no_argument, 0, OPT_NO_BOS},
        {"decode", no_argument, 0, OPT_DECODE},
        {"ids", required_argument, 0, OPT_IDS},
        {"shard-tokens", required_argument, 0, OPT_SHARD_TOKENS},
        {"split-docs", no_argument, 0, OPT_SPLIT_DOCS},
        {"device", required_argument, 0, OPT_DEVICE},
        {0, 0, 0, 0},
    };
    stage_opts o;
    stage_opts_init(&o);
    tokenize_ctx c = {.format = FORMAT_JSONL, .eos = true};
    const char *encoding = NULL, *vocab = NULL, *pattern = NULL, *id_list = NULL;
    bool decode = false, format_given = false;
    shard_writer_options wo;
    shard_writer_options_init(&wo);
    const char *device = "auto";
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': usage(stdout); return EXIT_OK;
        case OPT_ENCODING: encoding = optarg; break;
        case OPT_VOCAB: vocab = optarg; break;
        case OPT_PATTERN: pattern = optarg; break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "jsonl")) c.format = FORMAT_JSONL;
            else if (!strcmp(optarg, "bin")) c.format = FORMAT_BIN;
            else if (!strcmp(optarg, "shards")) c.format = FORMAT_SHARDS;
            else {
                fprintf(stderr, "winnow tokenize: --format must be jsonl, bin or shards\n\n");
                usage(stderr);
                return EXIT_USAGE;
            }
            format_given = true;
            break;
        case OPT_SHARD_TOKENS: {
            long long v = parse_count(optarg);
            if (v < 1) dief(EXIT_USAGE, "--shard-tokens wants a positive count, not '%s'", optarg);
            wo.shard_tokens = (uint64_t)v;
            break;
        }
        case OPT_SPLIT_DOCS: wo.split_docs = true; break;
        case OPT_ALLOW_SPECIAL: c.allow_special = true; break;
        case OPT_EOS: c.eos = true; break;
        case OPT_NO_EOS: c.eos = false; break;
        case OPT_BOS: c.bos = true; break;
        case OPT_NO_BOS: c.bos = false; break;
        case OPT_DECODE: decode = true; break;
        case OPT_IDS: id_list = optarg; break;
        case OPT_DEVICE:
            if (strcmp(optarg, "auto") && strcmp(optarg, "cpu") && strcmp(optarg, "gpu")) {
                fprintf(stderr, "winnow tokenize: --device must be auto, cpu or gpu\n\n");
                usage(stderr);
                return EXIT_USAGE;
            }
            device = optarg;
            break;
        default:
            if (!stage_parse_common(&o, opt, optarg)) {
                usage(stderr);
                return EXIT_USAGE;
            }
        }
    }
    stage_take_inputs(&o, argc, argv);
    if (id_list && !decode) dief(EXIT_USAGE, "--ids goes with --decode");
    char sha256[65];
    load_tokenizer(&c.tok, encoding, vocab, pattern, sha256);
    if (decode) {
        int rc = id_list ? decode_id_list(&c.tok, id_list) : decode_streams(&c.tok, &o);
        tokenizer_free(&c.tok);
        return rc;
    }
    if (c.eos && c.tok.eos == VOCAB_NO_TOKEN)
        dief(EXIT_USAGE, "%s has no end-of-text token: use --no-eos", c.tok.name);
    if (c.bos && c.tok.bos == VOCAB_NO_TOKEN) dief(EXIT_USAGE, "%s has no begin-of-text token", c.tok.name);
    if (!format_given && output_is_dir(o.output)) c.format = FORMAT_SHARDS;
    if (c.format == FORMAT_SHARDS) { /* the writer adds bos/eos and records that it did */
        if (!o.output || !strcmp(o.output, "-")) dief(EXIT_USAGE, "--format shards needs -o DIR");
        wo.tokenizer_name = c.tok.name;
        wo.vocab_sha256 = sha256;
        wo.vocab_size = c.tok.vocab.nids;
        wo.eos_id = c.tok.eos == VOCAB_NO_TOKEN ? -1 : (int64_t)c.tok.eos;
        wo.bos_id = c.tok.bos == VOCAB_NO_TOKEN ? -1 : (int64_t)c.tok.bos;
        wo.append_eos = c.eos;
        wo.prepend_bos = c.bos;
        wo.threads = o.threads;
        c.eos = c.bos = false;
        if (!(c.shards = shard_writer_open(o.output, &wo))) return EXIT_USAGE;
        o.output = NULL; /* the engine's own output stays empty */
    }
    c.workers = xcalloc((size_t)o.threads, sizeof *c.workers);
    open_gpu(&c, device);
    stage_ops ops = {
        .name = "tokenize",
        .ctx = &c,
        .map = tokenize_map,
        .emit = c.format == FORMAT_BIN ? tokenize_emit_bin : c.format == FORMAT_SHARDS ? tokenize_emit_shards : NULL,
    };
    int rc = stage_run(&o, &ops);
    if (c.shards) shard_writer_close(c.shards);
    for (int w = 0; w < o.threads; w++) {
        buf_free(&c.workers[w].text);
        buf_free(&c.workers[w].line);
        ids_free(&c.workers[w].ids);
        bpe_scratch_free(&c.workers[w].scratch);
        buf_free(&c.workers[w].batch_text);
        ids_free(&c.workers[w].batch_ids);
        free(c.workers[w].doc_end);
    }
    gpu_bpe_close(c.gpu);
    free(c.workers);
    tokenizer_free(&c.tok);
    return rc;
}
