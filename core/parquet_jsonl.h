/* parquet_jsonl.h - a Parquet file as the document stream: one JSON line per
 * row, row groups decoded in parallel and delivered in file order.
 *
 * Columns map to the document as docs/ingest.md (Parquet) says: the text
 * column (doc_set_text_name, default "text") keeps its name, which
 * doc_normalize_line then makes "text" as for any input line; columns
 * named id, url, date and source keep their names at the top level; every
 * other flat column goes under "metadata" with its type (strings, numbers,
 * booleans); a null cell is a field the document does not have. DECIMAL integers
 * are written as their exact decimal value, unsigned integers as unsigned.
 * Nested columns, INT96 / fixed-length columns and columns annotated as dates,
 * times, timestamps (or anything else not the value stored) are left out with
 * a warning naming them; a nested or missing text column is an error. */
#ifndef WINNOW_PARQUET_JSONL_H
#define WINNOW_PARQUET_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Threads that decode row groups (default: all cores). */
void parquet_set_threads(int threads);

typedef struct pq_jsonl pq_jsonl;

/* Opens fd (head_len bytes already read from it, see pq_open_fd). Prints why
 * and returns NULL when the file cannot be read as documents; *unusable_rows
 * is then the rows its footer counts when the footer could be read (no text
 * column, or one that is not a flat string), else 0. */
pq_jsonl *pq_jsonl_open(int fd, const uint8_t *head, size_t head_len, const char *name, int64_t *unusable_rows);

/* The next block of whole JSON lines; false at the end. A row group that
 * fails is reported (file, offset, row group, rows lost) and counted. */
bool pq_jsonl_next(pq_jsonl *j, const char **p, size_t *n);

/* Row groups that failed so far. */
int pq_jsonl_errors(const pq_jsonl *j);

/* The rows of the row groups that failed so far (as the footer counts them). */
int64_t pq_jsonl_lost_rows(const pq_jsonl *j);

void pq_jsonl_close(pq_jsonl *j);

#endif
