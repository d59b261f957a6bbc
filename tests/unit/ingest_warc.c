/* ingest_warc.c - the WARC record reader on real and damaged files, and the
 * HTTP response parser and body decoder on real captures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/input.h"
#include "ingest/arc.h"
#include "ingest/http.h"
#include "ingest/sniff.h"
#include "ingest/warc.h"
#include "tests/tap.h"

typedef struct {
    int records, failed, mismatched;
    int by_type[8]; /* warcinfo request response metadata revisit resource conversion other */
} tally;

static const char *const types[] = {"warcinfo", "request", "response", "metadata", "revisit", "resource", "conversion"};

static char *path_of(const char *rel)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/warc/%s", shared_dir(), rel);
    require_file(path);
    return path;
}

/* Reads every record of a file; calls check() on each good one when given. */
static tally read_all(const char *rel, void (*check)(const warc_record *, void *), void *ctx)
{
    tally t = {0};
    winput *in = input_open(path_of(rel));
    if (!in) return t;
    isrc s;
    isrc_from_input(&s, in);
    warc_reader r;
    warc_reader_init(&r, &s);
    warc_record rec;
    memset(&rec, 0, sizeof rec);
    const char *kind;
    warc_status st;
    while ((st = warc_next(&r, &rec, &kind)) != WARC_END) {
        if (st == WARC_FAILED) { t.failed++; continue; }
        t.records++;
        if (rec.warning) t.mismatched++;
        const char *type = warc_get(&rec, "WARC-Type", NULL);
        int k = 7;
        for (int i = 0; i < 7; i++)
            if (type && !strcmp(type, types[i])) k = i;
        t.by_type[k]++;
        if (check) check(&rec, ctx);
    }
    warc_record_free(&rec);
    input_close(in);
    return t;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)size + 1);
    *n = fread(p, 1, (size_t)size, f);
    fclose(f);
    return p;
}

typedef struct {
    const char *raw;
    size_t raw_len;
    int bad_offsets;
} offset_check;

static void check_offset(const warc_record *rec, void *ctx)
{
    offset_check *c = ctx;
    if (rec->offset + 5 > c->raw_len || memcmp(c->raw + rec->offset, "WARC/", 5) != 0) c->bad_offsets++;
}

/* Offsets of lines starting with "WARC/1" in the raw bytes (independent of Content-Length). */
static int count_record_lines(const char *p, size_t n)
{
    int k = 0;
    for (size_t i = 0; i + 6 <= n; i++)
        if ((i == 0 || p[i - 1] == '\n') && memcmp(p + i, "WARC/1", 6) == 0) k++;
    return k;
}

static void test_common_crawl(void)
{
    size_t n;
    char *raw = slurp(path_of("resiliparse/tests/data/warcfile.warc"), &n);
    offset_check c = {raw, n, 0};
    tally t = read_all("resiliparse/tests/data/warcfile.warc", check_offset, &c);
    is_int(t.records, 50, "CC warc: 50 records");
    is_int(t.records, count_record_lines(raw, n), "CC warc: as many as WARC/ lines in the file");
    is_int(t.failed + t.mismatched, 0, "CC warc: no damage found");
    is_int(t.by_type[0], 1, "CC warc: 1 warcinfo");
    is_int(t.by_type[1], 17, "CC warc: 17 requests");
    is_int(t.by_type[2], 16, "CC warc: 16 responses");
    is_int(t.by_type[3], 16, "CC warc: 16 metadata");
    is_int(c.bad_offsets, 0, "CC warc: every record offset points at its WARC/ line");
    free(raw);
    tally gz = read_all("resiliparse/tests/data/warcfile.warc.gz", NULL, NULL);
    tally lz = read_all("resiliparse/tests/data/warcfile.warc.lz4", NULL, NULL);
    ok(gz.records == 50 && lz.records == 50 && gz.failed + lz.failed == 0, "CC warc.gz and .lz4: the same 50 records");
}

static void check_fold(const warc_record *rec, void *ctx)
{
    (void)ctx;
    is_str(warc_get(rec, "Fold", NULL), "a b", "folded field joined");
    is_str(warc_get(rec, "Fold-Trim", NULL), "a b c", "folded field over three lines");
    is_str(warc_get(rec, "Quoted-Fold", NULL), "\"a b\"", "quoted fold");
    is_str(warc_get(rec, "whitespace", NULL), "one  two", "inner spaces kept, name case-insensitive");
    is_str(warc_get(rec, "Snowman", NULL), "\xe2\x98\x83", "UTF-8 value");
    is_str(rec->version, "WARC/1.0", "version");
}

static void test_damaged(void)
{
    tally t = read_all("jwarc/history/jwarc-testsuite/fold.warc", check_fold, NULL);
    is_int(t.records, 1, "fold.warc: one record without a terminator");

    t = read_all("jwarc/history/jwarc-testsuite/utf8field.warc", NULL, NULL);
    is_int(t.failed, 1, "utf8field.warc: no Content-Length is a failure");

    t = read_all("pywb/sample_archive/warcs/example.warc", NULL, NULL);
    is_int(t.records, 6, "pywb example.warc: 6 records despite a wrong Content-Length");
    is_int(t.mismatched, 1, "pywb example.warc: the wrong length is flagged");

    t = read_all("pywb/sample_archive/warcs/missing-status-text.warc", NULL, NULL);
    is_int(t.records, 1, "CR CR LF lines: the record is read");

    t = read_all("warcio/test/data/example-trunc.warc", NULL, NULL);
    is_int(t.records, 4, "example-trunc: 4 records before the NUL padding");
    is_int(t.failed, 0, "example-trunc: the padding is not a failure");

    t = read_all("resiliparse/tests/data/clipped.warc.gz", NULL, NULL);
    ok(t.records == 0 && t.failed == 1, "clipped gzip: the cut record fails");

    t = read_all("warcio/test/data/example-wrong-chunks.warc.gz", NULL, NULL);
    is_int(t.records, 2, "gzip members across record boundaries: 2 records");

    t = read_all("cc_net/tests/data/sample.warc.txt", NULL, NULL);
    ok(t.records == 4 && t.by_type[6] == 3 && t.mismatched == 4, "cc_net WET: 4 records, lengths recovered");

    size_t n;
    char *raw = slurp(path_of("resiliparse/tests/data/block-sized-records.warc"), &n);
    offset_check c = {raw, n, 0};
    t = read_all("resiliparse/tests/data/block-sized-records.warc", check_offset, &c);
    ok(t.records == 3 && c.bad_offsets == 0, "block-sized records: 3, offsets right");
    free(raw);

    t = read_all("warcio/history/test/data/standard-torture-validate-record.warc", NULL, NULL);
    is_int(t.records + t.failed, 17, "torture test: 17 records seen");

    /* junk before a record, then a good one */
    const char junk[] = "garbage line\nmore\nWARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n";
    isrc s;
    isrc_from_memory(&s, junk, sizeof junk - 1, "junk");
    warc_reader r;
    warc_reader_init(&r, &s);
    warc_record rec;
    memset(&rec, 0, sizeof rec);
    const char *kind = NULL;
    is_int(warc_next(&r, &rec, &kind), WARC_FAILED, "junk: reported");
    is_str(kind, "no_warc_header", "junk: its kind");
    is_int(warc_next(&r, &rec, &kind), WARC_RECORD, "junk: the next record is found");
    ok(rec.block.len == 2 && memcmp(rec.block.data, "hi", 2) == 0 && rec.offset == 18, "junk: block and offset");
    is_int(warc_next(&r, &rec, &kind), WARC_END, "junk: end");

    /* the last record says fewer bytes than it has, and no record follows: the
     * block is what is there, less the record terminator and NUL padding */
    const char last[] = "WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
                        "01234567890123456789012345\r\n\r\n\0\0";
    isrc_from_memory(&s, last, sizeof last - 1, "last");
    warc_reader_init(&r, &s);
    is_int(warc_next(&r, &rec, &kind), WARC_RECORD, "wrong length, last record: kept");
    ok(rec.block.len == 35 && memcmp(rec.block.data + 33, "45", 2) == 0 && rec.warning &&
           !strcmp(rec.warning, "content_length_mismatch"),
       "wrong length, last record: the block up to its end, line ends and NULs cut (%zu bytes)", rec.block.len);
    is_int(warc_next(&r, &rec, &kind), WARC_END, "wrong length, last record: end");
    warc_record_free(&rec);
}

/* The block of the first response record of a file, HTTP-parsed. */
static wbuf first_response;
static void grab_response(const warc_record *rec, void *ctx)
{
    (void)ctx;
    const char *t = warc_get(rec, "WARC-Type", NULL);
    if (t && !strcmp(t, "response") && !first_response.len) buf_append(&first_response, rec->block.data, rec->block.len);
}

static int decode_file(const char *rel, http_response *r, const char **payload, size_t *n, http_decode_info *info,
                       wbuf work[2])
{
    buf_clear(&first_response);
    read_all(rel, grab_response, NULL);
    if (http_parse_response(first_response.data ? first_response.data : "", first_response.len, r) != 0) return -1;
    http_decode_body(r, work, payload, n, info);
    return 0;
}

static bool starts_html(const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++, n--;
    return n > 5 && (!strncmp(p, "<!", 2) || !strncmp(p, "<html", 5) || !strncmp(p, "<HTML", 5));
}

/* A response with header line `header` over body[0..n), decoded. */
static void decode_relabelled(const char *header, const char *body, size_t n, wbuf work[2], const char **p,
                              size_t *len, http_decode_info *info)
{
    static wbuf msg = WBUF_INIT;
    static http_response r;
    buf_clear(&msg);
    buf_printf(&msg, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n%s\r\n\r\n", header);
    buf_append(&msg, body, n);
    http_parse_response(msg.data, msg.len, &r);
    http_decode_body(&r, work, p, len, info);
}

/* Headers that lie about the coding (issue 16): the bytes decide, or the
 * body is undecodable; binary never comes out as the page. page is the
 * decoded page of the brotli capture. */
static void test_encoding_lies(const wbuf *page, wbuf work[2])
{
    http_response r;
    const char *p;
    size_t n;
    http_decode_info info;
    wbuf brotli = WBUF_INIT, gz = WBUF_INIT;
    decode_file("ukwa-webarchive-discovery/compression/transfer_compression_brotli.warc", &r, &p, &n, &info, work);
    buf_append(&brotli, r.body, r.body_len);
    unsigned char *z = malloc(compressBound(page->len) + 64);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    zs.next_in = (unsigned char *)page->data;
    zs.avail_in = (uInt)page->len;
    zs.next_out = z;
    zs.avail_out = (uInt)(compressBound(page->len) + 64);
    deflate(&zs, Z_FINISH);
    buf_append(&gz, z, zs.total_out);
    deflateEnd(&zs);
    free(z);

    decode_relabelled("Content-Encoding: gzip", brotli.data, brotli.len, work, &p, &n, &info);
    ok(!info.undecodable && n == page->len && !memcmp(p, page->data, n), "lie: gzip label on a brotli body decoded as brotli");
    decode_relabelled("Content-Encoding: br", gz.data, gz.len, work, &p, &n, &info);
    ok(!info.undecodable && n == page->len && !memcmp(p, page->data, n), "lie: br label on a gzip body decoded as gzip");
    decode_relabelled("Transfer-Encoding: gzip", gz.data, gz.len, work, &p, &n, &info);
    ok(!info.undecodable && n == page->len && !memcmp(p, page->data, n), "lie: Transfer-Encoding gzip undone");
    decode_relabelled("Transfer-Encoding: chunked, gzip", "0\r\n\r\n", 5, work, &p, &n, &info);
    ok(n == 0 && !info.undecodable, "Transfer-Encoding chunked, gzip: an empty body stays empty");
    static const char binary[] = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\xff\xfe\xfd binary";
    decode_relabelled("Content-Encoding: gzip", binary, sizeof binary - 1, work, &p, &n, &info);
    ok(info.undecodable, "lie: gzip label on bytes that no coding decodes: undecodable, not text");
    static const char text[] = "Plain text that does not start with markup, under a lying gzip label.";
    decode_relabelled("Content-Encoding: gzip", text, sizeof text - 1, work, &p, &n, &info);
    ok(!info.undecodable && info.encoding_ignored && n == sizeof text - 1, "lie: gzip label on plain text: kept as text");
    decode_relabelled("Content-Encoding: identity", gz.data, gz.len, work, &p, &n, &info);
    ok(n == page->len && !memcmp(p, page->data, n), "gzip bytes that no header named are decoded by their magic");
    buf_free(&brotli);
    buf_free(&gz);
}

static void test_http(void)
{
    http_response r;
    const char *p;
    size_t n, len;
    http_decode_info info;
    wbuf work[2] = {WBUF_INIT, WBUF_INIT};

    ok(decode_file("pywb/sample_archive/warcs/missing-status-text.warc", &r, &p, &n, &info, work) == 0,
       "CR CR LF response parses");
    is_int(r.status, 302, "status without a reason phrase");
    const char *loc = http_header_get(&r, "location", &len);
    ok(loc && len == strlen("http://www.iana.org/badst") && !memcmp(loc, "http://www.iana.org/badst", len),
       "header value without its CRs");

    decode_file("warcio/test/data/example-iana.org-chunked.warc", &r, &p, &n, &info, work);
    ok(info.dechunked && !info.bad_chunking && starts_html(p, n), "chunked body undone");
    ok(n > 0 && strstr(p, "</html>") != NULL, "chunked body: whole page");

    decode_file("warcio/test/data/example.warc.gz", &r, &p, &n, &info, work);
    ok(info.encoding && !strcmp(info.encoding, "gzip") && starts_html(p, n), "gzip body inflated");

    decode_file("ukwa-webarchive-discovery/compression/transfer_compression_brotli.warc", &r, &p, &n, &info, work);
    ok(info.encoding && !strcmp(info.encoding, "br") && starts_html(p, n), "brotli body decoded");
    wbuf br = WBUF_INIT;
    buf_append(&br, p, n);
    decode_file("ukwa-webarchive-discovery/compression/transfer_compression_none.warc", &r, &p, &n, &info, work);
    ok(n == br.len && !memcmp(p, br.data, n), "brotli body equals the uncompressed capture");
    test_encoding_lies(&br, work);
    buf_free(&br);

    decode_file("resiliparse/tests/data/clueweb-quirk.warc.gz", &r, &p, &n, &info, work);
    ok(info.encoding_ignored && !info.encoding && starts_html(p, n), "ClueWeb: gzip header over plain HTML ignored");

    decode_file("resiliparse/tests/data/warcfile.warc", &r, &p, &n, &info, work);
    ok(!info.encoding && !info.dechunked && r.status == 200, "Common Crawl: X-Crawler-* headers not applied");

    /* synthetic: a cut gzip body keeps what decoded; junk headers are skipped */
    const char page[] = "<html><body>hello hello hello hello hello</body></html>";
    unsigned char gz[256];
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (unsigned char *)page;
    z.avail_in = sizeof page - 1;
    z.next_out = gz;
    z.avail_out = sizeof gz;
    deflate(&z, Z_FINISH);
    size_t gz_len = sizeof gz - z.avail_out;
    deflateEnd(&z);
    wbuf msg = WBUF_INIT;
    buf_puts(&msg, "HTTP/1.1 200 OK\nthis is junk\nContent-Encoding: gzip\n\n");
    buf_append(&msg, gz, gz_len - 10); /* cut inside the trailer and the last block */
    ok(http_parse_response(msg.data, msg.len, &r) == 0 && r.nheaders == 1, "LF-only, junk header skipped");
    http_decode_body(&r, work, &p, &n, &info);
    ok(info.decode_error && !info.encoding_ignored, "cut gzip: flagged as damaged");
    ok(n > 0 && !memcmp(p, page, n < 6 ? n : 6), "cut gzip: decoded start kept");
    buf_free(&msg);

    buf_puts(&msg, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZZ");
    http_parse_response(msg.data, msg.len, &r);
    http_decode_body(&r, work, &p, &n, &info);
    ok(info.bad_chunking && n == 5 && !memcmp(p, "hello", 5), "broken chunking keeps the parsed chunks");
    buf_free(&msg);

    /* RFC 9112 7.1: chunk-size = 1*HEXDIG, and ABNF's HEXDIG matches "A"-"F"
     * in either case; sizes with upper-case letters, lower-case and mixed */
    static const char *const sizes[] = {"AB", "cd", "Fe", "1F", "C"};
    wbuf body = WBUF_INIT;
    buf_puts(&msg, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t size = strtoul(sizes[k], NULL, 16);
        buf_puts(&msg, sizes[k]);
        buf_puts(&msg, "\r\n");
        for (size_t i = 0; i < size; i++) {
            char c = (char)('a' + (k * 7 + i) % 26);
            buf_append(&body, &c, 1);
            buf_append(&msg, &c, 1);
        }
        buf_puts(&msg, "\r\n");
    }
    buf_puts(&msg, "0\r\n\r\n");
    http_parse_response(msg.data, msg.len, &r);
    http_decode_body(&r, work, &p, &n, &info);
    ok(info.dechunked && !info.bad_chunking && n == body.len && !memcmp(p, body.data, n),
       "chunk sizes in upper-, lower- and mixed-case hex: %zu bytes, the body exactly", body.len);
    buf_free(&msg);
    buf_free(&body);

    ok(http_parse_response("HTTPX/1.1 200 OK\r\n\r\n", 20, &r) != 0, "HTTPX is not a status line");
    ok(http_parse_response("HTTP/1.1 20 OK\r\n\r\n", 18, &r) != 0, "two-digit status rejected");

    char mime[64], cs[40];
    http_parse_content_type("Text/HTML; Charset=\"GB2312\"", 27, mime, sizeof mime, cs, sizeof cs);
    ok(!strcmp(mime, "text/html") && !strcmp(cs, "gb2312"), "content type and quoted charset");
    buf_free(&work[0]);
    buf_free(&work[1]);
    buf_free(&first_response);
}

static void test_sniff(void)
{
    is_int(sniff_kind("WARC/1.0\r\n", 10), INPUT_WARC, "sniff: WARC");
    is_int(sniff_kind("filedesc://a.arc 0.0.0.0 20080430204825 text/plain 9\n", 53), INPUT_ARC, "sniff: ARC");
    is_int(sniff_kind("filedesc: notes\n", 16), INPUT_TEXT, "sniff: 'filedesc:' without '//' is text");
    is_int(sniff_kind("  {\"text\":1}", 12), INPUT_JSONL, "sniff: JSONL");
    is_int(sniff_kind("\n<!DOCTYPE html><p>", 19), INPUT_HTML, "sniff: HTML");
    is_int(sniff_kind("<note>xml</note>", 16), INPUT_TEXT, "sniff: XML that is not HTML is text");
    static const char bang_comment[] = "<!-- <div> --!>notes, not a page";
    is_int(sniff_kind(bang_comment, sizeof bang_comment - 1), INPUT_TEXT, "sniff: a comment ends at \"--!>\" too");
    static const char abrupt_comment[] = "<!--><div>a page, then a stray -->notes";
    is_int(sniff_kind(abrupt_comment, sizeof abrupt_comment - 1), INPUT_HTML, "sniff: <!--> ends at once");
    static const char after_text[] = "PHP Notice: x on line 3\n  <!DOCTYPE html><title>t</title>";
    is_int(sniff_kind(after_text, sizeof after_text - 1), INPUT_HTML, "sniff: a doctype line after text is HTML");
    static const char prose[] = "write <html> first\n";
    is_int(sniff_kind(prose, sizeof prose - 1), INPUT_TEXT, "sniff: <html> inside a line of prose is text");
    static const char unclosed[] = "<!-- never closed <div>";
    is_int(sniff_kind(unclosed, sizeof unclosed - 1), INPUT_HTML, "sniff: a comment that runs past the window is markup");
    is_int(sniff_kind("PK\x03\x04zz", 6), INPUT_ARCHIVE, "sniff: zip");
    is_int(sniff_kind("\x1f\x8b\x08", 3), INPUT_COMPRESSED, "sniff: gzip");
    is_int(sniff_kind("ab\0cd", 5), INPUT_BINARY, "sniff: NUL bytes are binary");
    is_int(sniff_kind("", 0), INPUT_EMPTY, "sniff: empty");
}

/* The ARC reader on hand-made files: a version block, a record whose URL
 * has spaces, a dns record, NUL padding, a record cut by the end; junk
 * where a record line should be. */
static void test_arc(void)
{
    static const char arc[] =
        "filedesc://t.arc 0.0.0.0 20080430204825 text/plain 65\n"
        "1 0 test\nURL IP-address Archive-date Content-type Archive-length\n\n"
        "http://a.example/x y.html 1.2.3.4 20080430204826 text/html 33\n"
        "HTTP/1.0 200 OK\r\n\r\n<p>a page</p>\n\n\n"
        "dns:a.example 1.2.3.4 20080430204825 text/dns 9\n1.2.3.4\n\n\n\0\0"
        "http://b.example/ 1.2.3.4 null text/html 500\nHTTP/1.0 200 OK\r\n";
    isrc s;
    isrc_from_memory(&s, arc, sizeof arc - 1, "t.arc");
    warc_reader r;
    warc_reader_init(&r, &s);
    warc_record rec;
    memset(&rec, 0, sizeof rec);
    const char *kind = NULL;
    is_int(arc_next(&r, &rec, &kind), WARC_RECORD, "arc: version block read");
    ok(!strcmp(warc_get(&rec, "WARC-Type", NULL), "warcinfo") && rec.offset == 0 && rec.block.len == 65,
       "arc: version block is a warcinfo record of its length");
    is_int(arc_next(&r, &rec, &kind), WARC_RECORD, "arc: record 2 read");
    ok(!strcmp(warc_get(&rec, "WARC-Target-URI", NULL), "http://a.example/x y.html"), "arc: URL with a space");
    ok(!strcmp(warc_get(&rec, "WARC-Date", NULL), "2008-04-30T20:48:26Z"), "arc: date as ISO 8601");
    ok(!strcmp(warc_get(&rec, "Content-Type", NULL), "text/html") && !strcmp(warc_get(&rec, "WARC-Type", NULL), "response"),
       "arc: a response with the line's type");
    ok(rec.block.len == 33 && !memcmp(rec.block.data, "HTTP/1.0 200 OK", 15) && rec.offset == 120 && !rec.warning,
       "arc: block and offset of record 2");
    is_int(arc_next(&r, &rec, &kind), WARC_RECORD, "arc: dns record read");
    ok(!strcmp(warc_get(&rec, "WARC-Target-URI", NULL), "dns:a.example") && rec.block.len == 9 && !rec.warning,
       "arc: dns record, NUL padding after it skipped");
    is_int(arc_next(&r, &rec, &kind), WARC_FAILED, "arc: record cut by the end fails");
    ok(!strcmp(kind, "truncated_record") && rec.number == 4 && !warc_get(&rec, "WARC-Date", NULL),
       "arc: truncated_record, record 4; a 'null' date is left out");
    is_int(arc_next(&r, &rec, &kind), WARC_END, "arc: end");

    static const char junk[] = "junk\nmore junk 1 2 3 4\nhttp://c.example/ 1.2.3.4 20080430204826 text/html 2\nok\n";
    isrc_from_memory(&s, junk, sizeof junk - 1, "junk.arc");
    warc_reader_init(&r, &s);
    is_int(arc_next(&r, &rec, &kind), WARC_FAILED, "arc: junk where a record line should be fails");
    ok(!strcmp(kind, "no_arc_header") && rec.offset == 0, "arc: no_arc_header at offset 0");
    is_int(arc_next(&r, &rec, &kind), WARC_RECORD, "arc: the record line after the junk is found");
    ok(!strcmp(warc_get(&rec, "WARC-Target-URI", NULL), "http://c.example/") && rec.offset == 23 && rec.block.len == 2,
       "arc: the record after the junk, at its offset");
    is_int(arc_next(&r, &rec, &kind), WARC_END, "arc: end after it");
    warc_record_free(&rec);
}

int main(void)
{
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/warc/resiliparse/tests/data/warcfile.warc", shared_dir());
    require_file(probe);
    test_common_crawl();
    test_damaged();
    test_http();
    test_sniff();
    test_arc();
    return done_testing();
}
