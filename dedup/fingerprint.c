/* fingerprint.c - batch fingerprints for both dedup modes (see fingerprint.h). */
#include "dedup/fingerprint.h"

#include <stdlib.h>

#include "core/util.h"

/* The fingerprints of b's documents with signer s. */
static batch_prints *batch_prints_compute(dedup_signer *s, const minhash_params *p, stage_batch *b)
{
    batch_prints *bp = xcalloc(1, sizeof *bp);
    bp->n = b->n;
    bp->fp = xcalloc((size_t)b->n + 1, sizeof *bp->fp);
    bp->sigs = xmalloc(((size_t)b->n + 1) * (size_t)p->k * sizeof *bp->sigs);
    bp->keys = xmalloc(((size_t)b->n + 1) * (size_t)p->bands * sizeof *bp->keys);
    uint64_t *sigs = xmalloc(((size_t)b->n + 1) * (size_t)p->k * sizeof *sigs);
    wbuf scratch = WBUF_INIT;
    int *signed_doc = xmalloc(((size_t)b->n + 1) * sizeof *signed_doc);
    int nsigned = 0;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        size_t len;
        const char *text = json_string(&d->json.text, &scratch, &len);
        dedup_signer_add(s, text, len, &bp->fp[i]);
        signed_doc[nsigned++] = i;
    }
    dedup_signer_finish(s, sigs);
    for (int j = 0; j < nsigned; j++) {
        int i = signed_doc[j];
        uint64_t *sig = bp->sigs + (size_t)i * p->k;
        for (int k = 0; k < p->k; k++) sig[k] = sigs[(size_t)j * p->k + k];
        if (bp->fp[i].nshingles) minhash_band_keys(p, sig, bp->keys + (size_t)i * p->bands);
    }
    free(signed_doc);
    free(sigs);
    buf_free(&scratch);
    return bp;
}

void batch_prints_free(batch_prints *bp)
{
    if (!bp) return;
    free(bp->fp);
    free(bp->sigs);
    free(bp->keys);
    free(bp);
}

void signer_set_init(signer_set *ss, const dedup_config *c, int threads)
{
    ss->config = c;
    ss->nworkers = threads < 1 ? 1 : threads;
    ss->by_worker = xcalloc((size_t)ss->nworkers, sizeof *ss->by_worker);
    ss->auto_tried = xcalloc((size_t)ss->nworkers, sizeof *ss->auto_tried);
    atomic_init(&ss->text_bytes, 0);
    atomic_init(&ss->gpu_state, AUTO_UNDECIDED);
}

/* --device auto: whether the run has signed enough text for the GPU to pay.
 * The first worker past the mark claims the decision and probes the GPU
 * (gpu_usable() is not safe to call from two threads at once); the others
 * keep the CPU until it is made. */
static bool auto_gpu_ready(signer_set *ss)
{
    int state = atomic_load(&ss->gpu_state);
    if (state != AUTO_UNDECIDED || atomic_load(&ss->text_bytes) < DEDUP_AUTO_GPU_MIN_BYTES) return state == AUTO_GPU;
    if (!atomic_compare_exchange_strong(&ss->gpu_state, &state, AUTO_DECIDING)) return state == AUTO_GPU;
    char why[256];
    state = gpu_usable(why, sizeof why) ? AUTO_GPU : AUTO_CPU;
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
    dedup_signer *s = ss->by_worker[worker];
    if (!s) {
        s = ss->by_worker[worker] = dedup_signer_create(&ss->config->params);
        if (ss->config->device == DEVICE_GPU) signer_take_gpu(s);
    }
    if (ss->config->device == DEVICE_AUTO && !ss->auto_tried[worker] && auto_gpu_ready(ss)) {
        ss->auto_tried[worker] = true;
        signer_take_gpu(s);
    }
    uint64_t before = dedup_signer_bytes(s);
    batch_prints *bp = batch_prints_compute(s, &ss->config->params, b);
    atomic_fetch_add(&ss->text_bytes, dedup_signer_bytes(s) - before);
    return bp;
}

void signer_set_free(signer_set *ss)
{
    for (int i = 0; i < ss->nworkers; i++) dedup_signer_destroy(ss->by_worker[i]);
    free(ss->by_worker);
    free(ss->auto_tried);
}
