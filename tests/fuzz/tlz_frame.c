/* tlz_frame.c - fuzz target for winnow's token encoder (shards/tlz.h): any
 * bytes, as uint16 tokens (first byte even) or uint32 tokens (odd), cut to
 * whole tokens, coded as one frame; libzstd must give them back exactly. The
 * input is repeated to fill more than a block, so that matches, Huffman
 * trees and several blocks are reached from short inputs. A failure aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "shards/tlz.h"

#define MAX_CONTENT (300u * 1024u) /* three blocks, the last partial */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    int width = data[0] & 1 ? 4 : 2;
    size_t copies = data[1] % 8 + 1, piece = size - 2;
    size_t len = piece * copies;
    if (len > MAX_CONTENT) len = MAX_CONTENT;
    len -= len % (size_t)width;
    uint8_t *src = malloc(len + 1), *back = malloc(len + 1), *frame = malloc(tlz_frame_bound(len));
    for (size_t i = 0; i < len; i++) src[i] = data[2 + i % piece];
    tlz_ctx *c = tlz_ctx_new();
    size_t n = tlz_compress_frame(c, src, len, width, frame);
    size_t got = ZSTD_decompress(back, len + 1, frame, n);
    if (ZSTD_isError(got) || got != len || memcmp(back, src, len)) abort();
    tlz_ctx_free(c);
    free(src);
    free(back);
    free(frame);
    return 0;
}
