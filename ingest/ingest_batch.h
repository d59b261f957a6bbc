/* ingest_batch.h - the unit of work between the ingest reader thread and its
 * workers: a batch of jobs (HTML payloads, texts, JSON lines) with their
 * fields in one arena, and the output the workers make from them.
 * Internal to ingest/. */
#ifndef WINNOW_INGEST_BATCH_H
#define WINNOW_INGEST_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/stats.h"
#include "ingest/html.h"
#include "ingest/ingest.h"

/* A batch is handed to the pool when it holds this many jobs or arena bytes,
 * or has counted this many inputs. Up to 4 batches a worker are in flight,
 * each arena first touched by every process that reads a file (the pipeline
 * forks one a file): 1 MiB of HTML (tens of pages) is still far more work
 * than handing a batch over costs. */
#define BATCH_JOBS 256
#define BATCH_BYTES ((size_t)1 << 20)
#define BATCH_INPUTS 4096

typedef enum { JOB_HTML, JOB_TEXT, JOB_JSONL } job_kind;

/* A string stored in the batch arena. */
typedef struct {
    size_t off, len;
} arena_str;

typedef struct {
    job_kind kind;
    arena_str payload, id, url, date, source;
    char charset[40];       /* declared charset (HTTP header, record Content-Type), "" when none */
    char content_type[64];  /* MIME type of the payload, "" when unknown */
    int http_status;        /* 0 when there was no HTTP response */
    bool from_warc;
    uint64_t warc_offset;   /* offset of the record in the decoded file */
    uint64_t ordinal;       /* record number (WARC), line number (JSONL) or member number */
    bool element;           /* JSONL: ordinal numbers an element of a JSON array file, not a line */
} ingest_job;

typedef struct ingest_batch {
    ingest_job *jobs;
    int njobs, cap;
    wbuf arena;
    wbuf out;      /* document lines made by the worker */
    wbuf rejects;  /* reject lines (reader's and worker's) */
    wstats stats;  /* in/out/dropped/failed of this batch */
    wbuf hook_rejects;  /* the document hook's reject lines */
    wstats hook_stats;  /* the document hook's counts */
    double hook_seconds; /* CPU seconds the hook took on this batch (ingest_run_batch) */
    bool done;          /* a worker has made its output */
    size_t payload_bytes; /* the arena's bytes when submitted (counted against the file's share) */
    struct ingest_batch *next_free; /* on the free list, or waiting for a worker */
    struct ingest_batch *next_in_file; /* the file's next batch, in input order */
} ingest_batch;

/* Copies n bytes into the batch arena. */
arena_str batch_put(ingest_batch *b, const char *p, size_t n);

/* Adds a job (fields zeroed) and returns it. */
ingest_job *batch_add_job(ingest_batch *b, job_kind kind);

/* Pointer to an arena string (valid until the arena grows). */
static inline const char *batch_str(const ingest_batch *b, arena_str s) { return b->arena.data + s.off; }

/* Per-worker scratch state. */
typedef struct {
    int index; /* 0..threads-1 */
    struct ingest *g;
    html_result html;
    wbuf text, line, tmp, meta;
    wbuf renamed; /* a JSON line in winnow's shape (doc_text_renamed) */
    double hook_wall; /* wall seconds in the hook during the batch being worked on */
} ingest_worker;

/* Turns every job of b into a document line (or hands it to o->hook), a
 * drop or a failure (worker thread). */
void ingest_run_batch(ingest_worker *w, ingest_batch *b, const ingest_options *o);

/* Appends a rejects line for a document that has no text; source (source_len
 * bytes, need not end in NUL) is left out when NULL. */
void ingest_reject(ingest_batch *b, const char *reason, const char *id, size_t id_len, const char *url,
                   size_t url_len, const char *source, size_t source_len, const char *extra_meta);

/* ---- the reader side (ingest.c), used by the per-format readers ---- */
/* One reader thread: it splits one file at a time into batches. */
struct ingest_reader;

/* The batch the reader is filling. */
ingest_batch *ingest_batch_current(struct ingest_reader *r);

/* Hands the current batch to the workers when it is full. */
void ingest_batch_check(struct ingest_reader *r);

/* True when reject lines are wanted. */
bool ingest_wants_rejects(const struct ingest_reader *r);

#endif
