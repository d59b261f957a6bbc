/* thrift_compact.h - the Thrift compact protocol (the encoding of Parquet's
 * footer and page headers): a reader over a bounded byte range, and a writer.
 *
 * Every read checks the range: a value that runs past the end, a varint
 * longer than 10 bytes, a length over the bytes left or nesting deeper than
 * TC_MAX_DEPTH sets the reader's error (with the offset where it happened)
 * and makes every later read return zero. Callers check tc_failed() once
 * after decoding a structure. */
#ifndef WINNOW_THRIFT_COMPACT_H
#define WINNOW_THRIFT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Structs nested deeper than this are refused (Parquet's go 4 deep). */
#define TC_MAX_DEPTH 32

/* Compact protocol type ids. */
enum {
    TC_STOP = 0, TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5, TC_I64 = 6,
    TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_SET = 10, TC_MAP = 11, TC_STRUCT = 12
};

typedef struct {
    const uint8_t *p, *end;
    uint64_t base;     /* file offset of the first byte, for messages */
    const uint8_t *start;
    const char *error; /* first problem met, or NULL */
    uint64_t error_at; /* its file offset */
    int depth;
} tc_reader;

/* Starts reading [p, p + n), which sits at file offset base. */
void tc_init(tc_reader *r, const uint8_t *p, size_t n, uint64_t base);

/* True once a read has failed. */
static inline bool tc_failed(const tc_reader *r) { return r->error != NULL; }

/* File offset of the next byte. */
uint64_t tc_offset(const tc_reader *r);

/* Records a problem at the current offset (the first one is kept). */
void tc_fail(tc_reader *r, const char *what);

/* Reads the next field header of a struct: its id and type. Returns false at
 * the struct's STOP (or on error). *last_id carries the previous id (start at 0). */
bool tc_field(tc_reader *r, int16_t *id, int *type, int16_t *last_id);

/* Values. tc_bool takes the field's type (booleans live in the field header). */
int32_t tc_i32(tc_reader *r);
int64_t tc_i64(tc_reader *r);
bool tc_bool(tc_reader *r, int type);
double tc_double(tc_reader *r);
/* A binary/string: points *p into the buffer; returns its length. */
uint32_t tc_binary(tc_reader *r, const uint8_t **p);

/* A list or set header: element type and count (checked against the bytes
 * left: every element takes at least one byte, but booleans). */
uint32_t tc_list(tc_reader *r, int *elem_type);

/* Enters / leaves a nested struct (depth check). */
bool tc_struct_begin(tc_reader *r);
void tc_struct_end(tc_reader *r);

/* Skips a value of the given type (for fields a reader does not use). */
void tc_skip(tc_reader *r, int type);

/* ---- writing, into a wbuf ---- */

#include "core/buf.h"

/* Writes a field header; *last_id is the previous field id of the struct (start at 0). */
void tw_field(wbuf *b, int16_t *last_id, int16_t id, int type);
void tw_i32(wbuf *b, int32_t v);
void tw_i64(wbuf *b, int64_t v);
void tw_binary(wbuf *b, const void *p, size_t n);
/* A list header: element type and count. */
void tw_list(wbuf *b, int elem_type, uint32_t n);
/* Ends a struct (its STOP byte). */
void tw_stop(wbuf *b);

#endif
