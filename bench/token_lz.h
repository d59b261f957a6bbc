/* token_lz.h - an experiment for issue 15's `-o shards/` point: a match
 * finder that knows shard frames hold whole tokens, with libzstd doing only
 * the entropy coding (ZSTD_compressSequences). Measured by
 * bench/shard_compress.c against libzstd level 1; not used by the shard
 * writer, because it did not save enough CPU (bench/results/
 * shard-compress-2026-11-27.md). Header-only: each bench is one .c file.
 *
 * The finder looks only at token positions: it hashes the KEY_BYTES there
 * (2 uint32 tokens or 4 uint16 tokens), keeps the last position of each
 * hash in a table spanning the frame (with TOKEN_LZ_LONG_HASH_LOG > 0 also
 * of each pair of keys in a second table, tried first: longer matches, as
 * zstd's double-fast strategy), extends a match a word at a time (then back
 * to a whole token, and back over the literals before it), and, like zstd's
 * fast strategy, steps faster through runs without a match. Blocks end every
 * ZSTD_BLOCKSIZE_MAX bytes (explicit delimiters); the window is the frame.
 * The frames are ordinary zstd frames with the content size and checksum, a
 * pure function of the input bytes. */
#ifndef WINNOW_BENCH_TOKEN_LZ_H
#define WINNOW_BENCH_TOKEN_LZ_H

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_compressSequences(), exported by Debian 12's libzstd 1.5.4 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "core/util.h"

#ifndef TOKEN_LZ_HASH_LOG
#define TOKEN_LZ_HASH_LOG 14 /* 2^14 positions; 16: ratio 3.87 instead of 3.78 on cl100k ids, 5% more CPU */
#endif
#ifndef TOKEN_LZ_LONG_HASH_LOG
#define TOKEN_LZ_LONG_HASH_LOG 0 /* 0: no second table; 14: ratio 3.89 instead of 3.78, same CPU */
#endif
#define TOKEN_LZ_LONG_MIX 0xC2B2AE3D27D4EB4Full /* mixes the second key before the two are hashed */
#define TOKEN_LZ_PRIME 0x9E3779B97F4A7C15ull /* 2^64 / golden ratio: spreads the key over the top bits */
#define TOKEN_LZ_KEY_BYTES 8
#define TOKEN_LZ_SKIP_LOG 6 /* the step grows by a token every 2^SKIP_LOG bytes without a match */
#define TOKEN_LZ_BLOCK_BYTES ZSTD_BLOCKSIZE_MAX
#define TOKEN_LZ_ENTROPY_LEVEL 1 /* the level whose entropy-coding settings code the sequences */

typedef struct {
    ZSTD_CCtx *cctx;
    uint32_t *table;      /* hash of a key -> the last position with that hash */
    uint32_t *long_table; /* hash of two keys -> the same, when TOKEN_LZ_LONG_HASH_LOG > 0 */
    ZSTD_Sequence *seqs;
    size_t nseqs;
} token_lz;

/* Sets up lz for frames of up to max_len (< 2^32) bytes; exits when out of memory. */
static inline void token_lz_init(token_lz *lz, size_t max_len)
{
    memset(lz, 0, sizeof *lz);
    lz->table = xmalloc(sizeof *lz->table << TOKEN_LZ_HASH_LOG);
    if (TOKEN_LZ_LONG_HASH_LOG) lz->long_table = xmalloc(sizeof *lz->long_table << TOKEN_LZ_LONG_HASH_LOG);
    /* a match covers >= KEY_BYTES; one end per block */
    lz->seqs = xmalloc((max_len / TOKEN_LZ_KEY_BYTES + max_len / TOKEN_LZ_BLOCK_BYTES + 2) * sizeof *lz->seqs);
    lz->cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(lz->cctx, ZSTD_c_compressionLevel, TOKEN_LZ_ENTROPY_LEVEL);
    ZSTD_CCtx_setParameter(lz->cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(lz->cctx, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(lz->cctx, ZSTD_c_blockDelimiters, ZSTD_sf_explicitBlockDelimiters);
}

/* Frees what token_lz_init() allocated. */
static inline void token_lz_free(token_lz *lz)
{
    ZSTD_freeCCtx(lz->cctx);
    free(lz->table);
    free(lz->long_table);
    free(lz->seqs);
}

/* The 8 bytes at p, in the machine's order. */
static inline uint64_t token_lz_load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* How many bytes from a and b on are equal, b stopping at b_end (a < b). */
static inline size_t token_lz_common(const uint8_t *a, const uint8_t *b, const uint8_t *b_end)
{
    const uint8_t *start = b;
    while (b + sizeof(uint64_t) <= b_end) {
        uint64_t diff = token_lz_load64(a) ^ token_lz_load64(b);
        if (diff) return (size_t)(b - start) + (size_t)__builtin_ctzll(diff) / 8; /* little-endian */
        a += sizeof(uint64_t);
        b += sizeof(uint64_t);
    }
    while (b < b_end && *a == *b) a++, b++;
    return (size_t)(b - start);
}

/* Whether the tokens of `width` bytes at a and b are equal. */
static inline bool token_lz_same_token(const uint8_t *a, const uint8_t *b, size_t width)
{
    return width == 4 ? memcmp(a, b, 4) == 0 : memcmp(a, b, 2) == 0;
}

/* Fills lz->seqs with the sequences of src[0..len), tokens of `width`
 * bytes: per block, greedy matches of whole tokens, then the block's end. */
static inline __attribute__((always_inline)) void token_lz_find_width(token_lz *lz, const uint8_t *src, size_t len,
                                                                      size_t width)
{
    ZSTD_Sequence *seq = lz->seqs;
    size_t ns = 0;
    memset(lz->table, 0, sizeof *lz->table << TOKEN_LZ_HASH_LOG); /* position 0: checked like any other */
    if (TOKEN_LZ_LONG_HASH_LOG) memset(lz->long_table, 0, sizeof *lz->long_table << TOKEN_LZ_LONG_HASH_LOG);
    for (size_t block = 0; block < len; block += TOKEN_LZ_BLOCK_BYTES) {
        size_t end = len - block < TOKEN_LZ_BLOCK_BYTES ? len : block + TOKEN_LZ_BLOCK_BYTES;
        size_t anchor = block, p = block ? block : width; /* position 0 has nothing before it */
        while (p + TOKEN_LZ_KEY_BYTES <= end) {
            uint64_t key = token_lz_load64(src + p);
            uint32_t *slot = &lz->table[(key * TOKEN_LZ_PRIME) >> (64 - TOKEN_LZ_HASH_LOG)];
            size_t cand = *slot;
            *slot = (uint32_t)p;
#if TOKEN_LZ_LONG_HASH_LOG
            if (p + 2 * TOKEN_LZ_KEY_BYTES <= len) {
                uint64_t key2 = token_lz_load64(src + p + TOKEN_LZ_KEY_BYTES);
                uint32_t *long_slot =
                    &lz->long_table[((key ^ key2 * TOKEN_LZ_LONG_MIX) * TOKEN_LZ_PRIME) >> (64 - TOKEN_LZ_LONG_HASH_LOG)];
                size_t long_cand = *long_slot;
                *long_slot = (uint32_t)p;
                if (token_lz_load64(src + long_cand) == key && token_lz_load64(src + long_cand + TOKEN_LZ_KEY_BYTES) == key2)
                    cand = long_cand;
            }
#endif
            size_t off = p - cand;
            if (token_lz_load64(src + cand) != key) {
                p += width + (((p - anchor) >> TOKEN_LZ_SKIP_LOG) & ~(width - 1));
                continue;
            }
            size_t m = TOKEN_LZ_KEY_BYTES + token_lz_common(src + cand + TOKEN_LZ_KEY_BYTES, src + p + TOKEN_LZ_KEY_BYTES,
                                                            src + end);
            m &= ~(width - 1);
            while (p > anchor && p - off >= width && token_lz_same_token(src + p - width, src + p - off - width, width)) {
                p -= width;
                m += width;
            }
            seq[ns++] = (ZSTD_Sequence){.offset = (unsigned)off, .litLength = (unsigned)(p - anchor),
                                        .matchLength = (unsigned)m};
            p += m;
            anchor = p;
        }
        seq[ns++] = (ZSTD_Sequence){.litLength = (unsigned)(end - anchor)}; /* the block's end */
    }
    lz->nseqs = ns;
}

/* token_lz_find_width() for tokens of 2 or 4 bytes (len <= max_len). */
static inline void token_lz_find(token_lz *lz, const uint8_t *src, size_t len, int width)
{
    if (width == 2) token_lz_find_width(lz, src, len, 2);
    else token_lz_find_width(lz, src, len, 4);
}

/* Entropy-codes the sequences token_lz_find() left for src[0..len) into one
 * zstd frame at dst; returns its size or a zstd error code. */
static inline size_t token_lz_encode(token_lz *lz, void *dst, size_t cap, const uint8_t *src, size_t len)
{
    int window_log = ZSTD_WINDOWLOG_MIN; /* the whole frame: no offset reaches past a decoder's window */
    while (((size_t)1 << window_log) < len) window_log++;
    ZSTD_CCtx_reset(lz->cctx, ZSTD_reset_session_only); /* else the last frame's session refuses the new window */
    size_t set = ZSTD_CCtx_setParameter(lz->cctx, ZSTD_c_windowLog, window_log);
    if (ZSTD_isError(set)) return set;
    return ZSTD_compressSequences(lz->cctx, dst, cap, lz->seqs, lz->nseqs, src, len);
}

#endif
