/* xzbz.h - xz and bzip2 streams, and lz4's legacy frames, decoded step by
 * step (as zlib's inflate is),
 * for core/input.c: every byte the data holds is given out before damage or
 * a cut is reported, as `xz -d` and `bzip2 -d` give them (libarchive's
 * filters drop the block they were decoding when the input ends short).
 * Any number of streams one after the other are one input (xz's with their
 * stream padding, 4-byte words of zeros, between and after them); bytes after
 * the last stream that are not a stream are an error.
 *
 * lz4's legacy frame format (`lz4 -l`, old lz4 tools, the Linux kernel's
 * initramfs; lz4_Frame_format.md, "Legacy frame"): the magic 0x184C2102
 * (little-endian), then blocks, each a 4-byte little-endian compressed size
 * and one LZ4 block that decodes to at most 8 MiB; no checksums, no end mark;
 * the magic again starts another frame. Blocks are independent: each is one
 * "stream" here (xzbz_between_streams), so a damaged block that gave nothing
 * counts as one lost member. A block that does not decode, a size over
 * LZ4_compressBound(8 MiB) and a block or size cut short are errors naming
 * the block's compressed offset. */
#ifndef WINNOW_XZBZ_H
#define WINNOW_XZBZ_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { XZBZ_XZ, XZBZ_BZIP2, XZBZ_LZ4_LEGACY } xzbz_kind;
typedef enum { XZBZ_MORE, XZBZ_END, XZBZ_ERROR } xzbz_result;

typedef struct xzbz xzbz;

/* A decoder for a stream of kind. */
xzbz *xzbz_new(xzbz_kind kind);

/* Decodes from in[0, in_len) into out[0, room); at_end says no input comes
 * after these bytes. Sets *used (input taken) and *made (bytes written).
 * Returns XZBZ_MORE (call again, with more input when it took all),
 * XZBZ_END (every stream ended, at the end of the input) or XZBZ_ERROR
 * (damaged, cut short or not this format: *what says which; the bytes made
 * before it are good). */
xzbz_result xzbz_step(xzbz *d, const unsigned char *in, size_t in_len, bool at_end, char *out, size_t room,
                      size_t *used, size_t *made, const char **what);

/* True before a stream's first byte (at the start, or after a stream ended):
 * the next step's output, if any, is the next stream's. */
bool xzbz_between_streams(const xzbz *d);

/* True when the n bytes at p start an lz4 legacy frame (its magic). */
bool xzbz_lz4_legacy_signature(const void *p, size_t n);

/* Frees d (NULL is fine). */
void xzbz_free(xzbz *d);

#endif
