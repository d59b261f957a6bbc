/* jsonl_texts.h - the text of every document of a JSONL file (plain, gzip or
 * zstd), for the tests and benches that read real data. Header only. */
#ifndef WINNOW_TESTS_JSONL_TEXTS_H
#define WINNOW_TESTS_JSONL_TEXTS_H

#include "core/buf.h"
#include "core/input.h"
#include "core/json.h"

typedef void (*jsonl_text_fn)(const char *text, size_t len, void *ctx);

/* Calls fn on the unescaped text of each line that is a JSON object with a
 * string "text"; returns how many, or -1 when the file cannot be opened. */
static inline long jsonl_for_each_text(const char *path, jsonl_text_fn fn, void *ctx)
{
    winput *in = input_open(path);
    if (!in) return -1;
    wbuf scratch = WBUF_INIT;
    const char *line;
    size_t len;
    long n = 0;
    while (input_getline(in, &line, &len)) {
        jdoc d;
        const char *err;
        size_t pos, tlen;
        if (json_scan_doc(line, len, &d, &err, &pos) != 0 || d.text.kind != JSON_STRING) continue;
        const char *text = json_string(&d.text, &scratch, &tlen);
        fn(text, tlen, ctx);
        n++;
    }
    input_close(in);
    buf_free(&scratch);
    return n;
}

#endif
