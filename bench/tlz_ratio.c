/* tlz_ratio.c - winnow's token encoder (shards/tlz.h) against libzstd level 1
 * on one thread: size and speed of shard frames of real token ids.
 *
 * usage: tlz_ratio VOCAB_SIZE FILE.bin [REPEATS]
 *
 * Reads a `winnow tokenize --format bin` file (bench/bin_ids.h), stores the
 * ids as shards do (uint16 when VOCAB_SIZE <= 65536, else uint32), cuts
 * them into frames of SHARD_FRAME_BYTES and compresses every frame both
 * ways, alternating, the best of REPEATS (default 5) rounds of the
 * thread's CPU seconds each. Every tlz frame is then decoded by
 * ZSTD_decompress and by a streaming ZSTD_decompressStream and compared.
 * Prints one markdown table row; exits 1 when a frame does not decode back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "bench/bin_ids.h"
#include "core/util.h"
#include "shards/shard_format.h"
#include "shards/tlz.h"

#define DEFAULT_REPEATS 5
#define LEVEL_ONE 1

/* One round of tlz frames; returns the CPU seconds, *total the bytes. */
static double round_tlz(const id_array *a, tlz_ctx *c, uint8_t *dst, size_t *total)
{
    *total = 0;
    double t0 = thread_cpu_seconds();
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        *total += tlz_compress_frame(c, a->raw + at, n, a->width, dst);
    }
    return thread_cpu_seconds() - t0;
}

/* One round of level-1 frames with a content checksum, as tlz writes them. */
static double round_level1(const id_array *a, ZSTD_CCtx *z, uint8_t *dst, size_t cap, size_t *total)
{
    *total = 0;
    double t0 = thread_cpu_seconds();
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        size_t r = ZSTD_compress2(z, dst, cap, a->raw + at, n);
        if (ZSTD_isError(r)) dief(EXIT_FATAL, "level 1: %s", ZSTD_getErrorName(r));
        *total += r;
    }
    return thread_cpu_seconds() - t0;
}

/* How many tlz frames do not decode back, both ways. */
static size_t bad_frames(const id_array *a, tlz_ctx *c, uint8_t *dst, uint8_t *back)
{
    size_t bad = 0;
    ZSTD_DStream *ds = ZSTD_createDStream();
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        size_t r = tlz_compress_frame(c, a->raw + at, n, a->width, dst);
        size_t d = ZSTD_decompress(back, n, dst, r);
        int ok = !ZSTD_isError(d) && d == n && memcmp(back, a->raw + at, n) == 0;
        ZSTD_initDStream(ds);
        ZSTD_inBuffer in = {dst, r, 0};
        ZSTD_outBuffer out = {back, n, 0};
        memset(back, 0, n);
        size_t q = ZSTD_decompressStream(ds, &out, &in);
        ok = ok && !ZSTD_isError(q) && q == 0 && out.pos == n && memcmp(back, a->raw + at, n) == 0;
        bad += !ok;
    }
    ZSTD_freeDStream(ds);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 3) dief(EXIT_USAGE, "usage: tlz_ratio VOCAB_SIZE FILE.bin [REPEATS]");
    id_array a;
    load_ids(argv[2], strtoull(argv[1], NULL, 10), &a);
    int repeats = argc > 3 ? atoi(argv[3]) : DEFAULT_REPEATS;
    size_t cap = ZSTD_compressBound(SHARD_FRAME_BYTES);
    if (tlz_frame_bound(SHARD_FRAME_BYTES) > cap) cap = tlz_frame_bound(SHARD_FRAME_BYTES);
    uint8_t *dst = xmalloc(cap), *back = xmalloc(SHARD_FRAME_BYTES);
    tlz_ctx *c = tlz_ctx_new();
    ZSTD_CCtx *z = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, LEVEL_ONE);
    ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
    double best_tlz = 0, best_l1 = 0;
    size_t tlz_bytes = 0, l1_bytes = 0;
    for (int r = 0; r < repeats; r++) {
        double t = round_tlz(&a, c, dst, &tlz_bytes);
        if (r == 0 || t < best_tlz) best_tlz = t;
        t = round_level1(&a, z, dst, cap, &l1_bytes);
        if (r == 0 || t < best_l1) best_l1 = t;
    }
    size_t bad = bad_frames(&a, c, dst, back);
    const char *name = strrchr(argv[2], '/') ? strrchr(argv[2], '/') + 1 : argv[2];
    printf("| %s | u%d | %.1f | %zu | %.3f | %zu | %.3f | %.3f | %.0f | %.0f | %.2f | %zu |\n", name, 8 * a.width,
           a.len / 1e6, tlz_bytes, (double)a.len / tlz_bytes, l1_bytes, (double)a.len / l1_bytes,
           (double)tlz_bytes / l1_bytes, a.len / best_tlz / 1e6, a.len / best_l1 / 1e6, best_l1 / best_tlz, bad);
    tlz_ctx_free(c);
    ZSTD_freeCCtx(z);
    free(dst);
    free(back);
    free(a.raw);
    return bad ? 1 : 0;
}
