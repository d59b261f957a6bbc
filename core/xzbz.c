/* xzbz.c - xz (liblzma), bzip2 (libbz2) and lz4 legacy (liblz4) streams decoded step by step. */
#include "xzbz.h"

#include <bzlib.h>
#include <limits.h>
#include <lz4.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define XZ_MAGIC "\xfd" "7zXZ\0"
#define XZ_MAGIC_LEN 6
#define BZIP2_MAGIC "BZh"
#define BZIP2_MAGIC_LEN 3

/* lz4's legacy frames (lz4_Frame_format.md, "Legacy frame"). */
#define LZ4L_MAGIC 0x184C2102u
#define LZ4L_WORD 4                     /* the magic and each block size: 4 bytes, little-endian */
#define LZ4L_BLOCK_MAX (8 * 1024 * 1024) /* a block decodes to at most 8 MiB */

/* xz's stream padding (the .xz spec, 2.2) comes in 4-byte words of zeros. */
#define XZ_PADDING_WORD 4

/* An lz4 legacy stream: the 4-byte word being read (a magic or a block
 * size), then the block's compressed bytes, then its decoded bytes handed out. */
typedef struct {
    unsigned char word[LZ4L_WORD];
    size_t word_got;
    bool framed;       /* a magic was read: block sizes follow */
    bool in_block;     /* a block size was read: its bytes come next */
    char *block;       /* the compressed block gathered */
    size_t block_size, block_got;
    uint64_t block_at; /* its size word's compressed offset (for messages) */
    char *decoded;     /* the decoded block: [out_pos, out_len) not handed out yet */
    size_t out_pos, out_len;
    uint64_t consumed; /* compressed bytes taken so far */
    char what[160];
} lz4l;

struct xzbz {
    xzbz_kind kind;
    lzma_stream xz;
    bool xz_live;        /* inside an xz stream (between streams: not) */
    size_t xz_padding;   /* zero bytes of stream padding since the last stream */
    bz_stream bz;
    bool bz_live; /* inside a bzip2 stream (between streams: not) */
    lz4l lz; /* XZBZ_LZ4_LEGACY */
};

xzbz *xzbz_new(xzbz_kind kind)
{
    xzbz *d = xcalloc(1, sizeof *d);
    d->kind = kind;
    if (kind == XZBZ_XZ) {
        lzma_stream init = LZMA_STREAM_INIT;
        d->xz = init;
    }
    return d;
}

/* xz's own words for what went wrong. */
static const char *xz_error(lzma_ret r)
{
    switch (r) {
    case LZMA_BUF_ERROR: return "truncated xz stream (unexpected end of input)";
    case LZMA_FORMAT_ERROR: return "not xz data (file format not recognized)";
    case LZMA_OPTIONS_ERROR: return "unsupported xz options";
    case LZMA_DATA_ERROR: return "xz: compressed data is corrupt";
    case LZMA_MEM_ERROR: return "xz: out of memory";
    default: return "xz decoder error";
    }
}

/* Between xz streams: takes stream padding, then starts the next stream's
 * decoder at its magic bytes (each stream decoded alone, so that where one
 * begins is known: xzbz_between_streams); XZBZ_END after the last one. */
static xzbz_result xz_between(xzbz *d, const unsigned char *in, size_t in_len, bool at_end, size_t *used,
                              const char **what)
{
    size_t zeros = 0;
    while (zeros < in_len && in[zeros] == 0) zeros++;
    *used = zeros;
    d->xz_padding += zeros;
    if (zeros) return XZBZ_MORE; /* the next call sees what follows them */
    if (in_len < XZ_MAGIC_LEN && !at_end) return XZBZ_MORE;
    if (d->xz_padding % XZ_PADDING_WORD) {
        *what = "xz stream padding is not a multiple of 4 bytes";
        return XZBZ_ERROR;
    }
    if (!in_len) return XZBZ_END;
    if (in_len < XZ_MAGIC_LEN || memcmp(in, XZ_MAGIC, XZ_MAGIC_LEN) != 0) {
        *what = "data after the last xz stream is not xz";
        return XZBZ_ERROR;
    }
    if (lzma_stream_decoder(&d->xz, UINT64_MAX, 0) != LZMA_OK) dief(EXIT_FATAL, "xz decoder init failed");
    d->xz_live = true;
    d->xz_padding = 0;
    return XZBZ_MORE;
}

static xzbz_result xz_step(xzbz *d, const unsigned char *in, size_t in_len, bool at_end, char *out, size_t room,
                           size_t *used, size_t *made, const char **what)
{
    *used = *made = 0;
    if (!d->xz_live) {
        xzbz_result r = xz_between(d, in, in_len, at_end, used, what);
        if (!d->xz_live) return r;
    }
    d->xz.next_in = in;
    d->xz.avail_in = in_len;
    d->xz.next_out = (uint8_t *)out;
    d->xz.avail_out = room;
    lzma_ret r = lzma_code(&d->xz, at_end ? LZMA_FINISH : LZMA_RUN);
    *used = in_len - d->xz.avail_in;
    *made = room - d->xz.avail_out;
    if (r == LZMA_OK) return XZBZ_MORE;
    if (r == LZMA_STREAM_END) { /* padding, another stream or the end follows */
        d->xz_live = false;
        return XZBZ_MORE;
    }
    *what = xz_error(r);
    return XZBZ_ERROR;
}

static xzbz_result bz_step(xzbz *d, const unsigned char *in, size_t in_len, bool at_end, char *out, size_t room,
                           size_t *used, size_t *made, const char **what)
{
    *used = *made = 0;
    if (!d->bz_live) { /* before a stream: the next one, or the end */
        if (!in_len && at_end) return XZBZ_END;
        if (in_len < BZIP2_MAGIC_LEN && !at_end) return XZBZ_MORE;
        if (in_len < BZIP2_MAGIC_LEN || memcmp(in, BZIP2_MAGIC, BZIP2_MAGIC_LEN) != 0) {
            *what = "data after the last bzip2 stream is not bzip2";
            return XZBZ_ERROR;
        }
        memset(&d->bz, 0, sizeof d->bz);
        if (BZ2_bzDecompressInit(&d->bz, 0, 0) != BZ_OK) dief(EXIT_FATAL, "bzip2 decoder init failed");
        d->bz_live = true;
    }
    unsigned int take = in_len < UINT_MAX ? (unsigned int)in_len : UINT_MAX;
    unsigned int space = room < UINT_MAX ? (unsigned int)room : UINT_MAX;
    d->bz.next_in = (char *)in;
    d->bz.avail_in = take;
    d->bz.next_out = out;
    d->bz.avail_out = space;
    int r = BZ2_bzDecompress(&d->bz);
    *used = take - d->bz.avail_in;
    *made = space - d->bz.avail_out;
    if (r == BZ_STREAM_END) {
        BZ2_bzDecompressEnd(&d->bz);
        d->bz_live = false;
        return XZBZ_MORE;
    }
    if (r == BZ_OK) {
        if (at_end && *used == take && !*made) { /* nothing more will come, and the stream goes on */
            *what = "truncated bzip2 stream (unexpected end of input)";
            return XZBZ_ERROR;
        }
        return XZBZ_MORE;
    }
    *what = r == BZ_DATA_ERROR_MAGIC ? "not bzip2 data" : r == BZ_MEM_ERROR ? "bzip2: out of memory"
                                                                              : "bzip2: compressed data is corrupt";
    return XZBZ_ERROR;
}

/* Hands out decoded bytes of the current block. */
static void lz4l_give(lz4l *z, char *out, size_t room, size_t *made)
{
    size_t k = z->out_len - z->out_pos;
    if (k > room) k = room;
    memcpy(out, z->decoded + z->out_pos, k);
    z->out_pos += k;
    *made = k;
}

/* Takes up to want - *got bytes of in into dst + *got; returns how many. */
static size_t lz4l_gather(char *dst, size_t *got, size_t want, const unsigned char *in, size_t in_len)
{
    size_t k = want - *got < in_len ? want - *got : in_len;
    memcpy(dst + *got, in, k);
    *got += k;
    return k;
}

/* Reads the 4-byte word before a block: a frame's magic or a block size. */
static xzbz_result lz4l_word(lz4l *z, const unsigned char *in, size_t in_len, bool at_end, size_t *used,
                             const char **what)
{
    if (!in_len && at_end && !z->word_got && z->framed) return XZBZ_END;
    if (!z->word_got) z->block_at = z->consumed;
    *used = lz4l_gather((char *)z->word, &z->word_got, LZ4L_WORD, in, in_len);
    z->consumed += *used;
    if (z->word_got < LZ4L_WORD) {
        if (!at_end || *used < in_len) return XZBZ_MORE;
        snprintf(z->what, sizeof z->what, "truncated lz4 legacy frame: block size at offset %llu cut short",
                 (unsigned long long)z->block_at);
        *what = z->what;
        return XZBZ_ERROR;
    }
    z->word_got = 0;
    uint32_t v = (uint32_t)z->word[0] | (uint32_t)z->word[1] << 8 | (uint32_t)z->word[2] << 16 |
                 (uint32_t)z->word[3] << 24;
    if (v == LZ4L_MAGIC) { /* a frame begins (the first, or another after the last one) */
        z->framed = true;
        return XZBZ_MORE;
    }
    if (!z->framed || v > (uint32_t)LZ4_compressBound(LZ4L_BLOCK_MAX)) {
        snprintf(z->what, sizeof z->what, "bad lz4 legacy block size %lu at offset %llu (at most %d)",
                 (unsigned long)v, (unsigned long long)z->block_at, LZ4_compressBound(LZ4L_BLOCK_MAX));
        *what = z->what;
        return XZBZ_ERROR;
    }
    z->in_block = true;
    z->block_size = v;
    z->block_got = 0;
    if (!z->block) z->block = xmalloc((size_t)LZ4_compressBound(LZ4L_BLOCK_MAX));
    return XZBZ_MORE;
}

/* Gathers a block's compressed bytes and decodes it once whole. */
static xzbz_result lz4l_block(lz4l *z, const unsigned char *in, size_t in_len, bool at_end, size_t *used,
                              const char **what)
{
    *used = lz4l_gather(z->block, &z->block_got, z->block_size, in, in_len);
    z->consumed += *used;
    if (z->block_got < z->block_size) {
        if (!at_end || *used < in_len) return XZBZ_MORE;
        snprintf(z->what, sizeof z->what, "truncated lz4 legacy block at offset %llu: %zu of its %zu bytes",
                 (unsigned long long)z->block_at, z->block_got, z->block_size);
        *what = z->what;
        return XZBZ_ERROR;
    }
    if (!z->decoded) z->decoded = xmalloc(LZ4L_BLOCK_MAX);
    int r = LZ4_decompress_safe(z->block, z->decoded, (int)z->block_size, LZ4L_BLOCK_MAX);
    z->in_block = false;
    if (r < 0) {
        snprintf(z->what, sizeof z->what,
                 "lz4 legacy block at offset %llu does not decode (damaged, or more than 8 MiB)",
                 (unsigned long long)z->block_at);
        *what = z->what;
        return XZBZ_ERROR;
    }
    z->out_pos = 0;
    z->out_len = (size_t)r;
    return XZBZ_MORE;
}

static xzbz_result lz4l_step(lz4l *z, const unsigned char *in, size_t in_len, bool at_end, char *out, size_t room,
                             size_t *used, size_t *made, const char **what)
{
    *used = *made = 0;
    if (z->out_pos < z->out_len) {
        lz4l_give(z, out, room, made);
        return XZBZ_MORE;
    }
    xzbz_result r = z->in_block ? lz4l_block(z, in, in_len, at_end, used, what)
                                  : lz4l_word(z, in, in_len, at_end, used, what);
    if (r == XZBZ_MORE && z->out_pos < z->out_len) lz4l_give(z, out, room, made);
    return r;
}

bool xzbz_lz4_legacy_signature(const void *p, size_t n)
{
    static const unsigned char magic[LZ4L_WORD] = {0x02, 0x21, 0x4c, 0x18};
    return n >= LZ4L_WORD && memcmp(p, magic, LZ4L_WORD) == 0;
}

bool xzbz_between_streams(const xzbz *d)
{
    if (d->kind == XZBZ_LZ4_LEGACY) /* between blocks: nothing of one gathered or left to hand out */
        return !d->lz.word_got && !d->lz.in_block && d->lz.out_pos == d->lz.out_len;
    return d->kind == XZBZ_XZ ? !d->xz_live : !d->bz_live;
}

xzbz_result xzbz_step(xzbz *d, const unsigned char *in, size_t in_len, bool at_end, char *out, size_t room,
                      size_t *used, size_t *made, const char **what)
{
    *what = NULL;
    if (d->kind == XZBZ_LZ4_LEGACY) return lz4l_step(&d->lz, in, in_len, at_end, out, room, used, made, what);
    return d->kind == XZBZ_XZ ? xz_step(d, in, in_len, at_end, out, room, used, made, what)
                              : bz_step(d, in, in_len, at_end, out, room, used, made, what);
}

void xzbz_free(xzbz *d)
{
    if (!d) return;
    if (d->kind == XZBZ_XZ) lzma_end(&d->xz);
    else if (d->bz_live) BZ2_bzDecompressEnd(&d->bz);
    free(d->lz.block);
    free(d->lz.decoded);
    free(d);
}
