/* id_stream.h - the --format bin token stream `winnow shard` reads: per
 * document a u32 little-endian count, then that many u32 little-endian ids. */
#ifndef WINNOW_SHARDS_ID_STREAM_H
#define WINNOW_SHARDS_ID_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "core/stats.h"
#include "shards/shard_writer.h"

/* Streams the documents of in into w, counting them in st (a document with a
 * bad id is counted failed and skipped by the writer); *ids and *cap are a
 * reusable buffer. Returns false, the cut document counted failed
 * (truncated) with a warning naming its place, when the stream ends inside a
 * document. */
bool shard_stream_add(winput *in, shard_writer *w, wstats *st, uint32_t **ids, size_t *cap);

#endif
