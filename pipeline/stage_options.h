/* stage_options.h - the options of the stages a pipeline runs in-process
 * ([ingest], [filter], [tokenize], [shard]), read when the pipeline file is
 * loaded with the same parsers as those stages' command lines: full option
 * names, '-' and '_' alike, a bare key for a switch (no-KEY turns a filter
 * switch off). A filter `config = FILE` is read first, as --config is,
 * whatever its line. */
#ifndef WINNOW_PIPELINE_STAGE_OPTIONS_H
#define WINNOW_PIPELINE_STAGE_OPTIONS_H

#include <stddef.h>

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
} pl_stage_options;

/* Fills o (defaults, then the sections' options; strings point into c).
 * Returns 0, or -1 with "FILE:LINE: [stage] what" in err for an unknown
 * or bad option. */
int pl_stage_options_read(const pl_config *c, pl_stage_options *o, char *err, size_t errlen);

/* Frees what o owns. */
void pl_stage_options_free(pl_stage_options *o);

#endif
