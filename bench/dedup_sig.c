/* dedup_sig.c - signature throughput of dedup's parts, for bench/dedup.sh:
 * normalise + shingle hashing (CPU, one thread), MinHash signatures on one
 * CPU core, and on the GPU when one is usable (kernel time alone and with
 * transfers, over the corpus repeated GPU_REPEAT times). Prints "name
 * value" lines: MB of document text per CPU-second (CPU parts) or per
 * second (GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "dedup/index.h"
#include "dedup/minhash.h"
#include "dedup/normalize.h"
#include "gpu/gpu.h"
#include "gpu/minhash.h"
#include "tests/unit/jsonl_texts.h"

#define GPU_REPEAT 16
#define INDEX_DOCS 2000000 /* documents of unique keys: a 390 MB index, in DRAM */
#define INDEX_BATCH 4000   /* documents per lookup, about a stage batch of short documents */

/* CPU seconds of this thread: steadier than the wall clock on a shared machine. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
#define GPU_BATCH_HASHES (8u << 20) /* shingles per GPU call, about 50 MB of text */

/* The corpus: every document's shingle hashes back to back, with offsets. */
typedef struct {
    const minhash_params *p;
    dedup_text t;
    uint64_t *hashes, *offsets, text_bytes;
    size_t nh, cap, ndocs, cap_docs;
    double shingle_s; /* CPU seconds normalising and hashing */
} corpus;

static void add_document(const char *text, size_t len, void *ctx)
{
    corpus *c = ctx;
    double t0 = cpu_now();
    dedup_normalize(text, len, &c->t);
    minhash_shingle_hashes(&c->t, c->p->ngram, &c->hashes, &c->nh, &c->cap);
    c->shingle_s += cpu_now() - t0;
    if (c->ndocs + 2 > c->cap_docs) c->offsets = xrealloc(c->offsets, (c->cap_docs *= 2) * sizeof *c->offsets);
    c->offsets[++c->ndocs] = c->nh;
    c->text_bytes += len;
}

int main(int argc, char **argv)
{
    minhash_params p;
    minhash_params_init(&p, MINHASH_DEFAULT_BANDS, MINHASH_DEFAULT_ROWS, MINHASH_DEFAULT_NGRAM, 1);
    corpus c = {.p = &p, .offsets = xcalloc(1, sizeof *c.offsets), .cap_docs = 1};
    for (int f = 1; f < argc; f++)
        if (jsonl_for_each_text(argv[f], add_document, &c) < 0) return 2;
    uint64_t *hashes = c.hashes, *offsets = c.offsets, text_bytes = c.text_bytes;
    size_t nh = c.nh, ndocs = c.ndocs;
    double shingle_s = c.shingle_s;
    dedup_text_free(&c.t);
    printf("docs %zu\ntext_mb %.1f\nshingles %zu\n", ndocs, text_bytes / 1e6, nh);
    printf("normalise_shingle_mbps %.1f\n", text_bytes / 1e6 / shingle_s);

    uint64_t *cpu = xmalloc(ndocs * (size_t)p.k * sizeof *cpu);
    double t0 = cpu_now();
    for (size_t i = 0; i < ndocs; i++)
        minhash_signature(&p, hashes + offsets[i], offsets[i + 1] - offsets[i], cpu + i * (size_t)p.k);
    printf("cpu_signature_mbps %.1f\n", text_bytes / 1e6 / (cpu_now() - t0));

    /* The streaming index on one thread: lookups and decisions per second
     * once the tables are far bigger than the caches. */
    dedup_index ix;
    dedup_index_init(&ix, &p, INDEX_DOCS, 1, false, 0);
    batch_prints bp = {.n = INDEX_BATCH};
    bp.fp = xcalloc(INDEX_BATCH, sizeof *bp.fp);
    bp.sigs = xcalloc((size_t)INDEX_BATCH * p.k, sizeof *bp.sigs);
    bp.keys = xmalloc((size_t)INDEX_BATCH * p.bands * sizeof *bp.keys);
    stage_batch b = {.n = INDEX_BATCH, .cap = INDEX_BATCH};
    b.docs = xcalloc(INDEX_BATCH, sizeof *b.docs);
    uint64_t x = 1;
    double busy = 0;
    for (size_t done = 0; done < INDEX_DOCS; done += INDEX_BATCH) {
        for (int i = 0; i < INDEX_BATCH; i++) {
            bp.fp[i].exact[0] = splitmix64_next(&x);
            bp.fp[i].exact[1] = splitmix64_next(&x);
            bp.fp[i].nshingles = 1;
            for (int j = 0; j < p.bands; j++) bp.keys[(size_t)i * p.bands + j] = splitmix64_next(&x);
            b.docs[i].ordinal = done + (size_t)i;
        }
        double w0 = now_seconds();
        batch_lookup bl = {0};
        dedup_index_lookup(&ix, &b, &bp, &bl);
        dedup_index_wait(&ix, &bl);
        for (int i = 0; i < INDEX_BATCH; i++) {
            uint32_t first;
            dedup_index_remember(&ix, done + (size_t)i, NULL, "", 0);
            dedup_index_decide(&ix, &bp, &bl, i, &first);
        }
        batch_lookup_free(&bl);
        busy += now_seconds() - w0;
    }
    printf("index_docs_per_s %.0f\nindex_bytes_per_doc %.1f\n", INDEX_DOCS / busy,
           (double)dedup_index_table_bytes(&ix) / INDEX_DOCS);
    dedup_index_free(&ix);
    free(bp.fp);
    free(bp.sigs);
    free(bp.keys);
    free(b.docs);

    char why[256];
    gpu_minhash *g = gpu_usable(why, sizeof why) ? gpu_minhash_create(p.k, p.a, p.b, why, sizeof why) : NULL;
    if (!g) {
        printf("gpu none: %s\n", why);
        return 0;
    }
    uint64_t *gpu = xmalloc(ndocs * (size_t)p.k * sizeof *gpu);
    double kernel_ms = 0, wall = 0;
    long mismatches = 0;
    for (int r = 0; r < GPU_REPEAT; r++) {
        for (size_t from = 0; from < ndocs;) {
            size_t to = from;
            while (to < ndocs && offsets[to + 1] - offsets[from] < GPU_BATCH_HASHES) to++;
            if (to == from) to++;
            double w0 = now_seconds();
            if (gpu_minhash_signatures(g, hashes, offsets + from, (int)(to - from), gpu + from * (size_t)p.k, why, sizeof why)) {
                printf("gpu failed: %s\n", why);
                return 2;
            }
            wall += now_seconds() - w0;
            kernel_ms += gpu_minhash_last_kernel_ms(g);
            from = to;
        }
        if (r == 0) /* the first round warms up; check it, time the rest */
            for (size_t i = 0; i < ndocs * (size_t)p.k; i++) mismatches += gpu[i] != cpu[i];
        if (r == 0) kernel_ms = 0, wall = 0;
    }
    double mb = text_bytes / 1e6 * (GPU_REPEAT - 1);
    printf("gpu_mismatches %ld\n", mismatches);
    printf("gpu_kernel_mbps %.1f\n", mb / (kernel_ms / 1e3));
    printf("gpu_with_transfers_mbps %.1f\n", mb / wall);
    gpu_minhash_destroy(g);
    return 0;
}
