/* sign.c - document fingerprints on the CPU or the GPU (see sign.h). */
#include "dedup/sign.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/util.h"
#include "gpu/minhash.h"

/* The kept normal forms' arrays are page-aligned, so each can be
 * page-locked on its own. */
#define KEPT_PAGE 4096
/* Page-locked arrays start this large: page-locking costs a system call
 * and the pages' pinning, so a worker's arrays should grow once or twice
 * (a stage batch is 1 MiB of input). */
#define KEPT_PINNED_MIN (2u << 20)

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
    bool pinned;                 /* the kept arrays are page-locked for the GPU */
    char *normal;                /* GPU: the pending normal forms, back to back */
    size_t normal_len, cap_normal;
    uint32_t *units;             /* GPU: per text, its unit starts then its unit ends */
    size_t nunits, cap_units;    /* (both page-locked when the GPU allows it: copied without staging) */
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
    if (s->gpu) {
        const char *pin = getenv("WINNOW_DEDUP_PINNED"); /* "0": pageable copies, for measuring the difference */
        s->keep_text = true;
        s->pinned = !pin || strcmp(pin, "0") != 0;
    }
    return s->gpu != NULL;
}

void dedup_signer_destroy(dedup_signer *s)
{
    if (!s) return;
    gpu_minhash_destroy(s->gpu);
    dedup_text_free(&s->text);
    if (s->pinned && s->normal) gpu_unpin(s->normal);
    if (s->pinned && s->units) gpu_unpin(s->units);
    free(s->normal);
    free(s->units);
    free(s->docs);
    free(s->hashes);
    free(s->offsets);
    free(s);
}

/* Makes the array *p (*cap elements of size bytes, the first used of them in
 * use) hold at least want, in fresh pages of its own, page-locked when
 * pin says so (the GPU copies from it). */
static void reserve_kept(void **p, size_t *cap, size_t used, size_t want, size_t size, bool pin)
{
    if (want <= *cap) return;
    size_t bytes = (2 * want * size + KEPT_PAGE - 1) / KEPT_PAGE * KEPT_PAGE;
    if (pin && bytes < KEPT_PINNED_MIN) bytes = KEPT_PINNED_MIN;
    void *grown = aligned_alloc(KEPT_PAGE, bytes);
    if (!grown) dief(1, "out of memory (%zu bytes)", bytes);
    if (used) memcpy(grown, *p, used * size);
    if (*p && pin) gpu_unpin(*p);
    free(*p);
    if (pin) gpu_pin(grown, bytes);
    *p = grown;
    *cap = bytes / size;
}

/* Keeps the normal form in s->text for the GPU: its bytes and units. */
static void keep_normal_form(dedup_signer *s)
{
    const dedup_text *t = &s->text;
    if (s->ntexts == s->cap_docs) {
        s->cap_docs = s->cap_docs ? 2 * s->cap_docs : 64;
        s->docs = xrealloc(s->docs, s->cap_docs * sizeof *s->docs);
    }
    s->docs[s->ntexts] = (gpu_text_doc){.text_from = s->normal_len, .unit_from = s->nunits, .nunits = (uint32_t)t->nunits};
    bool pin = s->pinned;
    reserve_kept((void **)&s->normal, &s->cap_normal, s->normal_len, s->normal_len + t->text.len, 1, pin);
    if (t->text.len) memcpy(s->normal + s->normal_len, t->text.data, t->text.len);
    s->normal_len += t->text.len;
    if (!t->nunits) return; /* (an empty normal form may have no unit arrays at all) */
    reserve_kept((void **)&s->units, &s->cap_units, s->nunits, s->nunits + 2 * t->nunits, sizeof *s->units, pin);
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
        if (d->nunits) {
            const uint32_t *start = s->units + d->unit_from;
            minhash_shingle_hashes_of(s->normal + d->text_from, start, start + d->nunits, d->nunits, s->p->ngram,
                                      &s->hashes, &s->nhashes, &s->cap_hashes);
        }
        s->offsets[i + 1] = s->nhashes;
    }
}

double dedup_signer_last_kernel_ms(const dedup_signer *s)
{
    return s->gpu ? gpu_minhash_last_kernel_ms(s->gpu) : 0;
}

void dedup_signer_finish(dedup_signer *s, uint64_t *sigs)
{
    int k = s->p->k;
    char why[256];
    if (s->gpu && gpu_minhash_text_signatures(s->gpu, s->normal, s->normal_len, s->units, s->nunits / 2, s->docs,
                                              (int)s->ntexts, s->p->ngram, sigs, why, sizeof why) != 0) {
        warnf("GPU failed, this worker signs on the CPU from now on: %s", why);
        gpu_minhash_destroy(s->gpu);
        s->gpu = NULL;
    }
    if (!s->gpu) {
        if (s->keep_text) hash_kept_normal_forms(s);
        s->keep_text = s->keep_text && !s->pinned; /* a failed GPU's worker hashes as it goes from now on */
        for (size_t i = 0; i < s->ntexts; i++)
            minhash_signature(s->p, s->hashes + s->offsets[i], s->offsets[i + 1] - s->offsets[i], sigs + i * (size_t)k);
    }
    s->ntexts = 0;
    s->nhashes = 0;
    s->nunits = 0;
    s->normal_len = 0;
}

uint64_t dedup_signer_bytes(const dedup_signer *s)
{
    return s->bytes;
}
