/* dedup_add.c - the GPU dedup worker's host work per byte, on the CPU:
 * dedup_signer_add_json() with the normal forms kept (as a signer with a GPU
 * keeps them: normalise, exact hash, copy into the kept arrays), over a
 * JSONL file's documents in stage-sized batches, on THREADS threads at once,
 * each over all the documents. The batches' signatures are made after the
 * timed adds (on the CPU here) and not counted.
 *   usage: dedup_add FILE.jsonl [THREADS] [ROUNDS] [baseline]
 * (baseline: the scanners' and the normaliser's baseline vector code, see
 * simd_force_baseline; without it, the best the CPU has)
 * Prints per thread: MB of document text per CPU-second and per wall second
 * of adds, and the minor page faults of the whole run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "core/json.h"
#include "core/simd.h"
#include "core/util.h"
#include "dedup/minhash.h"
#include "dedup/sign.h"

#define BATCH_BYTES (1u << 20) /* input per batch, as a stage batch */
#define MAX_THREADS 64

typedef struct {
    const jdoc *docs;
    const size_t *line_len;
    size_t ndocs;
    int rounds;
    const minhash_params *p;
    double cpu_s, wall_s;
    uint64_t bytes;
} worker;

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
    worker *w = arg;
    dedup_signer *s = dedup_signer_create(w->p);
    dedup_signer_keep_text(s);
    size_t cap = 1 << 16;
    dedup_fp *fp = xmalloc(cap * sizeof *fp);
    uint64_t *sigs = xmalloc(cap * (size_t)w->p->k * sizeof *sigs);
    for (int r = 0; r < w->rounds; r++)
        for (size_t i = 0; i < w->ndocs;) {
            size_t n = 0, in = 0;
            double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
            for (; i < w->ndocs && in < BATCH_BYTES && n < cap; i++, n++) {
                dedup_signer_add_json(s, &w->docs[i].text, &fp[n]);
                in += w->line_len[i];
                w->bytes += w->docs[i].text.len;
            }
            w->cpu_s += clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
            w->wall_s += clock_s(CLOCK_MONOTONIC) - w0;
            dedup_signer_finish(s, sigs);
        }
    dedup_signer_destroy(s);
    free(fp);
    free(sigs);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) dief(2, "usage: dedup_add FILE.jsonl [THREADS] [ROUNDS] [baseline]");
    bool baseline = argc > 4 && strcmp(argv[4], "baseline") == 0;
    simd_force_baseline(baseline);
    int threads = argc > 2 ? atoi(argv[2]) : 1, rounds = argc > 3 ? atoi(argv[3]) : 1;
    if (threads < 1 || threads > MAX_THREADS) threads = 1;
    size_t size;
    char *data = read_file(argv[1], &size);
    if (!data) dief(2, "cannot read %s", argv[1]);
    size_t cap = 1024, n = 0;
    jdoc *docs = xmalloc(cap * sizeof *docs);
    size_t *line_len = xmalloc(cap * sizeof *line_len);
    for (char *p = data, *e = data + size; p < e;) {
        char *nl = memchr(p, '\n', (size_t)(e - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(e - p);
        const char *err;
        size_t pos;
        if (n == cap) {
            cap *= 2;
            docs = xrealloc(docs, cap * sizeof *docs);
            line_len = xrealloc(line_len, cap * sizeof *line_len);
        }
        if (json_scan_doc(p, len, &docs[n], &err, &pos) == 0 && docs[n].text.kind == JSON_STRING) line_len[n++] = len + 1;
        p += len + 1;
    }
    minhash_params mp;
    minhash_params_init(&mp, MINHASH_DEFAULT_BANDS, MINHASH_DEFAULT_ROWS, MINHASH_DEFAULT_NGRAM, 1);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    worker w[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){.docs = docs, .line_len = line_len, .ndocs = n, .rounds = rounds, .p = &mp};
        pthread_create(&tid[t], NULL, run, &w[t]);
    }
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    getrusage(RUSAGE_SELF, &r1);
    printf("docs %zu threads %d rounds %d vectors %s\n", n, threads, rounds,
           baseline ? "baseline" : simd_avx512_vbmi2() ? "avx512-vbmi2" : simd_avx2() ? "avx2" : "baseline");
    for (int t = 0; t < threads; t++)
        printf("thread %d: add %.1f MB/cpu-s, %.1f MB/wall-s (%.3f cpu-s, %.3f wall-s)\n", t, w[t].bytes / 1e6 / w[t].cpu_s,
               w[t].bytes / 1e6 / w[t].wall_s, w[t].cpu_s, w[t].wall_s);
    printf("minor_faults %ld\n", r1.ru_minflt - r0.ru_minflt);
    free(docs);
    free(line_len);
    free(data);
    return 0;
}
