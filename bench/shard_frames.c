/* shard_frames.c - what the shard writer's per-token work costs, one thread.
 *
 * usage: shard_frames VOCAB_SIZE FILE.bin [LEVEL...]
 *
 * Reads a --format bin id stream (per document a u32 count, then the ids),
 * lays the ids out as the shard writer stores them (uint16 when VOCAB_SIZE
 * <= 65536, else uint32, little-endian, an eos after each document is left
 * out: it changes nothing measurable) and cuts them into frames of
 * SHARD_FRAME_BYTES. Then, per zstd level (default -5..3), compresses every
 * frame with the writer's parameters (content size, content checksum) on one
 * thread and prints CPU-seconds per GB of raw ids, the ratio, and the
 * decompression cost; the same with the ids' bytes shuffled into planes (byte
 * 0 of every id, then byte 1, ...), a reversible transform the format does
 * not use, to show what it would buy. Last, the other per-token passes of the
 * writer: the id range check, the copy into the frame, XXH3-64 of the tokens
 * and XXH64 of each frame. Markdown table rows on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/util.h"
#include "shards/shard_format.h"
#include "bench/bin_ids.h"

#define GB 1e9
#define DEFAULT_LEVEL_LOW (-5)
#define DEFAULT_LEVEL_HIGH 3


/* Byte i of every id into plane i. */
static void shuffle(const uint8_t *in, uint8_t *out, size_t len, int width)
{
    size_t n = len / (size_t)width;
    for (size_t k = 0; k < n; k++)
        for (int b = 0; b < width; b++) out[(size_t)b * n + k] = in[k * (size_t)width + (size_t)b];
}

static void level_row(const id_array *a, int level, bool shuffled)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    size_t bound = ZSTD_compressBound(SHARD_FRAME_BYTES);
    uint8_t *comp = xmalloc(bound), *planes = xmalloc(SHARD_FRAME_BYTES), *back = xmalloc(SHARD_FRAME_BYTES);
    size_t total = 0;
    double ccpu = 0, dcpu = 0;
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        double t0 = thread_cpu_seconds();
        const uint8_t *src = a->raw + at;
        if (shuffled) {
            shuffle(src, planes, n, a->width);
            src = planes;
        }
        size_t c = ZSTD_compress2(cc, comp, bound, src, n);
        if (ZSTD_isError(c)) dief(EXIT_FATAL, "zstd: %s", ZSTD_getErrorName(c));
        double t1 = thread_cpu_seconds();
        size_t d = ZSTD_decompressDCtx(dc, back, SHARD_FRAME_BYTES, comp, c);
        if (d != n || memcmp(back, src, n)) dief(EXIT_FATAL, "round trip differs");
        dcpu += thread_cpu_seconds() - t1;
        ccpu += t1 - t0;
        total += c;
    }
    printf("| %d | %s | %.2f | %.0f | %.3f | %.2f | %.0f |\n", level, shuffled ? "byte planes" : "none",
           ccpu * GB / (double)a->len, (double)a->len / 1e6 / ccpu, (double)a->len / (double)total,
           8.0 * (double)total / (double)(a->len / (size_t)a->width), (double)a->len / 1e6 / dcpu);
    free(comp);
    free(planes);
    free(back);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
}

static volatile uint64_t sink; /* keeps the passes below from being optimised away */

static void pass_rows(const id_array *a)
{
    uint8_t *frame = xmalloc(SHARD_FRAME_BYTES);
    double t0 = thread_cpu_seconds();
    uint32_t top = 0;
    if (a->width == 4) {
        const uint32_t *ids = (const uint32_t *)(const void *)a->raw;
        for (size_t i = 0; i < a->len / 4; i++) top = ids[i] > top ? ids[i] : top;
    }
    double t1 = thread_cpu_seconds();
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        memcpy(frame, a->raw + at, n);
        sink += frame[n - 1];
    }
    double t2 = thread_cpu_seconds();
    sink += XXH3_64bits(a->raw, a->len);
    double t3 = thread_cpu_seconds();
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        sink += XXH64(a->raw + at, n, 0);
    }
    double t4 = thread_cpu_seconds();
    sink += top;
    const char *names[] = {"id range check (max of u32 ids)", "copy into the frame", "XXH3-64 of the tokens",
                           "XXH64 of each frame"};
    double secs[] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
    for (int i = 0; i < 4; i++)
        printf("| %s | %.3f |\n", names[i], secs[i] * GB / (double)a->len);
    free(frame);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: shard_frames VOCAB_SIZE FILE.bin [LEVEL...]\n");
        return EXIT_USAGE;
    }
    id_array a;
    load_ids(argv[2], strtoull(argv[1], NULL, 10), &a);
    printf("%zu ids, %zu raw bytes (uint%d)\n\n", a.len / (size_t)a.width, a.len, 8 * a.width);
    printf("| level | transform | CPU-s per GB of raw ids | MB/s one thread | ratio | bits/token | decompress MB/s |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int shuffled = 0; shuffled < 2; shuffled++) {
        if (argc > 3)
            for (int i = 3; i < argc; i++) level_row(&a, atoi(argv[i]), shuffled);
        else
            for (int level = DEFAULT_LEVEL_LOW; level <= DEFAULT_LEVEL_HIGH; level++)
                if (level) level_row(&a, level, shuffled);
    }
    printf("\n| other pass | CPU-s per GB of raw ids |\n|---|---|\n");
    pass_rows(&a);
    free(a.raw);
    return 0;
}
