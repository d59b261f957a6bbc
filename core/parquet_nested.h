/* parquet_nested.h - a nested top-level field of a Parquet row group (a
 * group, a list, a map or a repeated column) put back together from its
 * leaf columns' levels and values (the Dremel encoding parquet-format
 * describes), as one JSON value per row: groups as objects, LIST groups and
 * repeated fields as arrays, MAP groups as objects keyed by their keys. */
#ifndef WINNOW_PARQUET_NESTED_H
#define WINNOW_PARQUET_NESTED_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/parquet.h"

typedef struct {
    const pq_file *f;
    int field;            /* its node */
    const pq_values *leaves; /* its leaf columns in order, read with pq_read_column (the caller's) */
    int64_t *level_at;    /* per leaf: its next level entry */
    int64_t *value_at;    /* per leaf: its next value */
    wbuf key;             /* a map key being written */
    bool damaged;         /* levels were found that the schema does not allow */
} pq_nested;

/* Starts reading the field at node field from its first row; leaves holds
 * its pq_node.ncolumns columns of one row group. */
void pq_nested_init(pq_nested *n, const pq_file *f, int field, const pq_values *leaves);

/* Appends the field's value in the next row to out and returns true, or
 * returns false (appending nothing) when it is null in that row. */
bool pq_nested_put_row(pq_nested *n, wbuf *out);

/* After the last row: true when the leaves' levels did not fit the schema
 * or each other (values left over, a value missing); the rows written are
 * then not the file's. */
bool pq_nested_damaged(const pq_nested *n);

void pq_nested_free(pq_nested *n);

#endif
