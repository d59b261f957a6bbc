/* shard_file.h - one seekable zstd file: its seek table and its frames. */
#ifndef WINNOW_SHARD_FILE_H
#define WINNOW_SHARD_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "shards/seek_table.h"

typedef struct {
    int fd;
    uint64_t size; /* bytes of the file */
    seek_table table;
    uint8_t *cbuf; /* scratch for one compressed frame */
    size_t ccap;
} shard_file;

/* Opens path and reads its seek table. Returns 0, or -1 with the reason
 * (naming the file and byte offset) in err. */
int shard_file_open(const char *path, shard_file *f, char *err, size_t errlen);

/* Decompresses frame i into dst (room for its decompressed size), checking
 * the zstd frame (its size against the seek table, its content checksum) and
 * the seek table's XXH64 checksum. Returns 0, or -1 with the reason (frame
 * number and byte offset, without the file name) in err. */
int shard_file_read_frame(shard_file *f, uint32_t i, ZSTD_DCtx *dctx, uint8_t *dst, char *err, size_t errlen);

/* Closes the file and frees the table. */
void shard_file_close(shard_file *f);

#endif
