/* parquet_column.c - one column chunk's pages, decoded into one value per row:
 * page headers, decompression, definition levels and the value encodings.
 * Written from apache/parquet-format's Encodings.md, Compression.md and
 * parquet.thrift. */
#include "parquet_internal.h"

#include <brotli/decode.h>
#include <libdeflate.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "core/thrift_compact.h"
#include "core/util.h"

/* Largest decoded page accepted: real writers make pages of about 1 MiB; a
 * single huge value makes a bigger one. */
#define PQ_MAX_PAGE_BYTES (1u << 30)
/* Largest row group accepted, in rows; and at most this many rows per byte of
 * the file (sanity bounds against a lying footer: a row takes room somewhere). */
#define PQ_MAX_ROWS (1ll << 31)
#define PQ_MAX_ROWS_PER_BYTE 64
#define PLAIN_LENGTH_BYTES 4 /* a PLAIN byte array's length prefix, and a v1 level block's */
#define DELTA_MAX_BLOCK_VALUES (1u << 20)

/* PageType and Encoding (parquet.thrift). */
enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICTIONARY = 2, PAGE_DATA_V2 = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICTIONARY = 2, ENC_RLE = 3, ENC_BIT_PACKED = 4, ENC_DELTA_BINARY_PACKED = 5,
       ENC_DELTA_LENGTH_BYTE_ARRAY = 6, ENC_DELTA_BYTE_ARRAY = 7, ENC_RLE_DICTIONARY = 8, ENC_BYTE_STREAM_SPLIT = 9 };

typedef struct {
    int type;
    int32_t uncompressed, compressed;
    bool has_crc;
    uint32_t crc;
    int32_t num_values, num_nulls, num_rows;
    int encoding, def_encoding, rep_encoding;
    int32_t def_len, rep_len; /* v2: level bytes, stored uncompressed before the values */
    bool v2_compressed;
    bool has_body; /* the header for its type was there */
} page_header;

static void read_data_header(tc_reader *r, page_header *h, bool v2)
{
    if (!tc_struct_begin(r)) return;
    h->has_body = true;
    h->v2_compressed = true;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 1 && t == TC_I32) h->num_values = tc_i32(r);
        else if (!v2 && id == 2 && t == TC_I32) h->encoding = tc_i32(r);
        else if (!v2 && id == 3 && t == TC_I32) h->def_encoding = tc_i32(r);
        else if (!v2 && id == 4 && t == TC_I32) h->rep_encoding = tc_i32(r);
        else if (v2 && id == 2 && t == TC_I32) h->num_nulls = tc_i32(r);
        else if (v2 && id == 3 && t == TC_I32) h->num_rows = tc_i32(r);
        else if (v2 && id == 4 && t == TC_I32) h->encoding = tc_i32(r);
        else if (v2 && id == 5 && t == TC_I32) h->def_len = tc_i32(r);
        else if (v2 && id == 6 && t == TC_I32) h->rep_len = tc_i32(r);
        else if (v2 && id == 7 && (t == TC_TRUE || t == TC_FALSE)) h->v2_compressed = tc_bool(r, t);
        else tc_skip(r, t);
    }
    tc_struct_end(r);
}

static void read_dict_header(tc_reader *r, page_header *h)
{
    if (!tc_struct_begin(r)) return;
    h->has_body = true;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 1 && t == TC_I32) h->num_values = tc_i32(r);
        else if (id == 2 && t == TC_I32) h->encoding = tc_i32(r);
        else tc_skip(r, t);
    }
    tc_struct_end(r);
}

static void read_page_header(tc_reader *r, page_header *h)
{
    memset(h, 0, sizeof *h);
    h->type = -1;
    int16_t id, last = 0;
    int t;
    while (tc_field(r, &id, &t, &last)) {
        if (id == 1 && t == TC_I32) h->type = tc_i32(r);
        else if (id == 2 && t == TC_I32) h->uncompressed = tc_i32(r);
        else if (id == 3 && t == TC_I32) h->compressed = tc_i32(r);
        else if (id == 4 && t == TC_I32) { h->crc = (uint32_t)tc_i32(r); h->has_crc = true; }
        else if (id == 5 && t == TC_STRUCT && h->type == PAGE_DATA) read_data_header(r, h, false);
        else if (id == 7 && t == TC_STRUCT && h->type == PAGE_DICTIONARY) read_dict_header(r, h);
        else if (id == 8 && t == TC_STRUCT && h->type == PAGE_DATA_V2) read_data_header(r, h, true);
        else tc_skip(r, t);
    }
}

static const char *codec_name(int codec)
{
    switch (codec) {
    case PQ_UNCOMPRESSED: return "UNCOMPRESSED";
    case PQ_SNAPPY: return "SNAPPY";
    case PQ_GZIP: return "GZIP";
    case PQ_LZO: return "LZO";
    case PQ_BROTLI: return "BROTLI";
    case PQ_LZ4: return "LZ4";
    case PQ_ZSTD: return "ZSTD";
    case PQ_LZ4_RAW: return "LZ4_RAW";
    }
    return "unknown";
}

/* Every codec but LZO. */
static bool codec_supported(int codec) { return codec >= PQ_UNCOMPRESSED && codec <= PQ_LZ4_RAW && codec != PQ_LZO; }

/* Gzip data that may be several members (some writers concatenate them). */
static const char *gunzip(const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d) return "out of memory";
    size_t in_pos = 0, out_pos = 0;
    const char *why = NULL;
    while (in_pos < n && !why) {
        size_t used_in = 0, used_out = 0;
        if (libdeflate_gzip_decompress_ex(d, src + in_pos, n - in_pos, dst + out_pos, want - out_pos, &used_in,
                                          &used_out) != LIBDEFLATE_SUCCESS)
            why = "bad gzip data";
        in_pos += used_in;
        out_pos += used_out;
    }
    libdeflate_free_decompressor(d);
    if (!why && out_pos != want) why = "gzip data decodes to a size other than the page header says";
    return why;
}

/* LZ4_RAW (Compression.md): one LZ4 block, no framing. Every size here is
 * under PQ_MAX_PAGE_BYTES, so it fits liblz4's int. */
static const char *lz4_block(const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    int got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)want);
    if (got < 0) return "bad LZ4 data, or it decodes to more than the page header says";
    return (size_t)got == want ? NULL : "LZ4 data decodes to a size other than the page header says";
}

#define HADOOP_LZ4_HEADER 8 /* big-endian u32 decoded size, u32 compressed size */


/* Hadoop's LZ4 framing: one or more frames of a HADOOP_LZ4_HEADER and an LZ4
 * block of that size; true when they fill src and exactly want bytes at dst. */
static bool hadoop_lz4(const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    size_t in = 0, out = 0;
    while (n - in >= HADOOP_LZ4_HEADER) {
        uint32_t decoded = get_be32(src + in), compressed = get_be32(src + in + 4);
        in += HADOOP_LZ4_HEADER;
        if (compressed > n - in || decoded > want - out) return false;
        if (LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)compressed, (int)decoded) != (int)decoded)
            return false;
        in += compressed;
        out += decoded;
    }
    return in == n && out == want;
}

/* The deprecated LZ4 codec (Compression.md: "an additional undocumented
 * framing scheme"): Hadoop's framing (parquet-mr), else one plain LZ4 block
 * as some writers made it (parquet-testing's non_hadoop_lz4_compressed.parquet),
 * tried in that order as other readers do. */
static const char *lz4_hadoop_or_block(const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    if (hadoop_lz4(src, n, dst, want)) return NULL;
    if (lz4_block(src, n, dst, want) == NULL) return NULL;
    return "bad LZ4 data: neither Hadoop-framed LZ4 nor an LZ4 block of the size the page header says";
}

/* Decodes n bytes compressed with codec into exactly want bytes at dst. */
static const char *decompress(int codec, const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    switch (codec) {
    case PQ_UNCOMPRESSED:
        if (n != want) return "uncompressed page sizes differ";
        memcpy(dst, src, n);
        return NULL;
    case PQ_SNAPPY: {
        size_t len;
        if (snappy_uncompressed_length((const char *)src, n, &len) != SNAPPY_OK) return "bad snappy data";
        if (len != want) return "snappy data decodes to a size other than the page header says";
        if (snappy_uncompress((const char *)src, n, (char *)dst, &len) != SNAPPY_OK) return "bad snappy data";
        return NULL;
    }
    case PQ_GZIP: return gunzip(src, n, dst, want);
    case PQ_ZSTD: {
        size_t r = ZSTD_decompress(dst, want, src, n);
        if (ZSTD_isError(r)) return ZSTD_getErrorName(r);
        return r == want ? NULL : "zstd data decodes to a size other than the page header says";
    }
    case PQ_BROTLI: {
        size_t len = want;
        if (BrotliDecoderDecompress(n, src, &len, dst) != BROTLI_DECODER_RESULT_SUCCESS) return "bad brotli data";
        return len == want ? NULL : "brotli data decodes to a size other than the page header says";
    }
    case PQ_LZ4_RAW: return lz4_block(src, n, dst, want);
    case PQ_LZ4: return lz4_hadoop_or_block(src, n, dst, want);
    }
    return "unsupported compression";
}

/* ---- bits, varints, the RLE / bit-packing hybrid ---- */

typedef struct {
    const uint8_t *p;
    size_t n, pos;
    const char *error;
} cursor;

static uint64_t uleb(cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->pos >= c->n) { c->error = "encoded values end early"; return 0; }
        uint8_t b = c->p[c->pos++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    c->error = "varint longer than 10 bytes";
    return 0;
}

static int64_t zigzag64(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* bw bits (<= 64) at bit offset bit of p, least significant first; the caller
 * has checked that they lie inside the data. */
static uint64_t get_bits(const uint8_t *p, uint64_t bit, int bw)
{
    uint64_t v = 0;
    int got = 0;
    size_t byte = (size_t)(bit >> 3);
    int shift = (int)(bit & 7);
    while (got < bw) {
        v |= (uint64_t)(p[byte++] >> shift) << got;
        got += 8 - shift;
        shift = 0;
    }
    return bw < 64 ? v & ((1ull << bw) - 1) : v;
}

/* Decodes count values of bit width bw (<= 32) in the RLE / bit-packing hybrid. */
static void rle_decode(cursor *c, int bw, uint32_t *out, size_t count)
{
    size_t k = 0;
    size_t vbytes = ((size_t)bw + 7) / 8;
    while (k < count && !c->error) {
        uint64_t h = uleb(c);
        if (c->error) return;
        if (h & 1) { /* bit-packed: (h >> 1) groups of 8 values */
            uint64_t groups = h >> 1;
            if (groups > c->n) { c->error = "bit-packed run longer than the data"; return; }
            uint64_t nvals = groups * 8, bytes = groups * (uint64_t)bw;
            size_t take = nvals < count - k ? (size_t)nvals : count - k;
            size_t avail = c->n - c->pos;
            if ((uint64_t)take * (uint64_t)bw > (uint64_t)avail * 8) { c->error = "bit-packed run runs past the data"; return; }
            for (size_t i = 0; i < take; i++) out[k + i] = (uint32_t)get_bits(c->p + c->pos, (uint64_t)i * (uint64_t)bw, bw);
            k += take;
            c->pos += bytes < avail ? (size_t)bytes : avail; /* the last run may be cut short */
        } else {
            uint64_t run = h >> 1;
            if (c->n - c->pos < vbytes) { c->error = "RLE run value runs past the data"; return; }
            uint32_t v = 0;
            for (size_t i = 0; i < vbytes; i++) v |= (uint32_t)c->p[c->pos + i] << (8 * i);
            c->pos += vbytes;
            if (bw < 32 && (v >> bw)) { c->error = "RLE run value wider than its bit width"; return; }
            if (run == 0) continue;
            size_t take = run < count - k ? (size_t)run : count - k;
            for (size_t i = 0; i < take; i++) out[k + i] = v;
            k += take;
        }
    }
}

/* DELTA_BINARY_PACKED: up to max values into out (as 64-bit two's complement);
 * returns the count the header gives. */
static size_t delta_decode(cursor *c, int64_t **out_p, size_t max)
{
    uint64_t block = uleb(c), minis = uleb(c), total = uleb(c);
    uint64_t first = (uint64_t)zigzag64(uleb(c));
    if (c->error) return 0;
    if (!block || block % 128 || block > DELTA_MAX_BLOCK_VALUES || !minis || block % minis || (block / minis) % 32) {
        c->error = "bad DELTA_BINARY_PACKED block header";
        return 0;
    }
    if (total > max) { c->error = "more delta-encoded values than the page holds"; return 0; }
    int64_t *out = xmalloc((total ? total : 1) * sizeof *out);
    *out_p = out;
    if (!total) return 0;
    uint64_t per_mini = block / minis, value = first;
    out[0] = (int64_t)value;
    size_t k = 1;
    while (k < total && !c->error) {
        uint64_t min_delta = (uint64_t)zigzag64(uleb(c));
        if (c->error) break;
        if (c->n - c->pos < minis) { c->error = "delta block bit widths run past the data"; break; }
        const uint8_t *widths = c->p + c->pos;
        c->pos += minis;
        for (uint64_t m = 0; m < minis && k < total; m++) {
            int bw = widths[m];
            if (bw > 64) { c->error = "delta miniblock bit width over 64"; break; }
            uint64_t bytes = per_mini * (uint64_t)bw / 8;
            if (c->n - c->pos < bytes) { c->error = "delta miniblock runs past the data"; break; }
            for (uint64_t i = 0; i < per_mini && k < total; i++) {
                value += min_delta + get_bits(c->p + c->pos, i * (uint64_t)bw, bw);
                out[k++] = (int64_t)value;
            }
            c->pos += (size_t)bytes;
        }
    }
    return c->error ? 0 : (size_t)total;
}

/* ---- values ---- */

/* The values of a page, before nulls are spread out: one array by type. */
typedef struct {
    pq_bytes *bytes;
    int64_t *ints;
    double *reals;
} value_slots;

static bool is_bytes_type(int type) { return type == PQ_BYTE_ARRAY || type == PQ_FIXED_LEN_BYTE_ARRAY || type == PQ_INT96; }

/* Width of a PLAIN fixed-size value; 0 for BYTE_ARRAY, -1 when unknown. */
static int plain_width(const pq_column *col)
{
    switch (col->type) {
    case PQ_INT32: case PQ_FLOAT: return 4;
    case PQ_INT64: case PQ_DOUBLE: return 8;
    case PQ_INT96: return 12;
    case PQ_FIXED_LEN_BYTE_ARRAY: return col->type_length > 0 ? col->type_length : -1;
    case PQ_BYTE_ARRAY: return 0;
    }
    return -1;
}


/* PLAIN: count values into slot arrays at index at. */
static void decode_plain(cursor *c, const pq_column *col, value_slots *s, size_t at, size_t count)
{
    if (col->type == PQ_BOOLEAN) {
        if ((uint64_t)(c->n - c->pos) * 8 < count) { c->error = "PLAIN booleans run past the page"; return; }
        for (size_t i = 0; i < count; i++) s->ints[at + i] = (c->p[c->pos + i / 8] >> (i % 8)) & 1;
        c->pos += (count + 7) / 8;
        return;
    }
    int w = plain_width(col);
    if (w < 0) { c->error = "a fixed-length column without a length"; return; }
    if (w == 0) {
        for (size_t i = 0; i < count; i++) {
            if (c->n - c->pos < PLAIN_LENGTH_BYTES) { c->error = "PLAIN byte array length runs past the page"; return; }
            uint32_t len = get_le32(c->p + c->pos);
            c->pos += PLAIN_LENGTH_BYTES;
            if (len > c->n - c->pos) { c->error = "PLAIN byte array runs past the page"; return; }
            s->bytes[at + i].p = c->p + c->pos;
            s->bytes[at + i].len = len;
            c->pos += len;
        }
        return;
    }
    if ((c->n - c->pos) / (size_t)w < count) { c->error = "PLAIN values run past the page"; return; }
    const uint8_t *p = c->p + c->pos;
    for (size_t i = 0; i < count; i++, p += w) {
        switch (col->type) {
        case PQ_INT32: s->ints[at + i] = (int32_t)get_le32(p); break;
        case PQ_INT64: s->ints[at + i] = (int64_t)get_le64(p); break;
        case PQ_FLOAT: { uint32_t b = get_le32(p); float f; memcpy(&f, &b, 4); s->reals[at + i] = f; break; }
        case PQ_DOUBLE: { uint64_t b = get_le64(p); double d; memcpy(&d, &b, 8); s->reals[at + i] = d; break; }
        default: s->bytes[at + i].p = p; s->bytes[at + i].len = (uint32_t)w; break;
        }
    }
    c->pos += count * (size_t)w;
}

/* The dictionary of a column chunk. */
typedef struct {
    size_t n;
    value_slots v;
    bool present;
} dictionary;

static void slots_alloc(value_slots *s, int type, size_t n)
{
    memset(s, 0, sizeof *s);
    if (n == 0) n = 1;
    if (is_bytes_type(type)) s->bytes = xmalloc(n * sizeof *s->bytes);
    else if (type == PQ_FLOAT || type == PQ_DOUBLE) s->reals = xmalloc(n * sizeof *s->reals);
    else s->ints = xmalloc(n * sizeof *s->ints);
}

static void slots_free(value_slots *s)
{
    free(s->bytes);
    free(s->ints);
    free(s->reals);
}

static void keep_buffer(pq_values *v, uint8_t *buf)
{
    if (v->nbufs == v->capbufs) {
        v->capbufs = v->capbufs ? 2 * v->capbufs : 8;
        v->bufs = xrealloc(v->bufs, (size_t)v->capbufs * sizeof *v->bufs);
    }
    v->bufs[v->nbufs++] = buf;
}

/* BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64, fixed-length bytes): the
 * count values' byte k are stream k, count bytes long; joined back into
 * PLAIN order and decoded as PLAIN. */
static void decode_byte_stream_split(cursor *c, const pq_column *col, value_slots *s, size_t at, size_t count,
                                     pq_values *v)
{
    int w = plain_width(col);
    if (w <= 0 || col->type == PQ_INT96) { c->error = "BYTE_STREAM_SPLIT for a column it does not apply to"; return; }
    if ((c->n - c->pos) / (size_t)w < count) { c->error = "BYTE_STREAM_SPLIT values run past the page"; return; }
    const uint8_t *streams = c->p + c->pos;
    uint8_t *joined = xmalloc(count ? count * (size_t)w : 1);
    for (size_t k = 0; k < (size_t)w; k++)
        for (size_t i = 0; i < count; i++) joined[i * (size_t)w + k] = streams[k * count + i];
    cursor plain = {joined, count * (size_t)w, 0, NULL};
    decode_plain(&plain, col, s, at, count);
    c->error = plain.error;
    c->pos += count * (size_t)w;
    if (col->type == PQ_FIXED_LEN_BYTE_ARRAY) keep_buffer(v, joined); /* the values point into it */
    else free(joined);
}

/* DELTA_LENGTH_BYTE_ARRAY: lengths, then the bytes back to back. */
static void decode_delta_length(cursor *c, value_slots *s, size_t at, size_t count)
{
    int64_t *lens = NULL;
    size_t n = delta_decode(c, &lens, count);
    if (!c->error && n != count) c->error = "DELTA_LENGTH_BYTE_ARRAY holds another number of values";
    for (size_t i = 0; i < n && !c->error; i++) {
        if (lens[i] < 0 || (uint64_t)lens[i] > c->n - c->pos) { c->error = "delta-length byte array runs past the page"; break; }
        s->bytes[at + i].p = c->p + c->pos;
        s->bytes[at + i].len = (uint32_t)lens[i];
        c->pos += (size_t)lens[i];
    }
    free(lens);
}

/* DELTA_BYTE_ARRAY: prefix lengths, suffixes (as DELTA_LENGTH_BYTE_ARRAY);
 * each value is the previous one's prefix then its suffix, built in a new buffer. */
static void decode_delta_byte_array(cursor *c, value_slots *s, size_t at, size_t count, pq_values *v)
{
    int64_t *prefix = NULL;
    size_t n = delta_decode(c, &prefix, count);
    if (!c->error && n != count) c->error = "DELTA_BYTE_ARRAY holds another number of values";
    if (!c->error) decode_delta_length(c, s, at, count);
    uint64_t total = 0, prev_len = 0;
    for (size_t i = 0; i < count && !c->error; i++) {
        if (prefix[i] < 0 || (uint64_t)prefix[i] > prev_len) { c->error = "DELTA_BYTE_ARRAY prefix longer than the value before"; break; }
        prev_len = (uint64_t)prefix[i] + s->bytes[at + i].len;
        if (prev_len > UINT32_MAX) { c->error = "DELTA_BYTE_ARRAY value over 4 GiB"; break; }
        total += prev_len;
        if (total > PQ_MAX_PAGE_BYTES) { c->error = "DELTA_BYTE_ARRAY values over the page size limit"; break; }
    }
    if (!c->error) {
        uint8_t *buf = xmalloc(total ? total : 1), *w = buf;
        const uint8_t *prev = buf;
        for (size_t i = 0; i < count; i++) {
            memmove(w, prev, (size_t)prefix[i]);
            memcpy(w + prefix[i], s->bytes[at + i].p, s->bytes[at + i].len);
            uint32_t len = (uint32_t)prefix[i] + s->bytes[at + i].len;
            s->bytes[at + i].p = w;
            s->bytes[at + i].len = len;
            prev = w;
            w += len;
        }
        keep_buffer(v, buf);
    }
    free(prefix);
}

/* Dictionary indices (a bit width byte, then the hybrid) into slots. */
static void decode_dict_indices(cursor *c, const dictionary *d, int type, value_slots *s, size_t at, size_t count)
{
    if (!d->present) { c->error = "dictionary-encoded page without a dictionary page"; return; }
    if (c->pos >= c->n) {
        if (count) c->error = "dictionary indices missing";
        return;
    }
    int bw = c->p[c->pos++];
    if (bw > 32) { c->error = "dictionary index bit width over 32"; return; }
    uint32_t *idx = xmalloc((count ? count : 1) * sizeof *idx);
    rle_decode(c, bw, idx, count);
    for (size_t i = 0; i < count && !c->error; i++) {
        if (idx[i] >= d->n) { c->error = "dictionary index out of range"; break; }
        if (is_bytes_type(type)) s->bytes[at + i] = d->v.bytes[idx[i]];
        else if (type == PQ_FLOAT || type == PQ_DOUBLE) s->reals[at + i] = d->v.reals[idx[i]];
        else s->ints[at + i] = d->v.ints[idx[i]];
    }
    free(idx);
}

/* ---- a column chunk ---- */

typedef struct {
    const pq_file *f;
    const pq_column *col;
    const pq_chunk *chunk;
    pq_values *v;
    value_slots out; /* aliases v's arrays */
    dictionary dict;
    int64_t row;
    wbuf *err;
} chunk_reader;

/* Spreads the page's non-null values (packed at [row, row + nonnull)) over
 * its rows by the definition levels, from the end so nothing is overwritten. */
static void spread_nulls(chunk_reader *cr, const uint32_t *levels, size_t count, size_t nonnull)
{
    pq_values *v = cr->v;
    size_t j = nonnull;
    for (size_t i = count; i-- > 0;) {
        size_t dst = (size_t)cr->row + i;
        if (levels[i]) {
            j--;
            size_t src = (size_t)cr->row + j;
            if (v->bytes) v->bytes[dst] = v->bytes[src];
            else if (v->reals) v->reals[dst] = v->reals[src];
            else v->ints[dst] = v->ints[src];
            v->valid[dst] = 1;
        } else {
            if (v->bytes) v->bytes[dst] = (pq_bytes){NULL, 0};
            else if (v->reals) v->reals[dst] = 0;
            else v->ints[dst] = 0;
            v->valid[dst] = 0;
        }
    }
}

/* Decodes a data page's nonnull values (levels already split off) into the slots from at. */
static void decode_values(chunk_reader *cr, cursor *c, int encoding, size_t at, size_t nonnull)
{
    switch (encoding) {
    case ENC_PLAIN: decode_plain(c, cr->col, &cr->out, at, nonnull); break;
    case ENC_PLAIN_DICTIONARY:
    case ENC_RLE_DICTIONARY: decode_dict_indices(c, &cr->dict, cr->col->type, &cr->out, at, nonnull); break;
    case ENC_RLE:
        if (cr->col->type != PQ_BOOLEAN) { c->error = "RLE encoding for a non-boolean column"; break; }
        else {
            if (c->n - c->pos < PLAIN_LENGTH_BYTES) { c->error = "RLE booleans without their length"; break; }
            uint32_t len = get_le32(c->p + c->pos);
            c->pos += PLAIN_LENGTH_BYTES;
            if (len > c->n - c->pos) { c->error = "RLE booleans run past the page"; break; }
            cursor sub = {c->p + c->pos, len, 0, NULL};
            uint32_t *bits = xmalloc((nonnull ? nonnull : 1) * sizeof *bits);
            rle_decode(&sub, 1, bits, nonnull);
            for (size_t i = 0; i < nonnull; i++) cr->out.ints[at + i] = bits[i];
            free(bits);
            c->error = sub.error;
            c->pos += len;
        }
        break;
    case ENC_DELTA_BINARY_PACKED: {
        if (cr->col->type != PQ_INT32 && cr->col->type != PQ_INT64) { c->error = "DELTA_BINARY_PACKED for a non-integer column"; break; }
        int64_t *vals = NULL;
        size_t n = delta_decode(c, &vals, nonnull);
        if (!c->error && n != nonnull) c->error = "DELTA_BINARY_PACKED holds another number of values";
        for (size_t i = 0; i < n && !c->error; i++)
            cr->out.ints[at + i] = cr->col->type == PQ_INT32 ? (int32_t)vals[i] : vals[i];
        free(vals);
        break;
    }
    case ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (cr->col->type != PQ_BYTE_ARRAY) { c->error = "DELTA_LENGTH_BYTE_ARRAY for a non-byte-array column"; break; }
        decode_delta_length(c, &cr->out, at, nonnull);
        break;
    case ENC_DELTA_BYTE_ARRAY:
        if (!is_bytes_type(cr->col->type)) { c->error = "DELTA_BYTE_ARRAY for a non-byte-array column"; break; }
        decode_delta_byte_array(c, &cr->out, at, nonnull, cr->v);
        break;
    case ENC_BYTE_STREAM_SPLIT: decode_byte_stream_split(c, cr->col, &cr->out, at, nonnull, cr->v); break;
    default: c->error = "unknown value encoding"; break;
    }
}

/* Reads a dictionary page's values. */
static const char *read_dictionary(chunk_reader *cr, const page_header *h, const uint8_t *data, size_t n)
{
    if (cr->dict.present) return "a second dictionary page";
    if (h->encoding != ENC_PLAIN && h->encoding != ENC_PLAIN_DICTIONARY) return "dictionary page not PLAIN-encoded";
    if (h->num_values < 0 || (size_t)h->num_values > n * 8 + 8) return "dictionary page claims more values than it has bytes";
    cursor c = {data, n, 0, NULL};
    cr->dict.n = (size_t)h->num_values;
    slots_alloc(&cr->dict.v, cr->col->type, cr->dict.n);
    cr->dict.present = true;
    decode_plain(&c, cr->col, &cr->dict.v, 0, cr->dict.n);
    return c.error;
}

/* Bits of a level up to max (RLE/bit-packed hybrid width). */
static int level_bits(int max)
{
    int bits = 0;
    while (max >> bits) bits++;
    return bits;
}

/* Decodes count levels of at most max into out: from a v1 page's data (a
 * 4-byte length, then the hybrid; *pos moves past them) or a v2 page's
 * block (p, n). Returns an error or NULL. */
static const char *read_levels(const page_header *h, int encoding, const uint8_t *p, size_t n, size_t *pos, int max,
                               uint32_t *out, size_t count)
{
    if (h->type == PAGE_DATA) {
        if (encoding != ENC_RLE) return "levels not RLE-encoded (BIT_PACKED levels are not supported)";
        if (n - *pos < PLAIN_LENGTH_BYTES) return "levels without their length";
        uint32_t len = get_le32(p + *pos);
        *pos += PLAIN_LENGTH_BYTES;
        if (len > n - *pos) return "levels run past the page";
        p += *pos;
        n = len;
        *pos += len;
    }
    cursor lc = {p, n, 0, NULL};
    rle_decode(&lc, level_bits(max), out, count); /* levels above max: the caller's check */
    return lc.error;
}

/* Reads a data page (v1 or v2) of decoded bytes data[0, n); a v2 page's
 * levels are rep_p[0, rep_n) and def_p[0, def_n). A flat column's values go
 * one per row (nulls spread out); a nested one's are packed, its levels kept. */
static const char *read_data_page(chunk_reader *cr, const page_header *h, const uint8_t *rep_p, size_t rep_n,
                                  const uint8_t *def_p, size_t def_n, const uint8_t *data, size_t n)
{
    const pq_column *col = cr->col;
    pq_values *v = cr->v;
    int64_t room = col->nested ? v->nlevels : v->n;
    if (h->num_values < 0 || h->num_values > room - cr->row) return "page holds more values than its column chunk";
    size_t count = (size_t)h->num_values, pos = 0;
    uint32_t *reps = NULL, *defs = NULL;
    const char *why = NULL;
    bool v1 = h->type == PAGE_DATA; /* levels inside the data, each block with its length */
    if (col->max_rep > 0) {
        reps = xmalloc((count ? count : 1) * sizeof *reps);
        why = read_levels(h, h->rep_encoding, v1 ? data : rep_p, v1 ? n : rep_n, &pos, col->max_rep, reps, count);
    }
    if (!why && col->max_def > 0) {
        defs = xmalloc((count ? count : 1) * sizeof *defs);
        why = read_levels(h, h->def_encoding, v1 ? data : def_p, v1 ? n : def_n, &pos, col->max_def, defs, count);
    }
    size_t nonnull = count, above = 0; /* above: levels over the column's maximum */
    if (defs) {
        nonnull = 0;
        for (size_t i = 0; i < count; i++) {
            nonnull += defs[i] == (uint32_t)col->max_def;
            above += defs[i] > (uint32_t)col->max_def;
        }
    }
    for (size_t i = 0; reps && i < count; i++) above += reps[i] > (uint32_t)col->max_rep;
    if (!why && above) why = "a level above the column's maximum";
    cursor c = {data, n, v1 ? pos : 0, NULL};
    if (!why) {
        size_t at = col->nested ? (size_t)v->n : (size_t)cr->row;
        decode_values(cr, &c, h->encoding, at, nonnull);
        why = c.error;
    }
    if (!why && col->nested) {
        for (size_t i = 0; i < count; i++) {
            v->defs[cr->row + (int64_t)i] = (uint8_t)(defs ? defs[i] : 0);
            v->reps[cr->row + (int64_t)i] = (uint8_t)(reps ? reps[i] : 0);
        }
        v->n += (int64_t)nonnull;
    } else if (!why && defs && nonnull != count) {
        spread_nulls(cr, defs, count, nonnull);
    } else if (!why && v->valid) {
        memset(v->valid + cr->row, 1, count);
    }
    free(reps);
    free(defs);
    if (!why) cr->row += (int64_t)count;
    return why;
}

/* Room for a column chunk of entries values: one per row when flat; when
 * nested, entries levels and up to as many values (n counts those read). */
static void values_alloc(pq_values *v, const pq_column *col, int64_t entries)
{
    memset(v, 0, sizeof *v);
    v->type = col->type;
    size_t n = entries ? (size_t)entries : 1;
    if (col->nested) {
        v->nlevels = entries;
        v->defs = xcalloc(n, 1);
        v->reps = xcalloc(n, 1);
    } else {
        v->n = entries;
    }
    if (is_bytes_type(col->type)) v->bytes = xcalloc(n, sizeof *v->bytes);
    else if (col->type == PQ_FLOAT || col->type == PQ_DOUBLE) v->reals = xcalloc(n, sizeof *v->reals);
    else v->ints = xcalloc(n, sizeof *v->ints);
    if (col->optional && !col->nested) v->valid = xcalloc(n, 1);
}

void pq_values_free(pq_values *v)
{
    free(v->valid);
    free(v->defs);
    free(v->reps);
    free(v->bytes);
    free(v->ints);
    free(v->reals);
    for (int i = 0; i < v->nbufs; i++) free(v->bufs[i]);
    free(v->bufs);
    memset(v, 0, sizeof *v);
}

int pq_read_column(const pq_file *f, int g, int c, pq_values *v, wbuf *err)
{
    const pq_column *col = &f->columns[c];
    const pq_chunk *ch = &f->groups[g].chunks[c];
    int64_t rows = f->groups[g].num_rows;
    memset(v, 0, sizeof *v);
    if (!ch->has_meta || ch->encrypted) {
        pq_error(err, f, 0, "row group %d, column %s: %s", g, col->path,
                 ch->encrypted ? "encrypted column: not supported" : "no column metadata (kept in another file?)");
        return -1;
    }
    if (!codec_supported(ch->codec)) {
        pq_error(err, f, (uint64_t)(ch->data_page_offset > 0 ? ch->data_page_offset : 0),
                 "row group %d, column %s: compression %s is not supported", g, col->path, codec_name(ch->codec));
        return -1;
    }
    if (ch->type != col->type) {
        pq_error(err, f, 0, "row group %d, column %s: chunk type %d differs from the schema's %d", g, col->path, ch->type, col->type);
        return -1;
    }
    if (rows > PQ_MAX_ROWS || (uint64_t)rows > (uint64_t)f->size * PQ_MAX_ROWS_PER_BYTE) {
        pq_error(err, f, 0, "row group %d claims %lld rows, more than a file of %zu bytes can hold", g, (long long)rows, f->size);
        return -1;
    }
    /* a flat column has a value (or a null) per row; a nested one a level pair per
     * value or empty list, at least one per row */
    int64_t entries = ch->num_values;
    if (col->nested ? entries < rows || (uint64_t)entries > (uint64_t)f->size * PQ_MAX_ROWS_PER_BYTE || entries > PQ_MAX_ROWS
                    : entries != rows) {
        pq_error(err, f, 0, "row group %d, column %s: %lld values for %lld rows", g, col->path, (long long)entries,
                 (long long)rows);
        return -1;
    }
    if (entries == 0) { /* no pages to read (writers leave the offsets of an empty chunk at 0) */
        values_alloc(v, col, 0);
        return 0;
    }
    int64_t start = ch->data_page_offset;
    if (ch->dictionary_page_offset > 0 && ch->dictionary_page_offset < start) start = ch->dictionary_page_offset;
    if (start < 4 || (uint64_t)start >= f->data_end || ch->total_compressed_size < 0 ||
        (uint64_t)ch->total_compressed_size > f->data_end - (uint64_t)start) {
        pq_error(err, f, start < 0 ? 0 : (uint64_t)start, "row group %d, column %s: column chunk (%lld bytes) lies outside the data",
                 g, col->path, (long long)ch->total_compressed_size);
        return -1;
    }
    uint64_t pos = (uint64_t)start, end = (uint64_t)start + (uint64_t)ch->total_compressed_size;
    values_alloc(v, col, entries);
    chunk_reader cr = {f, col, ch, v, {v->bytes, v->ints, v->reals}, {0, {0}, false}, 0, err};
    const char *why = NULL;
    uint64_t at = pos;
    while (cr.row < entries && !why) {
        at = pos;
        if (pos >= end) { why = "column chunk ends before its values do"; break; }
        tc_reader r;
        tc_init(&r, f->data + pos, (size_t)(end - pos), pos);
        page_header h;
        read_page_header(&r, &h);
        if (tc_failed(&r)) { why = r.error; at = r.error_at; break; }
        pos = tc_offset(&r);
        if (h.compressed < 0 || h.uncompressed < 0 || (uint64_t)h.compressed > end - pos) { why = "page runs past its column chunk"; break; }
        if ((uint32_t)h.uncompressed > PQ_MAX_PAGE_BYTES) { why = "page over 1 GiB decoded"; break; }
        const uint8_t *raw = f->data + pos;
        uint64_t page_at = pos;
        pos += (uint64_t)h.compressed;
        if (h.has_crc && (uint32_t)crc32(0L, raw, (uInt)h.compressed) != h.crc) { why = "page CRC does not match"; at = page_at; break; }
        if (h.type != PAGE_DATA && h.type != PAGE_DATA_V2 && h.type != PAGE_DICTIONARY) continue; /* index pages */
        if (!h.has_body) { why = "page header without its type's header"; break; }
        size_t levels_n = 0;
        bool compressed = ch->codec != PQ_UNCOMPRESSED;
        size_t rep_n = 0; /* v2: repetition levels first (a flat column has none to read), then definition levels */
        if (h.type == PAGE_DATA_V2) {
            if (h.def_len < 0 || h.rep_len < 0 || (int64_t)h.def_len + h.rep_len > h.compressed ||
                (int64_t)h.def_len + h.rep_len > h.uncompressed) { why = "level lengths over the page size"; break; }
            rep_n = (size_t)h.rep_len;
            levels_n = (size_t)h.def_len;
            compressed = compressed && h.v2_compressed;
        }
        const uint8_t *body = raw + rep_n + levels_n;
        size_t body_n = (size_t)h.compressed - rep_n - levels_n, want = (size_t)h.uncompressed - rep_n - levels_n;
        if (compressed && want == 0 && body_n == 0) {
            /* an empty v2 page: nothing to decompress (zero bytes are no valid snappy stream) */
        } else if (compressed) {
            uint8_t *buf = xmalloc(want ? want : 1);
            keep_buffer(v, buf);
            if ((why = decompress(ch->codec, body, body_n, buf, want)) != NULL) { at = page_at; break; }
            body = buf;
            body_n = want;
        } else if (body_n != want) {
            why = "uncompressed page sizes differ";
            at = page_at;
            break;
        }
        if (h.type == PAGE_DICTIONARY) why = read_dictionary(&cr, &h, body, body_n);
        else why = read_data_page(&cr, &h, raw, rep_n, raw + rep_n, levels_n, body, body_n);
        if (why) at = page_at;
    }
    slots_free(&cr.dict.v);
    if (!why && col->nested) { /* each row starts where the repetition level is 0 */
        int64_t starts = 0;
        for (int64_t i = 0; i < entries; i++) starts += v->reps[i] == 0;
        if (v->reps[0] != 0 || starts != rows) why = "repetition levels give another number of rows than the row group's";
    }
    if (why) {
        pq_error(err, f, at, "row group %d, column %s: %s", g, col->path, why);
        pq_values_free(v);
        return -1;
    }
    return 0;
}
