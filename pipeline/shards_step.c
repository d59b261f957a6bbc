/* shards_step.c - tokenize -> shard writer, in this process. */
#include "pipeline/shards_step.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/stage.h"
#include "core/util.h"
#include "tokenize/tokenize_stage.h"

#define MESSAGE_MAX 512

/* The vocabulary pl_shards_preload() loaded in this process (or a parent). */
static struct {
    bool loaded;
    tokenizer tok;
    char sha256[65]; /* tokenize_load's, unused: see pl_shards_run */
} preloaded;

void pl_shards_preload(const pl_plan *p)
{
    if (preloaded.loaded) return;
    tokenize_load(&preloaded.tok, &p->stages.tokenize, preloaded.sha256);
    preloaded.loaded = true;
}

int pl_shards_run(const pl_shards_work *work)
{
    const pl_plan *p = work->p;
    tokenizer tok;
    char vocab_sha256[65], err[MESSAGE_MAX]; /* tokenize_load's; the manifest's comes from [shard] */
    tokenize_options to = p->stages.tokenize; /* with the vocabulary's own --eos/--bos defaults */
    bool own = !preloaded.loaded; /* a preloaded one is shared with the other ranks: never freed here */
    if (own) tokenize_load(&tok, &to, vocab_sha256);
    else tok = preloaded.tok;
    tokenize_options_defaults(&to, tok.eos_default, tok.bos_default);
    tokenize_check(&tok, &to);
    shard_options so = p->stages.shard;
    if (shard_options_finish(&so, err, sizeof err) != 0) {
        warnf("[shard] %s", err);
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
