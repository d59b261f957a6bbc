/* ingest.h - the ingest library: feed it inputs (files, directories, stdin),
 * get the document stream (JSON lines) back in input order.
 *
 * Each input's kind is found by content (sniff.h): WARC/WET/WAT, JSONL,
 * HTML, plain text, or an archive of any of these. The reading and record
 * parsing run on the calling thread; HTML-to-text and JSON normalisation run
 * on a pool of worker threads; output comes back in input order through the
 * sink. Every record or document met is counted: in == out + dropped + failed. */
#ifndef WINNOW_INGEST_INGEST_H
#define WINNOW_INGEST_INGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/stats.h"
#include "ingest/html.h"

typedef struct {
    extract_mode extract; /* EXTRACT_MAIN (default) or EXTRACT_FULL */
    int threads;          /* worker threads, at least 1 */
    bool want_rejects;    /* build reject lines for the sink */
} ingest_options;

typedef struct {
    /* Called on the feeding thread with complete JSON lines, in input order. */
    void (*docs)(void *ctx, const char *lines, size_t len);
    /* Called with rejects-file lines (only when want_rejects); may be NULL. */
    void (*rejects)(void *ctx, const char *lines, size_t len);
    void *ctx;
} ingest_sink;

typedef struct ingest ingest;

/* Sets the defaults: main-content extraction, all cores, no rejects. */
void ingest_options_init(ingest_options *o);

/* Starts an ingest run writing to sink (copied). */
ingest *ingest_create(const ingest_options *o, const ingest_sink *sink);

/* Reads one input: a file, a directory (every file under it, in name
 * order) or "-" for stdin. Returns 0, or -1 when something could not be
 * opened (reported and counted; the run goes on). */
int ingest_path(ingest *g, const char *path);

/* Waits for every document in flight and hands it to the sink. */
void ingest_flush(ingest *g);

/* The counts so far (complete after ingest_flush). */
const wstats *ingest_stats(const ingest *g);

/* Flushes and frees everything. */
void ingest_destroy(ingest *g);

#endif
