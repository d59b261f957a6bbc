/* stats.h - the accounting every stage keeps: nothing is lost silently.
 *
 * in == out + dropped + failed always holds; dropped is split by reason and
 * failed by error kind. Workers count into their own wstats and the owner
 * merges them with stats_merge(), so no locks are needed. */
#ifndef WINNOW_STATS_H
#define WINNOW_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define STATS_NAME_MAX 48

typedef struct {
    char name[STATS_NAME_MAX];
    double value;
} stats_entry;

typedef struct {
    stats_entry *items;
    int n, cap;
} stats_table;

typedef struct {
    uint64_t in, out, dropped, failed;
    uint64_t bytes_in, bytes_out;
    stats_table drop_reasons; /* reason -> count */
    stats_table fail_kinds;   /* error kind -> count */
    stats_table extra;        /* stage-specific numbers, e.g. index_bytes */
    double started;           /* now_seconds() at stats_init */
} wstats;

/* Zeroes s and starts its clock. */
void stats_init(wstats *s);

/* Frees the tables. */
void stats_free(wstats *s);

/* Counts one document dropped for reason (a short snake_case name). */
void stats_drop(wstats *s, const char *reason);

/* Counts one document that failed with error kind (e.g. "bad_json"). */
void stats_fail(wstats *s, const char *kind);

/* Counts n documents that failed with error kind. */
void stats_fail_n(wstats *s, const char *kind, uint64_t n);

/* Records never read that a reader knows of: n more in, each failed as kind
 * (the rows of an unreadable Parquet row group, `damaged_row_group`). */
void stats_lost(wstats *s, const char *kind, uint64_t n);

/* Adds v to a stage-specific number. */
void stats_add(wstats *s, const char *name, double v);

/* Sets a stage-specific number. */
void stats_set(wstats *s, const char *name, double v);

/* A stage-specific number (0 when never set). */
double stats_get(const wstats *s, const char *name);

/* Adds src's counts into dst. */
void stats_merge(wstats *dst, const wstats *src);

/* True when in == out + dropped + failed and the reason tables sum up. */
bool stats_balanced(const wstats *s);

/* Writes the counts as JSON to path (atomically). stage names the stage;
 * "seconds" is the time since stats_init. */
void stats_write_json(const wstats *s, const char *stage, const char *path);

/* The same with "seconds" given (e.g. the CPU time of a stage that shares its process). */
void stats_write_json_timed(const wstats *s, const char *stage, const char *path, double seconds);

/* Prints a short human summary on stderr. */
void stats_print_summary(const wstats *s, const char *stage);

#endif
