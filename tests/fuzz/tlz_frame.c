/* tlz_frame.c - fuzz target for winnow's token encoder (shards/tlz.h): any
 * tokens written as a frame must decode back exactly with libzstd, one-shot
 * and streaming. The first byte picks the token width and whether the
 * bytes become tokens of 32 values (so that matches, repeat offsets and
 * one-code tables are common), the second how many times the tokens are
 * repeated (long matches, more than one block). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "shards/tlz.h"

#define MAX_COPIES 16
#define FEW_VALUES_MASK 0x1F

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int width = data[0] & 1 ? 4 : 2, few_values = data[0] & 2;
    size_t copies = 1 + data[1] % MAX_COPIES;
    data += 2;
    size -= 2;
    size_t tokens = few_values ? size : size / (size_t)width;
    size_t len = copies * tokens * (size_t)width;
    uint8_t *src = malloc(len + 1), *back = malloc(len + 1), *dst = malloc(tlz_frame_bound(len));
    if (!src || !back || !dst) abort();
    for (size_t c = 0, at = 0; c < copies; c++)
        for (size_t i = 0; i < tokens; i++, at += (size_t)width) {
            if (few_values) {
                memset(src + at, 0, (size_t)width);
                src[at] = (uint8_t)(data[i] & FEW_VALUES_MASK);
                src[at + 1] = (uint8_t)(data[i] >> 7); /* a second byte now and then */
            } else {
                memcpy(src + at, data + i * (size_t)width, (size_t)width);
            }
        }
    tlz_ctx *ctx = tlz_ctx_new();
    size_t n = tlz_compress_frame(ctx, src, len, width, dst);
    if (n > tlz_frame_bound(len)) abort();
    size_t got = ZSTD_decompress(back, len, dst, n);
    if (ZSTD_isError(got) || got != len || memcmp(back, src, len)) abort();
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    ZSTD_inBuffer in = {dst, n, 0};
    ZSTD_outBuffer out = {back, len, 0};
    memset(back, 0, len);
    size_t r = ZSTD_decompressStream(ds, &out, &in);
    if (ZSTD_isError(r) || r != 0 || out.pos != len || memcmp(back, src, len)) abort();
    ZSTD_freeDStream(ds);
    tlz_ctx_free(ctx);
    free(src);
    free(back);
    free(dst);
    return 0;
}
