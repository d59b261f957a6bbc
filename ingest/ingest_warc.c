/* ingest_warc.c - from WARC records to ingest jobs: which records become
 * documents (HTML responses and resources, WET conversions) and why the
 * others are skipped. */
#include "ingest/ingest_warc.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/doc.h"
#include "core/util.h"
#include "ingest/arc.h"
#include "ingest/http.h"
#include "ingest/ingest_batch.h"
#include "ingest/sniff.h"
#include "ingest/warc.h"

#define MIME_MAX 64
#define CHARSET_MAX 40

typedef struct {
    struct ingest_reader *g;
    const char *name;
    warc_record *rec;
    wbuf work[2];
} warc_ctx;

static bool is_html_mime(const char *mime)
{
    return !strcmp(mime, "text/html") || !strcmp(mime, "application/xhtml+xml") ||
           !strcmp(mime, "application/vnd.wap.xhtml+xml");
}

/* A payload whose type says nothing useful is looked at. */
static bool is_unknown_mime(const char *mime)
{
    return !mime[0] || !strcmp(mime, "application/octet-stream") || !strcmp(mime, "unknown/unknown") ||
           !strcmp(mime, "application/unknown");
}

static void strip_angles(const char **p, size_t *n)
{
    if (*n >= 2 && (*p)[0] == '<' && (*p)[*n - 1] == '>') (*p)++, *n -= 2;
}

/* Counts a skipped record and writes its rejects line. */
static void skip_record(warc_ctx *c, const char *reason, int http_status)
{
    ingest_batch *b = ingest_batch_current(c->g);
    stats_drop(&b->stats, reason);
    if (!ingest_wants_rejects(c->g)) return;
    size_t id_len, url_len, type_len;
    const char *id = warc_get(c->rec, "WARC-Record-ID", &id_len);
    const char *url = warc_get(c->rec, "WARC-Target-URI", &url_len);
    const char *type = warc_get(c->rec, "WARC-Type", &type_len);
    if (url) strip_angles(&url, &url_len);
    wbuf meta = WBUF_INIT;
    if (type) meta_add_str(&meta, "warc_type", type, type_len);
    if (http_status) meta_add_int(&meta, "http_status", http_status);
    meta_add_int(&meta, "warc_offset", (long long)c->rec->offset);
    ingest_reject(b, reason, id ? id : "", id_len, url ? url : "", url_len, c->name, strlen(c->name), meta.data);
    buf_free(&meta);
}

/* Adds a job for the record's payload with its WARC fields. */
static ingest_job *add_record_job(warc_ctx *c, job_kind kind, const char *payload, size_t n)
{
    ingest_batch *b = ingest_batch_current(c->g);
    ingest_job *j = batch_add_job(b, kind);
    size_t len;
    const char *v = warc_get(c->rec, "WARC-Record-ID", &len);
    if (v && len) j->id = batch_put(b, v, len);
    else {
        char id[64];
        int k = snprintf(id, sizeof id, "#%llu", (unsigned long long)c->rec->number);
        j->id = batch_put(b, c->name, strlen(c->name));
        batch_put(b, id, (size_t)k);
        j->id.len += (size_t)k;
    }
    v = warc_get(c->rec, "WARC-Target-URI", &len);
    if (v) {
        strip_angles(&v, &len);
        j->url = batch_put(b, v, len);
    }
    v = warc_get(c->rec, "WARC-Date", &len);
    if (v) j->date = batch_put(b, v, len);
    j->source = batch_put(b, c->name, strlen(c->name));
    j->payload = batch_put(b, payload, n);
    j->from_warc = true;
    j->warc_offset = c->rec->offset;
    j->ordinal = c->rec->number;
    return j;
}

static void set_type(ingest_job *j, const char *mime, const char *charset)
{
    snprintf(j->content_type, sizeof j->content_type, "%s", mime);
    snprintf(j->charset, sizeof j->charset, "%s", charset);
}

/* A payload with a known MIME type and charset (resource record, or HTTP body). */
static void take_payload(warc_ctx *c, const char *p, size_t n, const char *mime, const char *charset, int status)
{
    if (!is_html_mime(mime) && !(is_unknown_mime(mime) && sniff_kind(p, n < SNIFF_BYTES ? n : SNIFF_BYTES) == INPUT_HTML)) {
        skip_record(c, "not_html", status);
        return;
    }
    ingest_job *j = add_record_job(c, JOB_HTML, p, n);
    set_type(j, is_html_mime(mime) ? mime : "text/html", charset);
    j->http_status = status;
}

static void take_response(warc_ctx *c)
{
    const warc_record *rec = c->rec;
    char mime[MIME_MAX], charset[CHARSET_MAX];
    size_t len;
    const char *ct = warc_get(rec, "Content-Type", &len);
    http_response r;
    if (http_parse_response(rec->block.data ? rec->block.data : "", rec->block.len, &r) != 0) {
        http_parse_content_type(ct, len, mime, sizeof mime, charset, sizeof charset);
        if (ct && !strstr(mime, "http")) { /* not an HTTP capture (dns:, ftp:): its block is the payload */
            take_payload(c, rec->block.data, rec->block.len, mime, charset, 0);
            return;
        }
        ingest_batch *b = ingest_batch_current(c->g);
        warnf("%s: record %llu at offset %llu: response without an HTTP status line; skipped", c->name,
              (unsigned long long)rec->number, (unsigned long long)rec->offset);
        stats_fail(&b->stats, "bad_http");
        return;
    }
    if (r.status < 200 || r.status > 299) {
        skip_record(c, "http_status", r.status);
        return;
    }
    ct = http_header_get(&r, "Content-Type", &len);
    http_parse_content_type(ct, len, mime, sizeof mime, charset, sizeof charset);
    if (!is_html_mime(mime) && !is_unknown_mime(mime)) { /* decide before decoding */
        skip_record(c, "not_html", r.status);
        return;
    }
    const char *payload;
    size_t n;
    http_decode_info info;
    http_decode_body(&r, c->work, &payload, &n, &info);
    ingest_batch *b = ingest_batch_current(c->g);
    if (info.undecodable) { /* never binary as text */
        warnf("%s: record %llu at offset %llu: body announced as encoded is neither decodable nor markup; skipped",
              c->name, (unsigned long long)rec->number, (unsigned long long)rec->offset);
        stats_fail(&b->stats, "undecodable_body");
        return;
    }
    if (info.dechunked) stats_add(&b->stats, "http_dechunked", 1);
    if (info.encoding) stats_add(&b->stats, "http_decoded", 1);
    if (info.encoding_ignored) stats_add(&b->stats, "http_encoding_header_ignored", 1);
    if (info.bad_chunking || info.decode_error || info.cut) {
        warnf("%s: record %llu at offset %llu: %s; kept what decoded", c->name, (unsigned long long)rec->number,
              (unsigned long long)rec->offset,
              info.cut ? "decoded body over the size limit, cut"
                       : info.bad_chunking ? "chunked body broke off" : "damaged compressed body");
        stats_add(&b->stats, "http_body_damaged", 1);
    }
    take_payload(c, payload, n, mime, charset, r.status);
}

static void take_record(warc_ctx *c)
{
    size_t len;
    const char *type = warc_get(c->rec, "WARC-Type", &len);
    if (!type) type = "";
    if (!strcasecmp(type, "response")) {
        take_response(c);
    } else if (!strcasecmp(type, "resource")) {
        char mime[MIME_MAX], charset[CHARSET_MAX];
        const char *ct = warc_get(c->rec, "Content-Type", &len);
        http_parse_content_type(ct, len, mime, sizeof mime, charset, sizeof charset);
        take_payload(c, c->rec->block.data, c->rec->block.len, mime, charset, 0);
    } else if (!strcasecmp(type, "conversion")) {
        char mime[MIME_MAX], charset[CHARSET_MAX];
        const char *ct = warc_get(c->rec, "Content-Type", &len);
        http_parse_content_type(ct, len, mime, sizeof mime, charset, sizeof charset);
        ingest_job *j = add_record_job(c, JOB_TEXT, c->rec->block.data, c->rec->block.len);
        set_type(j, mime[0] ? mime : "text/plain", charset[0] ? charset : "UTF-8"); /* WET text is UTF-8 */
    } else if (!strcasecmp(type, "request")) {
        skip_record(c, "request_record", 0);
    } else if (!strcasecmp(type, "metadata")) {
        skip_record(c, "metadata_record", 0);
    } else if (!strcasecmp(type, "revisit")) {
        skip_record(c, "revisit_record", 0);
    } else if (!strcasecmp(type, "warcinfo")) {
        skip_record(c, "warcinfo_record", 0);
    } else {
        skip_record(c, "other_record", 0);
    }
}

void ingest_warc_input(struct ingest_reader *g, isrc *src, const char *name, bool arc)
{
    warc_reader r;
    warc_record rec;
    memset(&rec, 0, sizeof rec);
    warc_ctx c = {g, name, &rec, {WBUF_INIT, WBUF_INIT}};
    warc_reader_init(&r, src);
    const char *kind;
    warc_status st;
    while ((st = arc ? arc_next(&r, &rec, &kind) : warc_next(&r, &rec, &kind)) != WARC_END) {
        ingest_batch *b = ingest_batch_current(g);
        b->stats.in++;
        if (st == WARC_FAILED) {
            warnf("%s: record %llu at offset %llu: %s", name, (unsigned long long)rec.number,
                  (unsigned long long)rec.offset, r.message);
            stats_fail(&b->stats, kind);
        } else if (isrc_damaged_within(src, rec.offset, isrc_offset(src))) {
            warnf("%s: record %llu at offset %llu: cut by damaged compressed data; skipped", name,
                  (unsigned long long)rec.number, (unsigned long long)rec.offset);
            stats_fail(&b->stats, "damaged_record");
        } else {
            if (rec.warning) {
                warnf("%s: record %llu at offset %llu: %s", name, (unsigned long long)rec.number,
                      (unsigned long long)rec.offset, r.message);
                stats_add(&b->stats, rec.warning, 1);
            }
            take_record(&c);
        }
        ingest_batch_check(g);
    }
    warc_record_free(&rec);
    buf_free(&c.work[0]);
    buf_free(&c.work[1]);
}
