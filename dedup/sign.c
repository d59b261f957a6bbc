/* sign.c - document fingerprints on the CPU or the GPU (see sign.h). */
#include "dedup/sign.h"

#include <stdlib.h>
#include <xxhash.h>

#include "core/util.h"
#include "gpu/minhash.h"

struct dedup_signer {
    const minhash_params *p;
    dedup_text text;
    uint64_t *hashes;            /* shingle hashes of the pending texts */
    size_t nhashes, cap_hashes;
    uint64_t *offsets;           /* pending text i: hashes[offsets[i] .. offsets[i+1]) */
    size_t ntexts, cap_texts;
    gpu_minhash *gpu;
    size_t part_first[DEDUP_SIGNER_PARTS]; /* first text of each part on the GPU */
    int nparts;
    size_t submitted; /* texts in those parts */
    uint64_t bytes;
};

dedup_signer *dedup_signer_create(const minhash_params *p)
{
    dedup_signer *s = xcalloc(1, sizeof *s);
    s->p = p;
    s->cap_texts = 64;
    s->offsets = xmalloc((s->cap_texts + 1) * sizeof *s->offsets);
    s->offsets[0] = 0;
    return s;
}

bool dedup_signer_use_gpu(dedup_signer *s, char *why, size_t n)
{
    if (!s->gpu) s->gpu = gpu_minhash_create(s->p->k, s->p->a, s->p->b, why, n);
    return s->gpu != NULL;
}

void dedup_signer_destroy(dedup_signer *s)
{
    if (!s) return;
    gpu_minhash_destroy(s->gpu);
    dedup_text_free(&s->text);
    free(s->hashes);
    free(s->offsets);
    free(s);
}

/* Fingerprints the text just normalised into s->text (len bytes of input). */
static void add_normalized(dedup_signer *s, size_t len, dedup_fp *fp)
{
    XXH128_hash_t h = XXH3_128bits(s->text.text.data ? s->text.text.data : "", s->text.text.len);
    fp->exact[0] = h.high64;
    fp->exact[1] = h.low64;
    size_t before = s->nhashes;
    minhash_shingle_hashes(&s->text, s->p->ngram, &s->hashes, &s->nhashes, &s->cap_hashes);
    fp->nshingles = (uint32_t)(s->nhashes - before);
    if (s->ntexts == s->cap_texts) {
        s->cap_texts *= 2;
        s->offsets = xrealloc(s->offsets, (s->cap_texts + 1) * sizeof *s->offsets);
    }
    s->offsets[++s->ntexts] = s->nhashes;
    s->bytes += len;
}

void dedup_signer_add(dedup_signer *s, const char *text, size_t len, dedup_fp *fp)
{
    dedup_normalize(text, len, &s->text);
    add_normalized(s, len, fp);
}

void dedup_signer_add_json(dedup_signer *s, const jvalue *text, dedup_fp *fp)
{
    dedup_normalize_json(text, &s->text);
    add_normalized(s, text->len, fp);
}

/* Drops s's GPU after a failure; finish() then signs the whole batch on the CPU. */
static void gpu_failed(dedup_signer *s, const char *why)
{
    warnf("GPU failed, this worker signs on the CPU from now on: %s", why);
    gpu_minhash_destroy(s->gpu);
    s->gpu = NULL;
    s->nparts = 0;
}

/* Sends the texts added since the last part to the GPU as a new part. */
static void submit_part(dedup_signer *s)
{
    char why[256];
    size_t count = s->ntexts - s->submitted;
    if (gpu_minhash_submit(s->gpu, s->hashes, s->offsets + s->submitted, (int)count, why, sizeof why) != 0) {
        gpu_failed(s, why);
        return;
    }
    s->part_first[s->nparts++] = s->submitted;
    s->submitted = s->ntexts;
}

void dedup_signer_submit(dedup_signer *s)
{
    if (s->gpu && s->nparts < DEDUP_SIGNER_PARTS - 1 && s->ntexts > s->submitted) submit_part(s);
}

void dedup_signer_finish(dedup_signer *s, uint64_t *sigs)
{
    int k = s->p->k;
    char why[256];
    if (s->gpu && s->ntexts > s->submitted) submit_part(s);
    for (int i = 0; s->gpu && i < s->nparts; i++)
        if (gpu_minhash_wait(s->gpu, sigs + s->part_first[i] * (size_t)k, why, sizeof why) != 0) gpu_failed(s, why);
    if (!s->gpu)
        for (size_t i = 0; i < s->ntexts; i++)
            minhash_signature(s->p, s->hashes + s->offsets[i], s->offsets[i + 1] - s->offsets[i], sigs + i * (size_t)k);
    s->ntexts = 0;
    s->nhashes = 0;
    s->nparts = 0;
    s->submitted = 0;
}

uint64_t dedup_signer_bytes(const dedup_signer *s)
{
    return s->bytes;
}
