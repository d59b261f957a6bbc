/* http.h - parsing a stored HTTP response and undoing its transfer and
 * content codings.
 *
 * Archived responses are messy: lines end in LF, CRLF or CR CR LF, the
 * reason phrase may be missing, header lines may be junk, and the headers
 * may lie about the body (Common Crawl stores bodies decoded and renames the
 * original headers to X-Crawler-...; ClueWeb says gzip over plain HTML). The
 * decoder checks the bytes before trusting a header. */
#ifndef WINNOW_INGEST_HTTP_H
#define WINNOW_INGEST_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

/* Headers kept per response; later ones are ignored. */
#define HTTP_MAX_HEADERS 128
/* A decoded body is cut at this size (decompression bombs). */
#define HTTP_MAX_DECODED ((size_t)256 << 20)

typedef struct {
    const char *name, *value; /* not NUL-terminated; point into the parsed bytes */
    size_t name_len, value_len;
} http_header;

typedef struct {
    int status;               /* e.g. 200 */
    http_header headers[HTTP_MAX_HEADERS];
    int nheaders;
    const char *body;         /* the bytes after the header block */
    size_t body_len;
} http_response;

/* Parses p[0..n) as "HTTP/x.y NNN reason" + headers + body. Returns 0, or -1
 * when the bytes do not start with a status line (r is then unusable). */
int http_parse_response(const char *p, size_t n, http_response *r);

/* Value of the first header named name (case-insensitive), or NULL; sets *len. */
const char *http_header_get(const http_response *r, const char *name, size_t *len);

/* What http_decode_body did, for metadata and messages. */
typedef struct {
    bool dechunked;          /* chunked transfer coding was undone */
    bool bad_chunking;       /* chunked said, but the chunks broke off: kept what parsed */
    const char *encoding;    /* Content-Encoding undone ("gzip", "deflate", "br") or NULL */
    bool encoding_ignored;   /* Content-Encoding said, body was not so encoded: kept as is */
    bool decode_error;       /* the encoded body was damaged: kept what decoded */
    bool undecodable;        /* a coding was announced, and the bytes are neither decodable nor markup */
    bool cut;                /* decoded body hit HTTP_MAX_DECODED */
} http_decode_info;

/* Sets *payload and *len to r's body with chunking and Content-Encoding undone,
 * checking the bytes rather than trusting the headers. The result points
 * into r's bytes or into work (two scratch buffers reused between calls). */
void http_decode_body(const http_response *r, wbuf work[2], const char **payload, size_t *len,
                      http_decode_info *info);

/* Splits a Content-Type value into its lower-cased MIME type (written into
 * mime, at most mime_size-1 bytes) and its charset parameter (into charset,
 * empty when none). */
void http_parse_content_type(const char *v, size_t n, char *mime, size_t mime_size,
                             char *charset, size_t charset_size);

#endif
