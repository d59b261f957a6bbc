/* fingerprint.c - batch fingerprints for both dedup modes (see fingerprint.h). */
#include "dedup/fingerprint.h"

#include <stdlib.h>

#include "core/util.h"

batch_prints *batch_prints_compute(dedup_signer *s, const minhash_params *p, stage_batch *b)
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
}

dedup_signer *signer_set_get(signer_set *ss, int worker)
{
    if (!ss->by_worker[worker])
        ss->by_worker[worker] = dedup_signer_create(&ss->config->params, ss->config->use_gpu);
    return ss->by_worker[worker];
}

void signer_set_free(signer_set *ss)
{
    for (int i = 0; i < ss->nworkers; i++) dedup_signer_destroy(ss->by_worker[i]);
    free(ss->by_worker);
}
