/* jsonl_reader fuzz target: scan any bytes as a document line; when it scans,
 * unescaping, re-writing and rewriting must hold their promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/json.h"
#include "core/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jdoc d;
    const char *err;
    size_t pos;
    const char *line = (const char *)data;
    if (json_scan_doc(line, size, &d, &err, &pos) != 0) {
        if (pos > size) abort();
        return 0;
    }
    wbuf text = WBUF_INIT, out = WBUF_INIT, meta = WBUF_INIT;
    if (d.text.kind == JSON_STRING) {
        json_unescape(&d.text, &text);
        if (!utf8_valid(text.data ? text.data : "", text.len)) abort();
    }
    meta_add_str(&meta, "k", "v", 1);
    doc_rewrite(line, size, &d, "new", 3, &meta, &out);
    jdoc d2;
    if (json_scan_doc(out.data, out.len - 1, &d2, &err, &pos) != 0) abort(); /* a rewrite is valid JSON */
    buf_clear(&out);
    doc_reject_line(line, size, "fuzz", "reason", NULL, &out);
    if (json_scan_doc(out.data, out.len - 1, &d2, &err, &pos) != 0) abort();
    buf_clear(&out);
    json_put_string(&out, line, size);
    buf_free(&text);
    buf_free(&out);
    buf_free(&meta);
    return 0;
}
