/* gpu_tlz.c - the GPU token encoder (gpu/tlz.cu) against the host's
 * tlz_compress_frame(), the reference: the tokref ids of multi and en_code
 * as cl100k_base uint32 and of multi as gpt2 uint16, in 1 MiB frames, and
 * edge frames (empty, 1 and 3 tokens, sizes at the frame header's and the
 * blocks' boundaries, one repeated token, random bytes, a frame of the
 * largest size), in batches with two in flight whose source buffers are
 * overwritten as soon as gpu_tlz_submit() returns. Every frame must be
 * byte-identical to the host's, and libzstd must give its content back.
 * Skipped, with the reason, where no GPU is usable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/util.h"
#include "gpu/tlz.h"
#include "shards/shard_format.h"
#include "shards/tlz.h"
#include "tests/tap.h"

#define BATCH_FRAMES 8 /* small, so that every input takes several batches, two in flight */
#define MAX_FRAME_BYTES (2 * (size_t)SHARD_FRAME_BYTES)
#define BLOCK ((size_t)128 * 1024)
#define POISON 0xA5

typedef struct {
    uint8_t *data;
    size_t len;
} frame;

typedef struct {
    frame *f;
    size_t n, cap;
} frame_list;

static void add_frame(frame_list *l, const uint8_t *p, size_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->f = xrealloc(l->f, l->cap * sizeof(frame));
    }
    l->f[l->n].data = xmalloc(len ? len : 1);
    memcpy(l->f[l->n].data, p, len);
    l->f[l->n++].len = len;
}

static void free_frames(frame_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->f[i].data);
    free(l->f);
    memset(l, 0, sizeof *l);
}

/* The ids of a tokref --format bin file (.bin.zst: per document a u32
 * count, then the u32 ids), width bytes each, little-endian. */
static uint8_t *load_ids(const char *name, int width, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tokref/%s.bin.zst", shared_dir(), name);
    require_file(path);
    size_t zlen;
    char *z = read_file(path, &zlen);
    wbuf bin = WBUF_INIT;
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_inBuffer in = {z, zlen, 0};
    uint8_t chunk[1 << 16];
    while (in.pos < in.size) {
        ZSTD_outBuffer out = {chunk, sizeof chunk, 0};
        size_t r = ZSTD_decompressStream(ds, &out, &in);
        if (ZSTD_isError(r)) dief(EXIT_FATAL, "%s: %s", path, ZSTD_getErrorName(r));
        buf_append(&bin, chunk, out.pos);
    }
    ZSTD_freeDStream(ds);
    free(z);
    uint8_t *ids = xmalloc(bin.len), *b = (uint8_t *)bin.data;
    *len = 0;
    for (size_t at = 0; at + 4 <= bin.len;) {
        uint32_t n = get_le32(b + at);
        at += 4;
        for (uint32_t i = 0; i < n && at + 4 <= bin.len; i++, at += 4) {
            uint32_t id = get_le32(b + at);
            if (width == 2) put_le16(ids + *len, (uint16_t)id);
            else put_le32(ids + *len, id);
            *len += (size_t)width;
        }
    }
    buf_free(&bin);
    return ids;
}

/* Frames of frame_bytes (the last shorter) of the ids. */
static void add_id_frames(frame_list *l, const uint8_t *ids, size_t len, size_t frame_bytes)
{
    for (size_t at = 0; at < len; at += frame_bytes) add_frame(l, ids + at, len - at < frame_bytes ? len - at : frame_bytes);
}

/* Edge frames of width-byte tokens; real holds at least MAX_FRAME_BYTES of ids. */
static void add_edge_frames(frame_list *l, const uint8_t *real, int width)
{
    size_t w = (size_t)width;
    const size_t real_sizes[] = {0, w, 3 * w, 254 / w * w, 256, 65536 + 256 - w, 65536 + 256, BLOCK - w, BLOCK,
                                 BLOCK + w, 3 * BLOCK - w, 5 * BLOCK + 6 * w, MAX_FRAME_BYTES};
    for (size_t i = 0; i < sizeof real_sizes / sizeof real_sizes[0]; i++) add_frame(l, real, real_sizes[i]);
    uint8_t *p = xmalloc(SHARD_FRAME_BYTES);
    for (size_t i = 0; i < SHARD_FRAME_BYTES; i += w) memcpy(p + i, real + 40 * w, w); /* one token repeated */
    add_frame(l, p, SHARD_FRAME_BYTES);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < SHARD_FRAME_BYTES; i++) { /* random bytes (xorshift64) */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (uint8_t)x;
    }
    add_frame(l, p, SHARD_FRAME_BYTES - 10 * w);
    for (size_t i = 0; i < SHARD_FRAME_BYTES; i += w) { /* random tokens of a small vocabulary */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(p + i, real + (x % 300) * w, w);
    }
    add_frame(l, p, SHARD_FRAME_BYTES);
    free(p);
}

typedef struct {
    size_t mismatched, undecoded, first_bad;
    wbuf why;
} outcome;

/* Checks frame f (its GPU coding got, got_len) against the host's and libzstd. */
static void check_frame(const frame *f, int width, tlz_ctx *ctx, const uint8_t *got, size_t got_len, size_t index,
                        outcome *o)
{
    size_t bound = tlz_frame_bound(f->len);
    uint8_t *want = xmalloc(bound), *back = xmalloc(f->len + 1);
    size_t want_len = tlz_compress_frame(ctx, f->data, f->len, width, want);
    if (got_len != want_len || memcmp(got, want, want_len)) {
        if (!o->mismatched++) {
            size_t at = 0;
            while (at < got_len && at < want_len && got[at] == want[at]) at++;
            buf_printf(&o->why, "frame %zu (%zu bytes): %zu bytes against the host's %zu, first difference at byte %zu",
                       index, f->len, got_len, want_len, at);
        }
    }
    size_t r = ZSTD_decompress(back, f->len + 1, got, got_len);
    if (ZSTD_isError(r) || r != f->len || memcmp(back, f->data, f->len)) {
        if (!o->undecoded++) o->first_bad = index;
    }
    free(want);
    free(back);
}

/* Codes the frames on the GPU in batches of BATCH_FRAMES, two in flight,
 * each batch's sources in one of two host buffers that are overwritten
 * right after it is submitted, and checks every frame. */
static void check_frames(gpu_tlz *g, const frame_list *l, int width, const char *what)
{
    size_t nbatches = (l->n + BATCH_FRAMES - 1) / BATCH_FRAMES;
    uint8_t *stage[GPU_TLZ_IN_FLIGHT];
    for (int k = 0; k < GPU_TLZ_IN_FLIGHT; k++) stage[k] = gpu_tlz_alloc_host(BATCH_FRAMES * MAX_FRAME_BYTES);
    uint8_t **dst = xmalloc(l->n * sizeof(uint8_t *));
    size_t *size = xmalloc(l->n * sizeof(size_t));
    for (size_t i = 0; i < l->n; i++) dst[i] = xmalloc(tlz_frame_bound(l->f[i].len));
    int slot[GPU_TLZ_IN_FLIGHT];
    for (size_t b = 0; b <= nbatches; b++) {
        if (b < nbatches) {
            size_t from = b * BATCH_FRAMES, n = l->n - from < BATCH_FRAMES ? l->n - from : BATCH_FRAMES;
            const uint8_t *src[BATCH_FRAMES];
            size_t len[BATCH_FRAMES];
            uint32_t sum[BATCH_FRAMES];
            uint8_t *p = stage[b % GPU_TLZ_IN_FLIGHT];
            for (size_t i = 0; i < n; i++) {
                const frame *f = &l->f[from + i];
                memcpy(p, f->data, f->len);
                src[i] = p;
                len[i] = f->len;
                sum[i] = (uint32_t)XXH64(f->data, f->len, 0);
                p += f->len;
            }
            slot[b % GPU_TLZ_IN_FLIGHT] = gpu_tlz_submit(g, n, src, len, width, sum);
            memset(stage[b % GPU_TLZ_IN_FLIGHT], POISON, (size_t)(p - stage[b % GPU_TLZ_IN_FLIGHT]));
        }
        if (b >= 1) {
            size_t done = b - 1, from = done * BATCH_FRAMES;
            gpu_tlz_finish(g, slot[done % GPU_TLZ_IN_FLIGHT], dst + from, size + from);
        }
    }
    tlz_ctx *ctx = tlz_ctx_new();
    outcome o = {0, 0, 0, WBUF_INIT};
    for (size_t i = 0; i < l->n; i++) check_frame(&l->f[i], width, ctx, dst[i], size[i], i, &o);
    tlz_ctx_free(ctx);
    if (!ok(o.mismatched == 0, "%s: %zu frames in %zu batches byte-identical to tlz_compress_frame", what, l->n, nbatches))
        diag("%zu frames differ; %s", o.mismatched, o.why.data);
    if (!ok(o.undecoded == 0, "%s: libzstd decodes every frame to its content", what))
        diag("%zu frames do not decode to their content, the first frame %zu", o.undecoded, o.first_bad);
    buf_free(&o.why);
    for (size_t i = 0; i < l->n; i++) free(dst[i]);
    free(dst);
    free(size);
    for (int k = 0; k < GPU_TLZ_IN_FLIGHT; k++) gpu_tlz_free_host(stage[k]);
}

/* An empty batch is finished with nothing written. */
static void check_empty_batch(gpu_tlz *g)
{
    int slot = gpu_tlz_submit(g, 0, NULL, NULL, 4, NULL);
    gpu_tlz_finish(g, slot, NULL, NULL);
    ok(1, "a batch of no frames is submitted and finished");
}

int main(void)
{
    wbuf why = WBUF_INIT;
    if (!gpu_tlz_usable(&why)) skip_all(why.data);
    gpu_tlz *g = gpu_tlz_open(BATCH_FRAMES, MAX_FRAME_BYTES, &why);
    if (!ok(g != NULL, "gpu_tlz_open")) {
        diag("%s", why.data);
        return done_testing();
    }
    static const struct {
        const char *corpus;
        int width;
    } inputs[] = {{"multi.cl100k_base", 4}, {"en_code.cl100k_base", 4}, {"multi.gpt2", 2}};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
        size_t len;
        uint8_t *ids = load_ids(inputs[k].corpus, inputs[k].width, &len);
        if (!ok(len >= MAX_FRAME_BYTES, "%s: %zu bytes of ids", inputs[k].corpus, len)) continue;
        frame_list l = {0};
        add_id_frames(&l, ids, len, SHARD_FRAME_BYTES);
        char what[128];
        snprintf(what, sizeof what, "%s as %d-byte ids, 1 MiB frames", inputs[k].corpus, inputs[k].width);
        check_frames(g, &l, inputs[k].width, what);
        free_frames(&l);
        if (k == 0 || inputs[k].width == 2) {
            add_edge_frames(&l, ids, inputs[k].width);
            snprintf(what, sizeof what, "edge frames of %d-byte ids", inputs[k].width);
            check_frames(g, &l, inputs[k].width, what);
            free_frames(&l);
        }
        free(ids);
    }
    check_empty_batch(g);
    double seconds[GPU_TLZ_PHASES];
    gpu_tlz_phase_seconds(g, seconds);
    diag("device seconds: copy in %.3f, code %.3f, copy out %.3f", seconds[GPU_TLZ_COPY_IN], seconds[GPU_TLZ_CODE],
         seconds[GPU_TLZ_COPY_OUT]);
    gpu_tlz_close(g);
    buf_free(&why);
    return done_testing();
}
