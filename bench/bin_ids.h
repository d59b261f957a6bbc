/* bin_ids.h - the ids of a `winnow tokenize --format bin` file (per document: a
 * little-endian u32 count, then that many u32 ids), laid out as shards store
 * them, for the shard benches. Header-only: each bench is one .c file. */
#ifndef WINNOW_BENCH_BIN_IDS_H
#define WINNOW_BENCH_BIN_IDS_H

#include <stdint.h>
#include <stdlib.h>

#include "core/util.h"
#include "shards/shard_format.h"

#define UINT16_VOCAB_LIMIT 65536u

typedef struct {
    uint8_t *raw; /* the ids as stored */
    size_t len;
    int width; /* bytes per id */
} id_array;

/* Reads the bin file at path or exits; returns its bytes and size. */
static inline uint8_t *read_bin_file(const char *path, size_t *size)
{
    uint8_t *in = (uint8_t *)read_file(path, size);
    if (!in) dief(EXIT_FATAL, "%s: cannot read", path);
    return in;
}

/* Fills a with every id of the bin file at path, 2 bytes each when vocab fits uint16, else 4. */
static inline void load_ids(const char *path, uint64_t vocab, id_array *a)
{
    size_t size;
    uint8_t *in = read_bin_file(path, &size);
    a->width = vocab <= UINT16_VOCAB_LIMIT ? 2 : 4;
    a->raw = xmalloc(size);
    a->len = 0;
    for (size_t at = 0; at + 4 <= size;) {
        uint32_t n = get_le32(in + at);
        at += 4;
        for (uint32_t i = 0; i < n && at + 4 <= size; i++, at += 4) {
            uint32_t id = get_le32(in + at);
            if (a->width == 2) put_le16(a->raw + a->len, (uint16_t)id);
            else put_le32(a->raw + a->len, id);
            a->len += (size_t)a->width;
        }
    }
    free(in);
}

#endif
