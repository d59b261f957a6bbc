/* report.h - the merged stats report of a pipeline run: every stage's counts
 * summed over its per-file and per-rank --stats files, plus the input files
 * that failed. Written to WORK/report.json and WORK/report.txt. */
#ifndef WINNOW_PIPELINE_REPORT_H
#define WINNOW_PIPELINE_REPORT_H

#include <stdbool.h>

#include "core/stats.h"
#include "pipeline/plan.h"

/* Reads one --stats JSON file into s (adding to it); *seconds gets its time.
 * Returns false when the file is missing or not a stats file. */
bool pl_stats_read(const char *path, wstats *s, double *seconds);

/* Merges every stats file of the run, writes report.json and report.txt
 * (atomically) and prints the readable summary on stderr when print is set. */
void pl_report_write(const pl_plan *p, bool print);

#endif
