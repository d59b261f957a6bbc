/* staged.h - dedup at scale: the streaming decisions computed in three
 * stages over hash-partitioned files, each stage runnable as N ranks.
 *
 *   signatures  per input file f (rank r takes f = r, r+N, ...): every
 *               document's exact hash and band keys with its position
 *               (f, line ordinal), split by key range into P partitions
 *               of one signature file (sigfile.h); its ids into an ids file
 *   buckets     per partition p: for each key, every holder but the
 *               earliest is a duplicate -> a removal list sorted by position
 *   apply       per input file: drops the listed documents (exact_dup when
 *               any exact key was shared, else near_dup; dup_of = the
 *               earliest document of all its keys' buckets)
 *
 * Work directory (--work): plan (parameters and file list, written by the
 * first signatures rank and checked by every later one), sig/, ids/, rm/, and
 * done/ with one completion marker per input file of signatures and apply,
 * each written atomically (a partition's removal list in rm/, renamed into
 * place when complete, is its own); a rerun skips work whose marker exists. */
#ifndef WINNOW_DEDUP_STAGED_H
#define WINNOW_DEDUP_STAGED_H

#include "core/stage.h"
#include "dedup/fingerprint.h"

#define STAGED_DEFAULT_PARTITIONS 16
#define STAGED_MAX_PARTITIONS 65536

typedef struct {
    const char *work;
    int partitions;
    int rank, world_size;
} staged_opts;

/* Step 1 over o's inputs (the whole ordered file list, same on every rank). */
int dedup_staged_signatures(const stage_opts *o, const dedup_config *c, const staged_opts *so);

/* Step 2: this rank's partitions. */
int dedup_staged_buckets(const stage_opts *o, const staged_opts *so);

/* Step 3: this rank's input files, written under the directory o->output. */
int dedup_staged_apply(const stage_opts *o, const staged_opts *so);

#endif
