/* tlz.c - a shard frame by winnow's token encoder, on the host: the frame
 * header, the blocks of shards/tlz_block.h one after another, and the
 * content checksum (the low 32 bits of XXH64, seed 0, little-endian). */
#include "shards/tlz.h"

#include <stdlib.h>
#include <xxhash.h>

#include "core/util.h"
#include "shards/tlz_block.h"

struct tlz_ctx {
    uint16_t table[1u << TLZ_HASH_LOG];
    uint8_t literals[TLZ_BLOCK_BYTES];
    tlz_seq seqs[TLZ_MAX_SEQS];
    uint8_t work[TLZ_BLOCK_BOUND];
};

tlz_ctx *tlz_ctx_new(void)
{
    return xmalloc(sizeof(tlz_ctx));
}

void tlz_ctx_free(tlz_ctx *c)
{
    free(c);
}

size_t tlz_frame_bound(size_t len)
{
    return TLZ_FRAME_HEADER_MAX + (size_t)tlz_frame_blocks((uint32_t)len) * TLZ_BLOCK_BOUND + TLZ_CHECKSUM_BYTES;
}

size_t tlz_compress_frame(tlz_ctx *c, const uint8_t *src, size_t len, int width, uint8_t *dst)
{
    tlz_scratch s = {c->table, c->literals, c->seqs, c->work};
    uint8_t *p = dst + tlz_frame_header((uint32_t)len, dst);
    uint32_t blocks = tlz_frame_blocks((uint32_t)len);
    for (uint32_t k = 0; k < blocks; k++) {
        size_t at = (size_t)k * TLZ_BLOCK_BYTES, n = len - at < TLZ_BLOCK_BYTES ? len - at : TLZ_BLOCK_BYTES;
        p += tlz_block(src + at, (uint32_t)n, width, k + 1 == blocks, &s, p);
    }
    tlz_put_le(p, (uint32_t)XXH64(src, len, 0), TLZ_CHECKSUM_BYTES);
    return (size_t)(p - dst) + TLZ_CHECKSUM_BYTES;
}
