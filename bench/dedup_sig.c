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

#include "core/input.h"
#include "core/json.h"
#include "core/util.h"
#include "dedup/index.h"
#include "dedup/minhash.h"
#include "dedup/normalize.h"
#include "gpu/gpu.h"
#include "gpu/minhash.h"

#define GPU_REPEAT 16
#define INDEX_DOCS 2000000 /* documents of unique keys: a 390 MB index, in DRAM */

/* CPU seconds of this thread: steadier than the wall clock on a shared machine. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
#define GPU_BATCH_HASHES (8u << 20) /* shingles per GPU call, about 50 MB of text */

int main(int argc, char **argv)
{
    minhash_params p;
    minhash_params_init(&p, MINHASH_DEFAULT_BANDS, MINHASH_DEFAULT_ROWS, MINHASH_DEFAULT_NGRAM, 1);
    dedup_text t = {0};
    wbuf scratch = WBUF_INIT;
    uint64_t *hashes = NULL, *offsets = xmalloc(sizeof *offsets), text_bytes = 0;
    size_t nh = 0, cap = 0, ndocs = 0, cap_docs = 1;
    offsets[0] = 0;
    double shingle_s = 0;
    for (int f = 1; f < argc; f++) {
        winput *in = input_open(argv[f]);
        if (!in) return 2;
        const char *line;
        size_t len;
        while (input_getline(in, &line, &len)) {
            jdoc d;
            const char *err;
            size_t pos, tlen;
            if (json_scan_doc(line, len, &d, &err, &pos) != 0 || d.text.kind != JSON_STRING) continue;
            const char *text = json_string(&d.text, &scratch, &tlen);
            double t0 = cpu_now();
            dedup_normalize(text, tlen, &t);
            minhash_shingle_hashes(&t, p.ngram, &hashes, &nh, &cap);
            shingle_s += cpu_now() - t0;
            if (ndocs + 2 > cap_docs) offsets = xrealloc(offsets, (cap_docs *= 2) * sizeof *offsets);
            offsets[++ndocs] = nh;
            text_bytes += tlen;
        }
        input_close(in);
    }
    printf("docs %zu\ntext_mb %.1f\nshingles %zu\n", ndocs, text_bytes / 1e6, nh);
    printf("normalise_shingle_mbps %.1f\n", text_bytes / 1e6 / shingle_s);

    uint64_t *cpu = xmalloc(ndocs * (size_t)p.k * sizeof *cpu);
    double t0 = cpu_now();
    for (size_t i = 0; i < ndocs; i++)
        minhash_signature(&p, hashes + offsets[i], offsets[i + 1] - offsets[i], cpu + i * (size_t)p.k);
    printf("cpu_signature_mbps %.1f\n", text_bytes / 1e6 / (cpu_now() - t0));

    /* The streaming index on the main thread: decisions per second once the
     * tables are far bigger than the caches (the bound on streaming mode). */
    dedup_index ix;
    dedup_index_init(&ix, &p, INDEX_DOCS, false, 0);
    dedup_fp *fps = xmalloc(INDEX_DOCS * sizeof *fps);
    uint64_t *keys = xmalloc((size_t)INDEX_DOCS * p.bands * sizeof *keys), x = 1;
    for (size_t i = 0; i < INDEX_DOCS; i++) {
        fps[i].exact[0] = splitmix64_next(&x);
        fps[i].exact[1] = splitmix64_next(&x);
        fps[i].nshingles = 1;
        for (int j = 0; j < p.bands; j++) keys[i * p.bands + j] = splitmix64_next(&x);
    }
    double w0 = now_seconds();
    for (size_t i = 0; i < INDEX_DOCS; i++) {
        uint32_t first;
        if (i + 8 < INDEX_DOCS) dedup_index_prefetch(&ix, &fps[i + 8], keys + (i + 8) * p.bands);
        dedup_index_decide(&ix, &fps[i], keys + i * p.bands, NULL, "", 0, &first);
    }
    printf("index_docs_per_s %.0f\nindex_bytes_per_doc %.1f\n", INDEX_DOCS / (now_seconds() - w0),
           (double)dedup_index_table_bytes(&ix) / INDEX_DOCS);
    dedup_index_free(&ix);
    free(fps);
    free(keys);

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
