/* sniff.h - what kind of input a file is, from its first bytes (never from
 * its name). */
#ifndef WINNOW_INGEST_SNIFF_H
#define WINNOW_INGEST_SNIFF_H

#include <stddef.h>

/* Bytes looked at to decide: enough for a long comment or banner before a page's first tag. */
#define SNIFF_BYTES 8192

typedef enum {
    INPUT_EMPTY,     /* no bytes at all */
    INPUT_WARC,      /* WARC, WET or WAT: starts with "WARC/" */
    INPUT_ARC,       /* ARC (before WARC): starts with "filedesc://" */
    INPUT_JSONL,     /* JSON Lines: starts with '{' */
    INPUT_HTML,      /* markup: after a BOM, blanks, comments and <?xml?>, a doctype, <html>, <head>,
                        <body> or a common tag; or a line that begins with a doctype or <html> */
    INPUT_TEXT,      /* anything else without NUL bytes */
    INPUT_ARCHIVE,   /* tar, zip, 7z, cpio, ar, ... (read with libarchive) */
    INPUT_COMPRESSED,/* a compressed stream (gzip, zstd, bzip2, xz, lz4) still to decode */
    INPUT_BINARY     /* NUL bytes or other binary: not a document */
} input_kind;

/* Classifies a stream from its first n bytes (n <= SNIFF_BYTES is enough). */
input_kind sniff_kind(const char *p, size_t n);

/* Short name of a kind: "warc", "jsonl", "html", ... */
const char *input_kind_name(input_kind k);

#endif
