/* sign.c - document fingerprints on the CPU or the GPU (see sign.h). */
#include "dedup/sign.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/util.h"
#include "gpu/minhash.h"

/* With a GPU the pending texts are kept as normal forms and the device
 * hashes their shingles (gpu_minhash_text_signatures); without, as shingle
 * hashes. The signer moves to or off the GPU only between batches, so the
 * pending texts are all kept one way. */
struct dedup_signer {
    const minhash_params *p;
    dedup_text text;
    uint64_t *hashes;            /* shingle hashes of the pending texts (CPU) */
    size_t nhashes, cap_hashes;
    uint64_t *offsets;           /* pending text i: hashes[offsets[i] .. offsets[i+1]) */
    size_t ntexts, cap_texts;
    gpu_minhash *gpu;
    bool keep_text;              /* texts are kept as normal forms (with a GPU, or for a test) */
    wbuf normal;                 /* GPU: the pending normal forms, back to back */
    uint32_t *units;             /* GPU: per text, its unit starts then its unit ends */
    size_t nunits, cap_units;
    gpu_text_doc *docs;          /* GPU: pending text i */
    size_t cap_docs;
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

void dedup_signer_keep_text(dedup_signer *s)
{
    s->keep_text = true;
}

bool dedup_signer_use_gpu(dedup_signer *s, char *why, size_t n)
{
    if (!s->gpu) s->gpu = gpu_minhash_create(s->p->k, s->p->a, s->p->b, why, n);
    if (s->gpu) s->keep_text = true;
    return s->gpu != NULL;
}

void dedup_signer_destroy(dedup_signer *s)
{
    if (!s) return;
    gpu_minhash_destroy(s->gpu);
    dedup_text_free(&s->text);
    buf_free(&s->normal);
    free(s->units);
    free(s->docs);
    free(s->hashes);
    free(s->offsets);
    free(s);
}

/* Keeps the normal form in s->text for the GPU: its bytes and units. */
static void keep_normal_form(dedup_signer *s)
{
    const dedup_text *t = &s->text;
    if (s->ntexts == s->cap_docs) {
        s->cap_docs = s->cap_docs ? 2 * s->cap_docs : 64;
        s->docs = xrealloc(s->docs, s->cap_docs * sizeof *s->docs);
    }
    s->docs[s->ntexts] = (gpu_text_doc){.text_from = s->normal.len, .unit_from = s->nunits, .nunits = (uint32_t)t->nunits};
    buf_append(&s->normal, t->text.data, t->text.len);
    if (s->nunits + 2 * t->nunits > s->cap_units) {
        s->cap_units = 2 * (s->nunits + 2 * t->nunits);
        s->units = xrealloc(s->units, s->cap_units * sizeof *s->units);
    }
    memcpy(s->units + s->nunits, t->start, t->nunits * sizeof *t->start);
    memcpy(s->units + s->nunits + t->nunits, t->end, t->nunits * sizeof *t->end);
    s->nunits += 2 * t->nunits;
}

/* Fingerprints the text just normalised into s->text (len bytes of input). */
static void add_normalized(dedup_signer *s, size_t len, dedup_fp *fp)
{
    XXH128_hash_t h = XXH3_128bits(s->text.text.data ? s->text.text.data : "", s->text.text.len);
    fp->exact[0] = h.high64;
    fp->exact[1] = h.low64;
    fp->nshingles = (uint32_t)minhash_shingle_count(&s->text, s->p->ngram);
    if (s->keep_text)
        keep_normal_form(s);
    else
        minhash_shingle_hashes(&s->text, s->p->ngram, &s->hashes, &s->nhashes, &s->cap_hashes);
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

/* The pending normal forms' shingle hashes, computed on the CPU after all
 * (the GPU failed): into s->hashes and s->offsets, as without a GPU. */
static void hash_kept_normal_forms(dedup_signer *s)
{
    s->nhashes = 0;
    for (size_t i = 0; i < s->ntexts; i++) {
        const gpu_text_doc *d = &s->docs[i];
        const uint32_t *start = s->units + d->unit_from;
        minhash_shingle_hashes_of(s->normal.data + d->text_from, start, start + d->nunits, d->nunits, s->p->ngram,
                                  &s->hashes, &s->nhashes, &s->cap_hashes);
        s->offsets[i + 1] = s->nhashes;
    }
}

void dedup_signer_finish(dedup_signer *s, uint64_t *sigs)
{
    int k = s->p->k;
    char why[256];
    if (s->gpu && gpu_minhash_text_signatures(s->gpu, s->normal.data, s->normal.len, s->units, s->nunits / 2, s->docs,
                                              (int)s->ntexts, s->p->ngram, sigs, why, sizeof why) != 0) {
        warnf("GPU failed, this worker signs on the CPU from now on: %s", why);
        gpu_minhash_destroy(s->gpu);
        s->gpu = NULL;
    }
    if (!s->gpu) {
        if (s->keep_text) hash_kept_normal_forms(s);
        for (size_t i = 0; i < s->ntexts; i++)
            minhash_signature(s->p, s->hashes + s->offsets[i], s->offsets[i + 1] - s->offsets[i], sigs + i * (size_t)k);
    }
    s->ntexts = 0;
    s->nhashes = 0;
    s->nunits = 0;
    buf_clear(&s->normal);
}

uint64_t dedup_signer_bytes(const dedup_signer *s)
{
    return s->bytes;
}
