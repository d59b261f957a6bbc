/* block_units.h - a compressed file cut into units that threads decode at
 * once (for core/block_source.c).
 *
 * zstd: the frames, found by walking the frame and block headers (no
 * decoding), grouped into units of about a target size. gzip: every place
 * where a gzip member header could begin (1f 8b 08, no header CRC, no
 * reserved flag) is a candidate unit, decoded as one member with libdeflate
 * (the CRC-32 and length in its trailer checked); its output room comes from
 * the length field in front of the next candidate. Candidates that are not
 * members fail or are never used: the reader takes only the chain of units
 * that starts at byte 0, each beginning where the one before ended, so the
 * bytes are exactly those of decoding the file in turn (see block_source.c,
 * which hands the rest of a file, from where the chain breaks, to
 * input_open_at's serial decoder). */
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
    uint64_t start, end; /* compressed bytes: zstd its frames exactly; gzip a candidate, up to the next one */
    uint64_t out_hint;   /* decoded bytes expected */
} unit_span;

/* Threads' decoding state (one per thread). */
typedef struct units_decoder units_decoder;
units_decoder *units_decoder_new(void);
void units_decoder_free(units_decoder *d);

/* The units of data[0, size): *spans (malloc'd; *nspans of them). zstd:
 * the units cover [0, *covered); from there (a damaged or truncated frame,
 * a frame of more than max_out bytes) the file must be decoded serially.
 * gzip: *covered is size. Units are about target decoded bytes where
 * frames allow. */
void units_plan(units_kind kind, const unsigned char *data, size_t size, size_t target, size_t max_out,
                unit_span **spans, size_t *nspans, uint64_t *covered);

/* Decodes unit u into a malloc'd buffer *mem (UNIT_HEADROOM free bytes, then
 * the *len decoded bytes) of at most max_out decoded bytes; *raw_end: where
 * the unit ended (gzip: its member's end). False, with nothing allocated,
 * when it does not decode whole (damage, not a member, too big). */
bool units_decode(units_decoder *d, units_kind kind, const unsigned char *data, size_t size, const unit_span *u,
                  size_t max_out, char **mem, size_t *len, uint64_t *raw_end);

#endif
