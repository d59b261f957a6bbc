/* parquet_jsonl.c - Parquet rows as JSON lines, row groups in parallel. */
#include "parquet_jsonl.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/doc.h"
#include "core/json.h"
#include "core/parquet.h"
#include "core/parquet_cell.h"
#include "core/parquet_nested.h"
#include "core/pool.h"
#include "core/util.h"

/* Decoded row groups in flight are kept under this many bytes (as the footer
 * sizes them) by running fewer threads when row groups are big. */
#define IN_FLIGHT_BYTES (2ll << 30)
#define CELL_OVERHEAD 24 /* bytes a cell adds besides its string: a number, quotes, a comma */

static int decode_threads;

void parquet_set_threads(int threads) { decode_threads = threads; }

/* Top-level document fields a column of the same name fills. */
static const char *const top_fields[] = {"id", "url", "date", "source"};

typedef struct {
    int column;    /* its (first) column */
    char *key;     /* `"name":` ready to append */
    bool top;      /* a top-level field; else under metadata */
    bool merge;    /* the "metadata" string column or group: its members join the metadata */
    const pq_column *schema;
    int field;     /* a nested field's node (its columns: the node's), else -1 */
    int ncolumns;  /* columns read for it: 1, or the nested field's */
} mapped;

#define METADATA_COLUMN "metadata"

typedef struct {
    int group;
    wbuf out, err;
    int failed;
} group_job;

struct pq_jsonl {
    pq_file *f;
    mapped *cols; /* cols[0] is the text column */
    int ncols;
    wpool *pool;
    int next_group;
    group_job *current;
    int errors;
    int64_t lost_rows; /* rows of the row groups that failed */
};

static bool is_null(const pq_values *v, int64_t r) { return v->valid && !v->valid[r]; }

/* For the "metadata" column (what winnow's Parquet writer stores the metadata
 * object in): true when row r is null (*n = 0) or a JSON object, with its
 * members (the text between its braces, blanks trimmed) in *p, *n. */
static bool merge_members(const pq_values *v, int64_t r, const char **p, size_t *n)
{
    *n = 0;
    if (is_null(v, r)) return true;
    const char *s = (const char *)v->bytes[r].p;
    size_t len = v->bytes[r].len;
    jdoc d;
    const char *err;
    size_t pos;
    if (!len || json_scan_doc(s, len, &d, &err, &pos) != 0) return false;
    size_t open = 0, close = d.close_brace;
    while (open < close && s[open] != '{') open++;
    open++;
    while (open < close && (s[open] == ' ' || s[open] == '\n' || s[open] == '\t' || s[open] == '\r')) open++;
    while (close > open && (s[close - 1] == ' ' || s[close - 1] == '\n' || s[close - 1] == '\t' || s[close - 1] == '\r')) close--;
    *p = s + open;
    *n = close - open;
    return true;
}

/* Worker: decodes row group job->group and writes its rows as JSON lines. */
static void decode_group(void *ctx, int worker, void *item)
{
    (void)worker;
    pq_jsonl *j = ctx;
    group_job *job = item;
    int total = 0; /* columns read: a nested field's all */
    for (int c = 0; c < j->ncols; c++) total += j->cols[c].ncolumns;
    pq_values *all = xcalloc((size_t)total, sizeof *all), **vals = xcalloc((size_t)j->ncols, sizeof *vals);
    pq_nested *nested = xcalloc((size_t)j->ncols, sizeof *nested);
    wbuf value = WBUF_INIT; /* a nested field's value in the row being written */
    int got = 0;
    for (int c = 0, at = 0; c < j->ncols; at += j->cols[c].ncolumns, c++) {
        vals[c] = &all[at];
        for (int k = 0; k < j->cols[c].ncolumns && got == at + k; k++)
            if (pq_read_column(j->f, job->group, j->cols[c].column + k, &all[at + k], &job->err) == 0) got++;
        if (got == at + j->cols[c].ncolumns && j->cols[c].field >= 0)
            pq_nested_init(&nested[c], j->f, j->cols[c].field, vals[c]);
    }
    if (got < total) {
        job->failed = 1;
    } else {
        int64_t rows = pq_row_group_rows(j->f, job->group);
        size_t estimate = 0; /* the JSON is about the strings plus a little per cell */
        for (int c = 0; c < j->ncols; c++) {
            estimate += (size_t)rows * (strlen(j->cols[c].key) + CELL_OVERHEAD);
            for (int k = 0; k < j->cols[c].ncolumns; k++)
                for (int64_t r = 0; vals[c][k].bytes && r < vals[c][k].n; r++) estimate += vals[c][k].bytes[r].len;
        }
        buf_reserve(&job->out, estimate + estimate / 16);
        for (int64_t r = 0; r < rows; r++) {
            buf_putc(&job->out, '{');
            bool first = true, meta_open = false;
            for (int c = 0; c < j->ncols; c++) {
                const mapped *m = &j->cols[c];
                const char *members = NULL;
                size_t members_len = 0;
                if (m->field >= 0) { /* written first: a null is known only then */
                    buf_clear(&value);
                    if (!pq_nested_put_row(&nested[c], &value)) continue;
                    if (m->merge && value.len > 2 && value.data[0] == '{') {
                        members = value.data + 1;
                        members_len = value.len - 2;
                    } else if (m->merge) {
                        continue; /* an empty object */
                    }
                } else if (c > 0 && is_null(vals[c], r)) {
                    continue; /* a null is a field the document does not have */
                } else if (m->merge && !merge_members(vals[c], r, &members, &members_len)) {
                    members = NULL;
                } else if (m->merge && !members_len) {
                    continue; /* an empty object */
                }
                if (!m->top && !meta_open) {
                    buf_append(&job->out, first ? "\"metadata\":{" : ",\"metadata\":{", first ? 12 : 13);
                    meta_open = true;
                    first = true;
                }
                if (!first) buf_putc(&job->out, ',');
                first = false;
                if (members) {
                    buf_append(&job->out, members, members_len);
                    continue;
                }
                buf_puts(&job->out, m->key);
                if (m->field >= 0) {
                    buf_append(&job->out, value.data, value.len);
                    continue;
                }
                bool quote = m->top && c > 0 && !pq_cell_is_string(m->schema); /* ids, urls, dates are strings */
                if (quote) buf_putc(&job->out, '"');
                pq_put_cell(&job->out, m->schema, vals[c], r);
                if (quote) buf_putc(&job->out, '"');
            }
            buf_append(&job->out, meta_open ? "}}\n" : "}\n", meta_open ? 3 : 2);
        }
        for (int c = 0; c < j->ncols; c++)
            if (j->cols[c].field >= 0 && pq_nested_damaged(&nested[c])) {
                buf_printf(&job->err, "%s: row group %d, column %s: its levels do not fit the schema", pq_name(j->f),
                           job->group, j->cols[c].schema->path);
                job->failed = 1;
                break;
            }
    }
    for (int c = 0; c < j->ncols; c++)
        if (nested[c].f) pq_nested_free(&nested[c]);
    for (int k = 0; k < got; k++) pq_values_free(&all[k]);
    free(all);
    free(vals);
    free(nested);
    buf_free(&value);
}

static char *key_of(const char *name)
{
    wbuf b = WBUF_INIT;
    json_put_string(&b, name, strlen(name));
    buf_putc(&b, ':');
    return b.data;
}

static bool is_top_field(const char *name)
{
    for (size_t i = 0; i < sizeof top_fields / sizeof top_fields[0]; i++)
        if (strcmp(name, top_fields[i]) == 0) return true;
    return false;
}

/* For the first column c of a nested top-level field: maps the field as one
 * metadata member (a "metadata" group's members join the metadata), unless
 * one of its columns cannot be written, which leaves it out with a warning. */
static void add_nested_field(pq_jsonl *j, int c)
{
    pq_file *f = j->f;
    int field = pq_field_of_column(f, c);
    const pq_node *nd = pq_node_at(f, field);
    if (nd->first_column != c) return; /* mapped at its first column */
    for (int k = nd->first_column; k < nd->first_column + nd->ncolumns; k++) {
        const pq_column *leaf = pq_column_at(f, k);
        if (!pq_cell_readable(leaf)) {
            warnf("%s: column %s is %s: the field %s is left out of the documents", pq_name(f), leaf->path,
                  *leaf->annotation ? leaf->annotation : "fixed-length bytes without an annotation", nd->name);
            return;
        }
    }
    bool merge = strcmp(nd->name, METADATA_COLUMN) == 0 && nd->repetition != PQ_REPEATED && nd->column < 0 &&
                 nd->group_kind == PQ_GROUP_PLAIN;
    j->cols[j->ncols++] = (mapped){c, key_of(nd->name), false, merge, pq_column_at(f, c), field, nd->ncolumns};
}

/* Chooses the columns and their keys: the text column first, then the
 * top-level fields, then the metadata columns, each group in file order. */
static int plan_columns(pq_jsonl *j)
{
    pq_file *f = j->f;
    int n = pq_num_columns(f);
    const char *text_column = doc_text_name();
    int text = pq_find_column(f, text_column);
    if (text < 0) {
        wbuf names = WBUF_INIT;
        for (int c = 0; c < n; c++) buf_printf(&names, "%s%s", c ? ", " : "", pq_column_at(f, c)->path);
        warnf("%s: no column '%s' (columns: %s); choose the text column with --text-column NAME", pq_name(f),
              text_column, names.data ? names.data : "none");
        buf_free(&names);
        return -1;
    }
    const pq_column *tc = pq_column_at(f, text);
    if (tc->nested || tc->type != PQ_BYTE_ARRAY) {
        warnf("%s: the text column %s is %s; it must be a flat string column", pq_name(f), tc->path,
              tc->nested ? "nested (a group, list or map)" : "not a string (BYTE_ARRAY) column");
        return -1;
    }
    if (tc->meaning != PQ_AS_STORED) {
        warnf("%s: the text column %s is annotated %s (not text); it must be a flat string column", pq_name(f), tc->path,
              tc->annotation);
        return -1;
    }
    j->cols = xcalloc((size_t)n, sizeof *j->cols);
    /* named as the inputs' text is (doc_normalize_line renames it "text", as for JSON Lines) */
    j->cols[j->ncols++] = (mapped){text, key_of(text_column), true, false, tc, -1, 1};
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < n; c++) {
            const pq_column *col = pq_column_at(f, c);
            if (c == text) continue;
            bool top = is_top_field(col->name) && !col->nested;
            if (top != (pass == 0)) continue;
            if (col->nested) {
                add_nested_field(j, c);
                continue;
            }
            if (!pq_cell_readable(col)) { /* the stored bytes are not the value (INTERVAL, BSON, ...) */
                if (*col->annotation)
                    warnf("%s: column %s is annotated %s: left out of the documents", pq_name(f), col->path, col->annotation);
                else
                    warnf("%s: column %s is fixed-length bytes without an annotation: left out of the documents",
                          pq_name(f), col->path);
                continue;
            }
            bool merge = !top && pq_cell_is_string(col) && col->meaning == PQ_AS_STORED &&
                         strcmp(col->name, METADATA_COLUMN) == 0;
            j->cols[j->ncols++] = (mapped){c, key_of(col->name), top, merge, col, -1, 1};
        }
    }
    return 0;
}

pq_jsonl *pq_jsonl_open(int fd, const uint8_t *head, size_t head_len, const char *name, int64_t *unusable_rows)
{
    *unusable_rows = 0;
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_fd(fd, head, head_len, name, &err);
    if (!f) {
        warnf("%s", err.data);
        buf_free(&err);
        return NULL;
    }
    buf_free(&err);
    pq_jsonl *j = xcalloc(1, sizeof *j);
    j->f = f;
    if (plan_columns(j) != 0) {
        *unusable_rows = pq_num_rows(f);
        pq_jsonl_close(j);
        return NULL;
    }
    int threads = decode_threads > 0 ? decode_threads : cpu_count();
    int64_t biggest = 1;
    for (int g = 0; g < pq_num_row_groups(f); g++)
        if (pq_row_group_bytes(f, g) > biggest) biggest = pq_row_group_bytes(f, g);
    if (threads > IN_FLIGHT_BYTES / biggest) threads = (int)(IN_FLIGHT_BYTES / biggest);
    if (threads > pq_num_row_groups(f)) threads = pq_num_row_groups(f);
    if (threads < 1) threads = 1;
    j->pool = pool_create(threads, threads, decode_group, j);
    return j;
}

static void job_free(group_job *job)
{
    buf_free(&job->out);
    buf_free(&job->err);
    free(job);
}

bool pq_jsonl_next(pq_jsonl *j, const char **p, size_t *n)
{
    for (;;) {
        if (j->current) {
            job_free(j->current);
            j->current = NULL;
        }
        while (j->next_group < pq_num_row_groups(j->f) && !pool_full(j->pool)) {
            group_job *job = xcalloc(1, sizeof *job);
            job->group = j->next_group++;
            pool_push(j->pool, job);
        }
        if (pool_empty(j->pool)) return false;
        group_job *job = pool_pop(j->pool);
        j->current = job;
        if (job->failed) {
            warnf("%s; row group %d (%lld rows) skipped", job->err.data, job->group,
                  (long long)pq_row_group_rows(j->f, job->group));
            j->errors++;
            j->lost_rows += pq_row_group_rows(j->f, job->group);
            continue;
        }
        if (!job->out.len) continue;
        *p = job->out.data;
        *n = job->out.len;
        return true;
    }
}

int pq_jsonl_errors(const pq_jsonl *j) { return j->errors; }
int64_t pq_jsonl_lost_rows(const pq_jsonl *j) { return j->lost_rows; }

void pq_jsonl_close(pq_jsonl *j)
{
    if (!j) return;
    if (j->pool) {
        while (!pool_empty(j->pool)) job_free(pool_pop(j->pool));
        pool_destroy(j->pool);
    }
    if (j->current) job_free(j->current);
    for (int c = 0; c < j->ncols; c++) free(j->cols[c].key);
    free(j->cols);
    pq_close(j->f);
    free(j);
}
