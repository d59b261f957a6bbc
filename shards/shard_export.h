/* shard_export.h - a shard directory in the formats existing trainers load.
 *
 * OUT is a path prefix:
 *   megatron   OUT.bin + OUT.idx, Megatron-LM's indexed dataset ("MMIDIDX"
 *              version 1): one sequence per document, tokens as stored
 *              (uint16, dtype code 8; or int32, code 4).
 *   llmc       OUT_000000.bin, OUT_000001.bin, ...: llm.c token shards, an
 *              int32 header[256] = {20240520, 1, ntok, 0...} then ntok uint16
 *              tokens; every document preceded by one EOT token (the bos/eos
 *              the writer added are left out); shards of exactly shard_tokens
 *              tokens (the last holds the rest), documents cut where a shard ends.
 *   datatrove  OUT.ds (tokens as stored, uint16 or uint32), OUT.ds.index
 *              (uint64 end offset of each document, in tokens) and
 *              OUT.ds.metadata (tokenizer name, then token count), the layout
 *              datatrove's DocumentTokenizer writes and its readers load. */
#ifndef WINNOW_SHARD_EXPORT_H
#define WINNOW_SHARD_EXPORT_H

#include <stdint.h>

#include "shards/shard_reader.h"

typedef enum { EXPORT_MEGATRON, EXPORT_LLMC, EXPORT_DATATROVE } export_format;

typedef struct {
    export_format format;
    uint64_t llmc_shard_tokens; /* default 100M */
    int64_t eot;                /* llm.c EOT id; -1: the manifest's eos */
} export_options;

#define LLMC_MAGIC 20240520
#define LLMC_VERSION 1
#define LLMC_HEADER_INTS 256
#define LLMC_DEFAULT_SHARD_TOKENS 100000000ull

/* Parses "megatron", "llmc" or "datatrove"; -1 when it is none of them. */
int export_format_parse(const char *name);

/* Writes r's documents to out in o->format; every file written atomically.
 * Returns 0, EXIT_USAGE (with a message) when the format cannot hold the data,
 * or EXIT_FATAL when reading the shards fails. */
int shard_export(shard_reader *r, const char *out, const export_options *o);

#endif
