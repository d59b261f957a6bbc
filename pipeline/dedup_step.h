/* dedup_step.h - one rank of a staged dedup step (signatures, buckets or
 * apply) in this process: what `winnow dedup STEP --rank R ...` does with
 * the [dedup] settings read when the pipeline file was loaded, without
 * starting the winnow binary again. */
#ifndef WINNOW_PIPELINE_DEDUP_STEP_H
#define WINNOW_PIPELINE_DEDUP_STEP_H

#include "pipeline/plan.h"

typedef struct {
    const pl_plan *p;
    pl_step step; /* STEP_SIGNATURES, STEP_BUCKETS or STEP_APPLY */
    int rank, threads;
    const char *work;    /* dedup's work directory (--work) */
    const char *output;  /* apply: the output directory (-o), its --stats and --rejects (NULL: none) */
    const char *stats, *rejects;
    char **inputs;       /* signatures: the document files, in order */
    int ninputs;
} pl_dedup_work;

/* Runs it; returns the exit status `winnow dedup STEP` would have (fatal
 * errors exit with it). */
int pl_dedup_run(const pl_dedup_work *w);

#endif
