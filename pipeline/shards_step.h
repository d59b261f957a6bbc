/* shards_step.h - the shards step's tokenize and shard in one process: the
 * tokenize stage hands each document's ids straight to the shard writer (no
 * --format bin stream between them). Writes the shard directory and the two stages'
 * stats, each with the CPU seconds spent in it, as `winnow tokenize
 * --format bin | winnow shard` would. */
#ifndef WINNOW_PIPELINE_SHARDS_STEP_H
#define WINNOW_PIPELINE_SHARDS_STEP_H

#include "pipeline/plan.h"

typedef struct {
    const pl_plan *p;
    char **inputs; /* final documents files (this rank's share) */
    int ninputs;
    int threads;
    const char *dir;            /* the shard directory to write */
    const char *tokenize_stats; /* where the two stages' --stats go */
    const char *shard_stats;
} pl_shards_work;

/* Runs it in this process; returns an exit status (0, 1 for options the
 * stages refuse, 2 for failures). Fatal errors exit with status 2. */
int pl_shards_run(const pl_shards_work *w);

/* Loads p's [tokenize] vocabulary into this process once, for the shards
 * ranks it forks after: they share its memory instead of each loading and
 * hashing its own copy (cl100k_base: ~10-20 ms of CPU and a freshly zeroed
 * table per rank). Then checks the shard writer options it and [shard]
 * make, so that a run stops before its first step, not after its docs and
 * dedup steps. Exits with status 1 and `winnow tokenize`'s message when the
 * vocabulary cannot be loaded; returns 0, or EXIT_USAGE after a message. */
int pl_shards_check(const pl_plan *p);

#endif
