/* archive.c - archive members and in-memory decompression via libarchive. */
#include "ingest/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"

/* Bytes read from the source per libarchive callback. */
#define ARCHIVE_READ_CHUNK 65536
/* Output grows by this much while decompressing. */
#define DECOMPRESS_STEP 65536

typedef struct {
    isrc *src;
    char chunk[ARCHIVE_READ_CHUNK];
} source_reader;

static la_ssize_t read_source(struct archive *a, void *ctx, const void **buf)
{
    (void)a;
    source_reader *r = ctx;
    *buf = r->chunk;
    return (la_ssize_t)isrc_read(r->src, r->chunk, sizeof r->chunk);
}

enum { ENTRY_READ = 0, ENTRY_ERROR = -1, ENTRY_TOO_LARGE = 1 };

/* Reads the current entry's data into out: ENTRY_READ, ENTRY_ERROR, or
 * ENTRY_TOO_LARGE when it holds more than limit bytes (out then holds the
 * first ones; the rest is still unread). */
static int read_entry(struct archive *a, wbuf *out, size_t limit)
{
    buf_clear(out);
    for (;;) {
        buf_reserve(out, DECOMPRESS_STEP);
        la_ssize_t got = archive_read_data(a, out->data + out->len, DECOMPRESS_STEP);
        if (got < 0) return ENTRY_ERROR;
        if (got == 0) return ENTRY_READ;
        out->len += (size_t)got;
        out->data[out->len] = 0;
        if (out->len > limit) return ENTRY_TOO_LARGE;
    }
}

/* A member over ARCHIVE_MAX_MEMBER: skipped (decoded and thrown away, so
 * the members after it are read), when its header says so before any of it
 * is held in memory. ENTRY_READ when it fits and is in data. */
static int read_member(struct archive *a, struct archive_entry *e, wbuf *data)
{
    int rc = archive_entry_size_is_set(e) && archive_entry_size(e) > (la_int64_t)ARCHIVE_MAX_MEMBER
                 ? ENTRY_TOO_LARGE
                 : read_entry(a, data, ARCHIVE_MAX_MEMBER);
    if (rc == ENTRY_TOO_LARGE) {
        buf_clear(data);
        if (archive_read_data_skip(a) != ARCHIVE_OK) return ENTRY_ERROR;
    }
    return rc;
}

int archive_each_member(isrc *src, archive_member_fn member, archive_error_fn error, void *ctx)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    source_reader *reader = xmalloc(sizeof *reader);
    reader->src = src;
    int errors = 0;
    char what[256];
    if (archive_read_open(a, reader, NULL, read_source, NULL) != ARCHIVE_OK) {
        snprintf(what, sizeof what, "cannot read as an archive: %s", archive_error_string(a));
        error(ctx, NULL, what);
        errors++;
    } else {
        wbuf data = WBUF_INIT;
        struct archive_entry *e;
        int rc;
        while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
            if (archive_entry_filetype(e) != AE_IFREG) continue;
            const char *name = archive_entry_pathname_utf8(e);
            if (!name) name = archive_entry_pathname(e);
            if (!name) name = "?";
            int got = read_member(a, e, &data);
            if (got == ENTRY_TOO_LARGE) {
                snprintf(what, sizeof what, "over %zu bytes; skipped", ARCHIVE_MAX_MEMBER);
                error(ctx, name, what);
                errors++;
                continue;
            }
            if (got == ENTRY_ERROR) {
                snprintf(what, sizeof what, "member unreadable: %s",
                         archive_error_string(a) ? archive_error_string(a) : "bad data");
                error(ctx, name, what);
                errors++;
                break; /* the stream is out of step after a damaged member */
            }
            member(ctx, name, data.data ? data.data : "", data.len);
        }
        if (rc == ARCHIVE_FATAL || rc == ARCHIVE_RETRY) { /* not reached after a member error */
            snprintf(what, sizeof what, "archive damaged: %s", archive_error_string(a));
            error(ctx, NULL, what);
            errors++;
        }
        buf_free(&data);
    }
    archive_read_free(a);
    isrc_read(src, NULL, SIZE_MAX); /* whatever trails the archive */
    free(reader);
    return errors;
}

int decompress_memory(const char *p, size_t n, wbuf *out)
{
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a);
    archive_read_support_format_raw(a);
    archive_read_support_format_empty(a); /* the raw format does not bid on nothing: a stream of no bytes */
    struct archive_entry *e;
    int rc = -1;
    buf_clear(out);
    /* no filter of libarchive's reads it (a stream cut inside its signature):
     * damaged, not bytes to sniff again as the same compressed stream */
    if (archive_read_open_memory(a, p, n) == ARCHIVE_OK && archive_filter_count(a) > 1) {
        int header = archive_read_next_header(a, &e);
        if (header == ARCHIVE_OK) rc = read_entry(a, out, ARCHIVE_MAX_MEMBER) == ENTRY_READ ? 0 : -1;
        else if (header == ARCHIVE_EOF) rc = 0; /* whole, and decodes to no bytes (gzip of an empty file) */
    }
    archive_read_free(a);
    return rc;
}
