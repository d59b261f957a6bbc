/* archive.h - tar, zip and the other archive formats libarchive reads, and
 * in-memory decompression of a member, so that each member can be ingested
 * as a file by its content. */
#ifndef WINNOW_INGEST_ARCHIVE_H
#define WINNOW_INGEST_ARCHIVE_H

#include <stddef.h>

#include "core/buf.h"
#include "ingest/source.h"

/* Members larger than this are reported and skipped; the members after
 * them are read. */
#define ARCHIVE_MAX_MEMBER ((size_t)1 << 30)

/* Called once per regular-file member, in archive order, with its bytes. */
typedef void (*archive_member_fn)(void *ctx, const char *name, const char *data, size_t n);

/* Called for a member or archive that cannot be read: what and where. */
typedef void (*archive_error_fn)(void *ctx, const char *name, const char *what);

/* Reads the archive in src (consuming it) and calls member() for each file.
 * Returns the number of errors reported through error(). */
int archive_each_member(isrc *src, archive_member_fn member, archive_error_fn error, void *ctx);

/* Decompresses p[0..n) (gzip, zstd, bzip2, xz, lz4, ...; concatenated
 * members too) into out. Returns 0, or -1 when the stream is damaged (out
 * then holds what decoded before the damage). */
int decompress_memory(const char *p, size_t n, wbuf *out);

#endif
