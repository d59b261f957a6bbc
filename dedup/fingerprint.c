/* fingerprint.c - batch fingerprints for both dedup modes (see fingerprint.h). */
#include "dedup/fingerprint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/gpu_verdict.h"
#include "core/util.h"
#include "gpu/minhash.h"

/* Makes room in bp for n documents. */
static void reserve_prints(batch_prints *bp, const minhash_params *p, int n)
{
    if (n + 1 <= bp->cap) return;
    bp->cap = n + 1 + n / 2;
    size_t cap = (size_t)bp->cap;
    bp->fp = xrealloc(bp->fp, cap * sizeof *bp->fp);
    bp->sigs = xrealloc(bp->sigs, cap * (size_t)p->k * sizeof *bp->sigs);
    bp->keys = xrealloc(bp->keys, cap * (size_t)p->bands * sizeof *bp->keys);
    bp->packed = xrealloc(bp->packed, cap * (size_t)p->k * sizeof *bp->packed);
    bp->signed_doc = xrealloc(bp->signed_doc, cap * sizeof *bp->signed_doc);
}

/* starttime's place among /proc/self/stat's fields (proc(5)). */
#define START_TIME_FIELD 22

uint64_t dedup_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double dedup_process_age_s(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char line[1024];
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    const char *p = strrchr(line, ')'); /* the command name may hold spaces */
    unsigned long long start_ticks = 0;
    for (int field = 2; p && field < START_TIME_FIELD; field++) p = strchr(p + 1, ' ');
    struct timespec now;
    if (!p || sscanf(p + 1, "%llu", &start_ticks) != 1 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
    return now.tv_sec + now.tv_nsec / 1e9 - (double)start_ticks / sysconf(_SC_CLK_TCK);
}

/* Adds the nanoseconds since *since to *sum when t is on, and restarts *since. */
static void lap(const dedup_times *t, atomic_uint_fast64_t *sum, uint64_t *since)
{
    if (!t->on) return;
    uint64_t now = dedup_now_ns();
    atomic_fetch_add(sum, now - *since);
    *since = now;
}

void dedup_times_report(const dedup_times *t, int threads, double wall_s, double free_s)
{
    double map = atomic_load(&t->map_ns) / 1e9;
    fprintf(stderr,
            "dedup times: %d workers, %.3f s wall; map %.2f worker-s (add %.2f, signatures %.2f, band keys %.2f, "
            "index %.2f), outside map %.2f worker-s; run began %.2f s after the process started; GPU ready %.3f s "
            "after the signers were set up (checked %.3f s after); index and signers freed in %.3f s; report %.2f s after "
            "the process started; GPU kernels %.3f s in %llu calls\n",
            threads, wall_s, map, atomic_load(&t->add_ns) / 1e9, atomic_load(&t->finish_ns) / 1e9,
            atomic_load(&t->keys_ns) / 1e9, atomic_load(&t->index_ns) / 1e9, threads * wall_s - map,
            t->run_began_s, t->warm_ns / 1e9, t->check_ns / 1e9, free_s, dedup_process_age_s(),
            atomic_load(&t->kernel_us) / 1e6, (unsigned long long)atomic_load(&t->gpu_calls));
}

/* The fingerprints of b's documents with signer s, into bp; returns the
 * number of documents signed. */
static int batch_prints_compute(dedup_signer *s, const minhash_params *p, stage_batch *b, batch_prints *bp,
                                dedup_times *t)
{
    uint64_t since = t->on ? dedup_now_ns() : 0;
    reserve_prints(bp, p, b->n);
    bp->n = b->n;
    memset(bp->fp, 0, ((size_t)b->n + 1) * sizeof *bp->fp);
    int nsigned = 0;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        dedup_signer_add_json(s, &d->json.text, &bp->fp[i]);
        bp->signed_doc[nsigned++] = i;
    }
    lap(t, &t->add_ns, &since);
    /* signatures straight to their places when every document was signed */
    uint64_t *signed_sigs = nsigned == b->n ? bp->sigs : bp->packed;
    dedup_signer_finish(s, signed_sigs);
    lap(t, &t->finish_ns, &since);
    double kernel_ms = t->on && nsigned ? dedup_signer_last_kernel_ms(s) : 0;
    if (kernel_ms > 0) {
        atomic_fetch_add(&t->kernel_us, (uint64_t)(kernel_ms * 1000));
        atomic_fetch_add(&t->gpu_calls, 1);
    }
    for (int j = 0; j < nsigned; j++) {
        int i = bp->signed_doc[j];
        uint64_t *sig = bp->sigs + (size_t)i * p->k;
        if (signed_sigs != bp->sigs) memcpy(sig, bp->packed + (size_t)j * p->k, (size_t)p->k * sizeof *sig);
        if (bp->fp[i].nshingles) minhash_band_keys(p, sig, bp->keys + (size_t)i * p->bands);
    }
    lap(t, &t->keys_ns, &since);
    return nsigned;
}

void batch_prints_release(batch_prints *bp)
{
    free(bp->fp);
    free(bp->sigs);
    free(bp->keys);
    free(bp->packed);
    free(bp->signed_doc);
    memset(bp, 0, sizeof *bp);
}

void batch_prints_free(batch_prints *bp)
{
    if (!bp) return;
    batch_prints_release(bp);
    free(bp);
}

/* --device gpu's thread: checks the GPU (signer_set_require_gpu() waits for
 * the answer), makes the contexts, then lets the workers take the GPU (a
 * failure to make them is reported by each worker's own attempt). */
static void *warm_up_gpu(void *arg)
{
    signer_set *ss = arg;
    uint64_t start = dedup_now_ns();
    char why[GPU_VERDICT_WHY_MAX];
    bool usable = gpu_usable(why, sizeof why);
    ss->times.check_ns = dedup_now_ns() - start;
    gpu_verdict_set(&ss->gpu_verdict, usable, why);
    if (!usable) return NULL;
    gpu_minhash_warm_up(why, sizeof why);
    ss->times.warm_ns = dedup_now_ns() - start;
    atomic_store(&ss->gpu_ready, true);
    return NULL;
}

void dedup_require_gpu(const dedup_config *c)
{
    char why[GPU_VERDICT_WHY_MAX];
    if (c->device == DEVICE_GPU && !gpu_usable(why, sizeof why)) gpu_refuse(why);
}

void signer_set_require_gpu(signer_set *ss)
{
    if (ss->config->device == DEVICE_GPU) gpu_verdict_require(&ss->gpu_verdict);
}

void signer_set_init(signer_set *ss, const dedup_config *c, int threads)
{
    ss->config = c;
    ss->nworkers = threads < 1 ? 1 : threads;
    ss->by_worker = xcalloc((size_t)ss->nworkers, sizeof *ss->by_worker);
    ss->gpu_offered = xcalloc((size_t)ss->nworkers, sizeof *ss->gpu_offered);
    atomic_init(&ss->text_bytes, 0);
    atomic_init(&ss->text_docs, 0);
    atomic_init(&ss->gpu_state, AUTO_UNDECIDED);
    memset(&ss->times, 0, sizeof ss->times);
    const char *times = getenv("WINNOW_DEDUP_TIMES");
    ss->times.on = times && *times && strcmp(times, "0") != 0;
    atomic_init(&ss->gpu_ready, false);
    gpu_verdict_init(&ss->gpu_verdict);
    ss->warming = c->device == DEVICE_GPU && pthread_create(&ss->warm, NULL, warm_up_gpu, ss) == 0;
    if (c->device == DEVICE_GPU && !ss->warming) { /* no thread: check here, each worker makes its context itself */
        dedup_require_gpu(c);
        gpu_verdict_set(&ss->gpu_verdict, true, NULL);
        atomic_store(&ss->gpu_ready, true);
    }
}

bool dedup_auto_gpu_pays(uint64_t text_bytes, uint64_t docs)
{
    return text_bytes >= (uint64_t)DEDUP_AUTO_GPU_MIN_DOC_BYTES * docs;
}

/* --device auto: whether the run has signed enough text, in long enough
 * documents, for the GPU to pay. The first worker past the mark claims the
 * decision and probes the GPU (gpu_usable() is not safe to call from two
 * threads at once); the others keep the CPU until it is made. */
static bool auto_gpu_ready(signer_set *ss)
{
    int state = atomic_load(&ss->gpu_state);
    uint64_t bytes = atomic_load(&ss->text_bytes);
    if (state != AUTO_UNDECIDED || bytes < DEDUP_AUTO_GPU_MIN_BYTES) return state == AUTO_GPU;
    if (!atomic_compare_exchange_strong(&ss->gpu_state, &state, AUTO_DECIDING)) return state == AUTO_GPU;
    char why[256];
    state = dedup_auto_gpu_pays(bytes, atomic_load(&ss->text_docs)) && gpu_usable(why, sizeof why) ? AUTO_GPU : AUTO_CPU;
    atomic_store(&ss->gpu_state, state);
    return state == AUTO_GPU;
}

/* Moves signer s to the GPU, or says why it stays on the CPU. */
static void signer_take_gpu(dedup_signer *s)
{
    char why[256];
    if (!dedup_signer_use_gpu(s, why, sizeof why))
        warnf("GPU unavailable, signatures on the CPU: %s", why);
}

batch_prints *signer_set_prints(signer_set *ss, int worker, stage_batch *b)
{
    batch_prints *bp = xcalloc(1, sizeof *bp);
    signer_set_prints_into(ss, worker, b, bp);
    return bp;
}

void signer_set_prints_into(signer_set *ss, int worker, stage_batch *b, batch_prints *bp)
{
    dedup_signer *s = ss->by_worker[worker];
    if (!s) s = ss->by_worker[worker] = dedup_signer_create(&ss->config->params);
    wdevice device = ss->config->device;
    if (device != DEVICE_CPU && !ss->gpu_offered[worker] &&
        (device == DEVICE_GPU ? atomic_load(&ss->gpu_ready) : auto_gpu_ready(ss))) {
        ss->gpu_offered[worker] = true;
        signer_take_gpu(s);
    }
    uint64_t before = dedup_signer_bytes(s);
    int docs = batch_prints_compute(s, &ss->config->params, b, bp, &ss->times);
    atomic_fetch_add(&ss->text_docs, (uint64_t)docs);
    atomic_fetch_add(&ss->text_bytes, dedup_signer_bytes(s) - before);
}

void signer_set_free(signer_set *ss)
{
    if (ss->warming) pthread_join(ss->warm, NULL);
    gpu_verdict_destroy(&ss->gpu_verdict);
    for (int i = 0; i < ss->nworkers; i++) dedup_signer_destroy(ss->by_worker[i]);
    free(ss->by_worker);
    free(ss->gpu_offered);
}
