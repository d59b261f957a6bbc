/* stage_options.h - the options of every stage section of a pipeline file,
 * read when it is loaded with the same parsers as those stages' command
 * lines: full option names, '-' and '_' alike, a bare key for a switch
 * (no-KEY turns a filter switch off). A filter `config = FILE` is read
 * first, as --config is, whatever its line. Every stage runs in-process
 * with these settings. */
#ifndef WINNOW_PIPELINE_STAGE_OPTIONS_H
#define WINNOW_PIPELINE_STAGE_OPTIONS_H

#include <stddef.h>

#include "dedup/options.h"
#include "filter/config.h"
#include "ingest/ingest.h"
#include "pipeline/config.h"
#include "shards/shard_options.h"
#include "tokenize/tokenize_options.h"

typedef struct {
    ingest_options ingest;
    filter_config filter;
    tokenize_options tokenize;
    shard_options shard;
    dedup_options dedup;
} pl_stage_options;

/* Fills o (defaults, then the sections' options; strings point into c).
 * Returns 0, or -1 with "FILE:LINE: [stage] what" in err for an unknown
 * or bad option (o then holds nothing to free). */
int pl_stage_options_read(const pl_config *c, pl_stage_options *o, char *err, size_t errlen);

/* Frees what o owns. */
void pl_stage_options_free(pl_stage_options *o);

#endif
