/* gzmembers.h - the members of a gzip file inflated on several threads and
 * handed back in file order.
 *
 * A file of many small gzip members (a WARC compressed record by record) is
 * cut into stretches of about GZM_STRETCH compressed bytes. Each stretch
 * begins at the first gzip member that inflates at or after its nominal
 * start and takes members one after the other until it passes its nominal
 * end; threads inflate whole stretches with libdeflate. Pieces are handed
 * back only along the chain of members that starts at the first byte: a
 * stretch is used from the member boundary where the one before it ended,
 * so the bytes are exactly those of inflating the members in turn, whatever
 * the threads did. Where the chain breaks (a member that does not inflate,
 * has a header CRC or inflates to over GZM_MEMBER_MAX, or bytes between
 * members that are not a member), gzm_next says where: the caller's serial
 * decoder goes on from that member, so damage is found and reported as it
 * always was. */
#ifndef WINNOW_GZMEMBERS_H
#define WINNOW_GZMEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compressed bytes a stretch covers (a thread's unit of work). */
#define GZM_STRETCH ((size_t)1 << 20)
/* A member that inflates to more than this is left to zlib's streaming
 * decoder, by every path that inflates whole members with libdeflate (these
 * threads, block_units.c, core/input.c's whole_member): one limit, so that a
 * member libdeflate and zlib judge differently (RFC 1951 bends such as 288
 * litlen codes, which libdeflate accepts) gets the same verdict on every path. */
#define GZM_MEMBER_MAX ((size_t)64 << 20)

typedef struct gzmembers gzmembers;

/* Starts threads threads inflating the members of data[0, size) (a gzip
 * member starts at 0; data must outlive the reader). */
gzmembers *gzm_start(const unsigned char *data, size_t size, int threads);

/* Free bytes in front of every piece, where a reader can put the bytes it
 * still holds from the piece before, then take the whole buffer (gzm_swap). */
#define GZM_HEADROOM ((size_t)1 << 20)

/* Next piece of inflated bytes, in file order: the members from where the
 * previous piece ended up to *raw_end (valid until the next call), with
 * GZM_HEADROOM free bytes before *out and at least one after it. Returns
 * false when the chain of members stops: *raw_end is then where serial
 * decoding must go on (size when every byte was inflated). */
bool gzm_next(gzmembers *g, char **out, size_t *len, uint64_t *raw_end);

/* Exchanges the buffer holding the last piece (its start and size in
 * bytes: *buf, *size) with the caller's malloc'd buffer *buf of *size bytes
 * (NULL and 0 are fine), which the threads fill later. */
void gzm_swap(gzmembers *g, char **buf, size_t *size);

/* Stops the threads and frees the reader. */
void gzm_stop(gzmembers *g);

#endif
