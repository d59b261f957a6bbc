/* cmd_shards.c - `winnow shards inspect|verify|cat|export|bench DIR`. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/output.h"
#include "core/util.h"
#include "shards/shard_export.h"
#include "shards/shard_format.h"
#include "shards/shard_reader.h"
#include "shards/shard_verify.h"
#include "shards/vocab_hash.h"
#include "tokenize/encoding.h"
#include "tokenize/tokenizer.h"
#include "tokenize/vocab_cache.h"

static const char usage_text[] =
    "usage: winnow shards inspect DIR\n"
    "       winnow shards verify DIR\n"
    "       winnow shards cat DIR [--format ids|bin] [--strip] [--first N] [--count N] [-o FILE]\n"
    "       winnow shards cat DIR --decode [--vocab FILE] [--encoding NAME] [--first N] [--count N] [-o FILE]\n"
    "       winnow shards export --format megatron|llmc|datatrove [--shard-tokens N] [--val-tokens N] [--eot ID] DIR OUT\n"
    "       winnow shards bench DIR [--random N] [--seed S]\n\n"
    "  inspect   summary: tokenizer, dtype, special ids, counts, compression, per-shard table\n"
    "  verify    checks every checksum, seek table, frame and index; names the shard, frame\n"
    "            and offset of each problem; exit status 2 when there is any\n"
    "  cat       documents in order: --format ids (default) one line of space-separated ids\n"
    "            per document; bin the --format bin stream (u32 count, u32 ids) that\n"
    "            `winnow shard` reads; --strip leaves out the bos/eos the writer added;\n"
    "            --first N starts at document N, --count N stops after N documents;\n"
    "            --decode writes each document's text as a JSON line {\"text\":...} (without the\n"
    "            bos/eos the writer added), with the manifest's tokenizer from the vocabulary\n"
    "            cache, or --encoding NAME / --vocab FILE (its SHA-256 must match the manifest's);\n"
    "            a document holding an id no token has is left out, named on stderr (exit 2)\n"
    "  export    OUT is a path prefix: megatron writes OUT.bin + OUT.idx (no sequence for\n"
    "            an empty document, as preprocess_data.py --append-eod); llmc writes\n"
    "            OUT_val_000000.bin (the first --val-tokens N tokens, default one file; 0: none),\n"
    "            OUT_train_000001.bin, ... (--shard-tokens N per file, default 100M; uint16\n"
    "            version 1 or uint32 version 7; --eot ID before each document, default the\n"
    "            manifest's bos, else its eos); datatrove writes OUT.ds, OUT.ds.index,\n"
    "            OUT.ds.metadata. Formats that cannot hold the data are refused.\n"
    "  bench     sequential read throughput and random-document latency (--random N\n"
    "            documents, default 1000, --seed S)\n";

static shard_reader *open_or_die(const char *dir)
{
    char err[1024];
    shard_reader *r = shard_reader_open(dir, err, sizeof err);
    if (!r) dief(EXIT_FATAL, "%s", err);
    return r;
}

static int do_inspect(const char *dir)
{
    shard_reader *r = open_or_die(dir);
    const shard_manifest *m = shard_reader_manifest(r);
    uint64_t raw = m->tokens * (uint64_t)m->dtype_bytes;
    printf("directory    %s\n", dir);
    printf("format       %s version %d\n", SHARD_FORMAT_NAME, m->version);
    printf("tokenizer    %s (vocab size %" PRIu64 ", sha256 %s)\n", m->tokenizer[0] ? m->tokenizer : "(unnamed)",
           m->vocab_size, m->vocab_sha256 ? m->vocab_sha256 : "unknown");
    printf("dtype        %s\n", manifest_dtype_name(m->dtype_bytes));
    printf("special      eos ");
    if (m->eos >= 0) printf("%" PRId64 "%s", m->eos, m->eos_appended ? " (appended to each document)" : "");
    else printf("none");
    printf(", bos ");
    if (m->bos >= 0) printf("%" PRId64 "%s\n", m->bos, m->bos_prepended ? " (before each document)" : "");
    else printf("none\n");
    printf("shards       %u (target %" PRIu64 " tokens, %s)\n", m->nshards, m->shard_tokens,
           m->split_docs ? "documents split at shard ends" : "whole documents");
    printf("documents    %" PRIu64 "\n", m->documents);
    printf("tokens       %" PRIu64 " (%.1f per document)\n", m->tokens,
           m->documents ? (double)m->tokens / (double)m->documents : 0.0);
    char level[32];
    if (m->zstd_level == SHARD_LEVEL_TLZ) snprintf(level, sizeof level, "tlz");
    else snprintf(level, sizeof level, "zstd level %d", m->zstd_level);
    printf("compressed   %" PRIu64 " bytes, %.3f x smaller than the raw %s ids (%.2f bits per token; %s, %" PRIu64 "-byte frames)\n",
           m->compressed_bytes, m->compressed_bytes ? (double)raw / (double)m->compressed_bytes : 0.0,
           manifest_dtype_name(m->dtype_bytes), m->tokens ? 8.0 * (double)m->compressed_bytes / (double)m->tokens : 0.0,
           level, m->frame_bytes);
    printf("\n%-22s %12s %10s %12s %8s %s\n", "shard", "tokens", "documents", "bytes", "ratio", "xxh3_64");
    for (uint32_t i = 0; i < m->nshards; i++) {
        const manifest_shard *s = &m->shards[i];
        printf("%-22s %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %8.3f %016" PRIx64 "%s\n", s->file, s->tokens, s->documents,
               s->compressed_bytes, (double)(s->tokens * (uint64_t)m->dtype_bytes) / (double)s->compressed_bytes, s->xxh3,
               s->continues ? " (continues a document)" : "");
    }
    shard_reader_close(r);
    return EXIT_OK;
}

static int do_verify(const char *dir)
{
    shard_verify_result res;
    shard_verify_dir(dir, &res);
    if (res.problems) {
        fprintf(stderr, "%s: FAILED: %" PRIu64 " problem%s\n", dir, res.problems, res.problems == 1 ? "" : "s");
        return EXIT_FATAL;
    }
    printf("%s: OK: %u shards, %" PRIu64 " frames, %" PRIu64 " tokens, %" PRIu64 " documents verified\n", dir,
           res.shards, res.frames, res.tokens, res.documents);
    return EXIT_OK;
}

typedef struct {
    const char *format, *output, *eot, *val_tokens;
    const char *shard_tokens, *random, *seed;
    const char *first, *count;
    const char *vocab, *encoding;
    bool strip, decode;
} sub_opts;

/* Loads the tokenizer that wrote r's shards for --decode; exits 1 when it cannot. */
static void load_decoder(const shard_manifest *m, const sub_opts *so, tokenizer *t)
{
    const char *name = so->encoding ? so->encoding : m->tokenizer;
    const encoding_info *e = encoding_find(name);
    wbuf path = WBUF_INIT, err = WBUF_INIT;
    if (so->vocab) buf_puts(&path, so->vocab);
    else if (e) vocab_cache_path(e, &path);
    else dief(EXIT_USAGE, "--decode: the shards' tokenizer '%s' is not a known encoding: give --vocab FILE", name);
    if (tokenizer_load(t, e ? e->name : NULL, path.data, -1, &err)) dief(EXIT_USAGE, "--decode: %s", err.data);
    const char *refused = tokenizer_decode_refused(t);
    if (refused) dief(EXIT_USAGE, "--decode: %s: %s is not supported", path.data, refused);
    char sha[65];
    if (vocab_file_sha256(path.data, sha)) exit(EXIT_USAGE);
    if (m->vocab_sha256 && strcmp(sha, m->vocab_sha256) != 0)
        dief(EXIT_USAGE, "--decode: %s has SHA-256 %s, but the shards were written with vocabulary %s", path.data, sha,
             m->vocab_sha256);
    buf_free(&path);
    buf_free(&err);
}

static int do_cat(const char *dir, const sub_opts *so)
{
    bool bin = false;
    if (so->format && strcmp(so->format, "bin") == 0) bin = true;
    else if (so->format && strcmp(so->format, "ids") != 0) dief(EXIT_USAGE, "cat --format wants ids or bin, not '%s'", so->format);
    long long first = so->first ? parse_count(so->first) : 0, count = so->count ? parse_count(so->count) : -1;
    if (first < 0 || (so->count && count < 0)) dief(EXIT_USAGE, "--first and --count want counts");
    shard_reader *r = open_or_die(dir);
    const shard_manifest *m = shard_reader_manifest(r);
    tokenizer tok;
    if (so->decode) load_decoder(m, so, &tok);
    bool strip = so->strip || so->decode;
    size_t front = strip && m->bos_prepended ? 1 : 0, back = strip && m->eos_appended ? 1 : 0;
    woutput *out = output_open(so->output, 0);
    wbuf line = WBUF_INIT, text = WBUF_INIT;
    unsigned long long unknown = 0; /* --decode: documents left out */
    shard_doc_iter it;
    shard_iter_init(&it, (uint64_t)first);
    for (long long k = 0; (count < 0 || k < count) && shard_iter_next(r, &it); k++) {
        const uint32_t *ids = it.tokens.ids + front;
        size_t n = it.tokens.len - front - back;
        buf_clear(&line);
        if (so->decode) {
            size_t bad = tokenizer_first_unknown(&tok, ids, n);
            if (bad < n) { /* its text without that id would look whole: left out, and exit 2 */
                warnf("%s: document %" PRIu64 ": id %" PRIu32 " (id %zu of %zu) is not in the vocabulary; document left out",
                      dir, it.doc, ids[bad], bad + 1, n);
                unknown++;
                continue;
            }
            buf_clear(&text);
            tokenizer_decode(&tok, ids, n, &text);
            buf_puts(&line, "{\"text\":");
            json_put_string(&line, text.data ? text.data : "", text.len);
            buf_puts(&line, "}\n");
        } else if (bin) {
            uint8_t v[4];
            put_le32(v, (uint32_t)n);
            buf_append(&line, v, 4);
            for (size_t i = 0; i < n; i++) {
                put_le32(v, ids[i]);
                buf_append(&line, v, 4);
            }
        } else {
            for (size_t i = 0; i < n; i++) buf_printf(&line, i ? " %" PRIu32 : "%" PRIu32, ids[i]);
            buf_putc(&line, '\n');
        }
        output_write(out, line.data, line.len);
    }
    int status = EXIT_OK;
    if (it.failed) {
        warnf("%s", shard_reader_error(r));
        status = EXIT_FATAL;
    }
    if (unknown) {
        warnf("%s: %llu documents with ids not in the vocabulary left out", dir, unknown);
        status = EXIT_FATAL;
    }
    output_close(out);
    buf_free(&line);
    buf_free(&text);
    if (so->decode) tokenizer_free(&tok);
    shard_iter_free(&it);
    shard_reader_close(r);
    return status;
}

static int do_export(const char *dir, const char *out, const sub_opts *so)
{
    export_options eo;
    export_options_init(&eo);
    int f = so->format ? export_format_parse(so->format) : -1;
    if (f < 0) dief(EXIT_USAGE, "export wants --format megatron, llmc or datatrove");
    eo.format = (export_format)f;
    if (so->shard_tokens) {
        long long v = parse_count(so->shard_tokens);
        if (v < 1 || v > INT32_MAX) dief(EXIT_USAGE, "--shard-tokens wants 1..2147483647, not '%s'", so->shard_tokens);
        eo.llmc_shard_tokens = (uint64_t)v;
    }
    if (so->val_tokens) {
        long long v = parse_count(so->val_tokens);
        if (v < 0 || v > INT32_MAX) dief(EXIT_USAGE, "--val-tokens wants 0..2147483647, not '%s'", so->val_tokens);
        eo.llmc_val_tokens = v;
    }
    if (so->eot) {
        long long v = parse_count(so->eot);
        if (v < 0) dief(EXIT_USAGE, "--eot wants a token id, not '%s'", so->eot);
        eo.eot = v;
    }
    shard_reader *r = open_or_die(dir);
    int status = shard_export(r, out, &eo);
    shard_reader_close(r);
    return status;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* splitmix64: a fixed, seedable sequence of document numbers. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int do_bench(const char *dir, const sub_opts *so)
{
    long long nrandom = so->random ? parse_count(so->random) : 1000, seed = so->seed ? parse_count(so->seed) : 1;
    if (nrandom < 1 || seed < 0) dief(EXIT_USAGE, "--random and --seed want counts");
    shard_reader *r = open_or_die(dir);
    const shard_manifest *m = shard_reader_manifest(r);
    double t0 = now_seconds();
    shard_doc_iter it;
    shard_iter_init(&it, 0);
    uint64_t tokens = 0, sum = 0;
    while (shard_iter_next(r, &it)) {
        tokens += it.tokens.len;
        for (size_t i = 0; i < it.tokens.len; i++) sum += it.tokens.ids[i];
    }
    double seq = now_seconds() - t0;
    if (it.failed) dief(EXIT_FATAL, "%s", shard_reader_error(r));
    shard_iter_free(&it);
    uint64_t ndocs = shard_reader_documents(r);
    double *lat = xmalloc((size_t)nrandom * sizeof *lat);
    shard_tokens doc = {0};
    uint64_t state = (uint64_t)seed;
    for (long long i = 0; i < nrandom && ndocs; i++) {
        shard_reader_close(r); /* a cold reader each time: no frame cached */
        r = open_or_die(dir);
        uint64_t d = next_random(&state) % ndocs;
        double t = now_seconds();
        if (shard_reader_read_document(r, d, &doc)) dief(EXIT_FATAL, "%s", shard_reader_error(r));
        lat[i] = now_seconds() - t;
    }
    qsort(lat, (size_t)nrandom, sizeof *lat, cmp_double);
    double raw_mb = (double)(tokens * (uint64_t)m->dtype_bytes) / 1e6;
    printf("sequential read: %" PRIu64 " tokens in %.3f s: %.1f M tokens/s, %.1f MB/s of raw ids, %.1f MB/s of shard files (1 thread; checksum %" PRIu64 ")\n",
           tokens, seq, (double)tokens / seq / 1e6, raw_mb / seq, (double)m->compressed_bytes / 1e6 / seq, sum);
    if (ndocs)
        printf("random document (cold reader, %lld documents): median %.1f us, p99 %.1f us, max %.1f us\n", nrandom,
               lat[nrandom / 2] * 1e6, lat[(size_t)((double)nrandom * 0.99)] * 1e6, lat[nrandom - 1] * 1e6);
    free(lat);
    shard_tokens_free(&doc);
    shard_reader_close(r);
    return EXIT_OK;
}

enum { OPT_FORMAT = 0x1000, OPT_STRIP, OPT_FIRST, OPT_COUNT, OPT_SHARD_TOKENS, OPT_VAL_TOKENS, OPT_EOT, OPT_RANDOM, OPT_SEED,
       OPT_DECODE, OPT_VOCAB, OPT_ENCODING };

int cmd_shards(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"help", no_argument, 0, 'h'},
        {"output", required_argument, 0, 'o'},
        {"format", required_argument, 0, OPT_FORMAT},
        {"strip", no_argument, 0, OPT_STRIP},
        {"first", required_argument, 0, OPT_FIRST},
        {"count", required_argument, 0, OPT_COUNT},
        {"shard-tokens", required_argument, 0, OPT_SHARD_TOKENS},
        {"val-tokens", required_argument, 0, OPT_VAL_TOKENS},
        {"eot", required_argument, 0, OPT_EOT},
        {"random", required_argument, 0, OPT_RANDOM},
        {"seed", required_argument, 0, OPT_SEED},
        {"decode", no_argument, 0, OPT_DECODE},
        {"vocab", required_argument, 0, OPT_VOCAB},
        {"encoding", required_argument, 0, OPT_ENCODING},
        {0, 0, 0, 0}};
    sub_opts so = {0};
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': fputs(usage_text, stdout); return EXIT_OK;
        case 'o': so.output = optarg; break;
        case OPT_FORMAT: so.format = optarg; break;
        case OPT_STRIP: so.strip = true; break;
        case OPT_FIRST: so.first = optarg; break;
        case OPT_COUNT: so.count = optarg; break;
        case OPT_SHARD_TOKENS: so.shard_tokens = optarg; break;
        case OPT_VAL_TOKENS: so.val_tokens = optarg; break;
        case OPT_EOT: so.eot = optarg; break;
        case OPT_RANDOM: so.random = optarg; break;
        case OPT_SEED: so.seed = optarg; break;
        case OPT_DECODE: so.decode = true; break;
        case OPT_VOCAB: so.vocab = optarg; break;
        case OPT_ENCODING: so.encoding = optarg; break;
        default: fputs(usage_text, stderr); return EXIT_USAGE;
        }
    }
    int nargs = argc - optind;
    const char *action = nargs > 0 ? argv[optind] : NULL;
    if (action && strcmp(action, "inspect") == 0 && nargs == 2) return do_inspect(argv[optind + 1]);
    if (action && strcmp(action, "verify") == 0 && nargs == 2) return do_verify(argv[optind + 1]);
    if (action && strcmp(action, "cat") == 0 && nargs == 2) return do_cat(argv[optind + 1], &so);
    if (action && strcmp(action, "export") == 0 && nargs == 3) return do_export(argv[optind + 1], argv[optind + 2], &so);
    if (action && strcmp(action, "bench") == 0 && nargs == 2) return do_bench(argv[optind + 1], &so);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}
