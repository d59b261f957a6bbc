/* parquet_writer.c - JSON lines in, a Parquet file out (see parquet_writer.h). */
#include "parquet_writer.h"

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
enum { T_BYTE_ARRAY = 6, REP_REQUIRED = 0, REP_OPTIONAL = 1, CONVERTED_UTF8 = 0, CODEC_ZSTD = 6,
       ENC_PLAIN = 0, ENC_RLE = 3, PAGE_DATA = 0 };

enum { COL_TEXT, COL_ID, COL_URL, COL_DATE, COL_SOURCE, COL_METADATA, NCOLS };
static const char *const col_names[NCOLS] = {"text", "id", "url", "date", "source", "metadata"};

typedef struct {
    wbuf values;           /* the open page: PLAIN values */
    uint8_t *defined;      /* the open page: one definition level per row */
    size_t page_rows, defined_cap;
    wbuf chunk;            /* this row group's finished pages (headers + compressed data) */
    uint64_t chunk_raw;    /* their uncompressed size, headers included */
    int64_t chunk_values;
} column;

typedef struct {
    int64_t rows, raw_bytes;
    int64_t offset[NCOLS], compressed[NCOLS], raw[NCOLS], values[NCOLS];
} group_meta;

struct pq_writer {
    char *name;
    pq_emit_fn emit;
    void *ctx;
    uint64_t offset; /* bytes emitted */
    column cols[NCOLS];
    int64_t group_rows, group_bytes;
    group_meta *groups;
    int ngroups, capgroups;
    int64_t total_rows;
    wbuf line, scratch, page;
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
    emit(w, "PAR1", 4);
    return w;
}

static void put_le32(wbuf *b, uint32_t v)
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
        put_le32(raw, (uint32_t)levels.len);
        buf_append(raw, levels.data, levels.len);
        buf_free(&levels);
    }
    if (col->values.len) buf_append(raw, col->values.data, col->values.len);
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
    for (int c = 0; c < NCOLS; c++) {
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

/* Appends one cell (NULL: null) to column c. */
static void add_cell(pq_writer *w, int c, const char *p, size_t n)
{
    column *col = &w->cols[c];
    if (col->page_rows == col->defined_cap) {
        col->defined_cap = col->defined_cap ? 2 * col->defined_cap : 1024;
        col->defined = xrealloc(col->defined, col->defined_cap);
    }
    col->defined[col->page_rows++] = p != NULL;
    if (p) {
        put_le32(&col->values, (uint32_t)n);
        if (n) buf_append(&col->values, p, n);
        w->group_bytes += (int64_t)(n + LEN_PREFIX);
    }
    if (col->values.len >= PAGE_BYTES) finish_page(w, c);
}

/* A field as its string: a JSON string decoded; anything else (a number, an
 * object) as its JSON text; NULL when missing or null. */
static const char *field_text(const jvalue *v, wbuf *scratch, size_t *n)
{
    if (v->kind == JSON_MISSING || (v->kind == JSON_LITERAL && v->len == 4 && memcmp(v->p, "null", 4) == 0)) return NULL;
    if (v->kind == JSON_STRING) return json_string(v, scratch, n);
    *n = v->len;
    return v->p;
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
    const jvalue *fields[NCOLS] = {&d.text, &d.id, &d.url, &d.date, &d.source, &d.metadata};
    for (int c = 0; c < NCOLS; c++) {
        size_t n = 0;
        buf_clear(&w->scratch);
        const char *p = field_text(fields[c], &w->scratch, &n);
        add_cell(w, c, p, n);
    }
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
    tw_field(&f, &last, 2, TC_LIST); tw_list(&f, TC_STRUCT, NCOLS + 1);
    { /* the root */
        int16_t l = 0;
        tw_field(&f, &l, 4, TC_BINARY); tw_binary(&f, "schema", 6);
        tw_field(&f, &l, 5, TC_I32); tw_i32(&f, NCOLS);
        tw_stop(&f);
    }
    for (int c = 0; c < NCOLS; c++) {
        int16_t l = 0, lt = 0;
        tw_field(&f, &l, 1, TC_I32); tw_i32(&f, T_BYTE_ARRAY);
        tw_field(&f, &l, 3, TC_I32); tw_i32(&f, c == COL_TEXT ? REP_REQUIRED : REP_OPTIONAL);
        tw_field(&f, &l, 4, TC_BINARY); tw_binary(&f, col_names[c], strlen(col_names[c]));
        tw_field(&f, &l, 6, TC_I32); tw_i32(&f, CONVERTED_UTF8);
        tw_field(&f, &l, 10, TC_STRUCT); /* logicalType: STRING (an empty StringType) */
        tw_field(&f, &lt, 1, TC_STRUCT); tw_stop(&f);
        tw_stop(&f);
        tw_stop(&f);
    }
    tw_field(&f, &last, 3, TC_I64); tw_i64(&f, w->total_rows);
    tw_field(&f, &last, 4, TC_LIST); tw_list(&f, TC_STRUCT, (uint32_t)w->ngroups);
    for (int gi = 0; gi < w->ngroups; gi++) {
        const group_meta *g = &w->groups[gi];
        int16_t lg = 0;
        tw_field(&f, &lg, 1, TC_LIST); tw_list(&f, TC_STRUCT, NCOLS);
        for (int c = 0; c < NCOLS; c++) {
            int16_t lc = 0, lm = 0;
            tw_field(&f, &lc, 2, TC_I64); tw_i64(&f, g->offset[c]);
            tw_field(&f, &lc, 3, TC_STRUCT);
            tw_field(&f, &lm, 1, TC_I32); tw_i32(&f, T_BYTE_ARRAY);
            tw_field(&f, &lm, 2, TC_LIST); tw_list(&f, TC_I32, 2); tw_i32(&f, ENC_PLAIN); tw_i32(&f, ENC_RLE);
            tw_field(&f, &lm, 3, TC_LIST); tw_list(&f, TC_BINARY, 1); tw_binary(&f, col_names[c], strlen(col_names[c]));
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
    for (int c = 0; c < NCOLS; c++) {
        buf_free(&w->cols[c].values);
        buf_free(&w->cols[c].chunk);
        free(w->cols[c].defined);
    }
    buf_free(&w->line);
    buf_free(&w->scratch);
    buf_free(&w->page);
    ZSTD_freeCCtx(w->zc);
    free(w->groups);
    free(w->name);
    free(w);
}
