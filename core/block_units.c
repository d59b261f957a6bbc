/* block_units.c - zstd frames and gzip members as units decoded at once
 * (see block_units.h). */
#include "block_units.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zstd.h>

#include "util.h"

/* Bytes of the smallest gzip member (10 of header, 2 of empty deflate, 8 of trailer). */
#define GZIP_MIN_MEMBER 18
#define GZIP_TRAILER_LEN 4 /* the member's decoded length (mod 2^32), its last 4 bytes */
#define GZIP_DEFLATE 8
#define GZIP_FHCRC 0x02     /* header CRC follows: libdeflate does not check it, zlib does */
#define GZIP_FRESERVED 0xe0 /* flag bits that must be zero */
/* Deflate makes at most about this many bytes of one compressed byte (RFC
 * 1951: a 258-byte match in as little as 2 bits): bounds a candidate's room. */
#define DEFLATE_MAX_RATIO 1032
/* Output room of a gzip candidate with no usable length hint. */
#define MIN_ROOM ((size_t)64 << 10)
/* zstd frame without a content size: decoded bytes guessed per compressed byte. */
#define ZSTD_GUESS_RATIO 4
/* Large buffers are asked for huge pages (fewer page faults to fill them). */
#define HUGE_PAGE ((size_t)2 << 20)

struct units_decoder {
    struct libdeflate_decompressor *ld;
    ZSTD_DCtx *zd;
};

units_decoder *units_decoder_new(void)
{
    units_decoder *d = xcalloc(1, sizeof *d);
    d->ld = libdeflate_alloc_decompressor();
    d->zd = ZSTD_createDCtx();
    if (!d->ld || !d->zd) dief(EXIT_FATAL, "decoder init failed");
    return d;
}

void units_decoder_free(units_decoder *d)
{
    if (!d) return;
    libdeflate_free_decompressor(d->ld);
    ZSTD_freeDCtx(d->zd);
    free(d);
}

static bool member_header_at(const unsigned char *p, size_t n)
{
    return n >= GZIP_MIN_MEMBER && p[0] == 0x1f && p[1] == 0x8b && p[2] == GZIP_DEFLATE &&
           !(p[3] & (GZIP_FHCRC | GZIP_FRESERVED));
}

static void add_span(unit_span **spans, size_t *n, size_t *cap, unit_span u)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *spans = xrealloc(*spans, *cap * sizeof **spans);
    }
    (*spans)[(*n)++] = u;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* gzip: every candidate member header; out_hint from the length field in
 * front of the next one (exact when the next one is the member after). */
static void plan_gzip(const unsigned char *data, size_t size, unit_span **spans, size_t *n, size_t *cap)
{
    for (size_t pos = 0; pos < size;) {
        const unsigned char *p = memchr(data + pos, 0x1f, size - pos);
        if (!p) break;
        size_t at = (size_t)(p - data);
        if (member_header_at(p, size - at)) add_span(spans, n, cap, (unit_span){at, size, 0});
        pos = at + 1;
    }
    for (size_t i = 0; i < *n; i++) {
        unit_span *u = &(*spans)[i];
        if (i + 1 < *n) u->end = (*spans)[i + 1].start;
        u->out_hint = u->end - u->start >= GZIP_MIN_MEMBER ? le32(data + u->end - GZIP_TRAILER_LEN) : 0;
    }
}

/* zstd: frames one after another, grouped up to about target decoded bytes. */
static uint64_t plan_zstd(const unsigned char *data, size_t size, size_t target, size_t max_out, unit_span **spans,
                          size_t *n, size_t *cap)
{
    size_t pos = 0;
    unit_span group = {0, 0, 0};
    while (pos < size) {
        size_t fsize = ZSTD_findFrameCompressedSize(data + pos, size - pos);
        if (ZSTD_isError(fsize)) break;
        unsigned long long content = ZSTD_getFrameContentSize(data + pos, size - pos);
        if (content == ZSTD_CONTENTSIZE_ERROR) break;
        uint64_t out = content == ZSTD_CONTENTSIZE_UNKNOWN ? (uint64_t)fsize * ZSTD_GUESS_RATIO : content;
        if (out > max_out) break;
        if (group.end > group.start && group.out_hint + out > max_out) {
            add_span(spans, n, cap, group);
            group = (unit_span){pos, pos, 0};
        }
        group.end = pos + fsize;
        group.out_hint += out;
        pos += fsize;
        if (group.out_hint >= target) {
            add_span(spans, n, cap, group);
            group = (unit_span){pos, pos, 0};
        }
    }
    if (group.end > group.start) add_span(spans, n, cap, group);
    return pos;
}

void units_plan(units_kind kind, const unsigned char *data, size_t size, size_t target, size_t max_out,
                unit_span **spans, size_t *nspans, uint64_t *covered)
{
    size_t n = 0, cap = 0;
    *spans = NULL;
    if (kind == UNITS_GZIP) {
        plan_gzip(data, size, spans, &n, &cap);
        *covered = size;
    } else {
        *covered = plan_zstd(data, size, target ? target : 1, max_out, spans, &n, &cap);
    }
    *nspans = n;
}

/* A buffer for UNIT_HEADROOM + room bytes (and one spare); NULL when none can be had. */
static char *unit_buffer(char *old, size_t room)
{
    size_t bytes = UNIT_HEADROOM + room + 1;
    char *mem = realloc(old, bytes);
    if (mem && bytes >= 2 * HUGE_PAGE) {
        uintptr_t from = ((uintptr_t)mem + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t to = ((uintptr_t)mem + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (to > from) madvise((void *)from, to - from, MADV_HUGEPAGE); /* no THP: EINVAL, no harm */
    }
    return mem;
}

static bool decode_gzip(units_decoder *d, const unsigned char *data, size_t size, const unit_span *u, size_t max_out,
                        char **mem, size_t *len, uint64_t *raw_end)
{
    uint64_t span = u->end - u->start;
    uint64_t bound = span * DEFLATE_MAX_RATIO < max_out ? span * DEFLATE_MAX_RATIO : max_out;
    size_t room = u->out_hint + 1 > MIN_ROOM ? (size_t)u->out_hint + 1 : MIN_ROOM;
    if (room > bound) room = (size_t)bound;
    char *buf = NULL;
    for (;;) {
        char *grown = unit_buffer(buf, room);
        if (!grown) break;
        buf = grown;
        size_t used_in, used_out;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(d->ld, data + u->start, size - u->start,
                                                                 buf + UNIT_HEADROOM, room, &used_in, &used_out);
        if (r == LIBDEFLATE_SUCCESS) {
            *mem = buf;
            *len = used_out;
            *raw_end = u->start + used_in;
            return true;
        }
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE || room >= max_out) break;
        room = room > max_out / 2 ? max_out : 2 * room;
    }
    free(buf);
    return false;
}

static bool decode_zstd(units_decoder *d, const unsigned char *data, const unit_span *u, size_t max_out, char **mem,
                        size_t *len, uint64_t *raw_end)
{
    size_t room = u->out_hint ? (size_t)u->out_hint : MIN_ROOM, got = 0;
    char *buf = unit_buffer(NULL, room);
    if (!buf) return false;
    ZSTD_DCtx_reset(d->zd, ZSTD_reset_session_only);
    ZSTD_inBuffer ib = {data + u->start, (size_t)(u->end - u->start), 0};
    for (;;) {
        if (got == room) { /* the frames hold more than their sizes said (or no sizes) */
            char *grown = room < max_out ? unit_buffer(buf, room > max_out / 2 ? max_out : 2 * room) : NULL;
            if (!grown) break;
            buf = grown;
            room = room > max_out / 2 ? max_out : 2 * room;
        }
        ZSTD_outBuffer ob = {buf + UNIT_HEADROOM, room, got};
        size_t r = ZSTD_decompressStream(d->zd, &ob, &ib);
        if (ZSTD_isError(r)) break;
        bool progress = ob.pos > got;
        got = ob.pos;
        if (r == 0 && ib.pos == ib.size) {
            *mem = buf;
            *len = got;
            *raw_end = u->end;
            return true;
        }
        if (!progress && ib.pos == ib.size && got < room) break; /* input ended inside a frame */
    }
    free(buf);
    return false;
}

bool units_decode(units_decoder *d, units_kind kind, const unsigned char *data, size_t size, const unit_span *u,
                  size_t max_out, char **mem, size_t *len, uint64_t *raw_end)
{
    if (kind == UNITS_GZIP) return decode_gzip(d, data, size, u, max_out, mem, len, raw_end);
    return decode_zstd(d, data, u, max_out, mem, len, raw_end);
}
