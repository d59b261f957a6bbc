/* steps.h - one rank of one step of a pipeline run. The local coordinator
 * (`winnow run`) and Slurm array tasks (`winnow run --step S --rank R`) both
 * come here, so both share the completion markers and produce the same files.
 *
 *   docs        task R: for each of its input files without output yet, a
 *               child process running ingest and filter in-process
 *               (docs_unit.h) into WORK/docs (renamed into place only when
 *               the child succeeded; a file whose process fails or crashes
 *               is recorded in WORK/failed and counted)
 *   signatures, buckets, apply
 *               rank R of `winnow dedup signatures|buckets|apply` over the
 *               documents of every input file that did not fail
 *   shards      rank R: a child process tokenizing its share of the final
 *               documents and writing their ids straight into a shard
 *               writer, a part of the output (shards_rank.h, shards_step.h);
 *               or, without [tokenize], one rank: the documents
 *               concatenated into OUTPUT/documents.jsonl[.zst]
 *   merge       the parts into one shard directory at OUTPUT; the merged
 *               stats report */
#ifndef WINNOW_PIPELINE_STEPS_H
#define WINNOW_PIPELINE_STEPS_H

#include <stdbool.h>

#include "pipeline/plan.h"

typedef struct {
    bool fail_fast; /* a failing input file fails the step (else: recorded, counted, skipped) */
    int threads;    /* worker threads of each stage process (-j) */
    bool quiet;     /* no report summary on stderr */
} pl_step_opts;

/* Runs rank `rank` of step s unless its completion marker exists; writes the
 * marker when it succeeds. Returns an exit status: 0, 1 (a step before it is
 * not finished) or 2 (failure). */
int pl_step_run(const pl_plan *p, pl_step s, int rank, const pl_step_opts *o);

#endif
