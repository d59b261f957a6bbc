/* xzbz.c - xz (liblzma) and bzip2 (libbz2) streams decoded step by step. */
#include "xzbz.h"

#include <bzlib.h>
#include <limits.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define XZ_MAGIC "\xfd" "7zXZ\0"
#define XZ_MAGIC_LEN 6
#define BZIP2_MAGIC "BZh"
#define BZIP2_MAGIC_LEN 3

/* xz's stream padding (the .xz spec, 2.2) comes in 4-byte words of zeros. */
#define XZ_PADDING_WORD 4

struct xzbz {
    xzbz_kind kind;
    lzma_stream xz;
    bool xz_live;        /* inside an xz stream (between streams: not) */
    size_t xz_padding;   /* zero bytes of stream padding since the last stream */
    bz_stream bz;
    bool bz_live; /* inside a bzip2 stream (between streams: not) */
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

bool xzbz_between_streams(const xzbz *d) { return d->kind == XZBZ_XZ ? !d->xz_live : !d->bz_live; }

xzbz_result xzbz_step(xzbz *d, const unsigned char *in, size_t in_len, bool at_end, char *out, size_t room,
                      size_t *used, size_t *made, const char **what)
{
    *what = NULL;
    return d->kind == XZBZ_XZ ? xz_step(d, in, in_len, at_end, out, room, used, made, what)
                              : bz_step(d, in, in_len, at_end, out, room, used, made, what);
}

void xzbz_free(xzbz *d)
{
    if (!d) return;
    if (d->kind == XZBZ_XZ) lzma_end(&d->xz);
    else if (d->bz_live) BZ2_bzDecompressEnd(&d->bz);
    free(d);
}
