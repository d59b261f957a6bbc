/* parquet_writer.h - the document stream written as a Parquet file.
 *
 * Fed JSON lines (documents), writes one row per document with the columns
 * text (required), id, url, date, source, metadata (optional strings), then one
 * column per metadata key of the first row group's documents, typed by its
 * values (string, INT64, DOUBLE, BOOLEAN), as the Hugging Face Hub and
 * datatrove read them. A member that fits no column (a later key, another
 * type, an object or array) stays, as JSON, in the row's metadata column,
 * which winnow's reader merges back: a round trip gives the same documents
 * (null metadata values become absent keys). Pages are PLAIN
 * with RLE definition levels, zstd-compressed, with CRCs; a row group is
 * closed at about PQ_ROW_GROUP_BYTES of data. Written from the format's
 * specification (apache/parquet-format), as core/parquet.c reads it. */
#ifndef WINNOW_PARQUET_WRITER_H
#define WINNOW_PARQUET_WRITER_H

#include <stddef.h>

/* Uncompressed bytes of column data per row group (about 128 MB). */
#define PQ_ROW_GROUP_BYTES (128u << 20)

/* Where the file's bytes go, in order. */
typedef void (*pq_emit_fn)(void *ctx, const void *p, size_t n);

typedef struct pq_writer pq_writer;

/* Starts a file named name (for messages) and emits its magic. */
pq_writer *pq_writer_new(const char *name, pq_emit_fn emit, void *ctx);

/* Takes n bytes of JSON lines (a line may span calls). */
void pq_writer_feed(pq_writer *w, const char *p, size_t n);

/* Writes the last row group and the footer, and frees w. */
void pq_writer_finish(pq_writer *w);

/* Frees w without finishing the file. */
void pq_writer_free(pq_writer *w);

#endif
