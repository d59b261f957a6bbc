/* source.h - a byte source the ingest readers work on: a core input (a file
 * or stdin, decompressed) or a block of memory (an archive member). Both can
 * be looked ahead into without consuming, which is what record resync needs. */
#ifndef WINNOW_INGEST_SOURCE_H
#define WINNOW_INGEST_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"

typedef struct {
    winput *in;          /* NULL for a memory source */
    const char *mem;     /* memory source: the bytes */
    size_t mem_len, mem_pos;
    const char *name;    /* printed in messages */
} isrc;

/* A source over an open core input (not owned). */
void isrc_from_input(isrc *s, winput *in);

/* A source over n bytes at p (not copied; they must outlive the source). */
void isrc_from_memory(isrc *s, const char *p, size_t n, const char *name);

/* Makes at least n bytes visible without consuming them (fewer at the end);
 * returns how many are visible and points *p at them. */
size_t isrc_peek(isrc *s, size_t n, const char **p);

/* Consumes up to n bytes into dst (dst NULL: discards them, and bytes made
 * visible by isrc_peek stay where they are until the next call); returns how many. */
size_t isrc_read(isrc *s, void *dst, size_t n);

/* Next line without its '\n' (and a '\r' before it); valid until the next
 * call. Returns false at the end. */
bool isrc_getline(isrc *s, const char **line, size_t *len);

/* Offset of the next byte in the decoded stream. */
uint64_t isrc_offset(const isrc *s);

/* True when damaged compressed data cut the decoded stream in (from, to]
 * (input_damaged_within(); never for a memory source). */
bool isrc_damaged_within(const isrc *s, uint64_t from, uint64_t to);

#endif
