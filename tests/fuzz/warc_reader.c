/* warc_reader fuzz target: read any bytes as a WARC file (as an ARC file
 * when they start with "filedesc://"); every record the reader returns must
 * lie inside the input, and each response block goes through the HTTP
 * parser and body decoder. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/arc.h"
#include "ingest/http.h"
#include "ingest/warc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    isrc s;
    isrc_from_memory(&s, (const char *)data, size, "fuzz");
    warc_reader r;
    warc_reader_init(&r, &s);
    warc_record rec;
    memset(&rec, 0, sizeof rec);
    wbuf work[2] = {WBUF_INIT, WBUF_INIT};
    const char *kind;
    warc_status st;
    uint64_t last = 0;
    int n = 0;
    bool arc = arc_sniff((const char *)data, size);
    while ((st = arc ? arc_next(&r, &rec, &kind) : warc_next(&r, &rec, &kind)) != WARC_END) {
        if (rec.offset >= size || (n++ && rec.offset < last)) abort(); /* records move forward, inside the input */
        last = rec.offset;
        if (st == WARC_FAILED) {
            if (!kind || !r.message[0]) abort();
            continue;
        }
        if (rec.block.len > size) abort();
        http_response h;
        if (http_parse_response(rec.block.data ? rec.block.data : "", rec.block.len, &h) == 0) {
            const char *p;
            size_t len;
            http_decode_info info;
            http_decode_body(&h, work, &p, &len, &info);
            if (len && !p) abort();
        }
    }
    warc_record_free(&rec);
    buf_free(&work[0]);
    buf_free(&work[1]);
    return 0;
}
