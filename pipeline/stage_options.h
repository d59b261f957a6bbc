/* stage_options.h - the options of the stages a pipeline runs in its own
 * processes ([ingest], [filter]), read when the pipeline file is loaded with
 * the same parsers as `winnow ingest` and `winnow filter` use for their
 * command lines: full option names, '-' and '_' alike, a bare key for a
 * switch, no-KEY to turn one off. A filter `config = FILE` is read first
 * (relative to the pipeline file), as --config is, whatever its line. */
#ifndef WINNOW_PIPELINE_STAGE_OPTIONS_H
#define WINNOW_PIPELINE_STAGE_OPTIONS_H

#include <stddef.h>

#include "filter/config.h"
#include "ingest/ingest.h"
#include "pipeline/config.h"

/* Fills io and fc (defaults, then the sections' options). Returns 0, or -1
 * with "FILE:LINE: [stage] what" in err for an unknown or bad option. */
int pl_stage_options_read(const pl_config *c, ingest_options *io, filter_config *fc, char *err, size_t errlen);

#endif
