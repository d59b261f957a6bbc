/* block_units.h - a compressed file cut into units that threads decode at
 * once (for core/block_source.c).
 *
 * zstd: the frames, found by walking the frame and block headers (no
 * decoding), grouped into units of about a target size. gzip: every place
 * where a gzip member header could begin (1f 8b 08, no header CRC, no
 * reserved flag) is a candidate; runs of candidates make units of about the
 * target size (each candidate's size read from the length field in front of
 * the next). A gzip unit begins at the first of its candidates that inflates
 * as a member (libdeflate, the trailer's CRC-32 and length checked) and takes
 * the members that follow it, one after the other, until it passes its end.
 * The reader takes only the chain of members that starts at byte 0, each
 * beginning where the one before ended (a unit is used from the member
 * boundary where the unit before it ended), so the bytes are exactly those
 * of decoding the file in turn; block_source.c hands the rest of a file,
 * from where the chain breaks, to input_open_at's serial decoder. */
#ifndef WINNOW_BLOCK_UNITS_H
#define WINNOW_BLOCK_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Free bytes in front of every decoded unit, where a reader can put the part
 * of a line that the unit before it ended with. */
#define UNIT_HEADROOM ((size_t)1 << 20)

typedef enum { UNITS_GZIP, UNITS_ZSTD } units_kind;

typedef struct {
    uint64_t start, end; /* compressed bytes: zstd its frames; gzip its first candidate to the next unit's */
    uint64_t out_hint;   /* decoded bytes expected */
} unit_span;

/* A decoded unit. */
typedef struct {
    char *mem;          /* malloc'd: UNIT_HEADROOM free bytes, then the len decoded bytes */
    size_t len;
    uint64_t start;     /* compressed offset where its first member (frame) began */
    uint64_t raw_end;   /* and where its last one ended */
    size_t nmembers;    /* gzip: after member i, its compressed end and the output so far */
    uint64_t *raw_ends;
    size_t *out_ends;
} unit_out;

/* Threads' decoding state (one per thread). */
typedef struct units_decoder units_decoder;
units_decoder *units_decoder_new(void);
void units_decoder_free(units_decoder *d);

/* The units of data[0, size): *spans (malloc'd; *nspans of them). zstd:
 * the units cover [0, *covered) (covered may be NULL); from there (a damaged or truncated frame,
 * a frame of more than max_out bytes) the file must be decoded serially.
 * gzip: *covered is size. Units are about target decoded bytes where the
 * frames and members allow. */
void units_plan(units_kind kind, const unsigned char *data, size_t size, size_t target, size_t max_out,
                unit_span **spans, size_t *nspans, uint64_t *covered);

/* Decodes unit u (at most max_out decoded bytes) into *out. False, with
 * nothing allocated, when nothing of it decodes (zstd: when not all of it
 * does; damage, not a member, too big). */
bool units_decode(units_decoder *d, units_kind kind, const unsigned char *data, size_t size, const unit_span *u,
                  size_t max_out, unit_out *out);

/* Where in out's bytes the chain goes on from compressed offset at (the
 * start, or a member boundary inside); false when it does not pass there. */
bool units_output_from(const unit_out *out, uint64_t at, size_t *off);

/* Frees out's memory (not its bytes' buffer when taken: mem NULL). */
void units_out_free(unit_out *out);

#endif
