/* parquet.h - a reader for Apache Parquet files, enough for datasets as they
 * ship (FineWeb and the Hugging Face Hub's files): columns of strings,
 * integers, floats, booleans, decimals, dates, times, timestamps and UUIDs,
 * flat or nested (groups, lists, maps: their levels are read too).
 *
 * Written from the format's specification (apache/parquet-format: README,
 * Encodings.md, Compression.md, parquet.thrift). No Debian 12 package reads
 * Parquet from C (docs/ingest.md says why this is hand-written).
 *
 * Supported: compressions UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD, LZ4_RAW and
 * the deprecated LZ4 (Hadoop-framed or one plain block); encodings
 * PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY, RLE (levels and booleans),
 * DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
 * BYTE_STREAM_SPLIT; data pages v1 and v2; page CRCs checked when present.
 * Refused with a message: encrypted files, LZO.
 *
 * Every offset and length in the file is checked before use: a damaged or
 * hostile file gives an error naming the file and the byte offset, never a
 * read outside the file. */
#ifndef WINNOW_PARQUET_H
#define WINNOW_PARQUET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* Physical types (parquet.thrift Type). */
enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
       PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7 };

/* What a column's annotation (parquet.thrift LogicalType, or ConvertedType
 * when there is none) makes of its physical values. */
enum {
    PQ_AS_STORED = 0, /* the value as stored: strings, bytes, signed integers, floats, booleans */
    PQ_UNSIGNED,      /* UINT_8 .. UINT_64, INTEGER(isSigned = false): the bits as an unsigned integer */
    PQ_DECIMAL,       /* DECIMAL: the stored integer (INT32, INT64, or big-endian bytes) times 10^-scale */
    PQ_DATE,          /* DATE: INT32 days since 1970-01-01 */
    PQ_TIME,          /* TIME: INT32 or INT64 units (time_digits) since midnight */
    PQ_TIMESTAMP,     /* TIMESTAMP: INT64 units since 1970-01-01T00:00:00; INT96: Julian day and nanoseconds */
    PQ_UUID,          /* UUID: 16 bytes */
    PQ_FLOAT16,       /* FLOAT16: an IEEE half, 2 bytes little-endian */
    PQ_OTHER_MEANING  /* INTERVAL, BSON, GEOMETRY, VARIANT, ..., or an annotation on a type it does not fit */
};

/* A leaf column of the schema, in file order (the order of column chunks). */
typedef struct {
    char *name;   /* the top-level field it belongs to */
    char *path;   /* dotted path from the root, for messages */
    int type;     /* physical type */
    int type_length;
    bool optional; /* may be null (definition level 1) */
    bool nested;   /* inside a group or repeated: read with its levels (pq_values.levels) */
    int max_def, max_rep; /* its definition and repetition levels when defined (Dremel) */
    int meaning;   /* PQ_AS_STORED ... PQ_OTHER_MEANING */
    int scale;     /* PQ_DECIMAL: digits after the decimal point */
    int time_digits; /* PQ_TIME, PQ_TIMESTAMP: 3 (milliseconds), 6 (microseconds) or 9 (nanoseconds) */
    bool utc;        /* PQ_TIME, PQ_TIMESTAMP: isAdjustedToUTC (an instant), else a local (wall-clock) value */
    const char *annotation; /* the annotation's name for messages ("" for none) */
} pq_column;

/* Repetition of a schema node (parquet.thrift FieldRepetitionType). */
enum { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };

/* What a group's annotation makes of it (LIST, MAP or MAP_KEY_VALUE). */
enum { PQ_GROUP_PLAIN = 0, PQ_GROUP_LIST, PQ_GROUP_MAP };

/* A node of the schema tree below its root: a top-level field, a group or a
 * leaf column. Nodes are in the schema's (depth-first) order, so the leaves
 * under a node are the columns [first_column, first_column + ncolumns). */
typedef struct {
    char *name;
    int repetition;      /* PQ_REQUIRED, PQ_OPTIONAL, PQ_REPEATED */
    int group_kind;      /* PQ_GROUP_PLAIN, PQ_GROUP_LIST, PQ_GROUP_MAP (groups only) */
    int parent;          /* index of its parent node; -1 for a top-level field */
    int first_child, next_sibling; /* node indexes, -1 for none */
    int num_children;
    int column;          /* its column when a leaf, else -1 */
    int first_column, ncolumns;
    int def_level, rep_level; /* levels of a value where this node is present (it included) */
} pq_node;

typedef struct pq_file pq_file;

/* Opens the n bytes at data (not copied: they must outlive the file) named
 * name in messages. Returns NULL and writes why to err when the footer
 * cannot be read. */
pq_file *pq_open_memory(const uint8_t *data, size_t n, const char *name, wbuf *err);

/* Opens an open file descriptor: a regular file is mapped whole (wherever the
 * descriptor stands); anything else (a pipe) is read to its end after the
 * head_len bytes already read from it, which come first. The descriptor may
 * be closed afterwards. */
pq_file *pq_open_fd(int fd, const uint8_t *head, size_t head_len, const char *name, wbuf *err);

void pq_close(pq_file *f);

int pq_num_columns(const pq_file *f);
const pq_column *pq_column_at(const pq_file *f, int c);
/* Index of the leaf column whose top-level name is name (the first such), else
 * of the leaf whose dotted path is name (messages.list.element.content), or -1. */
int pq_find_column(const pq_file *f, const char *name);
int pq_num_nodes(const pq_file *f);
const pq_node *pq_node_at(const pq_file *f, int i);
/* Index of the top-level field (node) column c belongs to. */
int pq_field_of_column(const pq_file *f, int c);
int pq_num_row_groups(const pq_file *f);
int64_t pq_row_group_rows(const pq_file *f, int g);
/* Uncompressed bytes of row group g as the footer says (0 when unknown). */
int64_t pq_row_group_bytes(const pq_file *f, int g);
int64_t pq_num_rows(const pq_file *f);
const char *pq_name(const pq_file *f);

/* One byte-array value: points into the file or a decoded page. */
typedef struct {
    const uint8_t *p;
    uint32_t len;
} pq_bytes;

/* A column of one row group: a flat column has one entry per row; a nested
 * one (pq_column.nested) has nlevels level pairs and its n values packed,
 * one for each level whose definition level is the column's max_def. */
typedef struct {
    int64_t n;
    int type;
    int64_t nlevels;  /* nested: entries in defs and reps */
    uint8_t *defs, *reps; /* nested: definition and repetition levels (the schema is at most 64 deep) */
    uint8_t *valid;   /* 1 when the row has a value; NULL when every row has one */
    pq_bytes *bytes;  /* BYTE_ARRAY */
    int64_t *ints;    /* BOOLEAN, INT32, INT64 */
    double *reals;    /* FLOAT, DOUBLE */
    uint8_t **bufs;   /* decoded pages the values point into */
    int nbufs, capbufs;
} pq_values;

/* Decodes column c of row group g into v (which pq_values_free releases).
 * Returns 0, or -1 with "NAME: offset N: what" in err. Thread-safe: any
 * number of threads may read columns of one file at once. */
int pq_read_column(const pq_file *f, int g, int c, pq_values *v, wbuf *err);

void pq_values_free(pq_values *v);

#endif
