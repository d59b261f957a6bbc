/* docs_unit.h - one input file of the docs step in one process: ingest
 * hands each document it makes straight to a filter on the same worker
 * thread (no JSON line between them), and only the kept documents are
 * written, once. Its files are those `winnow ingest | winnow filter` would
 * write: the documents (byte for byte), each stage's stats (with the CPU
 * seconds spent in that stage) and rejects. */
#ifndef WINNOW_PIPELINE_DOCS_UNIT_H
#define WINNOW_PIPELINE_DOCS_UNIT_H

#include "filter/filter.h"
#include "pipeline/plan.h"

typedef struct {
    const pl_plan *p;
    const filter *f;  /* NULL without [filter] */
    int input;        /* index of the input file */
    const char *part; /* where the documents go */
    int threads;
} pl_docs_unit;

/* Runs the unit in this process; returns an exit status (0, or 2 when the
 * input could not be read). Fatal errors exit with status 2. */
int pl_docs_unit_run(const pl_docs_unit *u);

#endif
