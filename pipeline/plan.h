/* plan.h - what a pipeline run works on: the sorted input list split over
 * tasks, and where everything lives in the work directory.
 *
 *   WORK/plan                 tasks and input list of this run (checked on resume)
 *   WORK/lock                 held by the local coordinator (one `winnow run` at a time)
 *   WORK/docs/NNNNNN.jsonl[.zst]   ingest -> filter output of input file NNNNNN
 *   WORK/stats/NNNNNN.STAGE.json   that unit's per-stage counts
 *   WORK/failed/NNNNNN        why input file NNNNNN failed (when it did)
 *   WORK/rejects/             dropped documents, per file and stage (with rejects = true)
 *   WORK/logs/NNNNNN.log      the stages' messages for that file
 *   WORK/dedup/               `winnow dedup` staged work directory
 *   WORK/dedup-out/           deduplicated documents, one file per input
 *   WORK/shards/RRRRR.json    the manifest of shards rank RRRRR's part (pipeline/shards_rank.h)
 *   WORK/done/STEP.RANK       completion marker of one rank of one step
 *   WORK/report.json, report.txt   the merged stats report
 *
 * Task t of N takes input files t, t+N, t+2N, ... of the sorted list. */
#ifndef WINNOW_PIPELINE_PLAN_H
#define WINNOW_PIPELINE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "pipeline/config.h"
#include "pipeline/stage_options.h"

/* The zstd level of the documents `winnow run` keeps in WORK (WORK/docs and
 * WORK/dedup-out, with compress = true): each is written once and read back
 * once to three times, so they are compressed fast. Level 1 costs about 60%
 * of level 3's CPU for about 12% more bytes on real web text (compressing
 * one of them at level 3 was 14% of a run's CPU on real documents;
 * bench/results/run-jsonl-2026-11-27.md). The shards step splits the final
 * ones over its ranks by their compressed bytes, so this level is part of
 * where a multi-task run's shards end (2026-11-27: from 3 to 1 for the final
 * documents, which moved those ends once; documents and ids are unchanged). */
#define PL_WORK_ZSTD_LEVEL 1

typedef struct {
    pl_config cfg;
    char **files;      /* sorted absolute input paths */
    uint64_t *sizes;   /* their sizes in bytes */
    int nfiles;
    char *winnow;      /* absolute path of this binary, for child processes */
    bool has_filter, has_dedup, has_tokenize;
    pl_stage_options stages; /* options of the stages run in-process, read at load */
} pl_plan;

/* The steps of a run, in order; each has tasks ranks, except STEP_MERGE (one)
 * and STEP_SHARDS without [tokenize] (one: the documents concatenated). */
typedef enum { STEP_DOCS, STEP_SIGNATURES, STEP_BUCKETS, STEP_APPLY, STEP_SHARDS, STEP_MERGE, STEP_COUNT } pl_step;

/* "docs", "signatures", ...; and back (-1 when unknown). */
const char *pl_step_name(pl_step s);
int pl_step_parse(const char *name);

/* True when the pipeline runs this step (dedup steps only with [dedup]). */
bool pl_step_enabled(const pl_plan *p, pl_step s);

/* Number of ranks of a step. */
int pl_step_ranks(const pl_plan *p, pl_step s);

/* True when a rank of step s has no completion marker; the merge step also
 * while a shards rank has none (a shards rank that runs again needs a merge). */
bool pl_step_unfinished(const pl_plan *p, pl_step s);

/* Loads the pipeline file (the options of the stages run in-process included),
 * expands and sorts the inputs, and checks them
 * against WORK/plan (writing it on the first run; later runs keep its input
 * list). Exits with status 1 and a clear message when the file is wrong or
 * the work directory belongs to a run with another task count. */
void pl_plan_load(const char *pipeline_path, pl_plan *p);

/* WORK/REL formatted; the caller frees. */
char *pl_path(const pl_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* WORK/docs/NNNNNN.jsonl[.zst] of input i (the caller frees). */
char *pl_docs_path(const pl_plan *p, int i);

/* The documents of input i after dedup (WORK/dedup-out/...), or pl_docs_path without [dedup]. */
char *pl_final_docs_path(const pl_plan *p, int i);

/* True when the completion marker of (step, rank) exists. */
bool pl_done(const pl_plan *p, pl_step s, int rank);

/* Writes the completion marker of (step, rank) atomically, with a note inside. */
void pl_mark_done(const pl_plan *p, pl_step s, int rank, const char *note);

/* Removes the completion marker of (step, rank) when there is one. */
void pl_unmark_done(const pl_plan *p, pl_step s, int rank);

/* True when path exists. */
bool pl_exists(const char *path);

/* mkdir -p; exits with status 2 naming the directory when it cannot. */
void pl_mkdirs(const char *path);

void pl_plan_free(pl_plan *p);

#endif
