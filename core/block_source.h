/* block_source.h - a stage's inputs, in order, as large blocks of whole lines.
 *
 * Made for consumers that work on a block with many threads at once (the GPU
 * tokenize path): plain regular files are mapped and handed out as ranges of
 * the mapping (no copy); regular gzip and zstd files are cut into units
 * (zstd frames, gzip members; core/block_units.h) that a pool of threads
 * decodes in input order, each unit whole into the buffer its blocks are
 * cut from, the bytes exactly those of decoding the file in turn; every
 * other input (other codecs, stdin, pipes), and a gzip or zstd file from
 * where its units stop (damage, a member too big), is decoded serially by
 * one thread. A JSON array file (input_json_array) is decoded serially,
 * through the transform that makes its elements lines. Decoded bytes waiting for the consumer, those being decoded
 * included, are bounded (a quarter of physical memory); the file being
 * consumed always goes on, so a small bound only lowers the parallelism. */
#ifndef WINNOW_BLOCK_SOURCE_H
#define WINNOW_BLOCK_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"

typedef struct block_source block_source;

/* One block: whole lines separated by '\n'; only the last block of a file
 * may end without one. Valid until block_source_release(). */
typedef struct {
    const char *data;
    size_t len;
    const char *file; /* the input's name for messages ("stdin" for "-") */
    int file_index;   /* position of the input among the inputs */
    bool file_start;  /* the first block of its input (line numbers restart at 1) */
    void *owned;      /* private: the decoded buffer, or NULL for a mapping */
    void *input;      /* private: the input it belongs to */
    const char *unit; /* what line numbers count, for messages: "line", or "element" in a JSON array file */
} source_block;

/* Opens the inputs ("-": stdin; none: nothing to read) with decoders decoding threads; units are
 * about decoded_bytes of decoded data, and serial decoding reads that much
 * at a time. Inputs that cannot be opened are reported (as input_open does)
 * and make block_source_close() return 2. */
block_source *block_source_open(char **inputs, int ninputs, int decoders, size_t decoded_bytes);

/* The next block of about want bytes (more when a line is longer; less at
 * the end of a unit); false when every input is done. */
bool block_source_next(block_source *s, size_t want, source_block *b);

/* Makes the part [lo, hi) of a mapped block present in the page tables at
 * once (MADV_POPULATE_READ), which costs less than faulting it in page by
 * page; nothing for a decoded block or where the kernel lacks it. Many
 * threads may each prefault their own part. */
void block_source_prefault(const source_block *b, const char *lo, const char *hi);

/* Gives a block's memory back (any order, any thread); a mapped block's
 * pages leave the page tables (a read of its bytes after would fault them
 * in again). */
void block_source_release(block_source *s, source_block *b);

/* What the inputs read to their end lost that no line shows
 * (input_add_losses), for the reader to count (input_count_losses). Called
 * once block_source_next has returned false. */
input_losses block_source_losses(block_source *s);

/* Waits for the decoding threads and frees s; returns 0, or 2 when an input
 * could not be opened or read or held damaged compressed data. Every block
 * must have been released. */
int block_source_close(block_source *s);

#endif
