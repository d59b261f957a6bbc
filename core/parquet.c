/* parquet.c - opening a Parquet file: the magic, the footer (FileMetaData in
 * the Thrift compact protocol), the schema's leaf columns and the row groups'
 * column chunks. Pages are read by parquet_column.c. */
#include "parquet_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/thrift_compact.h"
#include "core/util.h"

#define PQ_MAGIC "PAR1"
#define PQ_ENCRYPTED_MAGIC "PARE"
#define PQ_MAGIC_LEN 4
#define PQ_FOOTER_TAIL 8 /* u32 footer length + magic */
#define PQ_SCHEMA_MAX_DEPTH 64
#define READ_CHUNK (1 << 20)

void pq_error(wbuf *err, const pq_file *f, uint64_t offset, const char *fmt, ...)
{
    buf_printf(err, "%s: offset %llu: ", f->name, (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf_puts(err, msg);
}

/* A schema element as the footer has it. */
typedef struct {
    const uint8_t *name;
    uint32_t name_len;
    int type, type_length, repetition, num_children;
    bool has_type;
    int converted, scale;      /* converted_type (-1: none) and scale */
    int logical, logical_scale; /* the LogicalType union's member (0: none), DecimalType.scale */
    bool logical_unsigned;     /* IntType.isSigned = false */
    bool logical_utc;          /* TimeType / TimestampType.isAdjustedToUTC */
    int logical_digits;        /* their unit as digits of a second (0: none read) */
} schema_elem;

/* ConvertedType and the LogicalType union's members (parquet.thrift). */
enum { CONV_DECIMAL = 5, CONV_DATE = 6, CONV_TIME_MILLIS = 7, CONV_TIME_MICROS = 8, CONV_TIMESTAMP_MILLIS = 9,
       CONV_TIMESTAMP_MICROS = 10, CONV_UINT_8 = 11, CONV_UINT_64 = 14, CONV_BSON = 20, CONV_INTERVAL = 21 };
enum { LOGICAL_DECIMAL = 5, LOGICAL_DATE = 6, LOGICAL_TIME = 7, LOGICAL_TIMESTAMP = 8, LOGICAL_INTERVAL = 9,
       LOGICAL_INTEGER = 10, LOGICAL_JSON = 12, LOGICAL_UUID = 14, LOGICAL_FLOAT16 = 15, LOGICAL_LAST = 18 };
/* TimeUnit's members (MILLIS, MICROS, NANOS) as digits of a second. */
static const int time_unit_digits[] = {0, 3, 6, 9};
#define UUID_BYTES 16
#define FLOAT16_BYTES 2
#define DECIMAL_MAX_BYTES 16 /* the widest DECIMAL in bytes read: 128 bits, 38 digits */
static const char *const converted_names[] = {
    "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS",
    "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON",
    "INTERVAL"};
static const char *const logical_names[LOGICAL_LAST + 1] = {
    "", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE", "TIME", "TIMESTAMP", "INTERVAL", "INTEGER", "UNKNOWN", "JSON",
    "BSON", "UUID", "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY"};
#define DECIMAL_MAX_SCALE 38 /* the most digits a DECIMAL of 16 bytes has */

/* The TimeUnit union of a TimeType or TimestampType: its member as digits. */
static void read_time_unit(tc_reader *r, schema_elem *e)
{
    if (!tc_struct_begin(r)) return;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (t == TC_STRUCT && id >= 1 && id <= 3 && !e->logical_digits) e->logical_digits = time_unit_digits[id];
        tc_skip(r, t);
    }
    tc_struct_end(r);
}

/* The LogicalType union: its member, and what DECIMAL, INTEGER, TIME and TIMESTAMP carry. */
static void read_logical_type(tc_reader *r, schema_elem *e)
{
    if (!tc_struct_begin(r)) return;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (t != TC_STRUCT || e->logical) {
            tc_skip(r, t);
            continue;
        }
        e->logical = id;
        bool timed = id == LOGICAL_TIME || id == LOGICAL_TIMESTAMP;
        if (id != LOGICAL_DECIMAL && id != LOGICAL_INTEGER && !timed) {
            tc_skip(r, t);
            continue;
        }
        int16_t inner_id, inner_last = 0;
        int it;
        tc_struct_begin(r);
        while (tc_field(r, &inner_id, &it, &inner_last)) {
            bool flag = it == TC_TRUE || it == TC_FALSE;
            if (id == LOGICAL_DECIMAL && inner_id == 1 && it == TC_I32) e->logical_scale = tc_i32(r);
            else if (id == LOGICAL_INTEGER && inner_id == 2 && flag) e->logical_unsigned = !tc_bool(r, it);
            else if (timed && inner_id == 1 && flag) e->logical_utc = tc_bool(r, it);
            else if (timed && inner_id == 2 && it == TC_STRUCT) read_time_unit(r, e);
            else tc_skip(r, it);
        }
        tc_struct_end(r);
    }
    tc_struct_end(r);
}

/* Whether c's meaning can be read from its physical type: an annotation on
 * a type it does not fit (a TIMESTAMP on INT32, a UUID of 8 bytes) is left
 * to PQ_OTHER_MEANING rather than guessed at. */
static bool meaning_fits_type(const pq_column *c)
{
    bool int32 = c->type == PQ_INT32, int64 = c->type == PQ_INT64, fixed = c->type == PQ_FIXED_LEN_BYTE_ARRAY;
    switch (c->meaning) {
    case PQ_UNSIGNED: return int32 || int64;
    case PQ_DECIMAL:
        if (c->scale < 0 || c->scale > DECIMAL_MAX_SCALE) return false;
        return int32 || int64 || c->type == PQ_BYTE_ARRAY || (fixed && c->type_length <= DECIMAL_MAX_BYTES);
    case PQ_DATE: return int32;
    case PQ_TIME: return (c->time_digits == 3 && int32) || (c->time_digits > 3 && int64);
    case PQ_TIMESTAMP: return (c->time_digits > 0 && int64) || c->type == PQ_INT96;
    case PQ_UUID: return fixed && c->type_length == UUID_BYTES;
    case PQ_FLOAT16: return fixed && c->type_length == FLOAT16_BYTES;
    }
    return true;
}

/* Sets c's meaning from e's annotation: LogicalType when the reader knows
 * its member, else ConvertedType (parquet-format LogicalTypes.md, whose
 * backward-compatibility rules make TIME_MILLIS TIME(true, MILLIS) and so
 * on); an INT96 without one is a timestamp, as Spark and Impala write it. */
static void annotate(pq_column *c, const schema_elem *e)
{
    c->meaning = PQ_AS_STORED;
    c->annotation = "";
    if (e->logical > 0 && e->logical <= LOGICAL_LAST) {
        c->annotation = logical_names[e->logical];
        switch (e->logical) {
        case LOGICAL_DECIMAL: c->meaning = PQ_DECIMAL; c->scale = e->logical_scale; break;
        case LOGICAL_INTEGER: c->meaning = e->logical_unsigned ? PQ_UNSIGNED : PQ_AS_STORED; break;
        case LOGICAL_DATE: c->meaning = PQ_DATE; break;
        case LOGICAL_TIME: c->meaning = PQ_TIME; c->time_digits = e->logical_digits; c->utc = e->logical_utc; break;
        case LOGICAL_TIMESTAMP: c->meaning = PQ_TIMESTAMP; c->time_digits = e->logical_digits; c->utc = e->logical_utc; break;
        case LOGICAL_UUID: c->meaning = PQ_UUID; break;
        case LOGICAL_FLOAT16: c->meaning = PQ_FLOAT16; break;
        default: /* INTERVAL, BSON, VARIANT, GEOMETRY, GEOGRAPHY: not the stored bytes' plain reading */
            if ((e->logical >= LOGICAL_DATE && e->logical <= LOGICAL_INTERVAL) || e->logical > LOGICAL_JSON)
                c->meaning = PQ_OTHER_MEANING;
        }
    } else if (e->converted >= 0 && e->converted <= CONV_INTERVAL) {
        c->annotation = converted_names[e->converted];
        c->utc = true;
        switch (e->converted) {
        case CONV_DECIMAL: c->meaning = PQ_DECIMAL; c->scale = e->scale; break;
        case CONV_DATE: c->meaning = PQ_DATE; break;
        case CONV_TIME_MILLIS: c->meaning = PQ_TIME; c->time_digits = 3; break;
        case CONV_TIME_MICROS: c->meaning = PQ_TIME; c->time_digits = 6; break;
        case CONV_TIMESTAMP_MILLIS: c->meaning = PQ_TIMESTAMP; c->time_digits = 3; break;
        case CONV_TIMESTAMP_MICROS: c->meaning = PQ_TIMESTAMP; c->time_digits = 6; break;
        default:
            if (e->converted >= CONV_UINT_8 && e->converted <= CONV_UINT_64) c->meaning = PQ_UNSIGNED;
            else if (e->converted >= CONV_BSON) c->meaning = PQ_OTHER_MEANING;
        }
    } else if (c->type == PQ_INT96) {
        c->annotation = "INT96";
        c->meaning = PQ_TIMESTAMP;
        c->time_digits = 9;
        c->utc = true;
    }
    if (!meaning_fits_type(c)) c->meaning = PQ_OTHER_MEANING;
}

static void read_schema_elem(tc_reader *r, schema_elem *e)
{
    memset(e, 0, sizeof *e);
    e->repetition = PQ_REQUIRED;
    e->converted = -1;
    if (!tc_struct_begin(r)) return;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 1 && t == TC_I32) { e->type = tc_i32(r); e->has_type = true; }
        else if (id == 2 && t == TC_I32) e->type_length = tc_i32(r);
        else if (id == 3 && t == TC_I32) e->repetition = tc_i32(r);
        else if (id == 4 && t == TC_BINARY) e->name_len = tc_binary(r, &e->name);
        else if (id == 5 && t == TC_I32) e->num_children = tc_i32(r);
        else if (id == 6 && t == TC_I32) e->converted = tc_i32(r);
        else if (id == 7 && t == TC_I32) e->scale = tc_i32(r);
        else if (id == 10 && t == TC_STRUCT) read_logical_type(r, e);
        else tc_skip(r, t);
    }
    tc_struct_end(r);
}

static void read_column_meta(tc_reader *r, pq_chunk *c)
{
    if (!tc_struct_begin(r)) return;
    int16_t id, last = 0;
    int t;
    c->has_meta = true;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 1 && t == TC_I32) c->type = tc_i32(r);
        else if (id == 4 && t == TC_I32) c->codec = tc_i32(r);
        else if (id == 5 && t == TC_I64) c->num_values = tc_i64(r);
        else if (id == 7 && t == TC_I64) c->total_compressed_size = tc_i64(r);
        else if (id == 9 && t == TC_I64) c->data_page_offset = tc_i64(r);
        else if (id == 11 && t == TC_I64) c->dictionary_page_offset = tc_i64(r);
        else tc_skip(r, t);
    }
    tc_struct_end(r);
}

static void read_column_chunk(tc_reader *r, pq_chunk *c)
{
    memset(c, 0, sizeof *c);
    c->dictionary_page_offset = -1;
    c->data_page_offset = -1;
    if (!tc_struct_begin(r)) return;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 3 && t == TC_STRUCT) read_column_meta(r, c);
        else if ((id == 8 || id == 9) && (t == TC_STRUCT || t == TC_BINARY)) { c->encrypted = true; tc_skip(r, t); }
        else tc_skip(r, t);
    }
    tc_struct_end(r);
}

/* Reads a RowGroup; *ncols gets the number of column chunks. */
static void read_row_group(tc_reader *r, pq_row_group *g, int *ncols)
{
    memset(g, 0, sizeof *g);
    *ncols = 0;
    if (!tc_struct_begin(r)) return;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 1 && t == TC_LIST && !g->chunks) {
            int et;
            uint32_t n = tc_list(r, &et);
            if (n && et != TC_STRUCT) { tc_fail(r, "row group columns are not structs"); break; }
            g->chunks = xcalloc(n ? n : 1, sizeof *g->chunks);
            for (uint32_t i = 0; i < n && !tc_failed(r); i++) read_column_chunk(r, &g->chunks[i]);
            *ncols = (int)n;
        } else if (id == 2 && t == TC_I64) g->total_byte_size = tc_i64(r);
        else if (id == 3 && t == TC_I64) g->num_rows = tc_i64(r);
        else tc_skip(r, t);
    }
    tc_struct_end(r);
}

static char *dup_name(const uint8_t *p, uint32_t n)
{
    char *s = xmalloc(n + 1);
    if (n) memcpy(s, p, n);
    s[n] = 0;
    return s;
}

typedef struct {
    const schema_elem *elems;
    int nelems;
    pq_column *cols;
    int ncols;
    pq_node *nodes;
    int nnodes;
    const char *error;
} schema_walk;

/* LIST, MAP or MAP_KEY_VALUE on a group, by LogicalType or ConvertedType. */
static int group_kind(const schema_elem *e)
{
    enum { LOGICAL_MAP = 2, LOGICAL_LIST = 3, CONV_MAP = 1, CONV_MAP_KEY_VALUE = 2, CONV_LIST = 3 };
    if (e->logical == LOGICAL_LIST || (!e->logical && e->converted == CONV_LIST)) return PQ_GROUP_LIST;
    if (e->logical == LOGICAL_MAP || (!e->logical && (e->converted == CONV_MAP || e->converted == CONV_MAP_KEY_VALUE)))
        return PQ_GROUP_MAP;
    return PQ_GROUP_PLAIN;
}

/* Adds element i (depth below the root, under node parent, at the levels
 * def and rep of its parent) as a node, and the leaves under it; returns
 * the index after its subtree, -1 on a malformed tree. */
static int walk_schema(schema_walk *w, int i, int depth, int parent, int def, int rep, const char *top, const char *path,
                       bool nested)
{
    if (i >= w->nelems) { w->error = "the schema ends inside a group"; return -1; }
    if (depth > PQ_SCHEMA_MAX_DEPTH) { w->error = "the schema is nested too deep"; return -1; }
    const schema_elem *e = &w->elems[i];
    if (e->repetition < PQ_REQUIRED || e->repetition > PQ_REPEATED) {
        w->error = "a field's repetition is not REQUIRED, OPTIONAL or REPEATED";
        return -1;
    }
    char *name = dup_name(e->name, e->name_len);
    wbuf full = WBUF_INIT;
    buf_printf(&full, "%s%s%s", path, *path ? "." : "", name);
    bool here_nested = nested || depth > 1 || e->repetition == PQ_REPEATED;
    def += e->repetition != PQ_REQUIRED;
    rep += e->repetition == PQ_REPEATED;
    int self = w->nnodes++;
    w->nodes[self] = (pq_node){xstrdup(name), e->repetition, group_kind(e), parent, -1, -1, e->num_children, -1,
                               w->ncols, 0, def, rep};
    int next = i + 1;
    if (e->num_children > 0) {
        if (e->num_children > w->nelems - next) { w->error = "a group has more children than the schema has elements"; next = -1; }
        for (int k = 0, previous = -1; k < e->num_children && next >= 0; k++) {
            int child = w->nnodes;
            next = walk_schema(w, next, depth + 1, self, def, rep, depth == 1 ? name : top, full.data ? full.data : "",
                               here_nested);
            if (previous < 0) w->nodes[self].first_child = child;
            else w->nodes[previous].next_sibling = child;
            previous = child;
        }
    } else if (!e->has_type) {
        w->error = "a leaf of the schema has no type";
        next = -1;
    } else {
        w->nodes[self].column = w->ncols;
        pq_column *c = &w->cols[w->ncols++];
        c->name = xstrdup(depth == 1 ? name : top);
        c->path = xstrdup(full.data ? full.data : "");
        c->type = e->type;
        c->type_length = e->type_length;
        c->optional = e->repetition == PQ_OPTIONAL;
        c->nested = here_nested;
        c->max_def = def;
        c->max_rep = rep;
        annotate(c, e);
    }
    w->nodes[self].ncolumns = w->ncols - w->nodes[self].first_column;
    free(name);
    buf_free(&full);
    return next;
}

/* Decodes FileMetaData from the footer bytes. */
static int read_footer(pq_file *f, const uint8_t *p, size_t n, uint64_t at, wbuf *err)
{
    tc_reader r;
    tc_init(&r, p, n, at);
    schema_elem *elems = NULL;
    uint32_t nelems = 0;
    bool have_schema = false;
    int16_t id, last = 0;
    int t;
    while (tc_field(&r, &id, &t, &last)) {
        if (id == 2 && t == TC_LIST && !have_schema) {
            int et;
            nelems = tc_list(&r, &et);
            if (nelems && et != TC_STRUCT) { tc_fail(&r, "schema elements are not structs"); break; }
            elems = xcalloc(nelems ? nelems : 1, sizeof *elems);
            for (uint32_t i = 0; i < nelems && !tc_failed(&r); i++) read_schema_elem(&r, &elems[i]);
            have_schema = true;
        } else if (id == 3 && t == TC_I64) {
            f->num_rows = tc_i64(&r);
        } else if (id == 4 && t == TC_LIST && !f->groups) {
            int et;
            uint32_t ngroups = tc_list(&r, &et);
            if (ngroups && et != TC_STRUCT) { tc_fail(&r, "row groups are not structs"); break; }
            f->groups = xcalloc(ngroups ? ngroups : 1, sizeof *f->groups);
            for (uint32_t i = 0; i < ngroups && !tc_failed(&r); i++) {
                read_row_group(&r, &f->groups[i], &f->groups[i].nchunks);
                f->ngroups = (int)i + 1;
            }
        } else {
            tc_skip(&r, t);
        }
    }
    int status = 0;
    if (tc_failed(&r)) {
        pq_error(err, f, r.error_at, "footer: %s", r.error);
        status = -1;
    } else if (!have_schema || nelems < 1) {
        pq_error(err, f, at, "footer: no schema");
        status = -1;
    } else {
        schema_walk w = {elems, (int)nelems, xcalloc(nelems, sizeof(pq_column)), 0, xcalloc(nelems, sizeof(pq_node)), 0, NULL};
        int next = 1;
        for (int k = 0, previous = -1; k < elems[0].num_children && next > 0; k++) {
            int child = w.nnodes;
            next = walk_schema(&w, next, 1, -1, 0, 0, "", "", false);
            if (previous >= 0) w.nodes[previous].next_sibling = child;
            previous = child;
        }
        f->columns = w.cols;
        f->ncolumns = w.ncols;
        f->nodes = w.nodes;
        f->nnodes = w.nnodes;
        if (next < 0 || w.error) {
            pq_error(err, f, at, "footer: schema: %s", w.error ? w.error : "malformed");
            status = -1;
        }
        for (int g = 0; g < f->ngroups && !status; g++) {
            if (f->groups[g].nchunks != f->ncolumns) {
                pq_error(err, f, at, "footer: row group %d has %d column chunks, the schema %d columns", g,
                         f->groups[g].nchunks, f->ncolumns);
                status = -1;
            } else if (f->groups[g].num_rows < 0) {
                pq_error(err, f, at, "footer: row group %d has %lld rows", g, (long long)f->groups[g].num_rows);
                status = -1;
            }
        }
    }
    free(elems);
    return status;
}

pq_file *pq_open_memory(const uint8_t *data, size_t n, const char *name, wbuf *err)
{
    pq_file *f = xcalloc(1, sizeof *f);
    f->name = xstrdup(name);
    f->data = data;
    f->size = n;
    if (n < PQ_MAGIC_LEN + PQ_FOOTER_TAIL || memcmp(data, PQ_MAGIC, PQ_MAGIC_LEN) != 0) {
        pq_error(err, f, 0, "not a Parquet file (%zu bytes; it needs PAR1 at both ends)", n);
        pq_close(f);
        return NULL;
    }
    const uint8_t *tail = data + n - PQ_FOOTER_TAIL;
    if (memcmp(tail + 4, PQ_ENCRYPTED_MAGIC, PQ_MAGIC_LEN) == 0) {
        pq_error(err, f, n - PQ_MAGIC_LEN, "encrypted Parquet file (footer magic PARE): not supported");
        pq_close(f);
        return NULL;
    }
    if (memcmp(tail + 4, PQ_MAGIC, PQ_MAGIC_LEN) != 0) {
        pq_error(err, f, n - PQ_MAGIC_LEN, "no PAR1 magic at the end: truncated or not Parquet");
        pq_close(f);
        return NULL;
    }
    uint32_t footer_len = get_le32(tail);
    if (footer_len > n - PQ_MAGIC_LEN - PQ_FOOTER_TAIL) {
        pq_error(err, f, n - PQ_FOOTER_TAIL, "footer length %u is more than the file holds", footer_len);
        pq_close(f);
        return NULL;
    }
    f->data_end = n - PQ_FOOTER_TAIL - footer_len;
    if (read_footer(f, data + f->data_end, footer_len, f->data_end, err) != 0) {
        pq_close(f);
        return NULL;
    }
    return f;
}

/* Reads the rest of a non-seekable descriptor after the head bytes already read. */
static uint8_t *read_all(int fd, const uint8_t *head, size_t head_len, size_t *n)
{
    size_t cap = READ_CHUNK, len = head_len;
    while (cap < head_len + 1) cap *= 2;
    uint8_t *p = xmalloc(cap);
    if (head_len) memcpy(p, head, head_len);
    for (;;) {
        if (len == cap) p = xrealloc(p, cap *= 2);
        ssize_t r = read(fd, p + len, cap - len);
        if (r > 0) { len += (size_t)r; continue; }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) { free(p); return NULL; }
        break;
    }
    *n = len;
    return p;
}

pq_file *pq_open_fd(int fd, const uint8_t *head, size_t head_len, const char *name, wbuf *err)
{
    struct stat st;
    uint8_t *owned = NULL;
    void *map = NULL;
    size_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        n = (size_t)st.st_size;
        map = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (map == MAP_FAILED) map = NULL;
    }
    if (!map) {
        owned = read_all(fd, head, head_len, &n);
        if (!owned) {
            buf_printf(err, "%s: read error: %s", name, strerror(errno));
            return NULL;
        }
    }
    pq_file *f = pq_open_memory(map ? map : owned, n, name, err);
    if (!f) {
        if (map) munmap(map, n);
        free(owned);
        return NULL;
    }
    f->mapping = map;
    f->owned = owned;
    return f;
}

void pq_close(pq_file *f)
{
    if (!f) return;
    for (int c = 0; c < f->ncolumns; c++) {
        free(f->columns[c].name);
        free(f->columns[c].path);
    }
    free(f->columns);
    for (int i = 0; i < f->nnodes; i++) free(f->nodes[i].name);
    free(f->nodes);
    for (int g = 0; g < f->ngroups; g++) free(f->groups[g].chunks);
    free(f->groups);
    if (f->mapping) munmap(f->mapping, f->size);
    free(f->owned);
    free(f->name);
    free(f);
}

int pq_num_columns(const pq_file *f) { return f->ncolumns; }
const pq_column *pq_column_at(const pq_file *f, int c) { return &f->columns[c]; }
int pq_num_row_groups(const pq_file *f) { return f->ngroups; }
int64_t pq_row_group_rows(const pq_file *f, int g) { return f->groups[g].num_rows; }
int64_t pq_row_group_bytes(const pq_file *f, int g) { return f->groups[g].total_byte_size; }
int64_t pq_num_rows(const pq_file *f) { return f->num_rows; }
const char *pq_name(const pq_file *f) { return f->name; }

int pq_num_nodes(const pq_file *f) { return f->nnodes; }
const pq_node *pq_node_at(const pq_file *f, int i) { return &f->nodes[i]; }

int pq_field_of_column(const pq_file *f, int c)
{
    int i = 0; /* top-level fields are siblings in order; the first is node 0 */
    while (f->nodes[i].next_sibling >= 0 && f->nodes[i].first_column + f->nodes[i].ncolumns <= c) i = f->nodes[i].next_sibling;
    return i;
}

int pq_find_column(const pq_file *f, const char *name)
{
    for (int c = 0; c < f->ncolumns; c++)
        if (strcmp(f->columns[c].name, name) == 0) return c;
    for (int c = 0; c < f->ncolumns; c++) /* a nested leaf named by its path, as messages list it */
        if (strcmp(f->columns[c].path, name) == 0) return c;
    return -1;
}
