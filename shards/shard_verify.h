/* shard_verify.h - checking a shard directory end to end. */
#ifndef WINNOW_SHARD_VERIFY_H
#define WINNOW_SHARD_VERIFY_H

#include <stdint.h>

typedef struct {
    uint64_t problems; /* each printed on stderr, naming file, frame and offset */
    uint32_t shards;
    uint64_t frames, tokens, documents;
} shard_verify_result;

/* Checks the manifest; per shard the file size and XXH3-64 of the file, the
 * seek table, every frame (zstd decoding, content checksum, the seek table's
 * XXH64 checksum, sizes), every id against the vocabulary size, the XXH3-64
 * of the tokens, and the document index (checksum, counts, offsets); then the
 * totals. Goes on after a problem to find the others. */
void shard_verify_dir(const char *dir, shard_verify_result *res);

#endif
