/* gpu_tokenize_bench.c - throughput of the GPU tokenizer (text in host
 * memory to ids in host memory, and kernel time alone) and of winnow's CPU
 * path on N threads, on a tokref corpus repeated R times; checks that both
 * give the same ids. Prints one markdown table row per measurement.
 *
 *   gpu_tokenize_bench VOCAB_FILE ENCODING CORPUS.txt.zst CORPUS.idx.tsv THREADS REPEAT [VARIANTS]
 * (ENCODING "-": the file says what it is, e.g. a tokenizer.json) 
 *   gpu_tokenize_bench --dump CORPUS.txt.zst OUT.txt   (decompressed text, for the Python peers)
 * VARIANTS: comma-separated GPU settings to try, each CHUNK_BYTES or
 * CHUNK_BYTES:BATCH_MB (default 64, with the default batch size). */
#include <pthread.h>
#include <time.h>

#include "gpu/bpe.h"
#include "tests/unit/tokenize_corpus.h"

#define RUNS 3

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct {
    const tokenizer *t;
    const char *const *text;
    const size_t *len;
    size_t begin, end, ntokens;
} cpu_job;

static void *cpu_worker(void *arg)
{
    cpu_job *j = arg;
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    for (size_t d = j->begin; d < j->end; d++) {
        ids.n = 0;
        tokenizer_encode(j->t, j->text[d], j->len[d], false, &scratch, &ids);
        j->ntokens += ids.n;
    }
    ids_free(&ids);
    bpe_scratch_free(&scratch);
    return NULL;
}

/* Seconds for the CPU path on nthreads threads (documents dealt in contiguous ranges); sets *ntokens. */
static double cpu_run(const tokenizer *t, const char *const *text, const size_t *len, size_t ndocs, int nthreads,
                      size_t *ntokens)
{
    pthread_t th[256];
    cpu_job jobs[256];
    double t0 = now();
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (cpu_job){t, text, len, ndocs * i / nthreads, ndocs * (i + 1) / nthreads, 0};
        pthread_create(&th[i], NULL, cpu_worker, &jobs[i]);
    }
    *ntokens = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        *ntokens += jobs[i].ntokens;
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--dump")) {
        size_t n;
        char *text = slurp_zstd(argv[2], &n);
        FILE *f = fopen(argv[3], "wb");
        return !f || fwrite(text, 1, n, f) != n || fclose(f);
    }
    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: gpu_tokenize_bench VOCAB ENCODING CORPUS.txt.zst CORPUS.idx.tsv THREADS REPEAT [VARIANTS]\n");
        return 1;
    }
    const char *variants = argc == 8 ? argv[7] : "64";
    int nthreads = atoi(argv[5]), repeat = atoi(argv[6]);
    if (nthreads < 1 || nthreads > 256 || repeat < 1) return 1;
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (tokenizer_load(&t, strcmp(argv[2], "-") ? argv[2] : NULL, argv[1], -1, &err)) {
        fprintf(stderr, "%s\n", err.data);
        return 1;
    }
    size_t size;
    char *text = slurp_zstd(argv[3], &size);
    size_t isz;
    char *idx = slurp(argv[4], &isz);
    size_t cap = 1 << 16, ndocs = 0;
    const char **docs = malloc(cap * sizeof *docs);
    size_t *lens = malloc(cap * sizeof *lens);
    for (int r = 0; r < repeat; r++)
        for (char *line = idx; line && *line;) {
            char *end, *nl = strchr(line, '\n');
            size_t off = strtoull(line, &end, 10), len = strtoull(end, NULL, 10);
            if (ndocs == cap) {
                cap *= 2;
                docs = realloc(docs, cap * sizeof *docs);
                lens = realloc(lens, cap * sizeof *lens);
            }
            docs[ndocs] = text + off, lens[ndocs++] = len;
            line = nl ? nl + 1 : NULL;
        }
    double mb = (double)size * repeat / 1e6;
    printf("| %s | %s | %.1f MB, %zu docs |", t.name, "corpus", mb, ndocs);
    printf("\n");

    size_t cpu_tokens;
    double cpu_s = cpu_run(&t, docs, lens, ndocs, nthreads, &cpu_tokens);
    printf("| %s | winnow CPU path, %d threads | %.0f MB/s | %zu tokens |\n", t.name, nthreads, mb / cpu_s,
           cpu_tokens);

    wbuf why = WBUF_INIT;
    if (!gpu_bpe_usable(&why)) {
        printf("| %s | winnow GPU | skipped: %s | |\n", t.name, why.data);
        return 0;
    }
    gpu_bpe *g = gpu_bpe_open(&t, GPU_BPE_DEVICE, &err);
    if (!g) {
        fprintf(stderr, "%s\n", err.data);
        return 1;
    }
    tok_ids ids = {0};
    size_t *doc_end = malloc(ndocs * sizeof *doc_end);
    for (const char *c = variants; *c; c += strcspn(c, ","), c += *c == ',') {
        char *rest;
        size_t chunk = strtoull(c, &rest, 10), batch_mb = *rest == ':' ? strtoull(rest + 1, NULL, 10) : 0;
        char what[64];
        if (batch_mb) snprintf(what, sizeof what, "%zu-byte chunks, %zu MB batches", chunk, batch_mb);
        else snprintf(what, sizeof what, "%zu-byte chunks, default batches", chunk);
        double best = 1e30, best_kernel = 1e30, p0[GPU_BPE_PHASES], p1[GPU_BPE_PHASES];
        double h0[GPU_BPE_HOST_PHASES], h1[GPU_BPE_HOST_PHASES];
        /* end to end with batches overlapping; kernels timed with one batch at a time */
        for (int overlap = 1; overlap >= 0; overlap--) {
            if (gpu_bpe_tune(g, chunk, batch_mb << 20, overlap, &err)) {
                fprintf(stderr, "%s\n", err.data);
                return 1;
            }
            gpu_bpe_phase_seconds(g, p0);
            if (overlap) gpu_bpe_host_seconds(g, h0);
            for (int run = 0; run < RUNS; run++) {
                ids.n = 0;
                double k0 = gpu_bpe_kernel_seconds(g), t0 = now();
                if (gpu_bpe_encode(g, docs, lens, ndocs, &ids, doc_end, &err)) {
                    fprintf(stderr, "%s\n", err.data);
                    return 1;
                }
                double s = now() - t0, k = gpu_bpe_kernel_seconds(g) - k0;
                if (overlap && s < best) best = s;
                if (!overlap && k < best_kernel) best_kernel = k;
            }
            if (overlap) gpu_bpe_host_seconds(g, h1);
        }
        gpu_bpe_phase_seconds(g, p1);
        printf("| %s | winnow GPU end-to-end (host text to host ids), %s | %.0f MB/s | %zu tokens |\n", t.name, what,
               mb / best, ids.n);
        printf("| %s | winnow GPU kernels only (ids written to host memory), %s | %.0f MB/s | |\n", t.name, what,
               mb / best_kernel);
        printf("| %s | kernel time by phase, one batch at a time, %s | cut %.1f, encode %.1f, merge %.1f, scan %.1f, "
               "gather %.1f, copy to host %.1f ms per run | |\n",
               t.name, what, (p1[0] - p0[0]) * 1e3 / RUNS, (p1[1] - p0[1]) * 1e3 / RUNS, (p1[2] - p0[2]) * 1e3 / RUNS,
               (p1[3] - p0[3]) * 1e3 / RUNS, (p1[4] - p0[4]) * 1e3 / RUNS, (p1[5] - p0[5]) * 1e3 / RUNS);
        printf("| %s | host thread in end-to-end runs, %s | pack %.1f, wait for the device %.1f, unpack %.1f ms per "
               "run | |\n",
               t.name, what, (h1[0] - h0[0]) * 1e3 / RUNS, (h1[1] - h0[1]) * 1e3 / RUNS, (h1[2] - h0[2]) * 1e3 / RUNS);
        fflush(stdout);
    }
    /* the same ids as the CPU path, document by document */
    tok_ids want = {0};
    bpe_scratch scratch = {0};
    size_t bad = 0, at = 0;
    for (size_t d = 0; d < ndocs / repeat; d++) {
        want.n = 0;
        tokenizer_encode(&t, docs[d], lens[d], false, &scratch, &want);
        if (doc_end[d] - at != want.n || memcmp(ids.ids + at, want.ids, want.n * 4)) bad++;
        at = doc_end[d];
    }
    printf("| %s | GPU ids vs CPU path | %zu of %zu documents differ | |\n", t.name, bad, ndocs / repeat);
    gpu_bpe_close(g);
    return bad != 0;
}
