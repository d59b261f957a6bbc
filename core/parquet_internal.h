/* parquet_internal.h - what parquet.c (the footer) and parquet_column.c (the
 * pages) share. Not for other modules. */
#ifndef WINNOW_PARQUET_INTERNAL_H
#define WINNOW_PARQUET_INTERNAL_H

#include "core/parquet.h"

/* Compression codecs (parquet.thrift CompressionCodec). */
enum { PQ_UNCOMPRESSED = 0, PQ_SNAPPY = 1, PQ_GZIP = 2, PQ_LZO = 3, PQ_BROTLI = 4, PQ_LZ4 = 5,
       PQ_ZSTD = 6, PQ_LZ4_RAW = 7 };

/* One column chunk's metadata. */
typedef struct {
    int type, codec;
    int64_t num_values;
    int64_t data_page_offset, dictionary_page_offset; /* -1: none */
    int64_t total_compressed_size;
    bool encrypted;
    bool has_meta;
} pq_chunk;

typedef struct {
    int64_t num_rows, total_byte_size;
    pq_chunk *chunks; /* one per leaf column */
    int nchunks;
} pq_row_group;

struct pq_file {
    char *name;
    const uint8_t *data;
    size_t size;
    uint64_t data_end; /* where the footer begins: column data lies before it */
    void *mapping;     /* munmap on close */
    uint8_t *owned;    /* read whole: free on close */
    pq_column *columns;
    int ncolumns;
    pq_node *nodes; /* the schema tree below its root */
    int nnodes;
    pq_row_group *groups;
    int ngroups;
    int64_t num_rows;
};

/* Appends "NAME: offset N: " then the formatted message to err. */
void pq_error(wbuf *err, const pq_file *f, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
