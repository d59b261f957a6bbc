/* ingest.h - the ingest library: feed it inputs (files, directories, stdin),
 * get the document stream (JSON lines) back in input order.
 *
 * Each input's kind is found by content (sniff.h): WARC/WET/WAT, JSONL,
 * HTML, plain text, or an archive of any of these. Inputs are opened on the
 * calling thread; reading and record parsing run on reader threads, several
 * files at once (one for every 4 worker threads; 2 for 2 to 11); HTML-to-text
 * and JSON normalisation run on the worker threads; output comes back in
 * input order through the sink, on the calling thread (in ingest_path and
 * ingest_flush). Every record or document met is counted: in == out +
 * dropped + failed. */
#ifndef WINNOW_INGEST_INGEST_H
#define WINNOW_INGEST_INGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/inputs.h"
#include "core/json.h"
#include "core/stats.h"
#include "ingest/html.h"

/* A document ingest made, as a document hook sees it before any JSON line
 * is written. From a JSON Lines input it is the normalised line; from any
 * other input, its fields. */
typedef struct {
    const char *line; /* JSON Lines input: the line without '\n'; NULL otherwise */
    size_t line_len;
    /* JSON Lines input: the scan of line, NULL when ingest rewrote the line
     * (giving it a string id). Either way text and text_len below hold the
     * line's decoded "text", decoded by the same pass that checked the line,
     * so the hook need not scan or decode it again. */
    const jdoc *json;
    const char *id, *text, *url, *date, *source;
    size_t id_len, text_len, url_len, date_len, source_len;
    const char *meta; /* metadata members, `"k":v,...` without braces ("" when none) */
    size_t meta_len;
    size_t line_size; /* bytes of its JSON line, with '\n', as `winnow ingest` writes it */
} ingest_doc;

/* Takes each document on the worker that made it, instead of ingest writing
 * its line: the next stage of a pipeline run in the same process. */
typedef struct {
    /* Worker thread `worker` (0..threads-1): appends the JSON lines that go on
     * to out and reject lines to rejects, and counts into stats (the hook's
     * own counts, kept apart from ingest's). */
    void (*doc)(void *ctx, int worker, const ingest_doc *d, wbuf *out, wbuf *rejects, wstats *stats);
    /* Feeding thread, batches in input order: the hook's reject lines and
     * counts of one batch, and the CPU seconds the hook took on it. */
    void (*batch_done)(void *ctx, const char *rejects, size_t len, const wstats *stats, double seconds);
    void *ctx;
} ingest_doc_hook;

typedef struct {
    extract_mode extract; /* EXTRACT_MAIN (default) or EXTRACT_FULL */
    int threads;          /* worker threads, at least 1 */
    bool want_rejects;    /* build reject lines for the sink */
    const ingest_doc_hook *hook; /* NULL: documents are written as JSON lines to the sink */
} ingest_options;

typedef struct {
    /* Called on the feeding thread with complete JSON lines, in input order. */
    void (*docs)(void *ctx, const char *lines, size_t len);
    /* Called with rejects-file lines (only when want_rejects); may be NULL. */
    void (*rejects)(void *ctx, const char *lines, size_t len);
    void *ctx;
} ingest_sink;

typedef struct ingest ingest;

/* Sets the defaults: main-content extraction, all cores, no rejects, no hook. */
void ingest_options_init(ingest_options *o);

/* Sets the option `winnow ingest --KEY=VALUE` sets ('-' and '_' alike).
 * Returns 0, or -1 with a message in err for an unknown key or a bad value. */
int ingest_options_set(ingest_options *o, const char *key, const char *value, char *err, size_t errlen);

/* Appends the JSON line of d (not from a JSON Lines input) with its text
 * replaced by text (NULL: its own) and the members of extra_meta (NULL or
 * empty: none) added to its metadata: the line `winnow ingest` writes, as a
 * stage that rewrites documents would leave it. Ends with '\n'. */
void ingest_doc_write(const ingest_doc *d, const char *text, size_t text_len, const wbuf *extra_meta, wbuf *out);

/* Starts an ingest run writing to sink (copied). */
ingest *ingest_create(const ingest_options *o, const ingest_sink *sink);

/* Reads one input: a file, a directory (every regular file under it, in
 * name order: core/inputs.h) or "-" for stdin. Returns 0, or -1 when
 * something could not be opened (reported and counted; the run goes on). */
int ingest_path(ingest *g, const char *path);

/* Reads the inputs of l in order, counting each entry it skipped (core/inputs.h)
 * as a failed input in its place; returns 0 or -1 as ingest_path. */
int ingest_inputs(ingest *g, const input_list *l);

/* Waits for every document in flight and hands it to the sink. */
void ingest_flush(ingest *g);

/* The counts so far (complete after ingest_flush). */
const wstats *ingest_stats(const ingest *g);

/* Flushes and frees everything. */
void ingest_destroy(ingest *g);

#endif
