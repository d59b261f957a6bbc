/* sigfile.c - one input file's partitioned records in one file (see sigfile.h). */
#include "dedup/sigfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/output.h"
#include "core/util.h"

#define SIG_FILE_MAGIC "WNSIG 1\n" /* 8 bytes */
#define BUFFER_BUDGET ((size_t)4 << 20) /* records buffered over all partitions, about */
#define BLOCK_MAX ((size_t)64 << 10)
#define BLOCK_MIN ((size_t)1 << 10)

typedef struct {
    uint32_t partition, zero;
    uint64_t offset, length;
} block_entry;

typedef struct {
    char magic[8];
    uint64_t index_offset, nblocks;
} footer;

struct sig_writer {
    woutput *out;
    wbuf *parts; /* per partition: records not yet written */
    int partitions;
    size_t block; /* a partition's records are written as a block once this many bytes wait */
    block_entry *index;
    size_t nblocks, cap;
    uint64_t offset;
};

sig_writer *sig_writer_open(const char *path, int partitions)
{
    sig_writer *w = xcalloc(1, sizeof *w);
    w->out = output_open(path, 0);
    w->partitions = partitions;
    w->parts = xcalloc((size_t)partitions, sizeof *w->parts);
    size_t share = BUFFER_BUDGET / (size_t)partitions;
    w->block = share > BLOCK_MAX ? BLOCK_MAX : share < BLOCK_MIN ? BLOCK_MIN : share;
    return w;
}

/* Writes partition p's waiting records as one block. */
static void flush_block(sig_writer *w, int p)
{
    wbuf *b = &w->parts[p];
    if (!b->len) return;
    if (w->nblocks == w->cap) w->index = xrealloc(w->index, (w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->index);
    w->index[w->nblocks++] = (block_entry){(uint32_t)p, 0, w->offset, b->len};
    output_write(w->out, b->data, b->len);
    w->offset += b->len;
    buf_clear(b);
}

void sig_writer_add(sig_writer *w, int p, const void *record, size_t n)
{
    buf_append(&w->parts[p], record, n);
    if (w->parts[p].len >= w->block) flush_block(w, p);
}

static void release(sig_writer *w)
{
    for (int p = 0; p < w->partitions; p++) buf_free(&w->parts[p]);
    free(w->parts);
    free(w->index);
    free(w);
}

void sig_writer_close(sig_writer *w)
{
    for (int p = 0; p < w->partitions; p++) flush_block(w, p);
    footer f = {SIG_FILE_MAGIC, w->offset, w->nblocks};
    output_write(w->out, w->index, w->nblocks * sizeof *w->index);
    output_write(w->out, &f, sizeof f);
    output_close(w->out);
    release(w);
}

void sig_writer_abort(sig_writer *w)
{
    output_abort(w->out);
    release(w);
}

int sig_file_read(const char *path, int p, wbuf *out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st = {0};
    footer f;
    block_entry *index = NULL;
    bool ok = fstat(fd, &st) == 0 && (uint64_t)st.st_size >= sizeof f;
    uint64_t size = ok ? (uint64_t)st.st_size - sizeof f : 0;
    ok = ok && !pread_full(fd, &f, sizeof f, size) && !memcmp(f.magic, SIG_FILE_MAGIC, sizeof f.magic) &&
         f.index_offset <= size && f.nblocks == (size - f.index_offset) / sizeof *index &&
         (size - f.index_offset) % sizeof *index == 0;
    if (ok) {
        index = xmalloc((size_t)f.nblocks * sizeof *index + 1);
        ok = !pread_full(fd, index, (size_t)f.nblocks * sizeof *index, f.index_offset);
    }
    for (uint64_t i = 0; ok && i < f.nblocks; i++) {
        const block_entry *e = &index[i];
        if (e->partition != (uint32_t)p) continue;
        ok = e->offset <= f.index_offset && e->length <= f.index_offset - e->offset;
        if (!ok) break;
        buf_reserve(out, (size_t)e->length);
        ok = !pread_full(fd, out->data + out->len, (size_t)e->length, e->offset);
        if (ok) out->len += (size_t)e->length;
    }
    if (out->data) out->data[out->len] = 0;
    if (!ok) snprintf(err, errlen, "%s: damaged (size %llu)", path, (unsigned long long)st.st_size);
    free(index);
    close(fd);
    return ok ? 0 : -1;
}
