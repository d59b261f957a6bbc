/* block_units.c - zstd frames and gzip members as units decoded at once
 * (see block_units.h). */
#include "block_units.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "gzmembers.h"
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
/* Member boundaries kept per allocation step. */
#define MEMBERS_STEP 256

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

/* The first candidate member header at or after pos, before end; end when none. */
static size_t next_candidate(const unsigned char *data, size_t size, size_t pos, size_t end)
{
    while (pos < end) {
        const unsigned char *p = memchr(data + pos, 0x1f, end - pos);
        if (!p) return end;
        pos = (size_t)(p - data);
        if (member_header_at(p, size - pos)) return pos;
        pos++;
    }
    return end;
}

/* gzip: runs of candidates of about target decoded bytes, each candidate's
 * size from the length field in front of the next (exact when the next one
 * is the member after it). */
static void plan_gzip(const unsigned char *data, size_t size, size_t target, unit_span **spans, size_t *n,
                      size_t *cap)
{
    unit_span group = {0, 0, 0};
    for (size_t at = next_candidate(data, size, 0, size); at < size;) {
        size_t next = next_candidate(data, size, at + 1, size);
        uint64_t span = next - at, hint = span >= GZIP_MIN_MEMBER ? get_le32(data + next - GZIP_TRAILER_LEN) : 0;
        if (hint > span * DEFLATE_MAX_RATIO) hint = span * DEFLATE_MAX_RATIO; /* not a member's length */
        if (group.end == group.start) group = (unit_span){at, at, 0};
        group.end = next;
        group.out_hint += hint;
        if (group.out_hint >= target || next == size) {
            add_span(spans, n, cap, group);
            group.start = group.end;
        }
        at = next;
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
    if (!target) target = 1;
    uint64_t end = size;
    if (kind == UNITS_GZIP) plan_gzip(data, size, target, spans, &n, &cap);
    else end = plan_zstd(data, size, target, max_out, spans, &n, &cap);
    if (covered) *covered = end;
    *nspans = n;
}

/* Makes room for UNIT_HEADROOM + room bytes (and one spare) in *mem; false
 * when it cannot be had (*mem stays). */
static bool unit_room(char **mem, size_t room)
{
    size_t bytes = UNIT_HEADROOM + room + 1;
    char *grown = realloc(*mem, bytes);
    if (!grown) return false;
    *mem = grown;
    return true;
}

/* Inflates the member at pos onto out (growing it up to max_out bytes);
 * its compressed size, or 0 when it cannot be taken. */
static size_t inflate_member(units_decoder *d, const unsigned char *data, size_t size, size_t pos, size_t max_out,
                             unit_out *out, size_t *cap)
{
    if (!member_header_at(data + pos, size - pos)) return 0;
    for (;;) {
        size_t used_in, used_out;
        enum libdeflate_result r = libdeflate_gzip_decompress_ex(d->ld, data + pos, size - pos,
                                                                 out->mem + UNIT_HEADROOM + out->len, *cap - out->len,
                                                                 &used_in, &used_out);
        if (r == LIBDEFLATE_SUCCESS && used_out > GZM_MEMBER_MAX) return 0; /* left to zlib, as on every path */
        if (r == LIBDEFLATE_SUCCESS) {
            if (out->nmembers % MEMBERS_STEP == 0) {
                out->raw_ends = xrealloc(out->raw_ends, (out->nmembers + MEMBERS_STEP) * sizeof *out->raw_ends);
                out->out_ends = xrealloc(out->out_ends, (out->nmembers + MEMBERS_STEP) * sizeof *out->out_ends);
            }
            out->len += used_out;
            out->raw_ends[out->nmembers] = pos + used_in;
            out->out_ends[out->nmembers] = out->len;
            out->nmembers++;
            return used_in;
        }
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE || *cap >= max_out || *cap - out->len > GZM_MEMBER_MAX) return 0;
        size_t grown = *cap > max_out / 2 ? max_out : 2 * *cap;
        if (!unit_room(&out->mem, grown)) return 0;
        *cap = grown;
    }
}

static bool decode_gzip(units_decoder *d, const unsigned char *data, size_t size, const unit_span *u, size_t max_out,
                        unit_out *out)
{
    size_t cap = u->out_hint + 1 > MIN_ROOM ? (size_t)u->out_hint + 1 : MIN_ROOM;
    if (cap > max_out) cap = max_out;
    if (!unit_room(&out->mem, cap)) return false;
    size_t pos = (size_t)u->start, used = 0;
    for (; pos < u->end; pos = next_candidate(data, size, pos + 1, (size_t)u->end)) /* the first member that inflates */
        if ((used = inflate_member(d, data, size, pos, max_out, out, &cap))) break;
    if (!used) {
        units_out_free(out);
        return false;
    }
    out->start = pos;
    pos += used;
    while (pos < u->end) { /* then the members after it, one after the other */
        size_t next = inflate_member(d, data, size, pos, max_out, out, &cap);
        if (!next) break; /* raw_end stops there: block_source goes on from it */
        pos += next;
    }
    out->raw_end = pos;
    return true;
}

static bool decode_zstd(units_decoder *d, const unsigned char *data, const unit_span *u, size_t max_out,
                        unit_out *out)
{
    size_t room = u->out_hint ? (size_t)u->out_hint : MIN_ROOM;
    if (!unit_room(&out->mem, room)) return false;
    ZSTD_DCtx_reset(d->zd, ZSTD_reset_session_only);
    ZSTD_inBuffer ib = {data + u->start, (size_t)(u->end - u->start), 0};
    for (;;) {
        if (out->len == room) { /* the frames hold more than their sizes said (or have no sizes) */
            size_t grown = room > max_out / 2 ? max_out : 2 * room;
            if (room >= max_out || !unit_room(&out->mem, grown)) break;
            room = grown;
        }
        ZSTD_outBuffer ob = {out->mem + UNIT_HEADROOM, room, out->len};
        size_t r = ZSTD_decompressStream(d->zd, &ob, &ib);
        if (ZSTD_isError(r)) break;
        bool progress = ob.pos > out->len;
        out->len = ob.pos;
        if (r == 0 && ib.pos == ib.size) {
            out->start = u->start;
            out->raw_end = u->end;
            return true;
        }
        if (!progress && ib.pos == ib.size && out->len < room) break; /* the input ended inside a frame */
    }
    units_out_free(out);
    return false;
}

bool units_decode(units_decoder *d, units_kind kind, const unsigned char *data, size_t size, const unit_span *u,
                  size_t max_out, unit_out *out)
{
    memset(out, 0, sizeof *out);
    if (kind == UNITS_GZIP) return decode_gzip(d, data, size, u, max_out, out);
    return decode_zstd(d, data, u, max_out, out);
}

bool units_output_from(const unit_out *out, uint64_t at, size_t *off)
{
    if (out->start == at) {
        *off = 0;
        return true;
    }
    size_t lo = 0, hi = out->nmembers; /* raw_ends ascend */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (out->raw_ends[mid] < at) lo = mid + 1;
        else hi = mid;
    }
    if (lo == out->nmembers || out->raw_ends[lo] != at) return false;
    *off = out->out_ends[lo];
    return true;
}

void units_out_free(unit_out *out)
{
    free(out->mem);
    free(out->raw_ends);
    free(out->out_ends);
    memset(out, 0, sizeof *out);
}
