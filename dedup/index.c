/* index.c - the streaming dedup decisions (see index.h). */
#include "dedup/index.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void dedup_index_init(dedup_index *ix, const minhash_params *p, uint64_t expected, bool keep_ids, double verify)
{
    memset(ix, 0, sizeof *ix);
    ix->nbands = p->bands;
    ix->k = p->k;
    ix->first_empty = -1;
    ix->keep_ids = keep_ids;
    ix->verify = verify;
    keyset_init(&ix->exact, 2, false, expected);
    keyset_init(&ix->bands, 1, true, expected * (uint64_t)p->bands);
}

void dedup_index_free(dedup_index *ix)
{
    keyset_free(&ix->exact);
    keyset_free(&ix->bands);
    buf_free(&ix->ids);
    free(ix->id_end);
    free(ix->sigs);
}

static void remember(dedup_index *ix, const uint64_t *sig, const char *id, size_t id_len)
{
    if (ix->ndocs == UINT32_MAX) dief(EXIT_FATAL, "more than %u documents: use the staged mode (winnow dedup signatures)", UINT32_MAX - 1);
    if (!ix->keep_ids && !ix->verify) return;
    if (ix->ndocs == ix->cap_docs) {
        ix->cap_docs = ix->cap_docs ? ix->cap_docs * 2 : 1024;
        if (ix->keep_ids) ix->id_end = xrealloc(ix->id_end, ix->cap_docs * sizeof *ix->id_end);
        if (ix->verify) ix->sigs = xrealloc(ix->sigs, ix->cap_docs * (size_t)ix->k * sizeof *ix->sigs);
    }
    if (ix->keep_ids) {
        buf_append(&ix->ids, id, id_len);
        ix->id_end[ix->ndocs] = ix->ids.len;
    }
    if (ix->verify) memcpy(ix->sigs + (size_t)ix->ndocs * ix->k, sig, (size_t)ix->k * sizeof *sig);
}

dup_kind dedup_index_decide(dedup_index *ix, const dedup_fp *fp, const uint64_t *band_keys, const uint64_t *sig,
                            const char *id, size_t id_len, uint32_t *first)
{
    uint32_t doc = ix->ndocs;
    remember(ix, sig, id, id_len);
    ix->ndocs++;
    dup_kind kind = DUP_NONE;
    uint32_t earliest = UINT32_MAX;
    if (keyset_find(&ix->exact, fp->exact, NULL)) {
        kind = DUP_EXACT;
        if (fp->nshingles == 0) earliest = (uint32_t)ix->first_empty;
    } else {
        keyset_add(&ix->exact, fp->exact, 0);
        if (fp->nshingles == 0) ix->first_empty = doc;
    }
    for (int j = 0; j < ix->nbands && fp->nshingles; j++) {
        uint32_t holder;
        if (!keyset_find(&ix->bands, &band_keys[j], &holder)) {
            keyset_add(&ix->bands, &band_keys[j], doc);
            continue;
        }
        if (holder == doc) continue; /* two of its own bands share a key */
        if (kind != DUP_EXACT && ix->verify &&
            minhash_similarity(sig, ix->sigs + (size_t)holder * ix->k, ix->k) < ix->verify)
            continue;
        if (kind == DUP_NONE) kind = DUP_NEAR;
        if (holder < earliest) earliest = holder;
    }
    *first = earliest;
    return kind;
}

void dedup_index_prefetch(const dedup_index *ix, const dedup_fp *fp, const uint64_t *band_keys)
{
    keyset_prefetch(&ix->exact, fp->exact);
    for (int j = 0; j < ix->nbands && fp->nshingles; j++) keyset_prefetch(&ix->bands, &band_keys[j]);
}

const char *dedup_index_id(const dedup_index *ix, uint32_t doc, size_t *len)
{
    if (!ix->keep_ids || doc >= ix->ndocs) {
        *len = 0;
        return "";
    }
    uint64_t from = doc ? ix->id_end[doc - 1] : 0;
    *len = ix->id_end[doc] - from;
    return ix->ids.data ? ix->ids.data + from : "";
}

uint64_t dedup_index_table_bytes(const dedup_index *ix)
{
    return keyset_bytes(&ix->exact) + keyset_bytes(&ix->bands);
}

uint64_t dedup_index_side_bytes(const dedup_index *ix)
{
    return ix->ids.cap + ix->cap_docs * ((ix->keep_ids ? sizeof *ix->id_end : 0) + (ix->verify ? (size_t)ix->k * 8 : 0));
}
