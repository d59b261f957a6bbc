/* config.h - the pipeline description file (docs/pipeline.md).
 *
 * An INI-like text file: `key = value` lines, `[section]` headers, '#' or ';'
 * comments, blank lines ignored. Keys before any section (or under
 * [pipeline]) describe the run: input (repeatable glob), work, output, tasks,
 * jobs, compress, rejects. The stage sections [ingest] [filter] [dedup] [tokenize]
 * [shard] turn each line into a command-line option of that stage
 * (`key = value` -> --key=value, a bare `key` -> --key); a stage runs when its
 * section is present (ingest always runs). [slurm] holds sbatch settings of
 * every step, [slurm.STEP] (docs, signatures, buckets, apply, shards, merge)
 * those of one step, adding to [slurm] or replacing its lines of the same key. */
#ifndef WINNOW_PIPELINE_CONFIG_H
#define WINNOW_PIPELINE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *key;
    char *value; /* NULL for a bare key (a switch) */
    int line;
} pl_option;

typedef struct {
    char *name;
    pl_option *opts;
    int n, cap;
} pl_section;

typedef struct {
    char *path;      /* the pipeline file as given */
    char *base_dir;  /* its directory: relative paths in the file start here */
    char **globs;    /* input patterns, absolute */
    int nglobs;
    char *work;      /* work directory, absolute */
    char *output;    /* output directory, absolute */
    int tasks;       /* how many ranks the input files are split over */
    int jobs;        /* local: tasks run at once (0: min(tasks, cores)) */
    bool compress;   /* intermediate documents zstd-compressed (default true) */
    bool rejects;    /* every stage writes its dropped documents under WORK/rejects (default false) */
    pl_section *sections;
    int nsections;
} pl_config;

/* Reads and checks path. Returns 0, or -1 with a message "FILE:LINE: what" in err
 * (c then holds nothing to free). */
int pl_config_load(const char *path, pl_config *c, char *err, size_t errlen);

/* The section called name, or NULL when the file has none. */
const pl_section *pl_config_section(const pl_config *c, const char *name);

/* The value of key in section s (NULL when absent or s is NULL); *present tells a bare key apart. */
const char *pl_section_get(const pl_section *s, const char *key, bool *present);

/* Frees everything c owns. */
void pl_config_free(pl_config *c);

#endif
