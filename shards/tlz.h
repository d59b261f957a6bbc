/* tlz.h - shard frames written by winnow's token encoder (shards/tlz_block.h)
 * on the host: standard zstd frames (content size, XXH64 content checksum)
 * that any zstd decoder reads, byte for byte the frames gpu/tlz.cu writes. */
#ifndef WINNOW_TLZ_H
#define WINNOW_TLZ_H

#include <stddef.h>
#include <stdint.h>

typedef struct tlz_ctx tlz_ctx;

/* A context for tlz_compress_frame(), for one thread at a time; exits when out of memory. */
tlz_ctx *tlz_ctx_new(void);
void tlz_ctx_free(tlz_ctx *c);

/* The most bytes a frame of len content bytes takes. */
size_t tlz_frame_bound(size_t len);

/* Writes src[0..len) (len < 2^32, whole tokens of width bytes, 2 or 4) as
 * one zstd frame at dst (tlz_frame_bound(len) bytes); returns its size. */
size_t tlz_compress_frame(tlz_ctx *c, const uint8_t *src, size_t len, int width, uint8_t *dst);

#endif
