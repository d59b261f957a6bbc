/* arc.c - the ARC record reader: record lines, length checks, resync. */
#include "ingest/arc.h"

#include <stdio.h>
#include <string.h>

/* Longest record line accepted (the URL is most of it). */
#define ARC_LINE_MAX 65536
/* How far the reader looks for the next record line when a length is wrong. */
#define ARC_RESYNC_WINDOW ((size_t)1 << 20)
/* Fields of a record line in version 1 and version 2 files. */
#define ARC_V1_FIELDS 5
#define ARC_V2_FIELDS 10

typedef struct {
    const char *p;
    size_t n;
} span;

/* A parsed record line: the URL (which may hold spaces: it is everything
 * before the other fields), and the fields a document needs. */
typedef struct {
    span url, ip, date, mime;
    long long length;
} arc_line;

bool arc_sniff(const char *p, size_t n)
{
    return n >= 11 && memcmp(p, "filedesc://", 11) == 0;
}

static bool is_digits(span s)
{
    if (!s.n) return false;
    for (size_t i = 0; i < s.n; i++)
        if (s.p[i] < '0' || s.p[i] > '9') return false;
    return true;
}

/* True when p[0..n) begins with a URI scheme and its colon ("http:", "dns:", "filedesc:"). */
static bool starts_with_scheme(const char *p, size_t n)
{
    if (!n || !((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z'))) return false;
    for (size_t i = 1; i < n; i++) {
        char c = p[i];
        if (c == ':') return true;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
              c == '.'))
            return false;
    }
    return false;
}

/* Parses a record line of `fields` fields (p[0..n), without its line end)
 * into *a; false when it is not one. The fields after the URL are taken
 * from the end of the line, so spaces in the URL do no harm. */
static bool parse_line(const char *p, size_t n, int fields, arc_line *a)
{
    while (n && p[n - 1] == '\r') n--;
    if (n > ARC_LINE_MAX || memchr(p, 0, n) || memchr(p, '\r', n) || !starts_with_scheme(p, n)) return false;
    span tail[ARC_V2_FIELDS - 1];
    size_t end = n;
    for (int k = fields - 2; k >= 0; k--) { /* the last fields-1 tokens, right to left */
        while (end && p[end - 1] == ' ') end--;
        size_t start = end;
        while (start && p[start - 1] != ' ') start--;
        if (start == end) return false;
        tail[k] = (span){p + start, end - start};
        end = start;
    }
    while (end && p[end - 1] == ' ') end--;
    if (!end) return false;
    span len = tail[fields - 2];
    if (!is_digits(len) || len.n > 18) return false;
    a->url = (span){p, end};
    a->ip = tail[0], a->date = tail[1], a->mime = tail[2];
    a->length = 0;
    for (size_t i = 0; i < len.n; i++) a->length = a->length * 10 + (len.p[i] - '0');
    return true;
}

/* True when the line starting at p (up to '\n' or n) is a record line. */
static bool record_line_at(const char *p, size_t n, int fields)
{
    arc_line a;
    const char *nl = memchr(p, '\n', n);
    return parse_line(p, nl ? (size_t)(nl - p) : n, fields, &a);
}

/* Fields of the line at p: the version block's line has as many as its
 * version's record lines (5 or 10), which the reader has not seen yet. */
static int line_fields(const warc_reader *r, const char *p, size_t n)
{
    if (arc_sniff(p, n)) return record_line_at(p, n, ARC_V2_FIELDS) ? ARC_V2_FIELDS : ARC_V1_FIELDS;
    return r->arc_fields ? r->arc_fields : ARC_V1_FIELDS;
}

/* Offset in p[from..n) of the first line after a '\n' that is a record line, or n. */
static size_t find_record_line(const char *p, size_t n, size_t from, int fields)
{
    for (size_t i = from; i < n;) {
        const char *nl = memchr(p + i, '\n', n - i);
        if (!nl) break;
        size_t at = (size_t)(nl - p) + 1;
        if (at < n && record_line_at(p + at, n - at, fields)) return at;
        i = at;
    }
    return n;
}

/* True when what follows a record block (p[0..n)) looks right: line
 * breaks or NUL padding, then a record line or the end of input. */
static bool follows_ok(const char *p, size_t n, int fields)
{
    size_t i = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n' || p[i] == '\0')) i++;
    return i == n || record_line_at(p + i, n - i, fields);
}

/* Skips bytes up to the next record line (or the end). */
static void resync(isrc *s, int fields)
{
    for (;;) {
        const char *p;
        size_t n = isrc_peek(s, ARC_RESYNC_WINDOW, &p);
        size_t at = find_record_line(p, n, 0, fields);
        if (at < n || n < ARC_RESYNC_WINDOW) {
            isrc_read(s, NULL, at);
            return;
        }
        isrc_read(s, NULL, n - ARC_LINE_MAX); /* keep a line the window may have cut */
    }
}

static void add_span(warc_record *rec, const char *name, span v)
{
    warc_add_field(rec, name, strlen(name), v.p, v.n);
}

/* The record's fields, as a WARC record of the same capture would have them. */
static void set_fields(warc_record *rec, const arc_line *a, bool version_block)
{
    snprintf(rec->version, sizeof rec->version, "ARC");
    const char *type = version_block ? "warcinfo" : "response";
    warc_add_field(rec, "WARC-Type", 9, type, strlen(type));
    add_span(rec, "WARC-Target-URI", a->url);
    if (a->date.n == 14 && is_digits(a->date)) { /* YYYYMMDDhhmmss -> YYYY-MM-DDThh:mm:ssZ */
        const char *d = a->date.p;
        char iso[21];
        snprintf(iso, sizeof iso, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", d, d + 4, d + 6, d + 8, d + 10, d + 12);
        warc_add_field(rec, "WARC-Date", 9, iso, 20);
    }
    add_span(rec, "WARC-IP-Address", a->ip);
    add_span(rec, "Content-Type", a->mime);
}

/* Reads the version from the version block's text, which begins with it
 * ("1 0 InternetArchive", "2 0 Alexa"): version 2 record lines have 10 fields. */
static void read_version(warc_reader *r, const char *p, size_t n)
{
    r->arc_fields = n && p[0] == '2' ? ARC_V2_FIELDS : ARC_V1_FIELDS;
}

static warc_status fail(const char **kind, const char *k)
{
    *kind = k;
    return WARC_FAILED;
}

/* Takes the record's block when its length is wrong: cut where the next
 * record line starts, or at the end of input. */
static warc_status recover_block(warc_reader *r, warc_record *rec, size_t L, int fields, const char **kind)
{
    isrc *s = r->src;
    const char *p;
    size_t n = isrc_peek(s, L + ARC_RESYNC_WINDOW, &p);
    size_t next = find_record_line(p, n, 0, fields);
    if (next == n && n < L) {
        snprintf(r->message, sizeof r->message,
                 "record truncated: length %zu on its ARC line but the input ends after %zu bytes", L, n);
        isrc_read(s, NULL, n);
        return fail(kind, "truncated_record");
    }
    if (next == n && n == L + ARC_RESYNC_WINDOW) { /* no record line in sight: keep the declared block */
        warc_copy_block(s, rec, L);
        snprintf(r->message, sizeof r->message, "length %zu on its ARC line is followed by junk, not a record", L);
        rec->warning = "junk_after_record";
        return WARC_RECORD;
    }
    size_t blen = warc_keep_before_next(s, rec, p, next, "\n\0", 2, 2);
    snprintf(r->message, sizeof r->message, "length %zu on its ARC line is wrong: the record is %zu bytes", L, blen);
    return WARC_RECORD;
}

warc_status arc_next(warc_reader *r, warc_record *rec, const char **kind)
{
    isrc *s = r->src;
    if (!warc_record_begin(r, rec)) return WARC_END;

    const char *p;
    size_t n = isrc_peek(s, ARC_LINE_MAX + 1, &p);
    int fields = line_fields(r, p, n);
    const char *nl = memchr(p, '\n', n);
    size_t line_len = nl ? (size_t)(nl - p) : n;
    arc_line a;
    if (!nl || !parse_line(p, line_len, fields, &a)) {
        snprintf(r->message, sizeof r->message,
                 nl || n > ARC_LINE_MAX ? "no ARC record line here (junk skipped to the next record)"
                                        : "ARC record line cut by the end of input");
        isrc_read(s, NULL, 1);
        resync(s, line_fields(r, "", 0));
        return fail(kind, nl || n > ARC_LINE_MAX ? "no_arc_header" : "truncated_record");
    }
    bool version_block = arc_sniff(p, line_len);
    set_fields(rec, &a, version_block);
    isrc_read(s, NULL, line_len + 1);

    if ((unsigned long long)a.length > WARC_MAX_BLOCK) {
        snprintf(r->message, sizeof r->message, "record block of %lld bytes is over the %zu-byte limit", a.length,
                 WARC_MAX_BLOCK);
        isrc_read(s, NULL, (size_t)a.length);
        return fail(kind, "record_too_large");
    }
    size_t L = (size_t)a.length;
    int next_fields = version_block ? 0 : fields; /* after the version block: what it says */
    n = isrc_peek(s, L + ARC_LINE_MAX, &p);
    if (version_block && n >= L) read_version(r, p, L);
    if (!next_fields) next_fields = line_fields(r, "", 0);
    if (n >= L && follows_ok(p + L, n - L, next_fields)) { /* no copy: the block lies whole in the buffer */
        rec->block.data = p;
        rec->block.len = L;
        isrc_read(s, NULL, L);
        return WARC_RECORD;
    }
    return recover_block(r, rec, L, next_fields, kind);
}
