/* shard_parts.h - one shard directory from parts that several writers made.
 *
 * A pipeline's shards step runs in ranks: each writes a complete shard
 * directory of its own (a part: shards numbered from 0, and a manifest).
 * shard_parts_merge() moves the parts' shard files into the final directory,
 * numbered on from part to part (part 0's shards first), and writes one
 * manifest that lists them all: the result is an ordinary shard directory,
 * documents in part order, read like any other. It only renames files and
 * writes one manifest; no token is read or rewritten.
 *
 * It can be run again after a kill, and by two processes at once: a shard
 * already moved is found under its new name, and the manifest is written
 * under a temporary name and renamed, last. */
#ifndef WINNOW_SHARD_PARTS_H
#define WINNOW_SHARD_PARTS_H

#include <stddef.h>

#include "shards/manifest.h"

typedef struct {
    const char *dir;         /* where the part's shard files are until moved */
    const shard_manifest *m; /* the part's manifest, as its writer wrote it */
} shard_part;

/* Moves the shards of parts[0..nparts) into dir (same file system) and
 * writes dir/manifest.json; removes shard files numbered past the new total
 * that an earlier, larger run left. The parts must agree on everything but
 * their shards (tokenizer, dtype, special ids, settings). Returns 0, or -1
 * with the reason in err (nothing written when the parts disagree). */
int shard_parts_merge(const char *dir, const shard_part *parts, int nparts, char *err, size_t errlen);

#endif
