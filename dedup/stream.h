/* stream.h - streaming dedup: one pass over the document stream. */
#ifndef WINNOW_DEDUP_STREAM_H
#define WINNOW_DEDUP_STREAM_H

#include "core/stage.h"
#include "dedup/fingerprint.h"

/* Runs streaming dedup over o's inputs; returns the exit status. */
int dedup_stream_run(const stage_opts *o, const dedup_config *c);

#endif
