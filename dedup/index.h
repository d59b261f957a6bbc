/* index.h - the streaming dedup index: decides, document by document in
 * input order, whether each is a duplicate of an earlier one.
 *
 * The rule: a document is a duplicate when it shares its exact hash or one
 * band key with any earlier document (kept or not); the document it "collided
 * with" is the earliest such one. Memory per document indexed: its exact hash
 * (16 bytes, no value: an exact hit also hits every band key, whose holders
 * name the earliest document) plus, for each band key not seen before, the
 * key and a 32-bit document number (12 bytes), in cuckoo tables filled to
 * about 90%: at most (16 + 12 * bands) / 0.9 bytes, 205 for 14 bands with
 * no key shared, less as keys repeat. Ids (for --rejects/--mark) and
 * signatures (--verify, 8 * k bytes) are kept apart and reported apart. */
#ifndef WINNOW_DEDUP_INDEX_H
#define WINNOW_DEDUP_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "dedup/keyset.h"
#include "dedup/sign.h"

typedef enum { DUP_NONE = 0, DUP_EXACT, DUP_NEAR } dup_kind;

typedef struct {
    keyset exact, bands;
    int nbands, k;
    uint32_t ndocs;
    int64_t first_empty;   /* first document with an empty normal form, or -1 */
    bool keep_ids;
    wbuf ids;              /* ids of documents, back to back */
    uint64_t *id_end;      /* id of document i ends at id_end[i] */
    double verify;         /* 0: off; else the Jaccard estimate a near candidate needs */
    uint64_t *sigs;        /* with verify: every document's signature */
    size_t cap_docs;
} dedup_index;

/* Makes an empty index sized for expected documents (0: grows from small). */
void dedup_index_init(dedup_index *ix, const minhash_params *p, uint64_t expected, bool keep_ids, double verify);

/* Frees the index. */
void dedup_index_free(dedup_index *ix);

/* Decides the next document (fingerprint, band keys, signature, id) and
 * records it; returns its kind and, for duplicates, the number of the
 * earliest document it collided with in *first. */
dup_kind dedup_index_decide(dedup_index *ix, const dedup_fp *fp, const uint64_t *band_keys, const uint64_t *sig,
                            const char *id, size_t id_len, uint32_t *first);

/* Starts loading the table entries dedup_index_decide() will look at for
 * this document (a hint: call it a few documents ahead). */
void dedup_index_prefetch(const dedup_index *ix, const dedup_fp *fp, const uint64_t *band_keys);

/* The id of document number doc (empty when not kept); sets *len. */
const char *dedup_index_id(const dedup_index *ix, uint32_t doc, size_t *len);

/* Bytes held by the hash tables (the index proper). */
uint64_t dedup_index_table_bytes(const dedup_index *ix);

/* Bytes held for ids and signatures. */
uint64_t dedup_index_side_bytes(const dedup_index *ix);

#endif
