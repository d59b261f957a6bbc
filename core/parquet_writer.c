/* parquet_writer.c - JSON lines in, a Parquet file out (see parquet_writer.h). */
#include "parquet_writer.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/thrift_compact.h"
#include "core/util.h"

#define PAGE_BYTES (1u << 20) /* values per page, before compression */
#define ZSTD_LEVEL 3
#define CREATED_BY "winnow"
#define LEN_PREFIX 4

/* parquet.thrift values used here. */
enum { T_BOOLEAN = 0, T_INT64 = 2, T_DOUBLE = 5, T_BYTE_ARRAY = 6, REP_REQUIRED = 0, REP_OPTIONAL = 1,
       CONVERTED_UTF8 = 0, CODEC_ZSTD = 6, ENC_PLAIN = 0, ENC_RLE = 3, PAGE_DATA = 0 };
#define T_UNDECIDED (-1) /* a metadata column seen only with nulls so far */

/* The fixed columns; metadata keys follow as columns of their own. */
enum { COL_TEXT, COL_ID, COL_URL, COL_DATE, COL_SOURCE, COL_METADATA, NFIXED };
static const char *const fixed_names[NFIXED] = {"text", "id", "url", "date", "source", "metadata"};
#define MAX_COLUMNS 1024 /* metadata keys beyond this many go into the metadata column */
#define JSON_INT_CHARS "0123456789-"

typedef struct {
    char *name;
    int type;              /* T_*; the fixed columns are strings */
    uint64_t row_stamp;    /* the last row that set it (metadata columns) */
    size_t bool_bits;      /* the open page's booleans, bit-packed in values */
    wbuf values;           /* the open page: PLAIN values */
    uint8_t *defined;      /* the open page: one definition level per row */
    size_t page_rows, defined_cap;
    wbuf chunk;            /* this row group's finished pages (headers + compressed data) */
    uint64_t chunk_raw;    /* their uncompressed size, headers included */
    int64_t chunk_values;
} column;

typedef struct {
    int64_t rows, raw_bytes;
    int64_t *offset, *compressed, *raw, *values; /* per column */
} group_meta;

struct pq_writer {
    char *name;
    pq_emit_fn emit;
    void *ctx;
    uint64_t offset; /* bytes emitted */
    column *cols;
    int ncols;
    bool frozen; /* the schema is fixed once the first row group is written */
    int64_t group_rows, group_bytes;
    group_meta *groups;
    int ngroups, capgroups;
    int64_t total_rows;
    wbuf line, scratch, page, leftover, key;
    uint64_t lines;
    ZSTD_CCtx *zc;
};

static void emit(pq_writer *w, const void *p, size_t n)
{
    w->emit(w->ctx, p, n);
    w->offset += n;
}

pq_writer *pq_writer_new(const char *name, pq_emit_fn emit_fn, void *ctx)
{
    pq_writer *w = xcalloc(1, sizeof *w);
    w->name = xstrdup(name);
    w->emit = emit_fn;
    w->ctx = ctx;
    w->zc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, ZSTD_LEVEL);
    w->cols = xcalloc(MAX_COLUMNS, sizeof *w->cols);
    for (int c = 0; c < NFIXED; c++) {
        w->cols[c].name = xstrdup(fixed_names[c]);
        w->cols[c].type = T_BYTE_ARRAY;
    }
    w->ncols = NFIXED;
    emit(w, "PAR1", 4);
    return w;
}

static void buf_put_le32(wbuf *b, uint32_t v)
{
    char le[4] = {(char)v, (char)(v >> 8), (char)(v >> 16), (char)(v >> 24)};
    buf_append(b, le, 4);
}

/* Closes column c's open page: definition levels (one bit-packed run), values,
 * zstd, a page header with the CRC. */
static void finish_page(pq_writer *w, int c)
{
    column *col = &w->cols[c];
    if (!col->page_rows) return;
    wbuf *raw = &w->page;
    buf_clear(raw);
    if (c != COL_TEXT) { /* optional: RLE / bit-packing hybrid, bit width 1, with its length */
        size_t groups = (col->page_rows + 7) / 8;
        wbuf levels = WBUF_INIT;
        uint64_t header = (uint64_t)groups << 1 | 1;
        while (header >= 0x80) { buf_putc(&levels, (char)(header | 0x80)); header >>= 7; }
        buf_putc(&levels, (char)header);
        for (size_t g = 0; g < groups; g++) {
            uint8_t byte = 0;
            for (size_t k = 0; k < 8 && g * 8 + k < col->page_rows; k++) byte |= (uint8_t)(col->defined[g * 8 + k] << k);
            buf_putc(&levels, (char)byte);
        }
        buf_put_le32(raw, (uint32_t)levels.len);
        buf_append(raw, levels.data, levels.len);
        buf_free(&levels);
    }
    if (col->values.len) buf_append(raw, col->values.data, col->values.len);
    col->bool_bits = 0;
    size_t bound = ZSTD_compressBound(raw->len);
    buf_clear(&w->scratch);
    buf_reserve(&w->scratch, bound);
    size_t z = ZSTD_compress2(w->zc, w->scratch.data, bound, raw->data ? raw->data : "", raw->len);
    if (ZSTD_isError(z)) dief(EXIT_FATAL, "%s: zstd: %s", w->name, ZSTD_getErrorName(z));
    wbuf header = WBUF_INIT;
    int16_t last = 0, inner = 0;
    tw_field(&header, &last, 1, TC_I32); tw_i32(&header, PAGE_DATA);
    tw_field(&header, &last, 2, TC_I32); tw_i32(&header, (int32_t)raw->len);
    tw_field(&header, &last, 3, TC_I32); tw_i32(&header, (int32_t)z);
    tw_field(&header, &last, 4, TC_I32); tw_i32(&header, (int32_t)crc32(0L, (const Bytef *)w->scratch.data, (uInt)z));
    tw_field(&header, &last, 5, TC_STRUCT);
    tw_field(&header, &inner, 1, TC_I32); tw_i32(&header, (int32_t)col->page_rows);
    tw_field(&header, &inner, 2, TC_I32); tw_i32(&header, ENC_PLAIN);
    tw_field(&header, &inner, 3, TC_I32); tw_i32(&header, ENC_RLE);
    tw_field(&header, &inner, 4, TC_I32); tw_i32(&header, ENC_RLE);
    tw_stop(&header);
    tw_stop(&header);
    buf_append(&col->chunk, header.data, header.len);
    buf_append(&col->chunk, w->scratch.data, z);
    col->chunk_raw += header.len + raw->len;
    col->chunk_values += (int64_t)col->page_rows;
    buf_free(&header);
    buf_clear(&col->values);
    col->page_rows = 0;
}

/* Writes the open row group: each column chunk in turn. */
static void finish_group(pq_writer *w)
{
    if (!w->group_rows) return;
    if (w->ngroups == w->capgroups) {
        w->capgroups = w->capgroups ? 2 * w->capgroups : 8;
        w->groups = xrealloc(w->groups, (size_t)w->capgroups * sizeof *w->groups);
    }
    group_meta *g = &w->groups[w->ngroups++];
    memset(g, 0, sizeof *g);
    g->rows = w->group_rows;
    g->offset = xcalloc((size_t)w->ncols, sizeof *g->offset);
    g->compressed = xcalloc((size_t)w->ncols, sizeof *g->compressed);
    g->raw = xcalloc((size_t)w->ncols, sizeof *g->raw);
    g->values = xcalloc((size_t)w->ncols, sizeof *g->values);
    w->frozen = true;
    for (int c = 0; c < w->ncols; c++) {
        if (w->cols[c].type == T_UNDECIDED) w->cols[c].type = T_BYTE_ARRAY; /* only nulls: strings */
        column *col = &w->cols[c];
        finish_page(w, c);
        g->offset[c] = (int64_t)w->offset;
        g->compressed[c] = (int64_t)col->chunk.len;
        g->raw[c] = (int64_t)col->chunk_raw;
        g->values[c] = col->chunk_values;
        g->raw_bytes += (int64_t)col->chunk_raw;
        if (col->chunk.len) emit(w, col->chunk.data, col->chunk.len);
        buf_clear(&col->chunk);
        col->chunk_raw = 0;
        col->chunk_values = 0;
    }
    w->total_rows += w->group_rows;
    w->group_rows = 0;
    w->group_bytes = 0;
}

/* Starts a cell of column c: its definition level. */
static column *begin_cell(pq_writer *w, int c, bool defined)
{
    column *col = &w->cols[c];
    if (col->page_rows == col->defined_cap) {
        col->defined_cap = col->defined_cap ? 2 * col->defined_cap : 1024;
        col->defined = xrealloc(col->defined, col->defined_cap);
    }
    col->defined[col->page_rows++] = defined;
    return col;
}

static void end_cell(pq_writer *w, int c)
{
    if (w->cols[c].values.len >= PAGE_BYTES) finish_page(w, c);
}

static void add_null(pq_writer *w, int c)
{
    begin_cell(w, c, false);
    end_cell(w, c);
}

static void add_bytes(pq_writer *w, int c, const char *p, size_t n)
{
    column *col = begin_cell(w, c, true);
    buf_put_le32(&col->values, (uint32_t)n);
    if (n) buf_append(&col->values, p, n);
    w->group_bytes += (int64_t)(n + LEN_PREFIX);
    end_cell(w, c);
}

/* INT64 or DOUBLE: 8 little-endian bytes. */
static void add_word(pq_writer *w, int c, uint64_t bits)
{
    column *col = begin_cell(w, c, true);
    char le[8];
    for (int i = 0; i < 8; i++) le[i] = (char)(bits >> (8 * i));
    buf_append(&col->values, le, 8);
    w->group_bytes += 8;
    end_cell(w, c);
}

static void add_bool(pq_writer *w, int c, bool v)
{
    column *col = begin_cell(w, c, true);
    if (col->bool_bits % 8 == 0) buf_putc(&col->values, 0);
    if (v) col->values.data[col->values.len - 1] |= (char)(1u << (col->bool_bits % 8));
    col->bool_bits++;
    w->group_bytes += 1;
    end_cell(w, c);
}

/* A field as its string: a JSON string decoded; anything else (a number, an
 * object) as its JSON text; NULL when missing or null. */
static const char *field_text(const jvalue *v, wbuf *scratch, size_t *n)
{
    if (v->kind == JSON_MISSING || json_is_null(v)) return NULL;
    if (v->kind == JSON_STRING) return json_string(v, scratch, n);
    *n = v->len;
    return v->p;
}

/* True when name is that of a column every file has (text, id, ...): a
 * metadata member of that name cannot have a column of its own (two columns
 * of one name, and a reader would take its "url" for the document's). */
static bool is_fixed_name(const char *name, size_t n)
{
    for (int c = 0; c < NFIXED; c++)
        if (strlen(fixed_names[c]) == n && memcmp(fixed_names[c], name, n) == 0) return true;
    return false;
}

static int find_column(const pq_writer *w, const char *name, size_t n)
{
    for (int c = NFIXED; c < w->ncols; c++)
        if (strlen(w->cols[c].name) == n && memcmp(w->cols[c].name, name, n) == 0) return c;
    return -1;
}

/* A new metadata column, null in the rows of the open row group before this one. */
static int add_column(pq_writer *w, const char *name, size_t n)
{
    int c = w->ncols++;
    column *col = &w->cols[c];
    col->name = xmalloc(n + 1);
    memcpy(col->name, name, n);
    col->name[n] = 0;
    col->type = T_UNDECIDED;
    for (int64_t r = 0; r < w->group_rows; r++) add_null(w, c);
    return c;
}

/* The column type a JSON value has: an integer that fits int64, a number, a
 * string, a boolean; T_UNDECIDED for null; -2 for objects and arrays, and
 * for numbers no column type holds (an integer beyond int64, a number beyond
 * a double's range): those stay JSON, in the row's metadata column, where a
 * double would change their value. */
static int type_of(const char *v, size_t n, int64_t *i, double *d)
{
    if (n == 4 && memcmp(v, "null", 4) == 0) return T_UNDECIDED;
    if (v[0] == '"') return T_BYTE_ARRAY;
    if ((n == 4 && memcmp(v, "true", 4) == 0) || (n == 5 && memcmp(v, "false", 5) == 0)) return T_BOOLEAN;
    if (v[0] == '{' || v[0] == '[') return -2;
    char num[64];
    if (n >= sizeof num) return -2;
    memcpy(num, v, n);
    num[n] = 0;
    errno = 0;
    if (strspn(num, JSON_INT_CHARS) == n) {
        *i = strtoll(num, NULL, 10);
        return errno ? -2 : T_INT64;
    }
    *d = strtod(num, NULL);
    return errno ? -2 : T_DOUBLE;
}

/* Puts the member mb of members (an object's members text) in its column:
 * one of its name, made while the schema is open, or, when it does not fit
 * one (no column, another type, an object or an array), as JSON into the
 * row's leftover object. */
static void add_member(pq_writer *w, const char *members, const jmember *mb, uint64_t row)
{
    const char *p = members;
    size_t v_start = mb->value_from, v_end = mb->to, kn;
    buf_clear(&w->key);
    const char *k = json_string(&mb->key, &w->key, &kn);
    int64_t iv = 0;
    double dv = 0;
    int type = type_of(p + v_start, v_end - v_start, &iv, &dv);
    /* a NUL in the key would cut the column's name short: JSON keeps it */
    bool no_column = is_fixed_name(k, kn) || memchr(k, 0, kn);
    int c = no_column ? -1 : find_column(w, k, kn);
    if (c < 0 && !no_column && !w->frozen && type != -2 && w->ncols < MAX_COLUMNS) c = add_column(w, k, kn);
    if (c >= 0 && w->cols[c].row_stamp == row + 1) c = -1; /* a repeated key */
    if (c >= 0 && type != T_UNDECIDED && w->cols[c].type == T_UNDECIDED && !w->frozen) w->cols[c].type = type;
    bool fits = c >= 0 && (type == T_UNDECIDED || type == w->cols[c].type);
    if (!fits) {
        buf_putc(&w->leftover, w->leftover.len ? ',' : '{');
        buf_append(&w->leftover, p + mb->from, v_end - mb->from);
        return;
    }
    w->cols[c].row_stamp = row + 1;
    if (type == T_UNDECIDED) add_null(w, c);
    else if (type == T_INT64) add_word(w, c, (uint64_t)iv);
    else if (type == T_DOUBLE) { uint64_t bits; memcpy(&bits, &dv, 8); add_word(w, c, bits); }
    else if (type == T_BOOLEAN) add_bool(w, c, p[v_start] == 't');
    else {
        jvalue sv = {p + v_start + 1, v_end - v_start - 2, JSON_STRING, memchr(p + v_start, '\\', v_end - v_start) != NULL};
        size_t sn;
        buf_clear(&w->scratch);
        const char *sp = json_string(&sv, &w->scratch, &sn);
        add_bytes(w, c, sp, sn);
    }
}

/* Spreads the metadata object over its columns, then the document's other
 * top-level members (a dolma "added" or "attributes"): Parquet has one level
 * of columns, so they are columns as the metadata keys are (winnow reads
 * them back into the metadata). Members that do not fit a column are kept,
 * as JSON, in the row's metadata column. */
static void add_metadata(pq_writer *w, const char *line, size_t close_brace, const jvalue *m, uint64_t row)
{
    buf_clear(&w->leftover);
    jmember mb;
    if (m->kind == JSON_OBJECT) {
        size_t at = 0;
        while (json_next_member(m->p + 1, m->len - 2, &at, &mb)) add_member(w, m->p + 1, &mb, row);
    } else if (m->kind != JSON_MISSING && !json_is_null(m)) {
        buf_putc(&w->leftover, '{'); /* not an object: kept as it is, under "metadata" */
        buf_puts(&w->leftover, "\"metadata\":");
        buf_append(&w->leftover, m->p, m->len);
    }
    size_t open = 0, at = 0;
    while (line[open] != '{') open++;
    const char *top = line + open + 1;
    while (json_next_member(top, close_brace - open - 1, &at, &mb)) {
        size_t kn;
        buf_clear(&w->key);
        const char *k = json_string(&mb.key, &w->key, &kn);
        if (!is_fixed_name(k, kn)) add_member(w, top, &mb, row);
    }
    for (int c = NFIXED; c < w->ncols; c++)
        if (w->cols[c].row_stamp != row + 1) add_null(w, c);
    if (w->leftover.len) {
        buf_putc(&w->leftover, '}');
        add_bytes(w, COL_METADATA, w->leftover.data, w->leftover.len);
    } else {
        add_null(w, COL_METADATA);
    }
}

static void add_line(pq_writer *w, const char *line, size_t len)
{
    w->lines++;
    if (len && line[len - 1] == '\r') len--;
    if (!len) return;
    jdoc d;
    const char *err;
    size_t pos;
    if (json_scan_doc(line, len, &d, &err, &pos) != 0 || d.text.kind != JSON_STRING) {
        warnf("%s: line %llu of the document stream is not a document (%s); not written", w->name,
              (unsigned long long)w->lines, d.text.kind != JSON_STRING ? "no text" : err);
        return;
    }
    const jvalue *fields[COL_METADATA] = {&d.text, &d.id, &d.url, &d.date, &d.source};
    for (int c = 0; c < COL_METADATA; c++) {
        size_t n = 0;
        buf_clear(&w->scratch);
        const char *p = field_text(fields[c], &w->scratch, &n);
        if (p) add_bytes(w, c, p, n);
        else add_null(w, c);
    }
    add_metadata(w, line, d.close_brace, &d.metadata, w->lines);
    w->group_rows++;
    if (w->group_bytes >= (int64_t)PQ_ROW_GROUP_BYTES) finish_group(w);
}

void pq_writer_feed(pq_writer *w, const char *p, size_t n)
{
    while (n) {
        const char *nl = memchr(p, '\n', n);
        if (!nl) {
            buf_append(&w->line, p, n);
            return;
        }
        size_t k = (size_t)(nl - p);
        if (w->line.len) {
            buf_append(&w->line, p, k);
            add_line(w, w->line.data, w->line.len);
            buf_clear(&w->line);
        } else {
            add_line(w, p, k);
        }
        p += k + 1;
        n -= k + 1;
    }
}

static void write_footer(pq_writer *w)
{
    wbuf f = WBUF_INIT;
    int16_t last = 0;
    tw_field(&f, &last, 1, TC_I32); tw_i32(&f, 1);
    tw_field(&f, &last, 2, TC_LIST); tw_list(&f, TC_STRUCT, (uint32_t)w->ncols + 1);
    { /* the root */
        int16_t l = 0;
        tw_field(&f, &l, 4, TC_BINARY); tw_binary(&f, "schema", 6);
        tw_field(&f, &l, 5, TC_I32); tw_i32(&f, w->ncols);
        tw_stop(&f);
    }
    for (int c = 0; c < w->ncols; c++) {
        const column *col = &w->cols[c];
        int16_t l = 0, lt = 0;
        tw_field(&f, &l, 1, TC_I32); tw_i32(&f, col->type);
        tw_field(&f, &l, 3, TC_I32); tw_i32(&f, c == COL_TEXT ? REP_REQUIRED : REP_OPTIONAL);
        tw_field(&f, &l, 4, TC_BINARY); tw_binary(&f, col->name, strlen(col->name));
        if (col->type == T_BYTE_ARRAY) {
            tw_field(&f, &l, 6, TC_I32); tw_i32(&f, CONVERTED_UTF8);
            tw_field(&f, &l, 10, TC_STRUCT); /* logicalType: STRING (an empty StringType) */
            tw_field(&f, &lt, 1, TC_STRUCT); tw_stop(&f);
            tw_stop(&f);
        }
        tw_stop(&f);
    }
    tw_field(&f, &last, 3, TC_I64); tw_i64(&f, w->total_rows);
    tw_field(&f, &last, 4, TC_LIST); tw_list(&f, TC_STRUCT, (uint32_t)w->ngroups);
    for (int gi = 0; gi < w->ngroups; gi++) {
        const group_meta *g = &w->groups[gi];
        int16_t lg = 0;
        tw_field(&f, &lg, 1, TC_LIST); tw_list(&f, TC_STRUCT, (uint32_t)w->ncols);
        for (int c = 0; c < w->ncols; c++) {
            int16_t lc = 0, lm = 0;
            tw_field(&f, &lc, 2, TC_I64); tw_i64(&f, g->offset[c]);
            tw_field(&f, &lc, 3, TC_STRUCT);
            tw_field(&f, &lm, 1, TC_I32); tw_i32(&f, w->cols[c].type);
            tw_field(&f, &lm, 2, TC_LIST); tw_list(&f, TC_I32, 2); tw_i32(&f, ENC_PLAIN); tw_i32(&f, ENC_RLE);
            tw_field(&f, &lm, 3, TC_LIST); tw_list(&f, TC_BINARY, 1); tw_binary(&f, w->cols[c].name, strlen(w->cols[c].name));
            tw_field(&f, &lm, 4, TC_I32); tw_i32(&f, CODEC_ZSTD);
            tw_field(&f, &lm, 5, TC_I64); tw_i64(&f, g->values[c]);
            tw_field(&f, &lm, 6, TC_I64); tw_i64(&f, g->raw[c]);
            tw_field(&f, &lm, 7, TC_I64); tw_i64(&f, g->compressed[c]);
            tw_field(&f, &lm, 9, TC_I64); tw_i64(&f, g->offset[c]);
            tw_stop(&f);
            tw_stop(&f);
        }
        tw_field(&f, &lg, 2, TC_I64); tw_i64(&f, g->raw_bytes);
        tw_field(&f, &lg, 3, TC_I64); tw_i64(&f, g->rows);
        tw_stop(&f);
    }
    tw_field(&f, &last, 6, TC_BINARY); tw_binary(&f, CREATED_BY, strlen(CREATED_BY));
    tw_stop(&f);
    emit(w, f.data, f.len);
    char tail[8] = {(char)f.len, (char)(f.len >> 8), (char)(f.len >> 16), (char)(f.len >> 24), 'P', 'A', 'R', '1'};
    emit(w, tail, sizeof tail);
    buf_free(&f);
}

void pq_writer_finish(pq_writer *w)
{
    if (w->line.len) add_line(w, w->line.data, w->line.len); /* a last line without its '\n' */
    finish_group(w);
    write_footer(w);
    pq_writer_free(w);
}

void pq_writer_free(pq_writer *w)
{
    if (!w) return;
    for (int c = 0; c < w->ncols; c++) {
        buf_free(&w->cols[c].values);
        buf_free(&w->cols[c].chunk);
        free(w->cols[c].defined);
        free(w->cols[c].name);
    }
    free(w->cols);
    for (int g = 0; g < w->ngroups; g++) {
        free(w->groups[g].offset);
        free(w->groups[g].compressed);
        free(w->groups[g].raw);
        free(w->groups[g].values);
    }
    buf_free(&w->line);
    buf_free(&w->scratch);
    buf_free(&w->page);
    buf_free(&w->leftover);
    buf_free(&w->key);
    ZSTD_freeCCtx(w->zc);
    free(w->groups);
    free(w->name);
    free(w);
}
