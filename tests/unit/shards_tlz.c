/* shards_tlz.c - winnow's token encoder (shards/tlz.h) against libzstd and
 * RFC 8878: real tokref ids and edge inputs, each frame decoded by
 * ZSTD_decompress and by a streaming ZSTD_decompressStream fed in small
 * pieces, the content compared byte for byte, and the frame's header,
 * block headers and checksum read here field by field from the RFC; and
 * shards/tlz_block.h as nvcc compiles it for a device, run here, must
 * write the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/input.h"
#include "core/util.h"
#include "shards/tlz.h"
#include "tests/tap.h"

/* The device's side: tlz_block.h with __CUDA_ARCH__ set (aligned 16- and
 * 32-bit loads, byte copies, CUDA's intrinsics, emulated here), run on the
 * host. Under SANITIZE=1 its loads are also checked for alignment. */
static int __clz(int v) { return __builtin_clz((unsigned)v); }
static int __ffsll(long long v) { return __builtin_ffsll(v); }
#define __CUDA_ARCH__ 900
#include "shards/tlz_block.h"
#undef __CUDA_ARCH__

#define FRAME_BYTES (1u << 20)     /* the frame size of the real-data rounds */
#define MAX_BLOCK (128u * 1024u)   /* RFC 8878 Block_Maximum_Size */
#define ZSTD_MAGIC 0xFD2FB528u
#define STREAM_IN_STEP 1000        /* the streaming decoder gets the frame this many bytes at a time */
#define STREAM_OUT_STEP 4093       /* and this much room at a time */

typedef struct {
    uint8_t *raw;
    size_t len; /* bytes */
    int width;
} ids;

static uint32_t le(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}

/* Every id of a tokref bin file (per document a u32 count, then u32 ids), stored width bytes each. */
static ids tokref(const char *name, int width)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tokref/%s", shared_dir(), name);
    require_file(path);
    winput *in = input_open(path);
    if (!in) {
        ok(0, "%s opens", path);
        exit(1);
    }
    size_t cap = 1u << 20;
    ids a = {xmalloc(cap), 0, width};
    uint8_t word[4];
    int doc_left = 0;
    while (input_read(in, word, 4) == 4) {
        uint32_t v = le(word, 4);
        if (doc_left == 0) { /* a document's count */
            doc_left = (int)v;
            continue;
        }
        doc_left--;
        if (a.len + 4 > cap) a.raw = xrealloc(a.raw, cap *= 2);
        for (int i = 0; i < width; i++) a.raw[a.len++] = (uint8_t)(v >> (8 * i));
    }
    input_close(in);
    return a;
}

/* Checks one frame as RFC 8878 3.1.1 lays it out; returns whether it holds. */
static int frame_well_formed(const uint8_t *f, size_t size, const uint8_t *content, size_t len, const char *what)
{
    if (size < 6 + 3 + 4 || le(f, 4) != ZSTD_MAGIC) return ok(0, "%s: magic number", what);
    uint8_t fhd = f[4];
    int fcs_flag = fhd >> 6, single = fhd >> 5 & 1, unused = fhd >> 4 & 1, reserved = fhd >> 3 & 1;
    int checksum = fhd >> 2 & 1, dict = fhd & 3;
    if (!single || unused || reserved || !checksum || dict)
        return ok(0, "%s: descriptor 0x%02x (single segment, checksum, no dictionary)", what, fhd);
    int fcs_bytes = fcs_flag == 0 ? 1 : fcs_flag == 1 ? 2 : fcs_flag == 2 ? 4 : 8;
    uint64_t fcs = le(f + 5, fcs_bytes > 4 ? 4 : fcs_bytes) + (fcs_flag == 1 ? 256u : 0u);
    if (fcs_bytes == 8) fcs |= (uint64_t)le(f + 9, 4) << 32;
    if (fcs != len) return ok(0, "%s: content size field %llu, want %zu", what, (unsigned long long)fcs, len);
    size_t at = 5 + (size_t)fcs_bytes, raw_bytes = 0;
    int last = 0, blocks = 0;
    while (!last) {
        if (at + 3 > size) return ok(0, "%s: block header %d past the end", what, blocks);
        uint32_t h = le(f + at, 3), type = h >> 1 & 3, bsize = h >> 3;
        last = h & 1;
        at += 3;
        if (type == 3) return ok(0, "%s: block %d of reserved type", what, blocks);
        if (bsize > MAX_BLOCK) return ok(0, "%s: block %d of %u bytes", what, blocks, bsize);
        if (type == 0) raw_bytes += bsize;
        at += type == 1 ? 1 : bsize;
        blocks++;
    }
    if (raw_bytes > len) return ok(0, "%s: raw blocks hold more than the content", what);
    if (at + 4 != size) return ok(0, "%s: %zu bytes after the last block, want the 4 of the checksum", what, size - at);
    if (le(f + at, 4) != (uint32_t)XXH64(content, len, 0)) return ok(0, "%s: content checksum", what);
    return 1;
}

/* Decodes the frame both ways and compares; returns whether both gave content back. */
static int decodes_to(const uint8_t *f, size_t size, const uint8_t *content, size_t len, uint8_t *back, const char *what)
{
    size_t got = ZSTD_decompress(back, len, f, size);
    if (ZSTD_isError(got)) return ok(0, "%s: ZSTD_decompress: %s", what, ZSTD_getErrorName(got));
    if (got != len || memcmp(back, content, len)) return ok(0, "%s: ZSTD_decompress gives other content", what);
    memset(back, 0xAA, len);
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    ZSTD_inBuffer in = {f, 0, 0};
    ZSTD_outBuffer out = {back, 0, 0};
    size_t r = 1;
    while (r != 0) {
        in.size = in.size + STREAM_IN_STEP < size ? in.size + STREAM_IN_STEP : size;
        out.size = out.size + STREAM_OUT_STEP < len ? out.size + STREAM_OUT_STEP : len;
        size_t in_was = in.pos, out_was = out.pos;
        r = ZSTD_decompressStream(ds, &out, &in);
        if (ZSTD_isError(r)) break;
        if (r && in.pos == in_was && out.pos == out_was && in.size == size && out.size == len) break; /* stuck */
    }
    ZSTD_freeDStream(ds);
    if (ZSTD_isError(r)) return ok(0, "%s: ZSTD_decompressStream: %s", what, ZSTD_getErrorName(r));
    if (r != 0 || in.pos != size || out.pos != len || memcmp(back, content, len))
        return ok(0, "%s: streaming decode gives other content", what);
    return 1;
}

/* The frame of src[0..len) as the device path writes it, block by block
 * into a scratch laid out as a device's (aligned); returns its size. It
 * repeats shards/tlz.c's tlz_compress_frame() on purpose: that one calls the
 * host's build of tlz_block(), this one the build above. */
static size_t device_frame(const uint8_t *src, size_t len, int width, uint8_t *dst)
{
    static uint16_t table[1u << TLZ_HASH_LOG];
    static _Alignas(8) uint8_t literals[TLZ_BLOCK_BYTES];
    static _Alignas(8) uint8_t work[TLZ_BLOCK_BOUND];
    static tlz_seq seqs[TLZ_MAX_SEQS];
    tlz_scratch s = {table, literals, seqs, work};
    uint8_t *p = dst + tlz_frame_header((uint32_t)len, dst);
    uint32_t blocks = tlz_frame_blocks((uint32_t)len);
    for (uint32_t k = 0; k < blocks; k++) {
        size_t at = (size_t)k * TLZ_BLOCK_BYTES, n = len - at < TLZ_BLOCK_BYTES ? len - at : TLZ_BLOCK_BYTES;
        p += tlz_block(src + at, (uint32_t)n, width, k + 1 == blocks, &s, p);
    }
    tlz_put_le(p, (uint32_t)XXH64(src, len, 0), TLZ_CHECKSUM_BYTES);
    return (size_t)(p - dst) + TLZ_CHECKSUM_BYTES;
}

/* Compresses src as frames of frame_bytes; checks each; returns the compressed total. */
static size_t round_trip(tlz_ctx *c, const uint8_t *src, size_t len, int width, size_t frame_bytes, const char *what)
{
    uint8_t *dst = xmalloc(tlz_frame_bound(frame_bytes)), *back = xmalloc(frame_bytes ? frame_bytes : 1);
    uint8_t *dev = xmalloc(tlz_frame_bound(frame_bytes));
    size_t total = 0, bad = 0, frames = 0;
    for (size_t at = 0; at < len || (len == 0 && frames == 0); at += frame_bytes, frames++) {
        size_t n = len - at < frame_bytes ? len - at : frame_bytes;
        size_t size = tlz_compress_frame(c, src + at, n, width, dst);
        total += size;
        size_t dev_size = device_frame(src + at, n, width, dev);
        if (size > tlz_frame_bound(n)) bad += !ok(0, "%s: frame at %zu over its bound", what, at);
        else if (dev_size != size || memcmp(dev, dst, size)) bad += !ok(0, "%s: the device path writes other bytes", what);
        else if (!frame_well_formed(dst, size, src + at, n, what) || !decodes_to(dst, size, src + at, n, back, what)) bad++;
        if (bad) {
            diag("%s: first bad frame at byte %zu (%zu bytes)", what, at, n);
            break;
        }
    }
    ok(bad == 0, "%s: %zu bytes of width %d, %zu frames, each well formed, decoded back both ways, the device's the same", what,
       len, width, frames);
    free(dev);
    free(dst);
    free(back);
    return total;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* n tokens of width bytes, token i from make(i). */
static uint8_t *tokens(size_t n, int width, uint32_t (*make)(size_t))
{
    uint8_t *p = xmalloc(n * (size_t)width + 1);
    for (size_t i = 0; i < n; i++) {
        uint32_t v = make(i);
        for (int b = 0; b < width; b++) p[i * (size_t)width + (size_t)b] = (uint8_t)(v >> (8 * b));
    }
    return p;
}

static uint32_t same_token(size_t i) { (void)i; return 50256; }
static uint32_t random_word(size_t i) { (void)i; return next_rand() ^ next_rand() << 16; }
static uint32_t counting(size_t i) { return (uint32_t)(i * 2654435761u % 100000); }
static uint32_t small_alphabet(size_t i) { (void)i; return next_rand() % 4; }
static uint32_t short_phrases(size_t i) { return (uint32_t)(i % 37 < 5 ? next_rand() % 50000 : i % 37 + 1000 * (i / 37 % 7)); }

/* What a frame's first block holds, read field by field from RFC 8878
 * (3.1.1.2 block header, 3.1.1.3.1.1 Literals_Section_Header,
 * 3.1.1.3.2.1 Number_of_Sequences); a single-segment frame (checked by
 * frame_well_formed). */
typedef struct {
    int block_type, literals_type; /* 2: Compressed_Block; 0: Raw_Literals_Block, 2: Compressed_Literals_Block */
    int literals_header;           /* bytes */
    uint32_t regenerated, sequences;
} block_fields;

static block_fields first_block(const uint8_t *f)
{
    block_fields b = {0};
    int fcs_flag = f[4] >> 6, fcs_bytes = fcs_flag == 0 ? 1 : fcs_flag == 1 ? 2 : fcs_flag == 2 ? 4 : 8;
    const uint8_t *p = f + 5 + fcs_bytes;
    b.block_type = (int)(le(p, 3) >> 1 & 3);
    p += 3;
    if (b.block_type != 2) return b;
    b.literals_type = p[0] & 3;
    int size_format = p[0] >> 2 & 3;
    uint32_t body;
    if (b.literals_type < 2) { /* raw or RLE */
        if (size_format == 0 || size_format == 2) b.literals_header = 1, b.regenerated = p[0] >> 3u;
        else if (size_format == 1) b.literals_header = 2, b.regenerated = (p[0] >> 4u) + ((uint32_t)p[1] << 4);
        else b.literals_header = 3, b.regenerated = (p[0] >> 4u) + ((uint32_t)p[1] << 4) + ((uint32_t)p[2] << 12);
        body = b.literals_type == 0 ? b.regenerated : 1;
    } else { /* both sizes of 10, 10, 14 or 18 bits */
        int bits = size_format < 2 ? 10 : size_format == 2 ? 14 : 18;
        b.literals_header = size_format < 2 ? 3 : size_format == 2 ? 4 : 5;
        uint64_t v = 0;
        for (int i = 0; i < b.literals_header; i++) v |= (uint64_t)p[i] << (8 * i);
        b.regenerated = (uint32_t)(v >> 4 & ((1u << bits) - 1));
        body = (uint32_t)(v >> (4 + bits) & ((1u << bits) - 1));
    }
    p += b.literals_header + body;
    b.sequences = p[0] < 128 ? p[0] : p[0] < 255 ? ((uint32_t)(p[0] - 0x80) << 8) + p[1] : p[1] + ((uint32_t)p[2] << 8) + 0x7F00;
    return b;
}

/* The sequences and literal bytes the encoder finds in one block (<= TLZ_BLOCK_BYTES). */
static uint32_t block_counts(const uint8_t *src, size_t len, int width, uint32_t *nlit)
{
    static uint16_t table[1u << TLZ_HASH_LOG];
    static _Alignas(8) uint8_t literals[TLZ_BLOCK_BYTES];
    static tlz_seq seqs[TLZ_MAX_SEQS];
    tlz_scratch s = {table, literals, seqs, NULL};
    return tlz_find(src, (uint32_t)len, width, &s, nlit);
}

/* One block of src[0..len) coded: decoded back both ways, and its literals
 * and sequence counts read from the RFC's fields as the encoder found them. */
static void block_fields_hold(tlz_ctx *c, const uint8_t *src, size_t len, int width, int literals_type, const char *what)
{
    uint8_t *dst = xmalloc(tlz_frame_bound(len)), *back = xmalloc(len);
    size_t size = tlz_compress_frame(c, src, len, width, dst);
    uint32_t nlit, ns = block_counts(src, len, width, &nlit);
    if (frame_well_formed(dst, size, src, len, what) && decodes_to(dst, size, src, len, back, what)) {
        block_fields b = first_block(dst);
        ok(b.block_type == 2 && b.literals_type == literals_type && b.regenerated == nlit && b.sequences == ns,
           "%s: a compressed block, %s literals (%d-byte header), %u of them, %u sequences (read %d, %d, %u, %u)", what,
           literals_type ? "Huffman-coded" : "raw", b.literals_header, nlit, ns, b.block_type, b.literals_type,
           b.regenerated, b.sequences);
    }
    free(dst);
    free(back);
}

/* Blocks whose literal and sequence counts sit at the edges of the RFC's
 * header forms: prefixes of real ids, the shortest that the encoder finds
 * exactly that many in; raw literals of random ids, then the ids again. */
static void header_forms(tlz_ctx *c, const ids *cl)
{
    static const struct {
        int sequences; /* else literal bytes */
        uint32_t want;
    } edges[] = {{1, 127}, {1, 128}, {1, 129}, {0, 1020}, {0, 1024}, {0, 16380}, {0, 16384}};
    char what[200];
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
        size_t tokens = 0;
        for (size_t k = 2; k <= TLZ_BLOCK_BYTES / 4 && !tokens; k++) {
            uint32_t nlit, ns = block_counts(cl->raw, 4 * k, 4, &nlit);
            if ((edges[e].sequences ? ns : nlit) == edges[e].want) tokens = k;
        }
        snprintf(what, sizeof what, "the first %zu cl100k ids, %u %s", tokens, edges[e].want,
                 edges[e].sequences ? "sequences" : "literal bytes");
        if (!ok(tokens > 0, "%s: a prefix of real ids in one block gives them", what)) continue;
        block_fields_hold(c, cl->raw, 4 * tokens, 4, 2, what);
    }
    for (int w = 2; w <= 4; w += 2) { /* 4096 random bytes twice */
        size_t n = 4096 / (size_t)w;
        uint8_t *src = tokens(2 * n, w, random_word);
        memcpy(src + 4096, src, 4096);
        snprintf(what, sizeof what, "4096 bytes of random %d-byte ids twice", w);
        block_fields_hold(c, src, 8192, w, 0, what);
        free(src);
    }
}

/* Code lengths of tlz_huf_lengths() for counts that Huffman's algorithm
 * makes deeper than 11: RFC 8878 4.2.1 limits them to 11 bits; Kraft's sum
 * must be exactly 1 (a complete code, as the weights imply one), and a
 * more frequent symbol never gets a longer code. */
static void huffman_limit(void)
{
    uint32_t count[256];
    uint16_t sym[256];
    uint8_t len[256];
    for (int shape = 0; shape < 2; shape++) {
        int n = shape == 0 ? 32 : 256;
        uint32_t a = 1, b = 1;
        for (int i = 0; i < n; i++) { /* Fibonacci counts: the deepest tree; or 240 rare bytes and 16 ever more common */
            count[i] = shape == 0 ? a : i < 240 ? 1 : 1u << (i - 236);
            uint32_t t = a + b;
            a = b;
            b = t;
            sym[i] = (uint16_t)i;
        }
        tlz_sort_by_count(sym, count, n);
        int longest = tlz_huf_lengths(sym, count, n, len), most = 0, rising = 1;
        uint64_t kraft = 0;
        for (int i = 0; i < n; i++) {
            most = len[i] > most ? len[i] : most;
            if (len[i] < 1 || len[i] > 31) break;
            kraft += (1ull << 31) >> len[i];
            if (i && len[i] > len[i - 1]) rising = 0;
        }
        ok(longest == most && most <= 11 && kraft == 1ull << 31 && rising,
           "%s, %d symbols: codes of at most 11 bits (longest %d, returned %d), complete, none longer for more",
           shape == 0 ? "Fibonacci counts" : "240 rare bytes", n, most, longest);
    }
}

static void edge_inputs(tlz_ctx *c)
{
    static const struct {
        const char *name;
        uint32_t (*make)(size_t);
    } kinds[] = {{"one repeated token", same_token}, {"random bytes", random_word}, {"no repeats", counting},
                 {"four token values", small_alphabet}, {"short phrases", short_phrases}};
    /* tokens: none, one, a few, around the Huffman threshold, the block sizes of both widths, a frame */
    static const size_t counts[] = {0,     1,     2,     3,     15,        16,     17,     63,     64,    65,    1000,
                                    32767, 32768, 32769, 65535, 65536,     65537, 65539, 262144, 300001, 600001};
    char what[200];
    for (int w = 2; w <= 4; w += 2)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
                size_t n = counts[i];
                uint8_t *src = tokens(n, w, kinds[k].make);
                snprintf(what, sizeof what, "%s, %zu tokens of %d bytes", kinds[k].name, n, w);
                size_t len = n * (size_t)w, frame = len > FRAME_BYTES ? FRAME_BYTES : len;
                round_trip(c, src, len, w, frame ? frame : 1, what);
                free(src);
            }
}

int main(void)
{
    tlz_ctx *c = tlz_ctx_new();
    ids cl = tokref("multi.cl100k_base.bin.zst", 4), gpt2 = tokref("multi.gpt2.bin.zst", 2);
    ok(cl.len > 20000000 && gpt2.len > 15000000, "tokref ids read (%zu and %zu bytes)", cl.len, gpt2.len);
    size_t cl_size = round_trip(c, cl.raw, cl.len, 4, FRAME_BYTES, "multi cl100k (u32)");
    size_t gpt2_size = round_trip(c, gpt2.raw, gpt2.len, 2, FRAME_BYTES, "multi gpt2 (u16)");
    /* measured 3.41 and 2.47 (2026-11-27); level 1 of libzstd: 3.37 and 2.56 */
    ok(cl_size * 3 < cl.len, "multi cl100k compresses more than 3x (%zu -> %zu)", cl.len, cl_size);
    ok(gpt2_size * 9 < gpt2.len * 4, "multi gpt2 compresses more than 2.25x (%zu -> %zu)", gpt2.len, gpt2_size);
    round_trip(c, cl.raw + 4 * 1234, 4 * 777777, 4, 3 * MAX_BLOCK + 4 * 17, "multi cl100k, odd frames");
    /* frames about the content size field's forms (RFC 8878 3.1.1.1.4): 1 byte to 255, 2 bytes (less 256) to 65791, then 4 */
    static const size_t sizes[] = {252, 254, 256, 258, 65788, 65790, 65792, 65794};
    char what[100];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int w = 2; w <= 4; w += 2) {
            if (sizes[i] % (size_t)w) continue;
            snprintf(what, sizeof what, "a frame of %zu bytes of %s ids", sizes[i], w == 4 ? "cl100k" : "gpt2");
            round_trip(c, w == 4 ? cl.raw : gpt2.raw, sizes[i], w, sizes[i], what);
        }
    header_forms(c, &cl);
    huffman_limit();
    edge_inputs(c);
    free(cl.raw);
    free(gpt2.raw);
    tlz_ctx_free(c);
    return done_testing();
}
