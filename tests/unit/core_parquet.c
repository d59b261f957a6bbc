/* core_parquet - the Parquet reader on the Parquet project's own test files
 * (apache/parquet-testing): values cell by cell against the *_expect.csv
 * files and the known alltypes tables, page CRCs, refusals with file and
 * offset, the project's bad_data files, every byte of a footer damaged, a
 * dictionary index past its dictionary; and winnow's writer read back: row
 * groups, column types, nulls, the footer's schema annotations. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/parquet.h"
#include "core/parquet_internal.h"
#include "core/parquet_writer.h"
#include "core/thrift_compact.h"
#include "core/util.h"
#include "tests/tap.h"

#define DATA "parquet/parquet-testing/data"
#define BAD_DATA "parquet/parquet-testing/bad_data"
#define MAX_FIELDS 128

static char *path_of(const char *dir, const char *name)
{
    static char p[2048];
    snprintf(p, sizeof p, "%s/%s/%s", shared_dir(), dir, name);
    return p;
}

static pq_file *open_path(const char *path, wbuf *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        buf_printf(err, "%s: cannot open", path);
        return NULL;
    }
    pq_file *f = pq_open_fd(fd, NULL, 0, path, err);
    close(fd);
    return f;
}

/* The text of row r of v as the expect files write it ("" for null). */
static void cell_text(const pq_values *v, int64_t r, wbuf *out)
{
    buf_clear(out);
    if (v->valid && !v->valid[r]) {
        if (!out->data) buf_puts(out, "");
        return;
    }
    switch (v->type) {
    case PQ_BYTE_ARRAY: buf_append(out, v->bytes[r].p, v->bytes[r].len); break;
    case PQ_BOOLEAN: buf_puts(out, v->ints[r] ? "true" : "false"); break;
    case PQ_INT32:
    case PQ_INT64: buf_printf(out, "%lld", (long long)v->ints[r]); break;
    default: buf_printf(out, "%.17g", v->reals[r]); break;
    }
    if (!out->data) buf_puts(out, "");
}

/* Splits a CSV line (fields optionally in double quotes, no embedded quotes). */
static int split_csv(char *line, char **fields)
{
    int n = 0;
    char *p = line;
    while (n < MAX_FIELDS) {
        if (*p == '"') {
            char *end = strchr(p + 1, '"');
            if (!end) break;
            *end = 0;
            fields[n++] = p + 1;
            p = end + 1;
        } else {
            fields[n++] = p;
            p += strcspn(p, ",\r\n");
        }
        if (*p != ',') {
            *p = 0;
            break;
        }
        *p++ = 0;
    }
    return n;
}

/* Every cell of the file against its *_expect.csv (header names the columns). */
static void against_csv(const char *parquet, const char *csv)
{
    wbuf err = WBUF_INIT, cell = WBUF_INIT;
    pq_file *f = open_path(path_of(DATA, parquet), &err);
    if (!ok(f != NULL, "%s opens", parquet)) {
        diag("%s", err.data);
        return;
    }
    size_t len;
    char *text = read_file(path_of(DATA, csv), &len);
    if (!ok(text != NULL, "%s reads", csv)) return;
    char *save, *line = strtok_r(text, "\n", &save);
    char *names[MAX_FIELDS];
    int ncsv = split_csv(line, names);
    int cols[MAX_FIELDS];
    int found = 0;
    for (int i = 0; i < ncsv; i++) {
        const char *name = names[i];
        while (*name == ' ') name++; /* one expect file has " c_customer_id" */
        cols[i] = pq_find_column(f, name);
        if (cols[i] < 0) { /* delta_encoding_required_column's columns are named "c_customer_sk:" ... */
            char with_colon[256];
            snprintf(with_colon, sizeof with_colon, "%s:", name);
            cols[i] = pq_find_column(f, with_colon);
        }
        found += cols[i] >= 0;
    }
    is_int(found, ncsv, "%s: every CSV column is in the file", parquet);
    int64_t rows = 0, cells = 0, wrong = 0, errors = 0;
    for (int g = 0; g < pq_num_row_groups(f); g++) {
        pq_values v[MAX_FIELDS];
        for (int i = 0; i < ncsv; i++) {
            if (cols[i] < 0 || pq_read_column(f, g, cols[i], &v[i], &err) != 0) {
                errors++;
                memset(&v[i], 0, sizeof v[i]);
            }
        }
        for (int64_t r = 0; r < pq_row_group_rows(f, g); r++) {
            char *fields[MAX_FIELDS];
            line = strtok_r(NULL, "\n", &save);
            if (!line) { wrong++; break; }
            int nf = split_csv(line, fields);
            rows++;
            for (int i = 0; i < ncsv && i < nf; i++) {
                if (!v[i].n) continue;
                cell_text(&v[i], r, &cell);
                cells++;
                if (strcmp(cell.data, fields[i]) != 0) {
                    if (wrong++ < 3) diag("%s row %lld column %s: got '%s', want '%s'", parquet, (long long)rows, names[i], cell.data, fields[i]);
                }
            }
        }
        for (int i = 0; i < ncsv; i++) pq_values_free(&v[i]);
    }
    if (errors) diag("%s", err.data);
    is_int(errors, 0, "%s: every column decodes", parquet);
    ok(rows > 0 && !strtok_r(NULL, "\n", &save), "%s: %lld rows, as many as the CSV", parquet, (long long)rows);
    is_int(wrong, 0, "%s: all %lld cells equal the expect file's", parquet, (long long)cells);
    free(text);
    pq_close(f);
    buf_free(&err);
    buf_free(&cell);
}

/* Column name of f as one string per row, joined by '|'. */
static void column_joined(pq_file *f, const char *name, wbuf *out)
{
    wbuf err = WBUF_INIT, cell = WBUF_INIT;
    buf_clear(out);
    int c = pq_find_column(f, name);
    bool first = true;
    for (int g = 0; c >= 0 && g < pq_num_row_groups(f); g++) {
        pq_values v;
        if (pq_read_column(f, g, c, &v, &err) != 0) {
            buf_printf(out, "ERROR %s", err.data);
            break;
        }
        for (int64_t r = 0; r < v.n; r++) {
            cell_text(&v, r, &cell);
            buf_printf(out, "%s%s", first ? "" : "|", cell.data);
            first = false;
        }
        pq_values_free(&v);
    }
    if (!out->data) buf_puts(out, "");
    buf_free(&err);
    buf_free(&cell);
}

/* The alltypes tables (Impala's, as the Parquet project describes them). */
static void alltypes(void)
{
    static const struct { const char *file, *column, *want; } cases[] = {
        {"alltypes_plain.parquet", "id", "4|5|6|7|2|3|0|1"},
        {"alltypes_plain.parquet", "bool_col", "true|false|true|false|true|false|true|false"},
        {"alltypes_plain.parquet", "bigint_col", "0|10|0|10|0|10|0|10"},
        {"alltypes_plain.parquet", "double_col", "0|10.1|0|10.1|0|10.1|0|10.1"},
        {"alltypes_plain.parquet", "date_string_col", "03/01/09|03/01/09|04/01/09|04/01/09|02/01/09|02/01/09|01/01/09|01/01/09"},
        {"alltypes_plain.parquet", "string_col", "0|1|0|1|0|1|0|1"},
        {"alltypes_plain.snappy.parquet", "id", "6|7"},
        {"alltypes_plain.snappy.parquet", "date_string_col", "04/01/09|04/01/09"},
        {"alltypes_dictionary.parquet", "id", "0|1"},
        {"alltypes_dictionary.parquet", "string_col", "0|1"},
        {"datapage_v1-snappy-compressed-checksum.parquet", "a", NULL},
        {"datapage_v1-uncompressed-checksum.parquet", "a", NULL},
    };
    wbuf err = WBUF_INIT, got = WBUF_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pq_file *f = open_path(path_of(DATA, cases[i].file), &err);
        if (!ok(f != NULL, "%s opens", cases[i].file)) continue;
        column_joined(f, cases[i].column, &got);
        if (cases[i].want) is_str(got.data, cases[i].want, "%s: column %s", cases[i].file, cases[i].column);
        else ok(strncmp(got.data, "ERROR", 5) != 0 && got.len > 0, "%s: pages with matching CRCs decode", cases[i].file);
        pq_close(f);
    }
    buf_free(&err);
    buf_free(&got);
}

/* Files the reader refuses: the message names the file, an offset and why. */
static void refusals(void)
{
    static const struct { const char *file, *column, *why; } cases[] = {
        {"datapage_v1-corrupt-checksum.parquet", "a", "page CRC does not match"},
        {"rle-dict-uncompressed-corrupt-checksum.parquet", "long_field", "page CRC does not match"},
    };
    wbuf err = WBUF_INIT, got = WBUF_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pq_file *f = open_path(path_of(DATA, cases[i].file), &err);
        if (!ok(f != NULL, "%s opens", cases[i].file)) continue;
        column_joined(f, cases[i].column, &got);
        ok(strstr(got.data, "ERROR ") && strstr(got.data, cases[i].file) && strstr(got.data, ": offset ") &&
               strstr(got.data, cases[i].why),
           "%s: refused: %s", cases[i].file, got.data);
        pq_close(f);
    }
    buf_free(&err);
    buf_free(&got);
}

/* Reads every column of every row group; returns the number of failures. */
static int read_all(pq_file *f, wbuf *err)
{
    int failures = 0;
    for (int g = 0; g < pq_num_row_groups(f); g++)
        for (int c = 0; c < pq_num_columns(f); c++) {
            pq_values v;
            if (pq_read_column(f, g, c, &v, err) != 0) failures++;
            else pq_values_free(&v);
        }
    return failures;
}

/* The project's files that crashed other readers: errors, never a crash. */
static void bad_data(void)
{
    static const char *files[] = {"ARROW-GH-41317.parquet", "ARROW-GH-41321.parquet", "ARROW-GH-43605.parquet",
                                  "ARROW-GH-45185.parquet", "ARROW-GH-47662.parquet", "ARROW-RS-GH-6229-DICTHEADER.parquet",
                                  "ARROW-RS-GH-6229-LEVELS.parquet", "PARQUET-1481.parquet"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        wbuf err = WBUF_INIT;
        pq_file *f = open_path(path_of(BAD_DATA, files[i]), &err);
        int failures = f ? read_all(f, &err) : 1;
        ok(failures > 0 && strstr(err.data, files[i]) && strstr(err.data, ": offset "), "bad_data/%s: an error naming file and offset: %s",
           files[i], err.data ? err.data : "");
        pq_close(f);
        buf_free(&err);
    }
}

/* Every byte of the footer (and the tail) set to a few values, the footer
 * length lying, the file cut short: errors or values, never a crash or a read
 * outside the file (run under SANITIZE=1). */
static void damaged_footers(void)
{
    size_t n;
    char *orig = read_file(path_of(DATA, "alltypes_plain.snappy.parquet"), &n);
    if (!ok(orig != NULL, "alltypes_plain.snappy.parquet reads")) return;
    uint32_t footer = (uint32_t)(unsigned char)orig[n - 8] | (uint32_t)(unsigned char)orig[n - 7] << 8;
    uint8_t *copy = xmalloc(n);
    static const uint8_t values[] = {0x00, 0xff, 0x7f, 0x15, 0x19, 0x1c, 0x80};
    int opened = 0, tries = 0;
    for (size_t at = n - 8 - footer; at < n; at++) {
        for (size_t k = 0; k < sizeof values; k++) {
            memcpy(copy, orig, n);
            copy[at] = values[k];
            wbuf err = WBUF_INIT;
            pq_file *f = pq_open_memory(copy, n, "damaged", &err);
            tries++;
            if (f) {
                opened++;
                read_all(f, &err);
                pq_close(f);
            } else if (!strstr(err.data, "damaged: offset ")) {
                diag("a refusal without file and offset: %s", err.data);
                opened = -1000000;
            }
            buf_free(&err);
        }
    }
    ok(opened >= 0, "%d damaged footers: no crash, each refusal names the file and offset (%d still open)", tries, opened);
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_memory((const uint8_t *)orig, n - 1, "cut", &err);
    ok(!f && strstr(err.data, "cut: offset ") && strstr(err.data, "no PAR1 magic at the end"), "a file cut short: %s", err.data);
    buf_clear(&err);
    memcpy(copy, orig, n);
    copy[n - 5] = 0x7f; /* footer length about 2 GiB */
    f = pq_open_memory(copy, n, "lying", &err);
    ok(!f && strstr(err.data, "lying: offset ") && strstr(err.data, "more than the file holds"), "a footer length over the file: %s", err.data);
    /* the footer lies between the leading PAR1 and the 8-byte tail: at most n - 12 bytes */
    for (uint32_t len = (uint32_t)n - 12; len <= (uint32_t)n - 8; len++) {
        memcpy(copy, orig, n);
        for (int i = 0; i < 4; i++) copy[n - 8 + i] = (uint8_t)(len >> (8 * i));
        buf_clear(&err);
        f = pq_open_memory(copy, n, "edge", &err);
        bool over = strstr(err.data ? err.data : "", "more than the file holds") != NULL;
        ok(!f && over == (len > n - 12), "a footer length of n - %u: refused%s: %s", (unsigned)(n - len),
           len > n - 12 ? " as more than the file holds" : " (it overlaps no magic)", err.data ? err.data : "");
        pq_close(f);
    }
    for (size_t cut = 1; cut < n; cut += 7) { /* every prefix that still ends in PAR1 */
        memcpy(copy, orig, cut);
        memcpy(copy + cut - 4 > copy ? copy + cut - 4 : copy, "PAR1", cut >= 4 ? 4 : 0);
        buf_clear(&err);
        pq_file *g = pq_open_memory(copy, cut, "prefix", &err);
        if (g) {
            read_all(g, &err);
            pq_close(g);
        }
    }
    ok(1, "truncated files ending in PAR1: no crash");
    buf_free(&err);
    free(copy);
    free(orig);
}

static void to_wbuf(void *ctx, const void *p, size_t n) { buf_append(ctx, p, n); }

/* The writer closes a row group at about 128 MB of data (PQ_ROW_GROUP_BYTES):
 * 2,200 documents of 64 KiB make two row groups, the first just over the size. */
static void writer_row_groups(void)
{
    enum { DOCS = 2200, TEXT = 64 * 1024 };
    wbuf file = WBUF_INIT, line = WBUF_INIT, err = WBUF_INIT;
    pq_writer *w = pq_writer_new("big.parquet", to_wbuf, &file);
    char *text = xmalloc(TEXT + 1);
    for (int d = 0; d < DOCS; d++) {
        for (int i = 0; i < TEXT; i++) text[i] = (char)('a' + (i * 7 + d) % 26);
        text[TEXT] = 0;
        buf_clear(&line);
        buf_printf(&line, "{\"id\":\"doc-%d\",\"text\":\"%s\",\"metadata\":{\"n\":%d}}\n", d, text, d);
        pq_writer_feed(w, line.data, line.len / 2); /* a line may come in pieces */
        pq_writer_feed(w, line.data + line.len / 2, line.len - line.len / 2);
    }
    pq_writer_finish(w);
    pq_file *f = pq_open_memory((const uint8_t *)file.data, file.len, "big.parquet", &err);
    if (!ok(f != NULL, "the writer's %zu-byte file opens", file.len)) {
        diag("%s", err.data);
        return;
    }
    is_int(pq_num_row_groups(f), 2, "two row groups");
    is_int(pq_num_rows(f), DOCS, "every document a row");
    int64_t first = pq_row_group_bytes(f, 0);
    ok(first >= (int64_t)PQ_ROW_GROUP_BYTES && first < (int64_t)PQ_ROW_GROUP_BYTES + 2 * TEXT,
       "the first row group closes at about %u bytes of data (%lld)", PQ_ROW_GROUP_BYTES, (long long)first);
    wbuf got = WBUF_INIT;
    column_joined(f, "id", &got);
    ok(got.len > 10 && strncmp(got.data, "doc-0|doc-1|", 12) == 0 && strstr(got.data, "|doc-2199") != NULL, "ids in order across row groups");
    column_joined(f, "n", &got);
    ok(strncmp(got.data, "0|1|2|", 6) == 0 && strstr(got.data, "|2199") != NULL, "metadata.n as an INT64 column of its own");
    ok(pq_column_at(f, pq_find_column(f, "n"))->type == PQ_INT64, "of type INT64");
    pq_values v;
    int c = pq_find_column(f, "text");
    ok(pq_read_column(f, 1, c, &v, &err) == 0 && v.bytes[v.n - 1].len == TEXT && memcmp(v.bytes[v.n - 1].p, text, TEXT) == 0,
       "the last text, in the second row group, byte for byte");
    pq_values_free(&v);
    pq_close(f);
    free(text);
    buf_free(&file);
    buf_free(&line);
    buf_free(&err);
    buf_free(&got);
}

/* A dictionary page that holds one value less than its data page's indices
 * reach (alltypes_dictionary.parquet's id column, 2 values, with the
 * DictionaryPageHeader's num_values edited to 1): index 1 is not below the
 * dictionary's size and must be refused, not read from past the dictionary. */
static void dictionary_index_bound(void)
{
    size_t n;
    char *orig = read_file(path_of(DATA, "alltypes_dictionary.parquet"), &n);
    if (!ok(orig != NULL, "alltypes_dictionary.parquet reads")) return;
    wbuf err = WBUF_INIT, got = WBUF_INIT;
    pq_file *f = pq_open_memory((const uint8_t *)orig, n, "dict", &err);
    int c = f ? pq_find_column(f, "id") : -1;
    int64_t at = c >= 0 ? f->groups[0].chunks[c].dictionary_page_offset : -1;
    pq_close(f);
    /* PageHeader (parquet.thrift): 1 type = DICTIONARY_PAGE (2), ..., 7 dictionary_page_header { 1 num_values } */
    tc_reader r;
    tc_init(&r, (const uint8_t *)orig + (at > 0 ? at : 0), at > 0 ? n - (size_t)at : 0, 0);
    int16_t id, last = 0, inner_last = 0;
    int t, page_type = -1;
    size_t num_values_at = 0;
    int32_t num_values = -1;
    while (tc_field(&r, &id, &t, &last)) {
        if (id == 1 && t == TC_I32) page_type = tc_i32(&r);
        else if (id == 7 && t == TC_STRUCT) {
            tc_struct_begin(&r);
            while (tc_field(&r, &id, &t, &inner_last)) {
                if (id == 1 && t == TC_I32) {
                    num_values_at = (size_t)at + (size_t)tc_offset(&r);
                    num_values = tc_i32(&r);
                } else tc_skip(&r, t);
            }
            tc_struct_end(&r);
        } else tc_skip(&r, t);
    }
    if (!ok(page_type == 2 && num_values == 2 && num_values_at > 0, "id's dictionary page holds 2 values (type %d, %d values)",
            page_type, num_values)) {
        free(orig);
        return;
    }
    column_joined(f = pq_open_memory((const uint8_t *)orig, n, "dict", &err), "id", &got);
    is_str(got.data, "0|1", "the unedited file: ids 0|1 through the dictionary");
    pq_close(f);
    orig[num_values_at] = 2; /* zigzag varint of 1 (one byte, as 2's was) */
    f = pq_open_memory((const uint8_t *)orig, n, "dict", &err);
    column_joined(f, "id", &got);
    ok(strstr(got.data, "ERROR dict: offset ") && strstr(got.data, "dictionary index out of range"),
       "an index equal to the dictionary's size is refused: %s", got.data);
    pq_close(f);
    buf_free(&err);
    buf_free(&got);
    free(orig);
}

/* For each schema element of a Parquet file's footer: its type (-1: none),
 * converted_type (-1: none) and the LogicalType union's member (0: none),
 * as parquet.thrift numbers them. Returns the element count, -1 if unread. */
static int schema_annotations(const wbuf *file, int *type, int *converted, int *logical, int max)
{
    const uint8_t *p = (const uint8_t *)file->data;
    uint32_t len = (uint32_t)p[file->len - 8] | (uint32_t)p[file->len - 7] << 8 | (uint32_t)p[file->len - 6] << 16 |
                   (uint32_t)p[file->len - 5] << 24;
    tc_reader r;
    tc_init(&r, p + file->len - 8 - len, len, 0);
    int16_t id, last = 0;
    int t, count = -1;
    while (tc_field(&r, &id, &t, &last)) {
        if (id != 2 || t != TC_LIST) { /* FileMetaData 2: list<SchemaElement> */
            tc_skip(&r, t);
            continue;
        }
        int et;
        count = (int)tc_list(&r, &et);
        for (int e = 0; e < count && e < max && !tc_failed(&r); e++) {
            int16_t el = 0;
            type[e] = converted[e] = -1;
            logical[e] = 0;
            tc_struct_begin(&r);
            while (tc_field(&r, &id, &t, &el)) {
                if (id == 1 && t == TC_I32) type[e] = tc_i32(&r);
                else if (id == 6 && t == TC_I32) converted[e] = tc_i32(&r);
                else if (id == 10 && t == TC_STRUCT) {
                    int16_t ll = 0;
                    tc_struct_begin(&r);
                    while (tc_field(&r, &id, &t, &ll)) {
                        logical[e] = id;
                        tc_skip(&r, t);
                    }
                    tc_struct_end(&r);
                } else tc_skip(&r, t);
            }
            tc_struct_end(&r);
        }
    }
    return tc_failed(&r) ? -1 : count;
}

/* The writer's schema and values for documents whose metadata has K keys (13
 * rows: the last group of 8 definition levels is partial), for K = 8 (a
 * schema list of 15 elements) and 9 (15 column chunks): 15 is the first list
 * size the Thrift compact protocol writes in its long form. Key m0 holds a
 * number with an exponent (a DOUBLE column), m1 an integer (INT64, null in
 * every third row), the others strings; key "wide" an integer beyond int64,
 * which no column holds: it stays JSON in the metadata column. */
static void writer_schema(void)
{
    enum { ROWS = 13, MAX_ELEMS = 32 };
    for (int keys = 8; keys <= 9; keys++) {
        wbuf file = WBUF_INIT, line = WBUF_INIT, err = WBUF_INIT, got = WBUF_INIT, want = WBUF_INIT;
        pq_writer *w = pq_writer_new("schema.parquet", to_wbuf, &file);
        for (int d = 0; d < ROWS; d++) {
            buf_clear(&line);
            buf_printf(&line, "{\"text\":\"doc %d\",\"id\":\"d%d\",\"metadata\":{\"m0\":1E20,\"wide\":99999999999999999999", d, d);
            if (d % 3) buf_printf(&line, ",\"m1\":%d", -7 * d);
            for (int k = 2; k < keys; k++) buf_printf(&line, ",\"m%d\":\"v%d.%d\"", k, k, d);
            buf_puts(&line, "}}\n");
            pq_writer_feed(w, line.data, line.len);
        }
        pq_writer_finish(w);
        pq_file *f = pq_open_memory((const uint8_t *)file.data, file.len, "schema.parquet", &err);
        if (!ok(f != NULL, "%d metadata keys: the writer's file opens", keys)) {
            diag("%s", err.data);
            continue;
        }
        is_int(pq_num_columns(f), 6 + keys, "%d metadata keys: text, id, url, date, source, metadata and a column per key", keys);
        is_int(pq_num_rows(f), ROWS, "%d metadata keys: %d rows", keys, ROWS);
        int m0 = pq_find_column(f, "m0"), m1 = pq_find_column(f, "m1");
        ok(m0 >= 0 && pq_column_at(f, m0)->type == PQ_DOUBLE, "a number with an exponent makes a DOUBLE column");
        column_joined(f, "m0", &got);
        buf_clear(&want);
        for (int d = 0; d < ROWS; d++) buf_printf(&want, "%s1e+20", d ? "|" : "");
        is_str(got.data, want.data, "%d metadata keys: 1E20 as the double 1e+20 in every row", keys);
        ok(pq_find_column(f, "wide") < 0, "%d metadata keys: no column for an integer beyond int64", keys);
        column_joined(f, "metadata", &got);
        buf_clear(&want);
        for (int d = 0; d < ROWS; d++) buf_printf(&want, "%s{\"wide\":99999999999999999999}", d ? "|" : "");
        is_str(got.data, want.data, "%d metadata keys: it stays JSON, exact, in the metadata column", keys);
        ok(m1 >= 0 && pq_column_at(f, m1)->type == PQ_INT64, "an integer makes an INT64 column");
        column_joined(f, "m1", &got);
        buf_clear(&want);
        for (int d = 0; d < ROWS; d++) {
            if (d) buf_putc(&want, '|');
            if (d % 3) buf_printf(&want, "%d", -7 * d);
        }
        is_str(got.data, want.data, "%d metadata keys: m1 with its nulls in place", keys);
        buf_clear(&want);
        for (int d = 0; d < ROWS; d++) buf_printf(&want, "%sv%d.%d", d ? "|" : "", keys - 1, d);
        char last_key[8];
        snprintf(last_key, sizeof last_key, "m%d", keys - 1);
        column_joined(f, last_key, &got);
        is_str(got.data, want.data, "%d metadata keys: the last key's column", keys);
        column_joined(f, "url", &got);
        is_str(got.data, "||||||||||||", "%d metadata keys: url null in all 13 rows", keys);
        /* parquet.thrift: BYTE_ARRAY = 6; ConvertedType UTF8 = 0; LogicalType 1: STRING */
        int type[MAX_ELEMS], converted[MAX_ELEMS], logical[MAX_ELEMS];
        int elems = schema_annotations(&file, type, converted, logical, MAX_ELEMS);
        int strings = 0, annotated = 0;
        for (int e = 1; e < elems && e < MAX_ELEMS; e++)
            if (type[e] == 6) {
                strings++;
                annotated += converted[e] == 0 && logical[e] == 1;
            }
        is_int(elems, 7 + keys, "%d metadata keys: the footer's schema list holds the root and every column", keys);
        ok(strings == 4 + keys && annotated == strings, "%d metadata keys: all %d string columns are UTF8 / STRING (%d are)", keys,
           strings, annotated);
        pq_close(f);
        buf_free(&file);
        buf_free(&line);
        buf_free(&err);
        buf_free(&got);
        buf_free(&want);
    }
}

int main(void)
{
    against_csv("delta_binary_packed.parquet", "delta_binary_packed_expect.csv");
    against_csv("delta_byte_array.parquet", "delta_byte_array_expect.csv");
    against_csv("delta_encoding_optional_column.parquet", "delta_encoding_optional_column_expect.csv");
    against_csv("delta_encoding_required_column.parquet", "delta_encoding_required_column_expect.csv");
    alltypes();
    refusals();
    bad_data();
    damaged_footers();
    writer_row_groups();
    writer_schema();
    dictionary_index_bound();
    return done_testing();
}
