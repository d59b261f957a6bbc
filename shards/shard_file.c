/* shard_file.c - reading frames of a seekable zstd file with pread. */
#include "shard_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "shards/shard_format.h"

int shard_file_open(const char *path, shard_file *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (f->fd < 0 || fstat(f->fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (f->fd >= 0) close(f->fd);
        f->fd = -1;
        return -1;
    }
    f->size = (uint64_t)st.st_size;
    const char *why = NULL;
    uint64_t where = 0;
    uint8_t footer[SEEK_FOOTER_BYTES];
    uint64_t table_len = 0;
    if (f->size < SEEK_FRAME_HEADER_BYTES + SEEK_FOOTER_BYTES) {
        why = "file too short for a seek table";
    } else if (pread_full(f->fd, footer, sizeof footer, f->size - sizeof footer)) {
        why = "read error";
        where = f->size - sizeof footer;
    } else if ((table_len = seek_table_size_from_footer(footer, &why)) == 0 || table_len > f->size) {
        if (!why) why = "seek table footer counts more frames than the file can hold";
        where = f->size - sizeof footer;
    } else {
        uint8_t *table = xmalloc(table_len);
        if (pread_full(f->fd, table, table_len, f->size - table_len)) {
            why = "read error";
            where = f->size - table_len;
        } else {
            seek_table_parse(table, table_len, f->size, &f->table, &why, &where);
        }
        free(table);
    }
    if (why) {
        snprintf(err, errlen, "%s: seek table at offset %" PRIu64 ": %s", path, where, why);
        shard_file_close(f);
        return -1;
    }
    return 0;
}

int shard_file_read_frame(shard_file *f, uint32_t i, ZSTD_DCtx *dctx, uint8_t *dst, char *err, size_t errlen)
{
    const seek_entry *e = &f->table.entries[i];
    uint64_t off = f->table.coffset[i];
    if (e->csize > f->ccap) {
        f->ccap = e->csize;
        f->cbuf = xrealloc(f->cbuf, f->ccap);
    }
    if (pread_full(f->fd, f->cbuf, e->csize, off)) {
        snprintf(err, errlen, "frame %u at offset %" PRIu64 ": read error: %s", i, off,
                 errno ? strerror(errno) : "the file ends first");
        return -1;
    }
    size_t fsize = ZSTD_findFrameCompressedSize(f->cbuf, e->csize);
    if (ZSTD_isError(fsize) || fsize != e->csize) {
        snprintf(err, errlen, "frame %u at offset %" PRIu64 ": not one zstd frame of the %u bytes the seek table says (%s)",
                 i, off, e->csize, ZSTD_isError(fsize) ? ZSTD_getErrorName(fsize) : "size differs");
        return -1;
    }
    unsigned long long content = ZSTD_getFrameContentSize(f->cbuf, e->csize);
    if (content != e->dsize) {
        snprintf(err, errlen, "frame %u at offset %" PRIu64 ": frame header gives a content size other than the seek table's %u bytes",
                 i, off, e->dsize);
        return -1;
    }
    size_t r = ZSTD_decompressDCtx(dctx, dst, e->dsize, f->cbuf, e->csize);
    if (ZSTD_isError(r) || r != e->dsize) {
        snprintf(err, errlen, "frame %u at offset %" PRIu64 ": zstd: %s", i, off,
                 ZSTD_isError(r) ? ZSTD_getErrorName(r) : "short frame");
        return -1;
    }
    uint32_t sum = seek_checksum(dst, e->dsize);
    if (sum != e->checksum) {
        snprintf(err, errlen, "frame %u at offset %" PRIu64 ": checksum %08x does not match the seek table's %08x",
                 i, off, sum, e->checksum);
        return -1;
    }
    return 0;
}

void shard_file_close(shard_file *f)
{
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    seek_table_free(&f->table);
    free(f->cbuf);
    f->cbuf = NULL;
    f->ccap = 0;
}
