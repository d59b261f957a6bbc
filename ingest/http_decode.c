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
/* Bytes looked at to tell text from compressed data, and the fewest that
 * can tell (64 random bytes hold no control byte once in ~1,700 tries). */
#define TEXT_SNIFF 512
#define TEXT_SNIFF_MIN 64

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
 * whitespace and a BOM) with '<', or is text: no control byte other than
 * whitespace in its first TEXT_SNIFF bytes (in any 8-bit charset or UTF-8;
 * compressed bytes hold one in about every ninth byte). */
static bool looks_decoded(const char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) i = 3;
    while (i < n && isspace((unsigned char)p[i])) i++;
    if (i < n && p[i] == '<') return true;
    if (n < TEXT_SNIFF_MIN) return false;
    for (size_t k = 0; k < n && k < TEXT_SNIFF; k++) {
        unsigned char c = (unsigned char)p[k];
        if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f) return false;
    }
    return true;
}

/* True when enc names a content coding the decoder undoes. */
static bool names_coding(const char *enc, size_t len)
{
    return has_token(enc, len, "gzip") || has_token(enc, len, "x-gzip") || has_token(enc, len, "deflate") ||
           has_token(enc, len, "br");
}

static bool gzip_magic(const unsigned char *u, size_t n) { return n >= 2 && u[0] == 0x1f && u[1] == 0x8b; }

static bool zlib_magic(const unsigned char *u, size_t n)
{
    return n >= 2 && (u[0] & 0x0f) == 8 && ((u[0] << 8) | u[1]) % 31 == 0;
}

/* Undoes the content coding of the bytes *p (*n of them) that a header
 * (enc, Content-Encoding or Transfer-Encoding) announced, using out for the
 * result. The bytes decide, not the label: gzip and zlib by their magic
 * numbers, whatever the label said (servers send br over gzip and gzip over
 * brotli); markup is taken as already decoded (ClueWeb's gzip over plain
 * HTML) unless it is brotli that decodes cleanly; other bytes must decode
 * cleanly as brotli or raw deflate, else the body is undecodable: binary is
 * never handed on as text. */
static void undo_encoding(const char *enc, size_t enc_len, const char **p, size_t *n, wbuf *out,
                          http_decode_info *info)
{
    const unsigned char *u = (const unsigned char *)*p;
    const char *name;
    int rc;
    if (gzip_magic(u, *n)) {
        name = "gzip";
        rc = inflate_to(*p, *n, ZLIB_GZIP_WINDOW, out, &info->cut);
    } else if (zlib_magic(u, *n)) {
        name = "deflate";
        rc = inflate_to(*p, *n, ZLIB_WINDOW, out, &info->cut);
    } else if (looks_decoded(*p, *n)) {
        name = "br";
        if (!has_token(enc, enc_len, "br") || unbrotli_to(*p, *n, out, &info->cut) != 0) {
            info->encoding_ignored = true;
            return;
        }
        rc = 0;
    } else { /* no magic, not markup: only a clean decode, or a damaged one of the announced coding */
        int br = unbrotli_to(*p, *n, out, &info->cut);
        int raw = br == 0 ? -1 : inflate_to(*p, *n, ZLIB_RAW_WINDOW, out, &info->cut);
        if (br == 0) {
            name = "br";
            rc = 0;
        } else if (raw == 0 || (raw > 0 && has_token(enc, enc_len, "deflate"))) {
            name = "deflate";
            rc = raw;
        } else if (br > 0 && has_token(enc, enc_len, "br")) {
            name = "br";
            rc = unbrotli_to(*p, *n, out, &info->cut); /* its partial result again */
        } else {
            name = NULL;
            rc = -1;
        }
    }
    if (rc < 0) { /* nothing decoded and not markup */
        info->undecodable = true;
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
    /* Transfer-Encoding gzip (rare, but sent) is undone like a content coding */
    if (te && n && names_coding(te, vlen)) {
        undo_encoding(te, vlen, &p, &n, &work[1], info);
        if (info->encoding) { /* keep the result out of work[1], which the next decoding reuses */
            buf_clear(&work[0]);
            buf_append(&work[0], p, n);
            p = work[0].data;
        }
    }
    const char *ce = http_header_get(r, "Content-Encoding", &vlen);
    if (!info->undecodable && n) {
        if (ce && names_coding(ce, vlen)) undo_encoding(ce, vlen, &p, &n, &work[1], info);
        else if (!info->encoding && gzip_magic((const unsigned char *)p, n)) /* gzip that no header named */
            undo_encoding("gzip", 4, &p, &n, &work[1], info);
    }
    *payload = p;
    *len = n;
}
