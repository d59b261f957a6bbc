/* http_decode.c - undoing chunked transfer coding and gzip/deflate/br
 * content coding of a stored HTTP body, trusting the bytes over the headers. */
#include "ingest/http.h"

#include <brotli/decode.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* Output grows in steps of this size while inflating. */
#define DECODE_STEP 65536
/* A chunk-size line longer than this is not chunked coding. */
#define MAX_CHUNK_LINE 1024
/* zlib windowBits: 15 for the window, +16 gzip only, negative for raw deflate. */
#define ZLIB_GZIP_WINDOW (15 + 16)
#define ZLIB_WINDOW 15
#define ZLIB_RAW_WINDOW (-15)

static bool has_token(const char *v, size_t n, const char *token)
{
    size_t tl = strlen(token);
    for (size_t i = 0; i + tl <= n; i++)
        if (strncasecmp(v + i, token, tl) == 0 &&
            (i == 0 || !isalnum((unsigned char)v[i - 1])) &&
            (i + tl == n || !isalnum((unsigned char)v[i + tl])))
            return true;
    return false;
}

/* Undoes chunked coding of p[0..n) into out. Returns -1 when p does not start
 * like chunked coding (nothing written), 1 when it broke off part-way (what
 * parsed is kept), 0 when it ended with the zero-size chunk or the input. */
static int dechunk(const char *p, size_t n, wbuf *out)
{
    size_t i = 0;
    int chunks = 0;
    buf_clear(out);
    while (i < n) {
        size_t size = 0, j = i;
        int digits = 0;
        while (j < n && isxdigit((unsigned char)p[j]) && digits < 16) {
            int c = tolower((unsigned char)p[j]);
            size = size * 16 + (size_t)(c <= '9' ? c - '0' : c - 'a' + 10);
            j++, digits++;
        }
        if (!digits) return chunks ? 1 : -1;
        const char *nl = memchr(p + j, '\n', n - j < MAX_CHUNK_LINE ? n - j : MAX_CHUNK_LINE);
        if (!nl) return chunks ? 1 : -1;
        char after = p[j]; /* the size may be followed by ";ext", spaces or the line end */
        if (after != ';' && after != ' ' && after != '\t' && after != '\r' && after != '\n')
            return chunks ? 1 : -1;
        j = (size_t)(nl - p) + 1;
        if (size == 0) return 0;
        if (size > n - j) { /* the last chunk is cut short: keep it */
            buf_append(out, p + j, n - j);
            return 1;
        }
        buf_append(out, p + j, size);
        chunks++;
        i = j + size;
        while (i < n && (p[i] == '\r' || p[i] == '\n') && i < j + size + 2) i++;
    }
    return 0;
}

/* Inflates p[0..n) with zlib (window as given) into out. Returns 0 on a clean
 * end, 1 when data decoded but the stream broke, -1 when nothing decoded. */
static int inflate_to(const char *p, size_t n, int window, wbuf *out, bool *cut)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, window) != Z_OK) return -1;
    buf_clear(out);
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (out->len >= HTTP_MAX_DECODED) { *cut = true; break; }
        buf_reserve(out, DECODE_STEP);
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = DECODE_STEP;
        rc = inflate(&z, Z_NO_FLUSH);
        out->len = DECODE_STEP - z.avail_out + out->len;
        out->data[out->len] = 0;
        if (rc == Z_STREAM_END && z.avail_in > 0 && window == ZLIB_GZIP_WINDOW &&
            z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
            inflateReset(&z); /* another gzip member follows */
            rc = Z_OK;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0) break; /* input ended mid-stream */
    }
    inflateEnd(&z);
    if (rc == Z_STREAM_END || *cut) return 0;
    return out->len ? 1 : -1;
}

/* Brotli-decodes p[0..n) into out; same returns as inflate_to. */
static int unbrotli_to(const char *p, size_t n, wbuf *out, bool *cut)
{
    BrotliDecoderState *st = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!st) return -1;
    buf_clear(out);
    const uint8_t *in = (const uint8_t *)p;
    size_t avail_in = n;
    BrotliDecoderResult rc = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
    while (rc == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
        if (out->len >= HTTP_MAX_DECODED) { *cut = true; break; }
        buf_reserve(out, DECODE_STEP);
        uint8_t *next_out = (uint8_t *)out->data + out->len;
        size_t avail_out = DECODE_STEP;
        rc = BrotliDecoderDecompressStream(st, &avail_in, &in, &avail_out, &next_out, NULL);
        out->len += DECODE_STEP - avail_out;
        out->data[out->len] = 0;
    }
    BrotliDecoderDestroyInstance(st);
    if (rc == BROTLI_DECODER_RESULT_SUCCESS || *cut) return 0;
    return out->len && rc == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT ? 1 : -1;
}

/* True when p looks like a document already decoded: starts (after
 * whitespace and a BOM) with '<' or is mostly printable text. */
static bool looks_decoded(const char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) i = 3;
    while (i < n && isspace((unsigned char)p[i])) i++;
    return i < n && p[i] == '<';
}

/* Undoes one content coding named by enc on the bytes *p (*n of them), using out for the result. */
static void undo_encoding(const char *enc, size_t enc_len, const char **p, size_t *n, wbuf *out,
                          http_decode_info *info)
{
    int rc;
    const char *name;
    const unsigned char *u = (const unsigned char *)*p;
    if (has_token(enc, enc_len, "gzip") || has_token(enc, enc_len, "x-gzip")) {
        name = "gzip";
        if (*n < 2 || u[0] != 0x1f || u[1] != 0x8b) { info->encoding_ignored = true; return; }
        rc = inflate_to(*p, *n, ZLIB_GZIP_WINDOW, out, &info->cut);
    } else if (has_token(enc, enc_len, "deflate")) {
        name = "deflate";
        bool zlib_header = *n >= 2 && (u[0] & 0x0f) == 8 && ((u[0] << 8) | u[1]) % 31 == 0;
        rc = inflate_to(*p, *n, zlib_header ? ZLIB_WINDOW : ZLIB_RAW_WINDOW, out, &info->cut);
        if (rc < 0 && looks_decoded(*p, *n)) { info->encoding_ignored = true; return; }
    } else if (has_token(enc, enc_len, "br")) {
        name = "br";
        if (looks_decoded(*p, *n)) { /* brotli has no magic; a '<' first is HTML */
            rc = unbrotli_to(*p, *n, out, &info->cut);
            if (rc != 0) { info->encoding_ignored = true; return; }
        } else {
            rc = unbrotli_to(*p, *n, out, &info->cut);
        }
    } else {
        return; /* identity, or a coding we do not know: leave the bytes */
    }
    if (rc < 0) { /* nothing decoded: the header lied or the body is damaged */
        if (looks_decoded(*p, *n)) info->encoding_ignored = true;
        else info->decode_error = true;
        return;
    }
    if (rc > 0) info->decode_error = true;
    info->encoding = name;
    *p = out->data;
    *n = out->len;
}

void http_decode_body(const http_response *r, wbuf work[2], const char **payload, size_t *len,
                      http_decode_info *info)
{
    memset(info, 0, sizeof *info);
    const char *p = r->body;
    size_t n = r->body_len, vlen;
    const char *te = http_header_get(r, "Transfer-Encoding", &vlen);
    if (te && has_token(te, vlen, "chunked")) {
        int rc = dechunk(p, n, &work[0]);
        if (rc >= 0) {
            info->dechunked = true;
            info->bad_chunking = rc > 0;
            p = work[0].data ? work[0].data : "";
            n = work[0].len;
        }
    }
    const char *ce = http_header_get(r, "Content-Encoding", &vlen);
    if (ce && n) undo_encoding(ce, vlen, &p, &n, &work[1], info);
    *payload = p;
    *len = n;
}
