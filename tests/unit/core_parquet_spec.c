/* core_parquet_spec - Parquet and Thrift details checked against their
 * specifications (thrift-compact-protocol.md, apache/parquet-format's
 * parquet.thrift and Encodings.md) and the Parquet project's test files
 * (apache/parquet-testing, with the contents its README gives): long-form
 * Thrift field headers, skipped list<bool>s, empty lists of element type 0, a dictionary_page_offset of
 * 0, an empty compressed v2 page, BYTE_STREAM_SPLIT pages (each column of
 * byte_stream_split_extended equal to its PLAIN twin, the README's numpy
 * normals in byte_stream_split.zstd), and winnow's writer read back field by
 * field: escaped metadata keys, booleans, total_uncompressed_size. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/parquet.h"
#include "core/parquet_cell.h"
#include "core/parquet_writer.h"
#include "core/thrift_compact.h"
#include "core/util.h"
#include "tests/tap.h"

#define DATA "parquet/parquet-testing/data"

static pq_file *open_data(const char *name, wbuf *err)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", shared_dir(), DATA, name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        buf_printf(err, "%s: cannot open", path);
        return NULL;
    }
    pq_file *f = pq_open_fd(fd, NULL, 0, name, err);
    close(fd);
    return f;
}

/* Long-form field headers (thrift-compact-protocol.md: a type byte with a
 * zero delta, then the field id as a zigzag varint i16), used when the id is
 * more than 15 past the one before or goes down. Bytes written from the spec. */
static void thrift_long_field_ids(void)
{
    /* struct { 20: i32 7, 21: i32 1, 3: i32 -2 } */
    static const uint8_t bytes[] = {0x05, 0x28, 0x0e, 0x15, 0x02, 0x05, 0x06, 0x03, 0x00};
    tc_reader r;
    tc_init(&r, bytes, sizeof bytes, 0);
    int16_t id, last = 0;
    int t, got[3][2], n = 0;
    while (n < 3 && tc_field(&r, &id, &t, &last)) {
        got[n][0] = id;
        got[n][1] = t == TC_I32 ? tc_i32(&r) : -1000;
        n++;
    }
    ok(n == 3 && !tc_failed(&r) && got[0][0] == 20 && got[0][1] == 7 && got[1][0] == 21 && got[1][1] == 1 &&
           got[2][0] == 3 && got[2][1] == -2,
       "long-form field ids 20 (zigzag 0x28) and 3 (going down), a short one after each");
    wbuf w = WBUF_INIT;
    last = 0;
    tw_field(&w, &last, 20, TC_I32); tw_i32(&w, 7);
    tw_field(&w, &last, 21, TC_I32); tw_i32(&w, 1);
    tw_field(&w, &last, 3, TC_I32); tw_i32(&w, -2);
    tw_stop(&w);
    ok(w.len == sizeof bytes && memcmp(w.data, bytes, sizeof bytes) == 0, "the writer makes the same bytes");
    buf_free(&w);
}

/* A skipped list<bool>: each element is one byte (1 true, 2 false), unlike a
 * boolean field, whose value lives in its header. */
static void thrift_skip_bool_list(void)
{
    /* struct { 1: list<bool> [true, false, true], 2: i32 9, 3: map<binary, bool> {"a": true} } then i32 5 */
    static const uint8_t bytes[] = {0x19, 0x31, 0x01, 0x02, 0x01, 0x15, 0x12, 0x1b, 0x01, 0x81, 0x01, 'a', 0x01, 0x00, 0x0a};
    tc_reader r;
    tc_init(&r, bytes, sizeof bytes, 0);
    int16_t id, last = 0;
    int t;
    int32_t two = -1;
    bool map_seen = false;
    while (tc_field(&r, &id, &t, &last)) {
        if (id == 2 && t == TC_I32) two = tc_i32(&r);
        else {
            map_seen |= id == 3 && t == TC_MAP;
            tc_skip(&r, t);
        }
    }
    int32_t after = tc_i32(&r);
    ok(!tc_failed(&r) && two == 9 && map_seen && after == 5,
       "a list<bool> and a map<binary, bool> skipped byte by byte: field 2 = %d, the value after the struct = %d", two, after);
}

/* An empty list whose header byte is 0x00 (size 0, element type 0): what
 * fastparquet writes for an empty key_value_metadata (DuckDB's
 * internal_5994.parquet, fastparquet 2024.5.0, has one in every column
 * chunk). The element type of an empty list is never used, so it is read as
 * empty, as Thrift's own readers do; a list that has elements still needs a
 * real element type. */
static void thrift_empty_list_type_zero(void)
{
    /* struct { 1: list (empty, header 0x00), 2: i32 9 } then i32 5 */
    static const uint8_t bytes[] = {0x19, 0x00, 0x15, 0x12, 0x00, 0x0a};
    tc_reader r;
    tc_init(&r, bytes, sizeof bytes, 0);
    int16_t id, last = 0;
    int t;
    int32_t two = -1;
    while (tc_field(&r, &id, &t, &last)) {
        if (id == 2 && t == TC_I32) two = tc_i32(&r);
        else tc_skip(&r, t);
    }
    int32_t after = tc_i32(&r);
    ok(!tc_failed(&r) && two == 9 && after == 5, "an empty list with element type 0 skipped: field 2 = %d, after = %d (%s)", two,
       after, r.error ? r.error : "no error");
    static const uint8_t one_of_type_zero[] = {0x10, 0x00};
    int et;
    tc_init(&r, one_of_type_zero, sizeof one_of_type_zero, 0);
    tc_list(&r, &et);
    ok(tc_failed(&r), "a list of one element of type 0 is still refused");

    /* alltypes_plain.parquet with such a list added to its FileMetaData as
     * field 5 (key_value_metadata, long-form header 0x09 0x0a) before the stop */
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/alltypes_plain.parquet", shared_dir(), DATA);
    size_t n = 0;
    char *orig = read_file(path, &n);
    if (!ok(orig && n > 12, "read %s", path)) return;
    uint32_t len = (uint8_t)orig[n - 8] | (uint8_t)orig[n - 7] << 8 | (uint8_t)orig[n - 6] << 16 | (uint32_t)(uint8_t)orig[n - 5] << 24;
    wbuf file = WBUF_INIT, err = WBUF_INIT;
    buf_append(&file, orig, n - 9); /* all but the footer's stop byte, its length and PAR1 */
    static const uint8_t field5[] = {0x09, 0x0a, 0x00, 0x00}; /* field 5: empty list of type 0; stop */
    buf_append(&file, field5, sizeof field5);
    uint32_t patched = len + 3;
    uint8_t tail[8] = {patched, patched >> 8, patched >> 16, patched >> 24, 'P', 'A', 'R', '1'};
    buf_append(&file, tail, sizeof tail);
    pq_file *a = pq_open_memory((const uint8_t *)orig, n, "alltypes_plain.parquet", &err);
    pq_file *b = pq_open_memory((const uint8_t *)file.data, file.len, "patched.parquet", &err);
    pq_values va = {0}, vb = {0};
    int same = 0;
    if (a && b && pq_read_column(a, 0, pq_find_column(a, "string_col"), &va, &err) == 0 &&
        pq_read_column(b, 0, pq_find_column(b, "string_col"), &vb, &err) == 0 && va.n == vb.n)
        for (int64_t r = 0; r < va.n; r++)
            same += va.bytes[r].len == vb.bytes[r].len && memcmp(va.bytes[r].p, vb.bytes[r].p, va.bytes[r].len) == 0;
    ok(a && b && pq_num_rows(b) == 8 && same == 8, "the file with an empty type-0 list in its footer opens: 8 rows, string_col as without it (%d): %s",
       same, err.data ? err.data : "");
    pq_values_free(&va);
    pq_values_free(&vb);
    pq_close(a);
    pq_close(b);
    buf_free(&file);
    buf_free(&err);
    free(orig);
}

/* dict-page-offset-zero.parquet: dictionary_page_offset 0 for a chunk whose
 * dictionary page sits at data_page_offset (README: "Dictionary page offset
 * is zero"); l_partkey holds 1552 in each of its 39 rows. */
static void dictionary_offset_zero(void)
{
    wbuf err = WBUF_INIT;
    pq_file *f = open_data("dict-page-offset-zero.parquet", &err);
    pq_values v = {0};
    int rc = f ? pq_read_column(f, 0, pq_find_column(f, "l_partkey"), &v, &err) : -1;
    int same = 0;
    for (int64_t r = 0; rc == 0 && r < v.n; r++) same += (!v.valid || v.valid[r]) && v.ints[r] == 1552;
    ok(rc == 0 && v.n == 39 && same == 39, "dict-page-offset-zero.parquet: 39 rows of 1552 (%d): %s", same, err.data ? err.data : "");
    pq_values_free(&v);
    pq_close(f);
    buf_free(&err);
}

/* datapage_v2_empty_datapage.snappy.parquet: a v2 page whose one value is
 * null, in a snappy chunk, with no value bytes at all (README: "The zero
 * bytes must not be attempted to be uncompressed, as this is an invalid
 * Snappy stream"); page_v2_empty_compressed.parquet: ten nulls whose empty
 * values are a zstd stream of 0 bytes. */
static void empty_v2_pages(void)
{
    static const struct { const char *file, *column; int rows; } cases[] = {
        {"datapage_v2_empty_datapage.snappy.parquet", "value", 1},
        {"page_v2_empty_compressed.parquet", "integer_column", 10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wbuf err = WBUF_INIT;
        pq_file *f = open_data(cases[i].file, &err);
        pq_values v = {0};
        int rc = f ? pq_read_column(f, 0, pq_find_column(f, cases[i].column), &v, &err) : -1;
        int nulls = 0;
        for (int64_t r = 0; rc == 0 && r < v.n; r++) nulls += v.valid && !v.valid[r];
        ok(rc == 0 && v.n == cases[i].rows && nulls == cases[i].rows, "%s: %d null rows (%d): %s", cases[i].file, cases[i].rows,
           nulls, err.data ? err.data : "");
        pq_values_free(&v);
        pq_close(f);
        buf_free(&err);
    }
}

static void to_wbuf(void *ctx, const void *p, size_t n) { buf_append(ctx, p, n); }

/* For each column chunk of the footer (FileMetaData 4: row groups, RowGroup 1:
 * columns, ColumnChunk 3: ColumnMetaData): total_uncompressed_size (6),
 * total_compressed_size (7), data_page_offset (9). Returns the chunk count. */
static int chunk_sizes(const wbuf *file, int64_t (*out)[3], int max)
{
    const uint8_t *p = (const uint8_t *)file->data;
    uint32_t len = (uint32_t)p[file->len - 8] | (uint32_t)p[file->len - 7] << 8 | (uint32_t)p[file->len - 6] << 16 |
                   (uint32_t)p[file->len - 5] << 24;
    tc_reader r;
    tc_init(&r, p + file->len - 8 - len, len, 0);
    int16_t id, l0 = 0;
    int t, et, n = 0;
    while (tc_field(&r, &id, &t, &l0)) {
        if (id != 4 || t != TC_LIST) { tc_skip(&r, t); continue; }
        uint32_t groups = tc_list(&r, &et);
        for (uint32_t g = 0; g < groups && !tc_failed(&r); g++) {
            int16_t l1 = 0;
            tc_struct_begin(&r);
            while (tc_field(&r, &id, &t, &l1)) {
                if (id != 1 || t != TC_LIST) { tc_skip(&r, t); continue; }
                uint32_t cols = tc_list(&r, &et);
                for (uint32_t c = 0; c < cols && !tc_failed(&r); c++) {
                    int16_t l2 = 0;
                    tc_struct_begin(&r);
                    while (tc_field(&r, &id, &t, &l2)) {
                        if (id != 3 || t != TC_STRUCT) { tc_skip(&r, t); continue; }
                        int16_t l3 = 0;
                        tc_struct_begin(&r);
                        while (tc_field(&r, &id, &t, &l3)) {
                            if (n < max && t == TC_I64 && (id == 6 || id == 7 || id == 9)) out[n][id == 6 ? 0 : id == 7 ? 1 : 2] = tc_i64(&r);
                            else tc_skip(&r, t);
                        }
                        tc_struct_end(&r);
                        n++;
                    }
                    tc_struct_end(&r);
                }
            }
            tc_struct_end(&r);
        }
    }
    return tc_failed(&r) ? -1 : n;
}

/* Walks the pages of a chunk (PageHeader 2: uncompressed_page_size, 3:
 * compressed_page_size); returns the sum of header bytes and uncompressed
 * page sizes, -1 when the pages do not fill exactly compressed bytes. */
static int64_t pages_uncompressed(const wbuf *file, int64_t at, int64_t compressed)
{
    int64_t end = at + compressed, total = 0;
    while (at < end) {
        tc_reader r;
        tc_init(&r, (const uint8_t *)file->data + at, (size_t)(end - at), (uint64_t)at);
        int16_t id, last = 0;
        int t;
        int32_t unc = -1, comp = -1;
        while (tc_field(&r, &id, &t, &last)) {
            if (id == 2 && t == TC_I32) unc = tc_i32(&r);
            else if (id == 3 && t == TC_I32) comp = tc_i32(&r);
            else tc_skip(&r, t);
        }
        if (tc_failed(&r) || unc < 0 || comp < 0) return -1;
        int64_t header = (int64_t)tc_offset(&r) - at;
        total += header + unc;
        at += header + comp;
    }
    return at == end ? total : -1;
}

/* winnow's writer read back: a metadata key with a JSON escape names its
 * column by the decoded key (RFC 8259: "caf\u00e9" is café); booleans (some
 * null) as Encodings.md packs them, least significant bit first, read by the
 * reader that reads the project's files (alltypes_plain's bool_col);
 * ColumnMetaData.total_uncompressed_size as parquet.thrift defines it: every
 * page's uncompressed size and its header. */
static void writer_fields(void)
{
    enum { ROWS = 21, MAX_CHUNKS = 16 };
    wbuf file = WBUF_INIT, line = WBUF_INIT, err = WBUF_INIT;
    pq_writer *w = pq_writer_new("fields.parquet", to_wbuf, &file);
    for (int d = 0; d < ROWS; d++) {
        buf_clear(&line);
        buf_printf(&line, "{\"text\":\"doc %d\",\"metadata\":{\"caf\\u00e9\":%d,\"flag\":%s}}\n", d, d,
                   d % 3 == 0 ? "true" : d % 3 == 1 ? "false" : "null");
        pq_writer_feed(w, line.data, line.len);
    }
    pq_writer_finish(w);
    pq_file *f = pq_open_memory((const uint8_t *)file.data, file.len, "fields.parquet", &err);
    if (!ok(f != NULL, "the writer's file opens")) {
        diag("%s", err.data);
        return;
    }
    int cafe = pq_find_column(f, "caf\xc3\xa9"), flag = pq_find_column(f, "flag");
    pq_values v = {0};
    int right = 0;
    if (cafe >= 0 && pq_read_column(f, 0, cafe, &v, &err) == 0)
        for (int64_t r = 0; r < v.n; r++) right += (!v.valid || v.valid[r]) && v.ints[r] == r;
    ok(cafe >= 0 && right == ROWS, "the key \"caf\\u00e9\" is the column caf\xc3\xa9, with its %d values (%d)", ROWS, right);
    pq_values_free(&v);
    right = 0;
    if (flag >= 0 && pq_read_column(f, 0, flag, &v, &err) == 0)
        for (int64_t r = 0; r < v.n; r++) {
            bool valid = !v.valid || v.valid[r];
            right += r % 3 == 2 ? !valid : valid && v.ints[r] == (r % 3 == 0);
        }
    ok(flag >= 0 && pq_column_at(f, flag)->type == PQ_BOOLEAN && right == ROWS,
       "flag: a BOOLEAN column, true / false / null in every row as given (%d of %d)", right, ROWS);
    pq_values_free(&v);
    int64_t sizes[MAX_CHUNKS][3];
    int chunks = chunk_sizes(&file, sizes, MAX_CHUNKS), exact = 0;
    for (int c = 0; c < chunks && c < MAX_CHUNKS; c++) exact += pages_uncompressed(&file, sizes[c][2], sizes[c][1]) == sizes[c][0];
    ok(chunks == pq_num_columns(f) && exact == chunks,
       "total_uncompressed_size of all %d chunks = their pages' uncompressed sizes and headers (%d right)", chunks, exact);
    pq_close(f);
    buf_free(&file);
    buf_free(&line);
    buf_free(&err);
}

/* Column c of row group 0 as text: each cell as JSON, or its bytes in hex
 * for unannotated fixed-length bytes (which have no JSON value). */
static void cells_text(pq_file *f, int c, wbuf *out)
{
    buf_clear(out);
    pq_values v;
    wbuf err = WBUF_INIT;
    if (pq_read_column(f, 0, c, &v, &err) != 0) {
        buf_printf(out, "ERROR %s", err.data);
        buf_free(&err);
        return;
    }
    const pq_column *col = pq_column_at(f, c);
    for (int64_t r = 0; r < v.n; r++) {
        buf_putc(out, ' ');
        if (v.bytes && !pq_cell_readable(col)) {
            for (uint32_t k = 0; (!v.valid || v.valid[r]) && k < v.bytes[r].len; k++) buf_printf(out, "%02x", v.bytes[r].p[k]);
        } else {
            pq_put_cell(out, col, &v, r);
        }
    }
    buf_putc(out, 0);
    pq_values_free(&v);
    buf_free(&err);
}

/* BYTE_STREAM_SPLIT (Encodings.md: byte k of every value in stream k) for
 * FLOAT16, FLOAT, DOUBLE, INT32, INT64, fixed-length bytes and a DECIMAL in
 * them: each such column of byte_stream_split_extended.gzip.parquet holds
 * the values of the PLAIN column before it (the file's README); and
 * byte_stream_split.zstd.parquet's first f32 values are numpy's first
 * normals after seed(0) (1.764052345967664, 0.4001572083672233, ...) as float32. */
static void byte_stream_split(void)
{
    wbuf err = WBUF_INIT, plain = WBUF_INIT, split = WBUF_INIT;
    pq_file *f = open_data("byte_stream_split_extended.gzip.parquet", &err);
    if (ok(f != NULL, "byte_stream_split_extended.gzip.parquet opens")) {
        for (int c = 0; c + 1 < pq_num_columns(f); c += 2) {
            cells_text(f, c, &plain);
            cells_text(f, c + 1, &split);
            ok(strncmp(plain.data, "ERROR", 5) != 0 && plain.len > 200 && strcmp(plain.data, split.data) == 0,
               "%s: the %s column's 200 values", pq_column_at(f, c + 1)->path, pq_column_at(f, c)->path);
        }
        pq_close(f);
    }
    f = open_data("byte_stream_split.zstd.parquet", &err);
    if (ok(f != NULL, "byte_stream_split.zstd.parquet opens")) {
        cells_text(f, 0, &split);
        ok(strncmp(split.data, " 1.764052391052246 0.40015721321105957 0.978738009929657 2.2408931255340576 ", 76) == 0,
           "byte_stream_split.zstd.parquet: f32 starts with numpy's seed-0 normals as float32: %.80s", split.data);
        pq_close(f);
    }
    buf_free(&err);
    buf_free(&plain);
    buf_free(&split);
}

/* A footer whose field has a repetition type outside REQUIRED, OPTIONAL and
 * REPEATED (a file the parquet_reader fuzz target made: read before as a flat
 * column with definition levels and no room for its nulls) is refused. */
static void unknown_repetition(void)
{
    const char *path = "tests/fuzz/seeds/parquet_reader/bad_repetition.parquet";
    require_file(path);
    int fd = open(path, O_RDONLY);
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_fd(fd, NULL, 0, "bad_repetition.parquet", &err);
    close(fd);
    ok(!f && err.data && strstr(err.data, "bad_repetition.parquet: offset ") &&
           strstr(err.data, "repetition is not REQUIRED, OPTIONAL or REPEATED"),
       "an unknown repetition type: the footer refused, naming file and offset: %s", err.data ? err.data : "(opened)");
    pq_close(f);
    buf_free(&err);
}

int main(void)
{
    thrift_long_field_ids();
    thrift_skip_bool_list();
    thrift_empty_list_type_zero();
    dictionary_offset_zero();
    empty_v2_pages();
    writer_fields();
    byte_stream_split();
    unknown_repetition();
    return done_testing();
}
