/* xxh3_words.h - XXH3_64bits (seed 0, the default secret) of a byte range
 * read through aligned 64-bit words, for the GPU's shingle hashing.
 *
 * Written from the XXH3 specification (xxHash 0.8: the seven length paths
 * 0, 1-3, 4-8, 9-16, 17-128, 129-240 and > 240 bytes, the last in 1 KiB
 * blocks of 64-byte stripes) so that the device reproduces libxxhash's
 * XXH3_64bits() bit for bit. The same source compiles as C for the host
 * (tests/unit/dedup_gpu_xxh3.c holds it to libxxhash on every length path
 * and every byte alignment) and as CUDA device code (gpu/minhash.cu).
 *
 * Bytes are read little-endian from an array of 64-bit words (the text is
 * copied to the device as words): byte i is bits 8*(i%8) of word i/8. The
 * words must hold at least 8 readable bytes past the range's end. */
#ifndef WINNOW_GPU_XXH3_WORDS_H
#define WINNOW_GPU_XXH3_WORDS_H

#include <stdint.h>

#ifdef __CUDACC__
#define WX_FN static __device__ __forceinline__
#define WX_TABLE static __device__ const
#else
#define WX_FN static inline
#define WX_TABLE static const
#endif

#define WX_PRIME32_1 UINT64_C(0x9E3779B1)
#define WX_PRIME32_2 UINT64_C(0x85EBCA77)
#define WX_PRIME32_3 UINT64_C(0xC2B2AE3D)
#define WX_PRIME64_1 UINT64_C(0x9E3779B185EBCA87)
#define WX_PRIME64_2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define WX_PRIME64_3 UINT64_C(0x165667B19E3779F9)
#define WX_PRIME64_4 UINT64_C(0x85EBCA77C2B2AE63)
#define WX_PRIME64_5 UINT64_C(0x27D4EB2F165667C5)
#define WX_PRIME_MX1 UINT64_C(0x165667919E3779F9)
#define WX_PRIME_MX2 UINT64_C(0x9FB21C651E98DF25)
#define WX_SECRET_SIZE 192
#define WX_STRIPE 64
#define WX_STRIPES_PER_BLOCK ((WX_SECRET_SIZE - WX_STRIPE) / 8)
#define WX_BLOCK (WX_STRIPE * WX_STRIPES_PER_BLOCK)
#define WX_MIDSIZE_MAX 240
#define WX_MIDSIZE_START 3
#define WX_MIDSIZE_LAST 17
#define WX_SECRET_SIZE_MIN 136
#define WX_MERGE_START 11
#define WX_LAST_ACC_START 7

/* XXH3's default secret (kSecret) as little-endian words, one spare word. */
WX_TABLE uint64_t wx_secret[WX_SECRET_SIZE / 8 + 1] = {
    UINT64_C(0xbe4ba423396cfeb8), UINT64_C(0x1cad21f72c81017c), UINT64_C(0xdb979083e96dd4de),
    UINT64_C(0x1f67b3b7a4a44072), UINT64_C(0x78e5c0cc4ee679cb), UINT64_C(0x2172ffcc7dd05a82),
    UINT64_C(0x8e2443f7744608b8), UINT64_C(0x4c263a81e69035e0), UINT64_C(0xcb00c391bb52283c),
    UINT64_C(0xa32e531b8b65d088), UINT64_C(0x4ef90da297486471), UINT64_C(0xd8acdea946ef1938),
    UINT64_C(0x3f349ce33f76faa8), UINT64_C(0x1d4f0bc7c7bbdcf9), UINT64_C(0x3159b4cd4be0518a),
    UINT64_C(0x647378d9c97e9fc8), UINT64_C(0xc3ebd33483acc5ea), UINT64_C(0xeb6313faffa081c5),
    UINT64_C(0x49daf0b751dd0d17), UINT64_C(0x9e68d429265516d3), UINT64_C(0xfca1477d58be162b),
    UINT64_C(0xce31d07ad1b8f88f), UINT64_C(0x280416958f3acb45), UINT64_C(0x7e404bbbcafbd7af),
    0};

/* The 8 bytes at byte offset at of words, little-endian. */
WX_FN uint64_t wx_read64(const uint64_t *words, uint64_t at)
{
    uint64_t lo = words[at >> 3];
    unsigned shift = (unsigned)(at & 7) * 8;
    return shift ? (lo >> shift) | (words[(at >> 3) + 1] << (64 - shift)) : lo;
}

WX_FN uint32_t wx_read32(const uint64_t *words, uint64_t at) { return (uint32_t)wx_read64(words, at); }

WX_FN uint64_t wx_byte(const uint64_t *words, uint64_t at) { return (words[at >> 3] >> ((at & 7) * 8)) & 0xFF; }

WX_FN uint64_t wx_secret64(unsigned at) { return wx_read64(wx_secret, at); }

WX_FN uint64_t wx_rotl(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }

WX_FN uint64_t wx_swap64(uint64_t x)
{
    x = ((x & UINT64_C(0x00FF00FF00FF00FF)) << 8) | ((x >> 8) & UINT64_C(0x00FF00FF00FF00FF));
    x = ((x & UINT64_C(0x0000FFFF0000FFFF)) << 16) | ((x >> 16) & UINT64_C(0x0000FFFF0000FFFF));
    return (x << 32) | (x >> 32);
}

/* The 128-bit product of a and b, its two halves xor-ed. */
WX_FN uint64_t wx_mul128_fold64(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return (a * b) ^ __umul64hi(a, b);
#else
    unsigned __int128 p = (unsigned __int128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#endif
}

WX_FN uint64_t wx_xxh64_avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= WX_PRIME64_2;
    h ^= h >> 29;
    h *= WX_PRIME64_3;
    return h ^ (h >> 32);
}

WX_FN uint64_t wx_avalanche(uint64_t h)
{
    h ^= h >> 37;
    h *= WX_PRIME_MX1;
    return h ^ (h >> 32);
}

WX_FN uint64_t wx_rrmxmx(uint64_t h, uint64_t len)
{
    h ^= wx_rotl(h, 49) ^ wx_rotl(h, 24);
    h *= WX_PRIME_MX2;
    h ^= (h >> 35) + len;
    h *= WX_PRIME_MX2;
    return h ^ (h >> 28);
}

/* 16 input bytes at `in` against 16 secret bytes at sec. */
WX_FN uint64_t wx_mix16(const uint64_t *w, uint64_t in, unsigned sec)
{
    return wx_mul128_fold64(wx_read64(w, in) ^ wx_secret64(sec), wx_read64(w, in + 8) ^ wx_secret64(sec + 8));
}

WX_FN uint64_t wx_len_0to16(const uint64_t *w, uint64_t in, uint64_t len)
{
    if (len > 8) {
        uint64_t lo = wx_read64(w, in) ^ (wx_secret64(24) ^ wx_secret64(32));
        uint64_t hi = wx_read64(w, in + len - 8) ^ (wx_secret64(40) ^ wx_secret64(48));
        return wx_avalanche(len + wx_swap64(lo) + hi + wx_mul128_fold64(lo, hi));
    }
    if (len >= 4) {
        uint64_t first = wx_read32(w, in), last = wx_read32(w, in + len - 4);
        uint64_t keyed = (last + (first << 32)) ^ (wx_secret64(8) ^ wx_secret64(16));
        return wx_rrmxmx(keyed, len);
    }
    if (len) {
        uint64_t combined = (wx_byte(w, in) << 16) | (wx_byte(w, in + (len >> 1)) << 24) |
                            wx_byte(w, in + len - 1) | (len << 8);
        uint64_t flip = (uint64_t)((uint32_t)wx_secret64(0) ^ (uint32_t)wx_secret64(4));
        return wx_xxh64_avalanche(combined ^ flip);
    }
    return wx_xxh64_avalanche(wx_secret64(56) ^ wx_secret64(64));
}

WX_FN uint64_t wx_len_17to128(const uint64_t *w, uint64_t in, uint64_t len)
{
    uint64_t acc = len * WX_PRIME64_1;
    if (len > 32) {
        if (len > 64) {
            if (len > 96) {
                acc += wx_mix16(w, in + 48, 96);
                acc += wx_mix16(w, in + len - 64, 112);
            }
            acc += wx_mix16(w, in + 32, 64);
            acc += wx_mix16(w, in + len - 48, 80);
        }
        acc += wx_mix16(w, in + 16, 32);
        acc += wx_mix16(w, in + len - 32, 48);
    }
    acc += wx_mix16(w, in, 0);
    acc += wx_mix16(w, in + len - 16, 16);
    return wx_avalanche(acc);
}

WX_FN uint64_t wx_len_129to240(const uint64_t *w, uint64_t in, uint64_t len)
{
    uint64_t acc = len * WX_PRIME64_1;
    unsigned rounds = (unsigned)(len / 16);
    for (unsigned i = 0; i < 8; i++) acc += wx_mix16(w, in + 16 * i, 16 * i);
    acc = wx_avalanche(acc);
    for (unsigned i = 8; i < rounds; i++) acc += wx_mix16(w, in + 16 * i, 16 * (i - 8) + WX_MIDSIZE_START);
    acc += wx_mix16(w, in + len - 16, WX_SECRET_SIZE_MIN - WX_MIDSIZE_LAST);
    return wx_avalanche(acc);
}

/* One 64-byte stripe at `in` into the 8 accumulators, secret from sec. */
WX_FN void wx_accumulate_stripe(uint64_t *acc, const uint64_t *w, uint64_t in, unsigned sec)
{
    for (unsigned i = 0; i < 8; i++) {
        uint64_t data = wx_read64(w, in + 8 * i);
        uint64_t key = data ^ wx_secret64(sec + 8 * i);
        acc[i ^ 1] += data;
        acc[i] += (key & 0xFFFFFFFF) * (key >> 32);
    }
}

WX_FN uint64_t wx_len_long(const uint64_t *w, uint64_t in, uint64_t len)
{
    uint64_t acc[8] = {WX_PRIME32_3, WX_PRIME64_1, WX_PRIME64_2, WX_PRIME64_3,
                       WX_PRIME64_4, WX_PRIME32_2, WX_PRIME64_5, WX_PRIME32_1};
    uint64_t blocks = (len - 1) / WX_BLOCK;
    for (uint64_t b = 0; b < blocks; b++) {
        for (unsigned s = 0; s < WX_STRIPES_PER_BLOCK; s++)
            wx_accumulate_stripe(acc, w, in + b * WX_BLOCK + s * WX_STRIPE, 8 * s);
        for (unsigned i = 0; i < 8; i++) {
            uint64_t a = acc[i];
            a ^= a >> 47;
            a ^= wx_secret64(WX_SECRET_SIZE - WX_STRIPE + 8 * i);
            acc[i] = a * WX_PRIME32_1;
        }
    }
    unsigned stripes = (unsigned)(((len - 1) - WX_BLOCK * blocks) / WX_STRIPE);
    for (unsigned s = 0; s < stripes; s++) wx_accumulate_stripe(acc, w, in + blocks * WX_BLOCK + s * WX_STRIPE, 8 * s);
    wx_accumulate_stripe(acc, w, in + len - WX_STRIPE, WX_SECRET_SIZE - WX_STRIPE - WX_LAST_ACC_START);
    uint64_t result = len * WX_PRIME64_1;
    for (unsigned i = 0; i < 4; i++)
        result += wx_mul128_fold64(acc[2 * i] ^ wx_secret64(WX_MERGE_START + 16 * i),
                                   acc[2 * i + 1] ^ wx_secret64(WX_MERGE_START + 16 * i + 8));
    return wx_avalanche(result);
}

/* XXH3_64bits() of the len bytes at byte offset in of words. */
WX_FN uint64_t wx_xxh3_64(const uint64_t *words, uint64_t in, uint64_t len)
{
    if (len <= 16) return wx_len_0to16(words, in, len);
    if (len <= 128) return wx_len_17to128(words, in, len);
    if (len <= WX_MIDSIZE_MAX) return wx_len_129to240(words, in, len);
    return wx_len_long(words, in, len);
}

#endif
