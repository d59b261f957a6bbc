/* index.h - the streaming dedup index: decides, document by document in
 * input order, whether each is a duplicate of an earlier one.
 *
 * The rule: a document is a duplicate when it shares its exact hash or one
 * band key with any earlier document (kept or not); the document it "collided
 * with" is the earliest such one. So the index only has to know, for every
 * key, the first document that had it: a pure function of the input order,
 * whatever was decided about the documents.
 *
 * That is what makes it parallel. Keys are split by a hash of the key into
 * partitions, each its own pair of tables (exact hashes; band keys with the
 * first document's number). A worker that has fingerprinted a batch looks
 * its keys up in every partition that no other thread is stepping, and in
 * each it steps through, in input order, every batch that is queued there
 * (its own and others'); a partition busy elsewhere is left to the thread
 * stepping it, which looks for queued batches again before it lets go. So
 * every partition sees its keys in document order, no worker ever waits for
 * another, and every lookup answers "first had by document d" exactly as a
 * serial index would. The reduce step (one thread) then only
 * combines each document's answers, in input order (dedup_index_decide).
 * The answers, and so the output, do not depend on the thread count or the
 * number of partitions.
 *
 * Memory per document indexed: its exact hash (16 bytes, no value: an exact
 * hit also hits every band key, whose holders name the earliest document)
 * plus, for each band key not seen before, the key and a 32-bit document
 * number (12 bytes), in cuckoo tables filled to about 95%: at most
 * (16 + 12 * bands) / 0.95 bytes, 194 for 14 bands with no key shared, less
 * as keys repeat. Ids (for --rejects/--mark) and signatures (--verify,
 * 8 * k bytes) are kept apart and reported apart. Documents are numbered by
 * their ordinal in the input (failed lines included), below 2^32 - 1. */
#ifndef WINNOW_DEDUP_INDEX_H
#define WINNOW_DEDUP_INDEX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/stage.h"
#include "dedup/fingerprint.h"
#include "dedup/keyset.h"

typedef enum { DUP_NONE = 0, DUP_EXACT, DUP_NEAR } dup_kind;

typedef struct dedup_part dedup_part;

typedef struct {
    int nbands, k;
    int nparts;
    dedup_part *parts;
    atomic_uint_fast64_t table_bytes; /* all partitions' tables */
    pthread_mutex_t lock;             /* guards each batch's complete */
    pthread_cond_t completed;
    /* the reduce step only: */
    uint64_t ndocs;        /* documents remembered */
    bool keep_ids;
    wbuf ids;              /* ids of documents, back to back */
    uint64_t *id_end;      /* id of document i ends at id_end[i] */
    double verify;         /* 0: off; else the Jaccard estimate a near candidate needs */
    uint64_t *sigs;        /* with verify: every document's signature */
    size_t cap_docs;
} dedup_index;

/* What the index found for one batch's keys (dedup_index_lookup). */
typedef struct batch_lookup {
    uint64_t first;    /* number of the batch's first document */
    atomic_uint_fast64_t turn; /* the same, for partitions that read their queue's head without its lock */
    int n;
    const batch_prints *prints;
    atomic_int parts_left;           /* partitions the batch has yet to go through */
    bool complete;                   /* every partition has answered (under the index's lock) */
    struct batch_lookup **next_in_part; /* per partition: the batch after it in that partition's queue */
    uint32_t *holder;  /* n * (bands + 1): per band key the first document that had it; last, the exact hash (see index.c) */
    uint32_t *route;   /* scratch: key numbers grouped by partition */
    uint32_t *route_start;
    uint16_t *part_of; /* scratch: partition of each key number */
    size_t cap_keys;
} batch_lookup;

/* Makes an empty index sized for expected documents (0: grows from small),
 * partitioned for threads workers. */
void dedup_index_init(dedup_index *ix, const minhash_params *p, uint64_t expected, int threads, bool keep_ids, double verify);

/* Frees the index. */
void dedup_index_free(dedup_index *ix);

/* On a worker: queues every key of b's documents, which have fingerprints
 * bp, for lookup (and adding) in its partition, and steps batches through
 * every partition that is free; returns without waiting. Each partition takes
 * the batches in input order, whichever thread steps it. bl and bp must stay
 * until dedup_index_wait() has returned for bl. */
void dedup_index_lookup(dedup_index *ix, const stage_batch *b, const batch_prints *bp, batch_lookup *bl);

/* Reduce step: waits until every partition has answered for bl's batch
 * (every batch before it has been looked up by then). */
void dedup_index_wait(dedup_index *ix, batch_lookup *bl);

/* Frees what dedup_index_lookup() put in bl. */
void batch_lookup_free(batch_lookup *bl);

/* Reduce step, every document (failed ones too) in input order: keeps
 * document number doc's id and (with --verify) signature sig. */
void dedup_index_remember(dedup_index *ix, uint64_t doc, const uint64_t *sig, const char *id, size_t id_len);

/* Reduce step, after remembering it: decides document i of the looked-up
 * batch; returns its kind and, for duplicates, the number of the earliest
 * document it collided with in *first. */
dup_kind dedup_index_decide(const dedup_index *ix, const batch_prints *bp, const batch_lookup *bl, int i, uint32_t *first);

/* The id of document number doc (empty when not kept); sets *len. */
const char *dedup_index_id(const dedup_index *ix, uint32_t doc, size_t *len);

/* Bytes held by the hash tables (the index proper). */
uint64_t dedup_index_table_bytes(dedup_index *ix);

/* Bytes held for ids and signatures. */
uint64_t dedup_index_side_bytes(const dedup_index *ix);

#endif
