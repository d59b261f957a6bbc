/* shard_export.h - a shard directory in the formats existing trainers load,
 * each as that trainer's own writer makes it (docs/shards.md, Exports).
 *
 * OUT is a path prefix:
 *   megatron   OUT.bin + OUT.idx: Megatron-LM's indexed dataset as
 *              tools/preprocess_data.py --append-eod writes it through
 *              IndexedDatasetBuilder.add_document: one sequence per non-empty
 *              document (its tokens, then the EOS the writer appended), none for
 *              an empty one; uint16 below 65500 ids (DType.optimal_dtype), else int32.
 *   llmc       OUT_val_000000.bin, OUT_train_000001.bin, ...: llm.c's token
 *              shards as dev/data/fineweb.py writes them (data_common.py
 *              write_datafile): int32 header[256] = {magic, version, ntok, 0...}
 *              then ntok tokens, uint16 (20240520, version 1) or uint32
 *              (20240801, version 7, Llama 3); every document preceded by one
 *              delimiter token; the first val_tokens tokens in the val file, then
 *              files of shard_tokens tokens, documents cut where a file fills.
 *   datatrove  OUT.ds, OUT.ds.index, OUT.ds.metadata as datatrove's
 *              TokenizedFile writes them (pipeline/tokens/tokenizer.py). */
#ifndef WINNOW_SHARD_EXPORT_H
#define WINNOW_SHARD_EXPORT_H

#include <stdint.h>

#include "shards/shard_reader.h"

typedef enum { EXPORT_MEGATRON, EXPORT_LLMC, EXPORT_DATATROVE } export_format;

typedef struct {
    export_format format;
    uint64_t llmc_shard_tokens; /* default 100M */
    int64_t llmc_val_tokens;    /* tokens in the val file; -1: llmc_shard_tokens; 0: no val file */
    int64_t eot;                /* llm.c delimiter id; -1: the manifest's bos, else its eos */
} export_options;

#define LLMC_MAGIC_UINT16 20240520 /* gpt-2 in llm.c's dev/data/data_common.py HEADERS_INFO */
#define LLMC_VERSION_UINT16 1
#define LLMC_MAGIC_UINT32 20240801 /* llama-3 there */
#define LLMC_VERSION_UINT32 7
#define LLMC_HEADER_INTS 256
#define LLMC_DEFAULT_SHARD_TOKENS 100000000ull

/* Sets the defaults: megatron, 100M-token llm.c files, the val file one of them. */
void export_options_init(export_options *o);

/* Parses "megatron", "llmc" or "datatrove"; -1 when it is none of them. */
int export_format_parse(const char *name);

/* Writes r's documents to out in o->format; every file written atomically.
 * Returns 0, EXIT_USAGE (with a message) when the format cannot hold the data,
 * or EXIT_FATAL when reading the shards fails. */
int shard_export(shard_reader *r, const char *out, const export_options *o);

#endif
