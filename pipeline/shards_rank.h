/* shards_rank.h - the shards step in ranks, and the merge step after it.
 *
 * Rank r of N takes a contiguous run of the final documents files (those of
 * the input files that did not fail, in input order): file i goes to rank
 * floor(B / (T / N + 1)), B the bytes of the files before it and T of all
 * (integer division), so the ranks get about the same bytes, and the ranks'
 * documents one after the other are
 * every document in input-file order, whatever N. Only where shards end
 * depends on N (each rank starts a shard of its own).
 *
 * Rank r writes a complete shard directory of its own (a part) under a
 * unique name, OUTPUT/parts/RRRRR.tmp.HOST.PID, and renames it to
 * OUTPUT/parts/RRRRR when complete; a copy of the same rank that finds that
 * name taken by a part with the same manifest drops its own (the work is
 * done; the output is deterministic). The part's manifest is also kept as
 * WORK/shards/RRRRR.json.
 *
 * The merge step (one rank) moves every part's shards into OUTPUT, numbered
 * on from part to part, writes OUTPUT/manifest.json (shards/shard_parts.h),
 * removes OUTPUT/parts, and writes the merged report: only renames and one
 * manifest, so it costs milliseconds whatever the size of the run. */
#ifndef WINNOW_PIPELINE_SHARDS_RANK_H
#define WINNOW_PIPELINE_SHARDS_RANK_H

#include <stdbool.h>

#include "pipeline/plan.h"
#include "pipeline/spawn.h"

/* Appends to a the final documents files of shards rank `rank`, in order. */
void pl_shards_share(const pl_plan *p, int rank, pl_argv *a);

/* Rank `rank` of the shards step (with [tokenize]): its part, its stats, its
 * marker. Returns 0 or 2. */
int pl_shards_rank_run(const pl_plan *p, int rank, int threads);

/* The merge step: the parts into OUTPUT (with [tokenize]), then the report
 * (printed unless quiet) and the marker. Returns 0 or 2. */
int pl_merge_run(const pl_plan *p, bool quiet);

/* Removes OUTPUT/parts and whatever is in it (parts, killed ranks'
 * temporaries); with temporaries_only, only the temporaries (what killed
 * ranks left; a local run under its lock calls it at start). */
void pl_remove_parts(const pl_plan *p, bool temporaries_only);

#endif
