/* http_parser fuzz target: parse any bytes as a stored HTTP response, undo
 * its codings, and read its Content-Type; headers must point inside the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    http_response r;
    if (http_parse_response(in, size, &r) != 0) return 0;
    if (r.status < 0 || r.status > 999 || r.body < in || r.body + r.body_len != in + size) abort();
    for (int i = 0; i < r.nheaders; i++) {
        const http_header *h = &r.headers[i];
        if (h->name < in || h->name + h->name_len > in + size || h->value < in || h->value + h->value_len > in + size)
            abort();
    }
    wbuf work[2] = {WBUF_INIT, WBUF_INIT};
    const char *p;
    size_t len;
    http_decode_info info;
    http_decode_body(&r, work, &p, &len, &info);
    if (len > HTTP_MAX_DECODED + 65536) abort();
    volatile char sink = 0;
    for (size_t i = 0; i < len; i++) sink ^= p[i]; /* every byte readable */
    (void)sink;
    char mime[64], charset[40];
    size_t ct_len;
    const char *ct = http_header_get(&r, "Content-Type", &ct_len);
    http_parse_content_type(ct, ct_len, mime, sizeof mime, charset, sizeof charset);
    if (strlen(mime) >= sizeof mime || strlen(charset) >= sizeof charset) abort();
    buf_free(&work[0]);
    buf_free(&work[1]);
    return 0;
}
