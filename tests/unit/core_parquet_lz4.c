/* core_parquet_lz4 - the LZ4 codecs of Parquet (apache/parquet-format
 * Compression.md) on the Parquet project's files (apache/parquet-testing),
 * with the values their commits give (PARQUET-1878, ARROW-9177,
 * PARQUET-1998): LZ4_RAW, one LZ4 block; the deprecated LZ4, Hadoop's framing
 * (several frames in hadoop_lz4_compressed_larger) or one plain block
 * (non_hadoop_lz4_compressed). Pages whose LZ4 data decodes to another size
 * than their header says, or whose Hadoop frames lie, are refused with file
 * and offset; so is LZO, still unsupported. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/parquet.h"
#include "core/parquet_internal.h"
#include "core/thrift_compact.h"
#include "core/util.h"
#include "tests/tap.h"

#define DATA "parquet/parquet-testing/data"
#define LARGER_ROWS 10000
#define UUID_LEN 36

static char *path_of(const char *name)
{
    static char p[2048];
    snprintf(p, sizeof p, "%s/%s/%s", shared_dir(), DATA, name);
    return p;
}

/* The file's bytes (malloc'd), *n their count; exits the test when unreadable. */
static uint8_t *file_bytes(const char *name, size_t *n)
{
    require_file(path_of(name));
    char *p = read_file(path_of(name), n);
    if (!p) {
        ok(0, "%s reads", name);
        exit(done_testing());
    }
    return (uint8_t *)p;
}

/* Reads column name of row group 0 of the file at bytes into v; 0 or -1 (err says why). */
static int read_named(const uint8_t *bytes, size_t n, const char *file, const char *name, pq_values *v, wbuf *err)
{
    memset(v, 0, sizeof *v);
    pq_file *f = pq_open_memory(bytes, n, file, err);
    if (!f) return -1;
    int c = pq_find_column(f, name);
    int rc = c >= 0 ? pq_read_column(f, 0, c, v, err) : -1;
    if (c < 0) buf_printf(err, "%s: no column %s", file, name);
    pq_close(f);
    return rc;
}

/* The codec of every column chunk of f, or -1 when they differ. */
static int file_codec(const uint8_t *bytes, size_t n, const char *file)
{
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_memory(bytes, n, file, &err);
    int codec = f && f->ngroups ? f->groups[0].chunks[0].codec : -1;
    for (int g = 0; f && g < f->ngroups; g++)
        for (int c = 0; c < f->groups[g].nchunks; c++)
            if (f->groups[g].chunks[c].codec != codec) codec = -1;
    pq_close(f);
    buf_free(&err);
    return codec;
}

static bool bytes_are(const pq_values *v, int64_t r, const char *s)
{
    return v->bytes[r].len == strlen(s) && memcmp(v->bytes[r].p, s, v->bytes[r].len) == 0;
}

/* hadoop_lz4_compressed, non_hadoop_lz4_compressed and lz4_raw_compressed
 * hold one table: c0 INT64, c1 BYTE_ARRAY, v11 DOUBLE (optional), 4 rows. */
static void small_files(void)
{
    static const struct { const char *file; int codec; } files[] = {
        {"hadoop_lz4_compressed.parquet", PQ_LZ4},
        {"non_hadoop_lz4_compressed.parquet", PQ_LZ4},
        {"lz4_raw_compressed.parquet", PQ_LZ4_RAW},
    };
    static const int64_t c0[] = {1593604800, 1593604800, 1593604801, 1593604801};
    static const char *const c1[] = {"abc", "def", "abc", "def"};
    static const double v11[] = {42.0, 7.7, 42.125, 7.7};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *file = files[i].file;
        size_t n;
        uint8_t *bytes = file_bytes(file, &n);
        is_int(file_codec(bytes, n, file), files[i].codec, "%s: every column chunk is %s", file,
               files[i].codec == PQ_LZ4 ? "LZ4 (5)" : "LZ4_RAW (7)");
        wbuf err = WBUF_INIT;
        pq_values v;
        int right = 0;
        int rc = read_named(bytes, n, file, "c0", &v, &err);
        for (int64_t r = 0; rc == 0 && r < v.n && r < 4; r++) right += v.ints[r] == c0[r];
        ok(rc == 0 && v.n == 4 && right == 4, "%s: c0 is 1593604800, 1593604800, 1593604801, 1593604801 (%d right) %s", file,
           right, err.data ? err.data : "");
        pq_values_free(&v);
        right = 0;
        rc = read_named(bytes, n, file, "c1", &v, &err);
        for (int64_t r = 0; rc == 0 && r < v.n && r < 4; r++) right += bytes_are(&v, r, c1[r]);
        ok(rc == 0 && v.n == 4 && right == 4, "%s: c1 is abc, def, abc, def (%d right) %s", file, right, err.data ? err.data : "");
        pq_values_free(&v);
        right = 0;
        rc = read_named(bytes, n, file, "v11", &v, &err);
        for (int64_t r = 0; rc == 0 && r < v.n && r < 4; r++) right += v.reals[r] == v11[r] && (!v.valid || v.valid[r]);
        ok(rc == 0 && v.n == 4 && right == 4, "%s: v11 is 42, 7.7, 42.125, 7.7 (%d right) %s", file, right,
           err.data ? err.data : "");
        pq_values_free(&v);
        buf_free(&err);
        free(bytes);
    }
}

/* A page header's fields: where it begins, its sizes, where the
 * uncompressed size's varint is and where the page's data begins. */
typedef struct {
    int32_t uncompressed, compressed;
    size_t uncompressed_at, body;
} page_info;

static bool page_at(const uint8_t *bytes, size_t n, int64_t at, page_info *p)
{
    memset(p, 0, sizeof *p);
    if (at <= 0 || (size_t)at >= n) return false;
    tc_reader r;
    tc_init(&r, bytes + at, n - (size_t)at, 0);
    int16_t id, last = 0;
    int t;
    while (tc_field(&r, &id, &t, &last)) {
        if (id == 2 && t == TC_I32) {
            p->uncompressed_at = (size_t)at + (size_t)tc_offset(&r);
            p->uncompressed = tc_i32(&r);
        } else if (id == 3 && t == TC_I32) p->compressed = tc_i32(&r);
        else tc_skip(&r, t);
    }
    p->body = (size_t)at + (size_t)tc_offset(&r);
    return !tc_failed(&r) && p->uncompressed_at > 0;
}

/* The data page of column name in row group 0. */
static bool data_page(const uint8_t *bytes, size_t n, const char *file, const char *name, page_info *p)
{
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_memory(bytes, n, file, &err);
    int c = f ? pq_find_column(f, name) : -1;
    int64_t at = c >= 0 ? f->groups[0].chunks[c].data_page_offset : -1;
    pq_close(f);
    buf_free(&err);
    return page_at(bytes, n, at, p);
}


/* The Hadoop frames of a page's data: how many, their decoded sizes summed;
 * -1 when the data is no run of whole frames. */
static int hadoop_frames(const uint8_t *body, size_t n, uint64_t *decoded)
{
    int frames = 0;
    size_t at = 0;
    *decoded = 0;
    while (n - at >= 8) {
        *decoded += get_be32(body + at);
        uint32_t compressed = get_be32(body + at + 4);
        if (compressed > n - at - 8) return -1;
        at += 8 + compressed;
        frames++;
    }
    return at == n ? frames : -1;
}

/* The two _larger files: one column a of 10000 UUIDs (ARROW-9177 and
 * PARQUET-1998 give the first ones, the min and the max), the same in both. */
static void larger_files(void)
{
    static const char *const first[] = {"c7ce6bef-d5b0-4863-b199-8ea8c7fb117b", "e8fb9197-cb9f-4118-b67f-fbfa65f61843",
                                        "885136e1-0aa1-4fdb-8847-63d87b07c205", "ce7b2019-8ebe-4906-a74d-0afa2409e5df",
                                        "a9ee2527-821b-4b71-a926-03f73c3fc8b7"};
    static const char *const files[] = {"hadoop_lz4_compressed_larger.parquet", "lz4_raw_compressed_larger.parquet"};
    uint8_t *bytes[2];
    size_t n[2];
    pq_values v[2];
    for (int i = 0; i < 2; i++) {
        bytes[i] = file_bytes(files[i], &n[i]);
        is_int(file_codec(bytes[i], n[i], files[i]), i == 0 ? PQ_LZ4 : PQ_LZ4_RAW, "%s: the column chunk is %s", files[i],
               i == 0 ? "LZ4 (5)" : "LZ4_RAW (7)");
        wbuf err = WBUF_INIT;
        int rc = read_named(bytes[i], n[i], files[i], "a", &v[i], &err);
        int right = 0, uuids = 0;
        for (int r = 0; rc == 0 && r < 5 && r < v[i].n; r++) right += bytes_are(&v[i], r, first[r]);
        const pq_bytes *min = NULL, *max = NULL;
        for (int64_t r = 0; rc == 0 && r < v[i].n; r++) {
            const pq_bytes *b = &v[i].bytes[r];
            if (b->len != UUID_LEN || b->p[8] != '-' || b->p[13] != '-' || b->p[18] != '-' || b->p[23] != '-') continue;
            uuids++;
            if (!min || memcmp(b->p, min->p, UUID_LEN) < 0) min = b;
            if (!max || memcmp(b->p, max->p, UUID_LEN) > 0) max = b;
        }
        ok(rc == 0 && v[i].n == LARGER_ROWS && right == 5 && uuids == LARGER_ROWS, "%s: %d rows of UUIDs (%d), the first five as given (%d) %s",
           files[i], LARGER_ROWS, uuids, right, err.data ? err.data : "");
        ok(min && max && memcmp(min->p, "00087de7-10df-4979-94cf-79279f9745ce", UUID_LEN) == 0 &&
               memcmp(max->p, "ffffe6a0-e0c0-4e65-a9d4-f7f4c176aea2", UUID_LEN) == 0,
           "%s: min 00087de7-... and max ffffe6a0-... as the file's statistics say", files[i]);
        buf_free(&err);
    }
    int same = 0;
    for (int64_t r = 0; r < v[0].n && r < v[1].n; r++)
        same += v[0].bytes[r].len == v[1].bytes[r].len && memcmp(v[0].bytes[r].p, v[1].bytes[r].p, v[0].bytes[r].len) == 0;
    is_int(same, LARGER_ROWS, "Hadoop-framed LZ4 and LZ4_RAW: the same %d values in the same order", LARGER_ROWS);
    page_info p;
    uint64_t decoded = 0;
    int frames = -1;
    if (data_page(bytes[0], n[0], files[0], "a", &p)) frames = hadoop_frames(bytes[0] + p.body, (size_t)p.compressed, &decoded);
    ok(frames > 1 && decoded == (uint64_t)p.uncompressed, "%s: its page is %d Hadoop frames decoding to the page's %d bytes (%llu)",
       files[0], frames, p.uncompressed, (unsigned long long)decoded);
    for (int i = 0; i < 2; i++) {
        pq_values_free(&v[i]);
        free(bytes[i]);
    }
}

/* Reads column name of a damaged copy; true when it is refused with file,
 * offset and a message that contains why. */
static bool refused(const uint8_t *bytes, size_t n, const char *file, const char *name, const char *why, wbuf *err)
{
    pq_values v;
    buf_clear(err);
    int rc = read_named(bytes, n, file, name, &v, err);
    if (rc == 0) pq_values_free(&v);
    return rc != 0 && err->data && strstr(err->data, file) && strstr(err->data, ": offset ") && strstr(err->data, why);
}

/* The page header of c1 says one byte more, or less, than the LZ4 data
 * decodes to: refused, never a guess; Hadoop frames that lie: refused. */
static void damaged_pages(void)
{
    static const char *const files[] = {"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet",
                                        "lz4_raw_compressed.parquet"};
    wbuf err = WBUF_INIT;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t n;
        uint8_t *bytes = file_bytes(files[i], &n);
        page_info p;
        bool found = data_page(bytes, n, files[i], "c1", &p);
        if (!ok(found && (bytes[p.uncompressed_at] & 0x7f) >= 2 && (bytes[p.uncompressed_at] & 0x7f) <= 0x7d,
                "%s: c1's data page header found (%d bytes decoded)", files[i], p.uncompressed)) {
            free(bytes);
            continue;
        }
        for (int delta = -1; delta <= 1; delta += 2) {
            bytes[p.uncompressed_at] = (uint8_t)(bytes[p.uncompressed_at] + 2 * delta); /* zigzag: 2 per 1 */
            bool no = refused(bytes, n, files[i], "c1", "LZ4", &err);
            ok(no, "%s: a page header saying %d bytes is refused: %s", files[i], p.uncompressed + delta, err.data ? err.data : "");
            bytes[p.uncompressed_at] = (uint8_t)(bytes[p.uncompressed_at] - 2 * delta);
        }
        pq_values v;
        buf_clear(&err);
        int rc = read_named(bytes, n, files[i], "c1", &v, &err);
        ok(rc == 0, "%s: restored, it reads again %s", files[i], err.data ? err.data : "");
        pq_values_free(&v);
        uint64_t decoded;
        if (i == 0 && ok(hadoop_frames(bytes + p.body, (size_t)p.compressed, &decoded) == 1, "%s: c1's page is one Hadoop frame",
                         files[i])) {
            uint8_t *size = bytes + p.body + 3, *length = bytes + p.body + 7; /* low bytes of the two sizes */
            (*size)++;
            bool no = refused(bytes, n, files[i], "c1", "LZ4", &err);
            ok(no, "%s: a frame saying one byte more than it decodes to: %s", files[i], err.data ? err.data : "");
            (*size) -= 2;
            no = refused(bytes, n, files[i], "c1", "LZ4", &err);
            ok(no, "%s: a frame saying one byte less: %s", files[i], err.data ? err.data : "");
            (*size)++;
            (*length)++;
            no = refused(bytes, n, files[i], "c1", "LZ4", &err);
            ok(no, "%s: a frame longer than the page: %s", files[i], err.data ? err.data : "");
            (*length)--;
        }
        free(bytes);
    }
    buf_free(&err);
}

/* LZO is still refused, naming the codec. */
static void lzo_refused(void)
{
    size_t n;
    uint8_t *bytes = file_bytes("hadoop_lz4_compressed.parquet", &n);
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_memory(bytes, n, "lzo.parquet", &err);
    pq_values v;
    int rc = -1;
    if (f) {
        f->groups[0].chunks[1].codec = PQ_LZO;
        rc = pq_read_column(f, 0, 1, &v, &err);
        if (rc == 0) pq_values_free(&v);
    }
    ok(rc != 0 && err.data && strstr(err.data, "lzo.parquet: offset ") && strstr(err.data, "compression LZO is not supported"),
       "a chunk compressed with LZO is refused: %s", err.data ? err.data : "");
    pq_close(f);
    buf_free(&err);
    free(bytes);
}

int main(void)
{
    small_files();
    larger_files();
    damaged_pages();
    lzo_refused();
    return done_testing();
}
