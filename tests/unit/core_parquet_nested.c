/* core_parquet_nested - nested Parquet columns (groups, lists of every
 * shape parquet-format's LogicalTypes.md allows, maps, repeated columns)
 * put back together as JSON, against hyparquet (a second, independent
 * reader: tests/parquet/read_back.mjs, installed by make deps) on the
 * Parquet project's own nested test files (apache/parquet-testing): every
 * row of every file the same value; and damaged levels refused. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/parquet.h"
#include "core/parquet_cell.h"
#include "core/parquet_nested.h"
#include "tests/tap.h"

#define DATA "parquet/parquet-testing/data"

static const char *const files[] = {
    "nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nested_structs.rust.parquet",
    "nullable.impala.parquet", "nonnullable.impala.parquet", "repeated_no_annotation.parquet",
    "old_list_structure.parquet", "null_list.parquet", "list_columns.parquet", "map_no_value.parquet",
    "incorrect_map_schema.parquet", "repeated_primitive_no_list.parquet",
};

/* Every row of the file as a JSON object of its top-level fields (a null
 * one written as null, as hyparquet writes it), one per line, into out;
 * false (with a test failure) when a column cannot be read. */
static bool rows_of(pq_file *f, const char *name, FILE *out, bool *damaged)
{
    wbuf line = WBUF_INIT, err = WBUF_INIT;
    bool good = true;
    *damaged = false;
    for (int g = 0; g < pq_num_row_groups(f) && good; g++) {
        int ncols = pq_num_columns(f);
        pq_values *cols = calloc((size_t)ncols, sizeof *cols);
        for (int c = 0; c < ncols && good; c++)
            if (pq_read_column(f, g, c, &cols[c], &err) != 0) {
                ok(0, "%s: row group %d column %d reads: %s", name, g, c, err.data);
                good = false;
            }
        int nfields = 0, fields[256];
        for (int i = 0; good && i >= 0 && nfields < 256; i = pq_node_at(f, i)->next_sibling) fields[nfields++] = i;
        pq_nested *nested = calloc((size_t)nfields, sizeof *nested);
        for (int k = 0; good && k < nfields; k++) {
            const pq_node *nd = pq_node_at(f, fields[k]);
            if (nd->column < 0 || pq_column_at(f, nd->column)->nested)
                pq_nested_init(&nested[k], f, fields[k], &cols[nd->first_column]);
        }
        for (int64_t r = 0; good && r < pq_row_group_rows(f, g); r++) {
            buf_clear(&line);
            buf_putc(&line, '{');
            for (int k = 0; k < nfields; k++) {
                const pq_node *nd = pq_node_at(f, fields[k]);
                if (k) buf_putc(&line, ',');
                json_put_string(&line, nd->name, strlen(nd->name));
                buf_putc(&line, ':');
                if (nested[k].f) {
                    if (!pq_nested_put_row(&nested[k], &line)) buf_puts(&line, "null");
                } else {
                    pq_put_cell(&line, pq_column_at(f, nd->column), &cols[nd->column], r);
                }
            }
            buf_puts(&line, "}\n");
            fwrite(line.data, 1, line.len, out);
        }
        for (int k = 0; k < nfields; k++)
            if (nested[k].f) {
                *damaged |= pq_nested_damaged(&nested[k]);
                pq_nested_free(&nested[k]);
            }
        free(nested);
        for (int c = 0; c < ncols; c++) pq_values_free(&cols[c]);
        free(cols);
    }
    buf_free(&line);
    buf_free(&err);
    return good;
}

static void against_hyparquet(const char *name)
{
    char path[2048], ours[64] = "/tmp/winnow-nested-XXXXXX", cmd[4096];
    snprintf(path, sizeof path, "%s/%s/%s", shared_dir(), DATA, name);
    require_file(path);
    int fd = open(path, O_RDONLY), out_fd = mkstemp(ours);
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_fd(fd, NULL, 0, name, &err);
    close(fd);
    if (!f) {
        ok(0, "%s opens: %s", name, err.data);
        buf_free(&err);
        return;
    }
    FILE *out = fdopen(out_fd, "w");
    bool damaged, read = rows_of(f, name, out, &damaged);
    fclose(out);
    if (read) {
        snprintf(cmd, sizeof cmd,
                 "node tests/parquet/read_back.mjs '%s' > %s.hy && python3 tests/parquet/same_rows.py %s %s.hy", path,
                 ours, ours, ours);
        FILE *p = popen(cmd, "r");
        char first[64] = "", more[512];
        if (p && fgets(first, sizeof first, p)) {
            ok(strcmp(first, "0\n") == 0 && !damaged, "%s: every row as hyparquet reads it%s", name,
               damaged ? "; levels reported damaged" : "");
            while (fgets(more, sizeof more, p)) printf("%s", more);
        } else {
            ok(0, "%s: hyparquet ran (node and tests/parquet/node_modules: make deps)", name);
        }
        if (p) pclose(p);
        snprintf(cmd, sizeof cmd, "%s.hy", ours);
        unlink(cmd);
    }
    unlink(ours);
    pq_close(f);
    buf_free(&err);
}

/* The rows of list_columns.parquet's int64_list ([1, 2, 3], [null, 1], [4])
 * with its levels changed by change: whether the reader says damaged. */
static bool damaged_after(void (*change)(pq_values *))
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/list_columns.parquet", shared_dir(), DATA);
    require_file(path);
    int fd = open(path, O_RDONLY);
    wbuf err = WBUF_INIT, out = WBUF_INIT;
    pq_file *f = pq_open_fd(fd, NULL, 0, "list_columns.parquet", &err);
    close(fd);
    pq_values v = {0};
    bool damaged = true;
    if (f && pq_read_column(f, 0, 0, &v, &err) == 0) {
        if (change) change(&v);
        pq_nested n;
        pq_nested_init(&n, f, 0, &v);
        for (int64_t r = 0; r < pq_row_group_rows(f, 0); r++) pq_nested_put_row(&n, &out);
        damaged = pq_nested_damaged(&n);
        pq_nested_free(&n);
        pq_values_free(&v);
    }
    pq_close(f);
    buf_free(&err);
    buf_free(&out);
    return damaged;
}

static void second_element_starts_a_row(pq_values *v) { v->reps[1] = 0; }
static void first_value_undefined(pq_values *v) { v->defs[0] = 0; }
static void null_element_defined(pq_values *v)
{
    for (int64_t i = 0; i < v->nlevels; i++)
        if (v->defs[i] == 2) { /* the null element of [null, 1] */
            v->defs[i] = 3;
            break;
        }
}

/* Levels that do not fit the schema or the values are reported, never read past. */
static void damaged_levels(void)
{
    ok(!damaged_after(NULL), "list_columns.parquet as written: not damaged");
    ok(damaged_after(second_element_starts_a_row), "an element's repetition level 0 (a row too many): damaged");
    ok(damaged_after(first_value_undefined), "a value's definition level lowered (a value left over): damaged");
    ok(damaged_after(null_element_defined), "a null element's definition level raised (a value missing): damaged");
}

int main(void)
{
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) against_hyparquet(files[i]);
    damaged_levels();
    return done_testing();
}
