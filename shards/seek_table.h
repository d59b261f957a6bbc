/* seek_table.h - zstd's seekable format: the seek table at the end of a file.
 *
 * The table is one skippable frame (magic 0x184D2A5E) holding, per zstd frame
 * of the file, its compressed size, decompressed size and the low 32 bits of
 * XXH64 of its decompressed bytes; then a footer: frame count (u32), a
 * descriptor byte (bit 7: checksums present) and the magic 0x8F92EAB1. */
#ifndef WINNOW_SEEK_TABLE_H
#define WINNOW_SEEK_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

typedef struct {
    uint32_t csize;    /* compressed bytes of the frame */
    uint32_t dsize;    /* decompressed bytes */
    uint32_t checksum; /* low 32 bits of XXH64(decompressed, seed 0) */
} seek_entry;

typedef struct {
    seek_entry *entries;
    uint32_t nframes;
    uint64_t *coffset; /* nframes + 1 cumulative compressed offsets */
    uint64_t *doffset; /* nframes + 1 cumulative decompressed offsets */
    uint64_t table_bytes; /* size of the seek table frame itself */
} seek_table;

/* Appends the whole seek table frame (with checksums) for n entries to out. */
void seek_table_encode(const seek_entry *e, uint32_t n, wbuf *out);

/* Bytes of the seek table frame at the end of a file, read from its last
 * SEEK_FOOTER_BYTES bytes; 0 (with *err set) when the footer is not valid. */
uint64_t seek_table_size_from_footer(const uint8_t *footer, const char **err);

/* Parses a seek table frame (exactly table_len bytes, the file's tail) of a
 * file of file_size bytes. Returns 0, or -1 with *err saying what is wrong and
 * *err_pos its offset within the file. */
int seek_table_parse(const uint8_t *table, size_t table_len, uint64_t file_size,
                     seek_table *t, const char **err, uint64_t *err_pos);

/* Index of the frame holding decompressed byte offset pos (< total). */
uint32_t seek_table_find(const seek_table *t, uint64_t pos);

/* Frees the table's arrays. */
void seek_table_free(seek_table *t);

/* Low 32 bits of XXH64 of data, the seekable format's frame checksum. */
uint32_t seek_checksum(const void *data, size_t n);

#endif
