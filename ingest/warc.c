/* warc.c - the WARC record reader: header parsing, length checks, resync. */
#include "ingest/warc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

/* How far past a record's declared end the reader looks to confirm it. */
#define TRAILER_PEEK 16
/* How far the reader looks for the real start of the next record when the
 * declared length is wrong. */
#define RESYNC_WINDOW ((size_t)1 << 20)
/* Chunk scanned at a time while skipping junk. */
#define SCAN_CHUNK 65536
/* Bytes of "WARC/" */
#define MAGIC_LEN 5

void warc_reader_init(warc_reader *r, isrc *src)
{
    memset(r, 0, sizeof *r);
    r->src = src;
}

void warc_record_free(warc_record *rec)
{
    buf_free(&rec->head);
    buf_free(&rec->copy);
    free(rec->fields);
    memset(rec, 0, sizeof *rec);
}

void warc_copy_block(isrc *s, warc_record *rec, size_t n)
{
    buf_clear(&rec->copy);
    buf_reserve(&rec->copy, n);
    rec->copy.len = isrc_read(s, rec->copy.data, n);
    rec->copy.data[rec->copy.len] = 0;
    rec->block.data = rec->copy.data;
    rec->block.len = rec->copy.len;
}

size_t warc_keep_before_next(isrc *s, warc_record *rec, const char *p, size_t next, const char *trailing,
                             size_t ntrailing, int max_trailing)
{
    size_t blen = next;
    for (int k = 0; k < max_trailing && blen && memchr(trailing, p[blen - 1], ntrailing); k++) blen--;
    warc_copy_block(s, rec, blen);
    isrc_read(s, NULL, next - blen);
    rec->warning = "content_length_mismatch";
    return blen;
}

static bool is_record_start(const char *p, size_t n)
{
    return n >= MAGIC_LEN + 1 && memcmp(p, "WARC/", MAGIC_LEN) == 0 &&
           p[MAGIC_LEN] >= '0' && p[MAGIC_LEN] <= '9';
}

/* Offset in p[from..n) of the first line starting with "WARC/<digit>", or n. */
static size_t find_record_start(const char *p, size_t n, size_t from)
{
    for (size_t i = from; i + MAGIC_LEN + 1 <= n;) {
        const char *nl = memchr(p + i, '\n', n - i);
        if (!nl) break;
        size_t at = (size_t)(nl - p) + 1;
        if (is_record_start(p + at, n - at)) return at;
        i = at;
    }
    return n;
}

/* Skips bytes up to the next line starting with "WARC/" (or the end). */
static void resync(isrc *s)
{
    for (;;) {
        const char *p;
        size_t n = isrc_peek(s, SCAN_CHUNK, &p);
        if (n == 0) return;
        if (is_record_start(p, n)) return;
        size_t at = find_record_start(p, n, 0);
        if (at < n) {
            isrc_read(s, NULL, at);
            return;
        }
        if (n < SCAN_CHUNK) {
            if (n <= MAGIC_LEN + 1) { /* a short tail: is it the start of a record? */
                if (n >= MAGIC_LEN && memcmp(p, "WARC/", MAGIC_LEN) == 0) return;
            }
            isrc_read(s, NULL, n);
            return;
        }
        /* keep the last line's start: it may be a header cut by the window */
        const char *last_nl = NULL;
        for (size_t i = n; i > 0; i--)
            if (p[i - 1] == '\n') { last_nl = p + i - 1; break; }
        size_t keep = last_nl ? (size_t)(p + n - last_nl - 1) : 0;
        isrc_read(s, NULL, keep < n / 2 ? n - keep : n);
    }
}

/* Skips CR, LF, NUL, space and tab between records; false at the end of input. */
static bool warc_skip_separators(isrc *s)
{
    for (;;) {
        const char *p;
        size_t n = isrc_peek(s, SCAN_CHUNK, &p);
        if (n == 0) return false;
        size_t i = 0;
        while (i < n && (p[i] == '\r' || p[i] == '\n' || p[i] == '\0' || p[i] == ' ' || p[i] == '\t')) i++;
        if (i) isrc_read(s, NULL, i);
        if (i < n) return true;
    }
}

void warc_add_field(warc_record *rec, const char *name, size_t nlen, const char *val, size_t vlen)
{
    if (rec->nfields == rec->fields_cap) {
        rec->fields_cap = rec->fields_cap ? rec->fields_cap * 2 : 16;
        rec->fields = xrealloc(rec->fields, (size_t)rec->fields_cap * sizeof *rec->fields);
    }
    warc_field *f = &rec->fields[rec->nfields++];
    f->name_off = rec->head.len;
    buf_append(&rec->head, name, nlen);
    buf_putc(&rec->head, 0);
    f->value_off = rec->head.len;
    buf_append(&rec->head, val, vlen);
    buf_putc(&rec->head, 0);
    f->value_len = vlen;
}

/* Appends a folded continuation to the last field (its value is last in head). */
static void continue_field(warc_record *rec, const char *val, size_t vlen)
{
    if (!rec->nfields || !vlen) return;
    warc_field *f = &rec->fields[rec->nfields - 1];
    rec->head.len--; /* drop the NUL */
    if (f->value_len) buf_putc(&rec->head, ' '), f->value_len++;
    buf_append(&rec->head, val, vlen);
    buf_putc(&rec->head, 0);
    f->value_len += vlen;
}

/* Parses the header lines in p[0..n) (after the version line) into rec. */
static void parse_fields(warc_record *rec, const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - p) : n;
        const char *line = p + i;
        size_t len = end - i;
        i = end + 1;
        while (len && line[len - 1] == '\r') len--;
        if (!len) continue;
        if (line[0] == ' ' || line[0] == '\t') {
            trim_blanks(&line, &len);
            continue_field(rec, line, len);
            continue;
        }
        const char *colon = memchr(line, ':', len);
        if (!colon) continue; /* junk line: ignored */
        const char *name = line, *val = colon + 1;
        size_t nlen = (size_t)(colon - line), vlen = len - nlen - 1;
        trim_blanks(&name, &nlen);
        trim_blanks(&val, &vlen);
        warc_add_field(rec, name, nlen, val, vlen);
    }
}

const char *warc_get(const warc_record *rec, const char *name, size_t *len)
{
    for (int i = 0; i < rec->nfields; i++) {
        const warc_field *f = &rec->fields[i];
        if (strcasecmp(rec->head.data + f->name_off, name) == 0) {
            if (len) *len = f->value_len;
            return rec->head.data + f->value_off;
        }
    }
    if (len) *len = 0;
    return NULL;
}

/* Parses a decimal Content-Length; -1 when missing or malformed. */
static long long parse_length(const char *v, size_t n)
{
    if (!v || !n || n > 18) return -1;
    long long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') return -1;
        x = x * 10 + (v[i] - '0');
    }
    return x;
}

/* True when what follows a record block (p[0..n))
 * looks right: line breaks, then the next record, NUL padding or the end. */
static bool trailer_ok(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n' || p[i] == '\0')) i++;
    if (i == n) return true; /* only separators or padding in sight */
    return n - i >= MAGIC_LEN && memcmp(p + i, "WARC/", MAGIC_LEN) == 0;
}

static warc_status fail(const char **kind, const char *k)
{
    *kind = k;
    return WARC_FAILED;
}

bool warc_record_begin(warc_reader *r, warc_record *rec)
{
    rec->warning = NULL;
    r->message[0] = 0;
    if (!warc_skip_separators(r->src)) return false;
    rec->offset = isrc_offset(r->src);
    rec->number = ++r->records;
    rec->nfields = 0;
    buf_clear(&rec->head);
    rec->block.data = NULL;
    rec->block.len = 0;
    rec->version[0] = 0;
    return true;
}

warc_status warc_next(warc_reader *r, warc_record *rec, const char **kind)
{
    isrc *s = r->src;
    if (!warc_record_begin(r, rec)) return WARC_END;

    const char *p;
    size_t n = isrc_peek(s, SCAN_CHUNK, &p);
    if (!is_record_start(p, n)) {
        snprintf(r->message, sizeof r->message, "no WARC header here (junk skipped to the next record)");
        isrc_read(s, NULL, 1);
        resync(s);
        return fail(kind, "no_warc_header");
    }

    /* find the end of the header block: an empty line, or the end of input */
    size_t want = SCAN_CHUNK, hdr_end = 0, body_start = 0;
    bool found = false;
    for (;;) {
        n = isrc_peek(s, want, &p);
        for (size_t i = 0; i < n;) {
            const char *nl = memchr(p + i, '\n', n - i);
            if (!nl) break;
            size_t j = (size_t)(nl - p) + 1;
            size_t k = j;
            while (k < n && p[k] == '\r') k++;
            if (k < n && p[k] == '\n') {
                hdr_end = j;
                body_start = k + 1;
                found = true;
                break;
            }
            if (k == n && n < want) break;
            i = j;
        }
        if (found) break;
        if (n < want) { /* the header runs to the end of input */
            hdr_end = body_start = n;
            break;
        }
        if (want >= WARC_MAX_HEADER) {
            snprintf(r->message, sizeof r->message, "WARC header longer than %u bytes", WARC_MAX_HEADER);
            isrc_read(s, NULL, 1);
            resync(s);
            return fail(kind, "header_too_long");
        }
        want *= 2;
    }

    if (isrc_damaged_within(s, rec->offset, rec->offset + hdr_end)) {
        snprintf(r->message, sizeof r->message, "header cut by damaged compressed data");
        isrc_read(s, NULL, 1);
        resync(s);
        return fail(kind, "damaged_record");
    }
    const char *vl_end = memchr(p, '\n', hdr_end);
    size_t vlen = vl_end ? (size_t)(vl_end - p) : hdr_end;
    size_t vl_next = vl_end ? vlen + 1 : hdr_end;
    while (vlen && (p[vlen - 1] == '\r' || p[vlen - 1] == ' ')) vlen--;
    if (vlen >= sizeof rec->version) vlen = sizeof rec->version - 1;
    memcpy(rec->version, p, vlen);
    rec->version[vlen] = 0;
    parse_fields(rec, p + vl_next, hdr_end - vl_next);

    size_t cl_len;
    const char *cl = warc_get(rec, "Content-Length", &cl_len);
    long long length = parse_length(cl, cl_len);
    if (length < 0) {
        snprintf(r->message, sizeof r->message, cl ? "bad Content-Length '%.40s'" : "no Content-Length",
                 cl ? cl : "");
        isrc_read(s, NULL, body_start);
        resync(s);
        return fail(kind, cl ? "bad_content_length" : "missing_content_length");
    }
    isrc_read(s, NULL, body_start);

    if ((unsigned long long)length > WARC_MAX_BLOCK) {
        snprintf(r->message, sizeof r->message, "record block of %lld bytes is over the %zu-byte limit",
                 length, WARC_MAX_BLOCK);
        isrc_read(s, NULL, (size_t)length);
        return fail(kind, "record_too_large");
    }
    size_t L = (size_t)length;
    n = isrc_peek(s, L + TRAILER_PEEK, &p);
    if (n >= L && trailer_ok(p + L, n - L)) { /* the block lies whole in the source's buffer: no copy */
        rec->block.data = p;
        rec->block.len = L;
        isrc_read(s, NULL, L);
        return WARC_RECORD;
    }

    /* the length is wrong: find where the next record really starts */
    n = isrc_peek(s, L + RESYNC_WINDOW, &p);
    size_t next = find_record_start(p, n, 0);
    if (next == n && n < L) {
        snprintf(r->message, sizeof r->message,
                 "record truncated: Content-Length %zu but the input ends after %zu bytes", L, n);
        isrc_read(s, NULL, n);
        return fail(kind, "truncated_record");
    }
    if (next == n && n < L + RESYNC_WINDOW) { /* the last record: it runs to the end of input */
        size_t blen = warc_keep_before_next(s, rec, p, n, "\r\n\0", 3, INT_MAX);
        snprintf(r->message, sizeof r->message, "Content-Length %zu is wrong: the last record is %zu bytes", L, blen);
        return WARC_RECORD;
    }
    if (next == n) { /* no record follows in sight: keep the declared block, skip what trails */
        warc_copy_block(s, rec, L);
        snprintf(r->message, sizeof r->message, "Content-Length %zu is followed by junk, not a record", L);
        rec->warning = "junk_after_record";
        return WARC_RECORD;
    }
    size_t blen = warc_keep_before_next(s, rec, p, next, "\r\n", 2, 4);
    snprintf(r->message, sizeof r->message, "Content-Length %zu is wrong: the record is %zu bytes", L, blen);
    return WARC_RECORD;
}
