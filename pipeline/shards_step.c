/* shards_step.c - tokenize -> shard writer, in this process. */
#include "pipeline/shards_step.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/stage.h"
#include "core/util.h"
#include "tokenize/tokenize_stage.h"

#define MESSAGE_MAX 512

/* The vocabulary pl_shards_check() loaded in this process (or a parent). */
static struct {
    bool loaded;
    tokenizer tok;
    char sha256[65]; /* tokenize_load's: the vocabulary file's SHA-256 */
} preloaded;

/* Loads p's vocabulary into preloaded (once). */
static void preload(const pl_plan *p)
{
    if (preloaded.loaded) return;
    tokenize_load(&preloaded.tok, &p->stages.tokenize, preloaded.sha256);
    preloaded.loaded = true;
}

/* What `winnow tokenize -o DIR` gives its writer, for what [shard] leaves
 * unset: the tokenizer's name, vocabulary size, SHA-256 and eos/bos ids.
 * The eos and bos go on in the writer, never in the tokenizer as well (so
 * the manifest records them, and a document never ends in two): [shard]'s
 * own eos or no-append-eos (and prepend-bos) decide where given, else
 * [tokenize]'s eos and bos settings (with the vocabulary's defaults). */
static void writer_from_tokenizer(shard_options *so, const tokenizer *tok, const char *vocab_sha256,
                                  tokenize_options *to)
{
    shard_writer_options *w = &so->writer;
    if (!w->vocab_size) w->vocab_size = tok->vocab.nids;
    if (!w->tokenizer_name) w->tokenizer_name = tok->name;
    if (!w->vocab_sha256 && !so->vocab_file) w->vocab_sha256 = vocab_sha256;
    bool eos_given = w->eos_id >= 0;
    if (!eos_given && tok->eos != VOCAB_NO_TOKEN) w->eos_id = tok->eos;
    if (w->bos_id < 0 && tok->bos != VOCAB_NO_TOKEN) w->bos_id = tok->bos;
    if (!eos_given && !so->no_append_eos) w->append_eos = to->eos && w->eos_id >= 0;
    if (!w->prepend_bos) w->prepend_bos = to->bos && w->bos_id >= 0;
    to->eos = to->bos = false;
}

/* The tokenize and shard writer options of p's shards step for tokenizer
 * tok (its vocabulary file's SHA-256 vocab_sha256). Returns 0, or
 * EXIT_USAGE after saying what [shard] gets wrong. */
static int step_options(const pl_plan *p, const tokenizer *tok, const char *vocab_sha256, tokenize_options *to,
                        shard_options *so)
{
    *to = p->stages.tokenize; /* with the vocabulary's own --eos/--bos defaults */
    tokenize_options_defaults(to, tok->eos_default, tok->bos_default);
    tokenize_check(tok, to);
    *so = p->stages.shard;
    writer_from_tokenizer(so, tok, vocab_sha256, to);
    char err[MESSAGE_MAX];
    if (shard_options_finish(so, err, sizeof err) != 0) {
        warnf("[shard] %s", err);
        return EXIT_USAGE;
    }
    return shard_writer_options_valid(&so->writer) ? 0 : EXIT_USAGE;
}

int pl_shards_check(const pl_plan *p)
{
    preload(p);
    tokenize_options to;
    shard_options so;
    return step_options(p, &preloaded.tok, preloaded.sha256, &to, &so);
}

int pl_shards_run(const pl_shards_work *work)
{
    const pl_plan *p = work->p;
    tokenizer tok;
    char own_sha256[65];
    bool own = !preloaded.loaded; /* a preloaded one is shared with the other ranks: never freed here */
    if (own) tokenize_load(&tok, &p->stages.tokenize, own_sha256);
    else tok = preloaded.tok;
    tokenize_options to;
    shard_options so;
    if (step_options(p, &tok, own ? own_sha256 : preloaded.sha256, &to, &so) != 0) {
        if (own) tokenizer_free(&tok);
        return EXIT_USAGE;
    }
    so.writer.threads = work->threads;
    shard_writer *writer = shard_writer_open(work->dir, &so.writer);
    if (!writer) {
        if (own) tokenizer_free(&tok);
        return EXIT_FATAL;
    }

    wstats tokenize_stats, shard_stats;
    stats_init(&tokenize_stats);
    stats_init(&shard_stats);
    stage_opts o;
    stage_opts_init_quiet(&o, work->threads, work->inputs, work->ninputs);
    o.counts = &tokenize_stats;
    tokenize_shard_sink sink = {writer, &shard_stats};
    int rc = tokenize_run(&tok, &to, &o, TOKENIZE_SHARDS, &sink);
    tokenize_stats.bytes_out = shard_stats.bytes_in; /* the --format bin stream it stands for */
    stats_set(&shard_stats, "tokens", (double)shard_writer_tokens(writer));
    double shard_cpu = shard_writer_cpu_seconds(writer), before_close = process_cpu_seconds();
    if (rc == 0) shard_writer_close(writer);
    else shard_writer_abort(writer); /* no manifest: the step is not done */
    double total = process_cpu_seconds();
    shard_cpu += total - before_close;
    stats_write_json_timed(&tokenize_stats, "tokenize", work->tokenize_stats, total - shard_cpu);
    stats_write_json_timed(&shard_stats, "shard", work->shard_stats, shard_cpu);
    stats_free(&tokenize_stats);
    stats_free(&shard_stats);
    if (own) tokenizer_free(&tok);
    return rc;
}
