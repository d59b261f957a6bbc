/* tokenize_corpus.h - test helpers: the tokref corpora and reference ids in
 * $SHARED/tokref (see MANIFEST.md, section tokref), and small file readers. */
#ifndef WINNOW_TESTS_TOKENIZE_CORPUS_H
#define WINNOW_TESTS_TOKENIZE_CORPUS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tests/tap.h"

typedef struct {
    char *text; /* the whole corpus */
    size_t size;
    size_t *off, *len; /* per document */
    int ndocs;
} tok_corpus;

typedef struct {
    uint32_t *data; /* per document: count, then ids */
    size_t n;
    size_t *start; /* per document: index of its count in data */
    int ndocs;
} tok_reference;

/* Reads a whole file; bails out of the test when it cannot. */
static inline char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("Bail out! cannot open %s\n", path);
        exit(1);
    }
    size_t cap = 1 << 20, n = 0, got;
    char *p = malloc(cap + 1);
    while ((got = fread(p + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) p = realloc(p, (cap *= 2) + 1);
    }
    fclose(f);
    p[n] = 0;
    *size = n;
    return p;
}

/* Reads a whole zstd-compressed file. */
static inline char *slurp_zstd(const char *path, size_t *size)
{
    size_t zn;
    char *z = slurp(path, &zn);
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_initDStream(ds);
    size_t cap = zn * 4 + (1 << 20), n = 0;
    char *p = malloc(cap + 1);
    ZSTD_inBuffer in = {z, zn, 0};
    while (in.pos < in.size) {
        if (cap - n < (1 << 20)) p = realloc(p, (cap *= 2) + 1);
        ZSTD_outBuffer out = {p + n, cap - n, 0};
        size_t r = ZSTD_decompressStream(ds, &out, &in);
        if (ZSTD_isError(r)) {
            printf("Bail out! %s: %s\n", path, ZSTD_getErrorName(r));
            exit(1);
        }
        n += out.pos;
    }
    ZSTD_freeDStream(ds);
    free(z);
    p[n] = 0;
    *size = n;
    return p;
}

/* Loads $SHARED/tokref/NAME.txt.zst and its index. */
static inline void corpus_load(tok_corpus *c, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tokref/%s.txt.zst", shared_dir(), name);
    require_file(path);
    c->text = slurp_zstd(path, &c->size);
    snprintf(path, sizeof path, "%s/tokref/%s.idx.tsv", shared_dir(), name);
    require_file(path);
    size_t isz;
    char *idx = slurp(path, &isz);
    int cap = 1024;
    c->off = malloc(cap * sizeof *c->off);
    c->len = malloc(cap * sizeof *c->len);
    c->ndocs = 0;
    for (char *line = idx; line && *line;) {
        char *nl = strchr(line, '\n');
        if (c->ndocs == cap) {
            cap *= 2;
            c->off = realloc(c->off, cap * sizeof *c->off);
            c->len = realloc(c->len, cap * sizeof *c->len);
        }
        char *end;
        c->off[c->ndocs] = strtoull(line, &end, 10);
        c->len[c->ndocs] = strtoull(end, NULL, 10);
        c->ndocs++;
        line = nl ? nl + 1 : NULL;
    }
    free(idx);
}

/* Loads $SHARED/tokref/CORPUS.ENCODING.bin.zst. */
static inline void reference_load(tok_reference *r, const char *corpus, const char *encoding)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tokref/%s.%s.bin.zst", shared_dir(), corpus, encoding);
    require_file(path);
    size_t bytes;
    r->data = (uint32_t *)slurp_zstd(path, &bytes);
    r->n = bytes / 4;
    size_t cap = 1024;
    r->start = malloc(cap * sizeof *r->start);
    r->ndocs = 0;
    for (size_t i = 0; i < r->n; i += 1 + r->data[i]) {
        if ((size_t)r->ndocs == cap) r->start = realloc(r->start, (cap *= 2) * sizeof *r->start);
        r->start[r->ndocs++] = i;
    }
}

static inline void corpus_free(tok_corpus *c) { free(c->text); free(c->off); free(c->len); }
static inline void reference_free(tok_reference *r) { free(r->data); free(r->start); }

/* Texts a test encodes one by one (pointers into memory held elsewhere). */
typedef struct {
    const char **text;
    size_t *len;
    size_t n;
} text_list;

/* Appends text[0..len) to l. */
static inline void text_list_add(text_list *l, const char *text, size_t len)
{
    l->text = realloc(l->text, (l->n + 1) * sizeof *l->text);
    l->len = realloc(l->len, (l->n + 1) * sizeof *l->len);
    l->text[l->n] = text;
    l->len[l->n++] = len;
}

/* Appends every stride-th of the first limit documents of c (all of them: limit < 0). */
static inline void text_list_add_corpus(text_list *l, const tok_corpus *c, int limit, int stride)
{
    if (limit < 0 || limit > c->ndocs) limit = c->ndocs;
    for (int d = 0; d < limit; d += stride) text_list_add(l, c->text + c->off[d], c->len[d]);
}

static inline void text_list_free(text_list *l) { free(l->text); free(l->len); }

#endif
