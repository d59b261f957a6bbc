/* warc.h - a WARC record reader (WARC/0.17, 0.18, 1.0, 1.1, and WET/WAT,
 * which are WARC files too) over an ingest byte source.
 *
 * The reader never prints: it hands back each record, or a failure with a
 * kind and a message, and the caller reports them with the file name. It is
 * built to keep going on damaged files:
 *   - header lines may end in LF, CRLF or CR CR LF; folded lines (starting
 *     with a space or tab) continue the previous field; UTF-8 is allowed;
 *   - CR, LF and NUL bytes between records are skipped (NUL padding);
 *   - a wrong Content-Length is detected by the record that follows not
 *     starting where it should; the reader then finds the next "WARC/" line
 *     and keeps the record cut there (with a warning);
 *   - junk where a record should start, a missing Content-Length or an
 *     oversized header are failures, after which the reader resynchronises
 *     on the next line starting with "WARC/";
 *   - a record cut short by the end of input (truncated file or gzip member)
 *     is a failure. */
#ifndef WINNOW_INGEST_WARC_H
#define WINNOW_INGEST_WARC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "ingest/source.h"

/* Longest header block accepted, and largest record block read into memory. */
#define WARC_MAX_HEADER (1u << 20)
#define WARC_MAX_BLOCK ((size_t)1 << 30)

typedef struct {
    size_t name_off, value_off; /* NUL-terminated strings in warc_record.head */
    size_t value_len;
} warc_field;

typedef struct {
    char version[16];       /* "WARC/1.0" */
    wbuf head;              /* field names and values, each NUL-terminated */
    warc_field *fields;
    int nfields, fields_cap;
    struct {                /* the record block (Content-Length bytes): in the source's */
        const char *data;   /* buffer where it lies whole there, else in `copy`; valid */
        size_t len;         /* until the next warc_next or read of the source */
    } block;
    wbuf copy;              /* the block when it had to be copied */
    uint64_t offset;        /* offset of "WARC/" in the decoded stream */
    uint64_t number;        /* 1-based position of this record in the file */
    const char *warning;    /* set when the record was recovered (e.g. wrong length); static */
} warc_record;

typedef enum { WARC_RECORD, WARC_FAILED, WARC_END } warc_status;

typedef struct {
    isrc *src;
    uint64_t records;       /* records and failures handed back */
    int arc_fields;         /* ARC files: fields of a record line, 5 (version 1) or 10 (version 2) */
    char message[160];      /* the last failure or warning, for the caller to print */
} warc_reader;

/* Starts reading src (not owned). */
void warc_reader_init(warc_reader *r, isrc *src);

/* Reads the next record into rec. WARC_RECORD: rec is filled (rec->warning
 * may say what was recovered, with details in r->message). WARC_FAILED: a
 * damaged record or junk was skipped; *kind is a short snake_case name,
 * r->message says what and rec->offset/number where. WARC_END: no more input. */
warc_status warc_next(warc_reader *r, warc_record *rec, const char **kind);

/* Value of the first field named name (case-insensitive), or NULL; *len its length. */
const char *warc_get(const warc_record *rec, const char *name, size_t *len);

/* Frees rec's memory. */
void warc_record_free(warc_record *rec);

/* ---- for the ARC reader (arc.h), which hands back its records in the same shape ---- */

/* Skips the separators before r's next record and empties rec for it (its
 * offset the source's, its number the next; no warning, no message); false
 * at the end of input. */
bool warc_record_begin(warc_reader *r, warc_record *rec);

/* Adds a field (name and value need not end in NUL). */
void warc_add_field(warc_record *rec, const char *name, size_t nlen, const char *val, size_t vlen);

/* Reads the next n bytes of s (fewer at the end) as rec's block, into rec->copy. */
void warc_copy_block(isrc *s, warc_record *rec, size_t n);

/* A record whose declared length is wrong: its block is p[0..next) (p: what
 * s holds next; next: where the following record starts), less up to
 * max_trailing of the ntrailing bytes `trailing` at its end; the rest before
 * next is skipped and rec is marked content_length_mismatch. Returns the
 * block's length. */
size_t warc_keep_before_next(isrc *s, warc_record *rec, const char *p, size_t next, const char *trailing,
                             size_t ntrailing, int max_trailing);

#endif
