/* fingerprint.h - the per-batch work both dedup modes share: every document
 * of a stage batch gets its fingerprint, signature and band keys. */
#ifndef WINNOW_DEDUP_FINGERPRINT_H
#define WINNOW_DEDUP_FINGERPRINT_H

#include "core/stage.h"
#include "dedup/sign.h"

/* What dedup needs from one run: shape, seed, and where signatures run. */
typedef struct {
    minhash_params params;
    bool use_gpu;
    uint64_t expected_docs; /* 0: unknown */
    bool mark;              /* keep duplicates, annotate metadata.dup_of */
    double verify;          /* 0: off; else the Jaccard estimate needed to drop */
} dedup_config;

/* Fingerprints of a batch's documents, index i for document i (documents
 * that failed to scan get nshingles 0 and are not looked at). */
typedef struct {
    int n;
    dedup_fp *fp;
    uint64_t *sigs; /* n * k */
    uint64_t *keys; /* n * bands */
} batch_prints;

/* Computes the fingerprints of b's documents with signer s. */
batch_prints *batch_prints_compute(dedup_signer *s, const minhash_params *p, stage_batch *b);

/* Frees what batch_prints_compute() made. */
void batch_prints_free(batch_prints *bp);

/* Per-thread signers for a stage run: one per worker, made on first use. */
typedef struct {
    const dedup_config *config;
    dedup_signer **by_worker;
    int nworkers;
} signer_set;

/* Makes room for threads workers' signers. */
void signer_set_init(signer_set *ss, const dedup_config *c, int threads);

/* The signer of a worker (made on its first call). */
dedup_signer *signer_set_get(signer_set *ss, int worker);

/* Frees the signers. */
void signer_set_free(signer_set *ss);

#endif
