/* parquet_cell.h - one Parquet cell as a JSON value, by what its column's
 * annotation says the stored value means (docs/ingest.md, Parquet). */
#ifndef WINNOW_PARQUET_CELL_H
#define WINNOW_PARQUET_CELL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/parquet.h"

/* True when the column's cells can be written (pq_put_cell), false for a
 * column whose stored values are not what they mean to anyone reading JSON
 * (INTERVAL, BSON, unannotated fixed-length bytes, ...). */
bool pq_cell_readable(const pq_column *col);

/* True when pq_put_cell writes the column's cells as JSON strings. */
bool pq_cell_is_string(const pq_column *col);

/* Appends row r of v (a column of col) to out as a JSON value: null for a
 * null cell; strings, exact integers, decimals and doubles; dates, times
 * and timestamps in ISO 8601 (a "Z" when the value is an instant in UTC),
 * with the fraction digits of the column's unit; UUIDs in 8-4-4-4-12 hex. */
void pq_put_cell(wbuf *out, const pq_column *col, const pq_values *v, int64_t r);

#endif
