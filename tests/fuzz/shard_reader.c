/* shard_reader.c - fuzz the parsers a damaged shard directory reaches: the
 * seek table and frames of a shard file, the document index, the manifest. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "shards/manifest.h"
#include "shards/shard_file.h"
#include "shards/shard_format.h"
#include "shards/shard_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* as a shard file */
    int fd = memfd_create("shard", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64], err[1024];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        shard_file f;
        if (shard_file_open(path, &f, err, sizeof err) == 0) {
            ZSTD_DCtx *dctx = ZSTD_createDCtx();
            uint8_t *frame = malloc(SHARD_FRAME_BYTES);
            for (uint32_t i = 0; i < f.table.nframes; i++)
                if (f.table.entries[i].dsize <= SHARD_FRAME_BYTES)
                    shard_file_read_frame(&f, i, dctx, frame, err, sizeof err);
            free(frame);
            ZSTD_freeDCtx(dctx);
            shard_file_close(&f);
        }
    }
    close(fd);

    /* as a document index */
    shard_index x;
    const char *why;
    uint64_t where;
    if (shard_index_parse(data, size, &x, &why, &where) == 0) shard_index_free(&x);

    /* as a manifest */
    shard_manifest m;
    char err[512];
    if (manifest_parse((const char *)data, size, &m, err, sizeof err) == 0) manifest_free(&m);
    return 0;
}
