/* shard_options.h - the settings of `winnow shard`, by option name, for its
 * command line and the [shard] section of a pipeline file alike. */
#ifndef WINNOW_SHARD_OPTIONS_H
#define WINNOW_SHARD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "shards/shard_writer.h"

typedef struct {
    shard_writer_options writer; /* threads left to the caller */
    const char *vocab_file;      /* --vocab: its SHA-256 goes into the manifest */
    bool no_append_eos;
    char sha256[65];             /* set by shard_options_finish from vocab_file */
} shard_options;

/* The writer's defaults, except that no EOS is appended until --eos gives one. */
void shard_options_init(shard_options *o);

/* Sets what --name[=value] sets (value NULL: given bare; '-' and '_'
 * alike); strings are kept by pointer. Returns 0, or -1 with a message in
 * err for an unknown name or a bad value. */
int shard_options_set(shard_options *o, const char *name, const char *value, char *err, size_t errlen);

/* Completes the writer options once every option is set: --no-append-eos,
 * the SHA-256 of --vocab. Returns 0, or -1 with a message in err when
 * --vocab-size is missing or the vocabulary cannot be read. */
int shard_options_finish(shard_options *o, char *err, size_t errlen);

#endif
