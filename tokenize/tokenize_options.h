/* tokenize_options.h - the settings of `winnow tokenize`, by option name,
 * for its command line and the [tokenize] section of a pipeline file alike. */
#ifndef WINNOW_TOKENIZE_OPTIONS_H
#define WINNOW_TOKENIZE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *encoding, *vocab, *pattern; /* NULL when not given */
    const char *device;                     /* auto (default), cpu or gpu */
    bool allow_special, eos, bos;           /* eos on by default */
    bool eos_given, bos_given;              /* --eos/--no-eos, --bos/--no-bos were given */
    uint64_t shard_tokens;                  /* --format shards: tokens per shard (0: the writer's default) */
    bool split_docs;                        /* --format shards: cut shards at exactly shard_tokens */
    int shard_level;                        /* --format shards: level of the frames (shard_level_parse()) ... */
    bool shard_level_given;                 /* ... when given; else the writer's default */
} tokenize_options;

/* Sets the defaults. */
void tokenize_options_init(tokenize_options *o);

/* Sets what --name[=value] sets (value NULL: given bare; '-' and '_'
 * alike); values are kept by pointer. Returns 0, or -1 with a message in
 * err for an unknown name or a bad value. */
int tokenize_options_set(tokenize_options *o, const char *name, const char *value, char *err, size_t errlen);

/* Takes the tokenizer's defaults for what --eos/--bos left unsaid (a
 * tokenizer.json's post_processor says them). */
void tokenize_options_defaults(tokenize_options *o, bool eos_default, bool bos_default);

#endif
