/* dedup_gpu.c - GPU MinHash signatures are bit-identical to the CPU's on
 * every document of the real JSONL data, for two signature shapes, plus edge
 * cases (no shingles, documents longer than a GPU chunk, extreme hashes).
 * Skipped, saying why, where no GPU is usable. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>

#include "dedup/minhash.h"
#include "dedup/normalize.h"
#include "gpu/gpu.h"
#include "gpu/minhash.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

#define BATCH_HASHES (1 << 22)

static const jsonl_files *data; /* the JSONL files of the shared data, by path */

/* Shingle hashes of every document of the data, with offsets per document. */
typedef struct {
    uint64_t *hashes;
    size_t n, cap;
    uint64_t *offsets;
    size_t ndocs, cap_docs;
    uint64_t text_bytes;
} corpus;

static void add_doc(corpus *c, const uint64_t *h, size_t n)
{
    if (c->n + n > c->cap) c->hashes = realloc(c->hashes, (c->cap = (c->n + n) * 2) * sizeof *c->hashes);
    memcpy(c->hashes + c->n, h, n * sizeof *h);
    c->n += n;
    if (c->ndocs + 2 > c->cap_docs) c->offsets = realloc(c->offsets, (c->cap_docs = c->cap_docs * 2 + 64) * sizeof *c->offsets);
    c->offsets[0] = 0;
    c->offsets[++c->ndocs] = c->n;
}

/* What load_corpus carries from one document to the next. */
typedef struct {
    corpus *c;
    int ngram;
    dedup_text t;
    uint64_t *h;
    size_t cap;
} corpus_loader;

static void load_document(const char *text, size_t len, void *ctx)
{
    corpus_loader *l = ctx;
    size_t nh = 0;
    dedup_normalize(text, len, &l->t);
    minhash_shingle_hashes(&l->t, l->ngram, &l->h, &nh, &l->cap);
    add_doc(l->c, l->h, nh);
    l->c->text_bytes += len;
}

static void load_corpus(corpus *c, int ngram)
{
    corpus_loader l = {.c = c, .ngram = ngram};
    for (int f = 0; f < data->n; f++) jsonl_for_each_text(data->path[f], load_document, &l);
    free(l.h);
    dedup_text_free(&l.t);
}

/* Compares GPU and CPU signatures of documents [from, to) of c. */
static long compare(gpu_minhash *g, const minhash_params *p, const corpus *c, size_t from, size_t to, double *kernel_ms)
{
    size_t nd = to - from;
    uint64_t *gpu = malloc(nd * p->k * sizeof *gpu), *cpu = malloc(p->k * sizeof *cpu);
    char why[256];
    if (gpu_minhash_signatures(g, c->hashes, c->offsets + from, (int)nd, gpu, why, sizeof why) != 0) {
        diag("GPU failed: %s", why);
        free(gpu), free(cpu);
        return -1;
    }
    *kernel_ms += gpu_minhash_last_kernel_ms(g);
    long bad = 0;
    for (size_t i = 0; i < nd; i++) {
        minhash_signature(p, c->hashes + c->offsets[from + i], c->offsets[from + i + 1] - c->offsets[from + i], cpu);
        bad += memcmp(cpu, gpu + i * p->k, p->k * sizeof *cpu) != 0;
    }
    free(gpu), free(cpu);
    return bad;
}

static void check_shape(int bands, int rows, int ngram)
{
    minhash_params p;
    minhash_params_init(&p, bands, rows, ngram, 1);
    corpus c = {0};
    load_corpus(&c, ngram);
    char why[256];
    gpu_minhash *g = gpu_minhash_create(p.k, p.a, p.b, why, sizeof why);
    ok(g != NULL, "GPU context for %dx%d", bands, rows);
    if (!g) return;
    long bad = 0;
    double ms = 0;
    for (size_t from = 0; from < c.ndocs;) {
        size_t to = from;
        while (to < c.ndocs && c.offsets[to + 1] - c.offsets[from] < BATCH_HASHES) to++;
        if (to == from) to++;
        long b = compare(g, &p, &c, from, to, &ms);
        bad += b < 0 ? (long)(to - from) : b;
        from = to;
    }
    is_int(bad, 0, "%zu real documents, %dx%d, %d-grams: GPU signatures == CPU signatures", c.ndocs, bands, rows, ngram);
    diag("kernel time %.2f ms for %.1f MB of text (%.0f MB/s)", ms, c.text_bytes / 1e6, ms > 0 ? c.text_bytes / 1e3 / ms : 0);

    /* edges: empty documents, one long document over several chunks, extreme hashes */
    corpus e = {0};
    add_doc(&e, NULL, 0);
    uint64_t x = 5, *big = malloc(20000 * sizeof *big);
    for (int i = 0; i < 20000; i++) big[i] = splitmix64_next(&x);
    add_doc(&e, big, 20000);
    uint64_t extreme[] = {0, UINT64_MAX, MINHASH_PRIME, MINHASH_PRIME - 1, MINHASH_PRIME + 7, UINT64_C(1) << 63};
    add_doc(&e, extreme, 6);
    add_doc(&e, NULL, 0);
    is_int(compare(g, &p, &e, 0, e.ndocs, &ms), 0, "edge documents: empty, 20000 shingles, extreme hashes");
    free(big);
    free(e.hashes), free(e.offsets), free(c.hashes), free(c.offsets);
    gpu_minhash_destroy(g);
    minhash_params_free(&p);
}

int main(void)
{
    char why[256];
    if (!gpu_usable(why, sizeof why)) skip_all(why);
    char root[4096];
    snprintf(root, sizeof root, "%s/jsonl", shared_dir());
    data = jsonl_files_under(root);
    ok(data->n > 10, "%d JSON files under %s", data->n, root);
    check_shape(14, 8, 5);
    check_shape(20, 10, 3); /* K = 200: more permutations than threads per block */
    return done_testing();
}
