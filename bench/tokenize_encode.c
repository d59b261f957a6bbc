/* tokenize_encode - throughput of the BPE encoder alone (pre-tokeniser,
 * lookups, merges; no JSON, no output) over a tokref corpus, one thread.
 * usage: tokenize_encode ENCODING VOCAB CORPUS IDX.tsv [REF.bin] [RUNS]
 * ENCODING "-": VOCAB is a tokenizer.json, encoded as HF's encode does
 * (added tokens in the text matched).
 * CORPUS is the corpus text (plain or compressed), IDX.tsv its per-document
 * offsets and lengths, REF.bin (plain or compressed) tiktoken's ids: when
 * given, every document's ids are checked against it before timing.
 * Prints "MB/s MB-per-CPU-second tokens" for the best of RUNS (default 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/input.h"
#include "core/util.h"
#include "tokenize/tokenizer.h"

#define DEFAULT_RUNS 3
#define READ_CHUNK (1 << 20)

typedef struct {
    size_t *off, *len;
    int n, cap;
} doc_index;

/* The whole decoded content of path (any compression input_open reads). */
static char *read_decoded(const char *path, size_t *size)
{
    winput *in = input_open(path);
    if (!in) exit(EXIT_FATAL);
    size_t cap = READ_CHUNK, n = 0, got;
    char *p = xmalloc(cap);
    while ((got = input_read(in, p + n, cap - n)) > 0)
        if ((n += got) == cap) p = xrealloc(p, cap *= 2);
    input_close(in);
    *size = n;
    return p;
}

/* Offsets and lengths from an idx.tsv (offset TAB length TAB ...). */
static void read_index(const char *path, size_t corpus_size, doc_index *ix)
{
    FILE *f = fopen(path, "r");
    if (!f) dief(EXIT_FATAL, "%s: cannot open", path);
    unsigned long long off, len;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%llu\t%llu", &off, &len) != 2 || off + len > corpus_size)
            dief(EXIT_FATAL, "%s: bad line: %s", path, line);
        if (ix->n == ix->cap) {
            ix->cap = ix->cap ? 2 * ix->cap : 1024;
            ix->off = xrealloc(ix->off, (size_t)ix->cap * sizeof *ix->off);
            ix->len = xrealloc(ix->len, (size_t)ix->cap * sizeof *ix->len);
        }
        ix->off[ix->n] = off;
        ix->len[ix->n++] = len;
    }
    fclose(f);
}

/* Exits 1 unless every document's ids equal the reference stream's. */
static void check_reference(const tokenizer *t, const char *text, const doc_index *ix, const char *ref_path,
                            bool special, bpe_scratch *scratch, tok_ids *ids)
{
    size_t size;
    uint32_t *ref = (uint32_t *)read_decoded(ref_path, &size);
    size_t at = 0, words = size / sizeof *ref;
    for (int d = 0; d < ix->n; d++) {
        ids->n = 0;
        tokenizer_encode(t, text + ix->off[d], ix->len[d], special, scratch, ids);
        if (at >= words || ref[at] != ids->n || at + 1 + ids->n > words ||
            memcmp(ref + at + 1, ids->ids, ids->n * sizeof *ids->ids))
            dief(EXIT_FATAL, "document %d: ids differ from %s", d, ref_path);
        at += 1 + ids->n;
    }
    if (at != words) dief(EXIT_FATAL, "%s has more documents than the index", ref_path);
    free(ref);
}

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7) dief(EXIT_USAGE, "usage: tokenize_encode ENCODING VOCAB CORPUS IDX.tsv [REF.bin] [RUNS]");
    int runs = argc == 7 ? atoi(argv[6]) : DEFAULT_RUNS;
    if (runs < 1) dief(EXIT_USAGE, "RUNS must be at least 1");
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (tokenizer_load(&t, strcmp(argv[1], "-") ? argv[1] : NULL, argv[2], -1, &err)) dief(EXIT_FATAL, "%s", err.data);
    bool special = t.hf != NULL;
    size_t size;
    char *text = read_decoded(argv[3], &size);
    doc_index ix = {0};
    read_index(argv[4], size, &ix);
    size_t bytes = 0;
    for (int d = 0; d < ix.n; d++) bytes += ix.len[d];
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    if (argc >= 6 && strcmp(argv[5], "-")) check_reference(&t, text, &ix, argv[5], special, &scratch, &ids);
    double best_wall = 0, best_cpu = 0;
    size_t tokens = 0;
    for (int r = 0; r < runs; r++) {
        bpe_scratch_free(&scratch); /* every run starts with empty caches */
        double w0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
        tokens = 0;
        for (int d = 0; d < ix.n; d++) {
            ids.n = 0;
            tokenizer_encode(&t, text + ix.off[d], ix.len[d], special, &scratch, &ids);
            tokens += ids.n;
        }
        double wall = clock_seconds(CLOCK_MONOTONIC) - w0, cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (!r || wall < best_wall) best_wall = wall;
        if (!r || cpu < best_cpu) best_cpu = cpu;
    }
    printf("%.1f %.1f %zu\n", (double)bytes / 1e6 / best_wall, (double)bytes / 1e6 / best_cpu, tokens);
    bpe_scratch_free(&scratch);
    ids_free(&ids);
    free(text);
    free(ix.off);
    free(ix.len);
    tokenizer_free(&t);
    buf_free(&err);
    return EXIT_OK;
}
