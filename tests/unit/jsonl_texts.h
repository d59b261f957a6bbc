/* jsonl_texts.h - the text of every document of a JSONL file (plain, gzip or
 * zstd), for the tests and benches that read real data. Header only. */
#ifndef WINNOW_TESTS_JSONL_TEXTS_H
#define WINNOW_TESTS_JSONL_TEXTS_H

#include <ftw.h>
#include <stdlib.h>
#include <string.h>

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

#define JSONL_FILES_MAX 256

/* The files found by jsonl_files_under (nftw's callback takes no context). */
typedef struct {
    char *path[JSONL_FILES_MAX];
    int n;
} jsonl_files;

static inline jsonl_files *jsonl_found(void)
{
    static jsonl_files found;
    return &found;
}

static inline int jsonl_collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)ftw;
    jsonl_files *f = jsonl_found();
    if (type == FTW_F && strstr(path, ".json") && f->n < JSONL_FILES_MAX) f->path[f->n++] = strdup(path);
    return 0;
}

static inline int jsonl_by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The files under dir whose names hold ".json" (JSONL, plain or compressed; at most
 * JSONL_FILES_MAX), sorted by path, so a test reads the data in a fixed order. Each
 * call returns the same list, made anew (the one before is gone). */
static inline const jsonl_files *jsonl_files_under(const char *dir)
{
    jsonl_files *f = jsonl_found();
    for (int i = 0; i < f->n; i++) free(f->path[i]);
    f->n = 0;
    nftw(dir, jsonl_collect, 16, FTW_PHYS);
    qsort(f->path, (size_t)f->n, sizeof *f->path, jsonl_by_name);
    return f;
}

#endif
