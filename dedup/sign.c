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

void dedup_signer_finish(dedup_signer *s, uint64_t *sigs)
{
    int k = s->p->k;
    char why[256];
    if (s->gpu && gpu_minhash_signatures(s->gpu, s->hashes, s->offsets, (int)s->ntexts, sigs, why, sizeof why) != 0) {
        warnf("GPU failed, this worker signs on the CPU from now on: %s", why);
        gpu_minhash_destroy(s->gpu);
        s->gpu = NULL;
    }
    if (!s->gpu)
        for (size_t i = 0; i < s->ntexts; i++)
            minhash_signature(s->p, s->hashes + s->offsets[i], s->offsets[i + 1] - s->offsets[i], sigs + i * (size_t)k);
    s->ntexts = 0;
    s->nhashes = 0;
}

uint64_t dedup_signer_bytes(const dedup_signer *s)
{
    return s->bytes;
}
