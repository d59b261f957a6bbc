/* tokenize_stage.h - the tokenize stage as a library: a tokenizer loaded
 * from tokenize_options, run over a document stream (core/stage.h) writing
 * JSON lines with tokens, the --format bin stream, or each document's ids
 * to a shard writer. `winnow tokenize` and the shards step of a pipeline
 * both run it. */
#ifndef WINNOW_TOKENIZE_STAGE_H
#define WINNOW_TOKENIZE_STAGE_H

#include "core/stage.h"
#include "core/stats.h"
#include "shards/shard_writer.h"
#include "tokenize/tokenize_options.h"
#include "tokenize/tokenizer.h"

typedef enum { TOKENIZE_JSONL, TOKENIZE_BIN, TOKENIZE_SHARDS } tokenize_format;

/* Where the ids go with TOKENIZE_SHARDS. */
typedef struct {
    shard_writer *writer;
    wstats *stats; /* counted as `winnow shard` counts (in, bytes_in, out), or NULL; the ids are the
                    * tokenizer's, below its vocabulary size: one that is not is fatal (shard_writer_add_borrowed) */
} tokenize_shard_sink;

/* Loads the tokenizer o names (--encoding, --vocab, --pattern) into t and
 * the vocabulary file's SHA-256 into sha256; exits with status 1 when it cannot. */
void tokenize_load(tokenizer *t, const tokenize_options *o, char sha256[65]);

/* Exits with status 1 when o asks for an end- or begin-of-text token t has not. */
void tokenize_check(const tokenizer *t, const tokenize_options *o);

/* Runs the stage over so's inputs with t as o asks (--eos, --bos,
 * --allow-special, --device). With TOKENIZE_SHARDS the ids go to sink, in
 * input order. Returns the stage's exit status. */
int tokenize_run(const tokenizer *t, const tokenize_options *o, const stage_opts *so, tokenize_format format,
                 const tokenize_shard_sink *sink);

/* Whether every input of so is a regular file (not stdin, a pipe or a
 * device), with their bytes on disk in *total. */
bool tokenize_inputs_sized(const stage_opts *so, uint64_t *total);

#endif
