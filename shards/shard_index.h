/* shard_index.h - the document index file beside each shard (shard_NNNNN.idx).
 *
 * Layout, all little-endian:
 *   0  char[8] magic "WNWDOCS1"
 *   8  u32     version (1)
 *  12  u32     flags (bit 0: the first entry ends a document that began in
 *              the previous shard; only with --split-docs)
 *  16  u64     documents: number of entries
 *  24  u64     tokens in the shard
 *  32  u64     ends[documents]: end offset of each document in tokens,
 *              counted from the shard's first token; strictly the last is tokens
 *  ..  u64     XXH3-64 of every byte before it */
#ifndef WINNOW_SHARD_INDEX_H
#define WINNOW_SHARD_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

typedef struct {
    uint32_t flags;
    uint64_t documents;
    uint64_t tokens;
    uint64_t *ends; /* documents entries */
} shard_index;

/* Appends the encoded index file to out. */
void shard_index_encode(const shard_index *x, wbuf *out);

/* Parses an index file of len bytes into x (ends allocated). Returns 0, or
 * -1 with *err saying what is wrong and *err_pos its byte offset. */
int shard_index_parse(const uint8_t *p, size_t len, shard_index *x, const char **err, uint64_t *err_pos);

/* Frees x->ends. */
void shard_index_free(shard_index *x);

#endif
