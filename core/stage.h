/* stage.h - what every stage shares: common options, and the engine that
 * runs a document-stream stage over its inputs.
 *
 * Common options (parsed by stage_parse_common):
 *   -o FILE          output (default stdout)
 *   -z               zstd-compress the output
 *   -j N             worker threads (default: all cores)
 *   --stats FILE     write counts as JSON
 *   --rejects FILE   write every dropped document with its reason
 *   -q, --quiet      no progress display
 *   --text-column C  the inputs' member or column that holds the text (default text)
 *
 * The engine (stage_run) reads JSONL documents from the inputs in order (or
 * stdin), in batches; map() runs on worker threads and decides per document;
 * reduce(), when given, then sees each batch on one thread (the engine's
 * writer) in input order (for decisions that depend on earlier documents,
 * like dedup); the engine writes kept lines (byte for byte unless rewritten), rejects and
 * stats. Lines that are not valid JSON objects are reported with file and
 * line number, counted as failed (bad_json) and skipped. */
#ifndef WINNOW_STAGE_H
#define WINNOW_STAGE_H

#include <getopt.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "inputs.h"
#include "json.h"
#include "output.h"
#include "stats.h"

/* Where a run's threads spent their time (stage_opts.times; worker-seconds
 * are summed over the workers), for a stage's timing report. */
typedef struct {
    atomic_uint_fast64_t read_ns;      /* workers reading their plain file ranges */
    atomic_uint_fast64_t split_ns;     /* workers cutting blocks into lines and counting them */
    atomic_uint_fast64_t scan_ns;      /* workers scanning each line's JSON */
    atomic_uint_fast64_t numbered_ns;  /* workers waiting for the batches before theirs to be counted */
    atomic_uint_fast64_t map_ns;       /* workers in the stage's map */
    uint64_t before_first_ns;          /* workers from the run's start to their first batch */
    uint64_t after_last_ns;            /* workers from their last batch to the run's end */
    uint64_t workers_ns;               /* the workers' run: from start to the last joined, times workers */
    uint64_t reader_oldest_ns;         /* the reading thread waiting for the oldest batch's map */
    uint64_t reader_writer_ns;         /* the reading thread waiting for room at the writer */
    uint64_t writer_ns;                /* the writer thread reducing and writing */
} stage_times;

/* The zstd level of -z. */
#define STAGE_ZSTD_LEVEL 3

typedef struct {
    const char *output;
    int zstd_level;
    int threads;
    size_t batch_bytes; /* input read per batch; 0: the engine's default (1 MiB) */
    const char *stats_path;
    const char *rejects_path;
    bool quiet;
    char **inputs; /* the files to read, in order ("-": stdin); none: nothing is read */
    int ninputs;
    const input_list *given; /* what inputs came from (stage_take_inputs), or NULL: a run
                                counts its skipped entries as failed (core/inputs.h) */
    wstats *counts; /* when set, stage_run adds its final counts to it */
    stage_times *times; /* when set, stage_run adds where its threads' time went */
} stage_opts;

/* Long options every stage accepts; put STAGE_COMMON_LONGOPTS inside a
 * stage's struct option array and STAGE_COMMON_SHORTOPTS in its optstring. */
enum { OPT_STATS = 0x1000, OPT_REJECTS, OPT_QUIET, OPT_TEXT_COLUMN, OPT_STAGE_FIRST_FREE = 0x1100 };
#define STAGE_COMMON_SHORTOPTS "o:zj:qh"
#define STAGE_COMMON_LONGOPTS                                  \
    {"output", required_argument, 0, 'o'},                     \
    {"zstd", no_argument, 0, 'z'},                             \
    {"jobs", required_argument, 0, 'j'},                       \
    {"stats", required_argument, 0, OPT_STATS},                \
    {"rejects", required_argument, 0, OPT_REJECTS},            \
    {"quiet", no_argument, 0, 'q'},                            \
    {"text-column", required_argument, 0, OPT_TEXT_COLUMN},    \
    {"help", no_argument, 0, 'h'}

/* Help text for the common options, to print after a stage's own. */
extern const char STAGE_COMMON_HELP[];

/* Sets defaults (threads = cpu_count()). */
void stage_opts_init(stage_opts *o);

/* Sets defaults for a run inside another command (a pipeline step): quiet,
 * threads threads, over the files inputs[0..ninputs). */
void stage_opts_init_quiet(stage_opts *o, int threads, char **inputs, int ninputs);

/* Handles one common option from getopt_long; returns true when it was one.
 * Bad values exit with status 1 and a message. */
bool stage_parse_common(stage_opts *o, int opt, const char *arg);

/* Takes the positional arguments left after getopt_long as the files they
 * name (core/inputs.h: a directory gives the regular files under it, no
 * argument gives stdin), printing a warning for each thing skipped, and sets
 * o->given. The list lives as long as the process (a command takes its
 * inputs once). */
void stage_take_inputs(stage_opts *o, int argc, char **argv);

/* ---- the document-stream engine ---- */

typedef enum { DOC_KEEP = 0, DOC_REWRITE, DOC_DROP, DOC_FAIL } doc_verdict;

/* One document of a batch, as the engine hands it to map()/reduce(). */
typedef struct {
    const char *line; /* the JSON line, without '\n' */
    size_t len;
    jdoc json;          /* scanned fields (valid when verdict != DOC_FAIL on entry) */
    doc_verdict verdict; /* set by map/reduce; starts DOC_KEEP (DOC_FAIL for bad JSON) */
    const char *reason;  /* drop reason or failure kind: a static string */
    size_t out_off, out_len;    /* DOC_REWRITE: the new line in batch->out */
    size_t extra_off, extra_len; /* extra members for the rejects line in batch->out */
    size_t span;          /* bytes of the line in the input, with its line end */
    uint64_t ordinal;     /* position in the whole input (0-based); set before map() */
    uint64_t lineno;      /* line number in its file (1-based), for messages */
} stage_doc;

typedef struct {
    stage_doc *docs;
    int n, cap;
    wbuf out;    /* rewritten lines and reject extras, addressed by offsets */
    wstats stats; /* counted by map() (drops by reason etc.) */
    void *user;  /* per-batch data a stage attaches in map() and frees in emit/reduce */
    /* engine-private */
    wbuf text;           /* holds the block */
    wbuf renamed;        /* the block's lines renamed into winnow's shape (doc_text_renamed) */
    const char *block;   /* the batch's whole lines, in text */
    size_t block_len;
    struct stage_file *src; /* a plain file whose range [range_from, range_to) the worker reads, or NULL */
    uint64_t range_from, range_to;
    uint64_t seq;        /* the batch's place in the input */
    uint64_t lines;      /* lines in the block, blank ones included */
    bool numbered;       /* ordinals and line numbers set */
    bool file_start;     /* the first batch of its input file */
    const char *file;    /* the input file all documents of the batch come from */
    const char *unit;    /* what lineno numbers, for messages: "line", or "element" in a JSON array file */
    uint64_t first_line; /* line number of the batch's first line */
} stage_batch;

typedef struct {
    const char *name;        /* stage name for stats/rejects ("filter") */
    void *ctx;               /* passed to every callback */
    /* Runs on a worker thread; worker is 0..threads-1. Sets verdicts. */
    void (*map)(void *ctx, int worker, stage_batch *b);
    /* Optional; runs on the writer thread, batches in input order. */
    void (*reduce)(void *ctx, stage_batch *b);
    /* Optional; replaces writing kept lines: called in input order with each
     * batch after reduce, to write the stage's own output format. */
    void (*emit)(void *ctx, stage_batch *b, woutput *out);
    /* Optional; runs once after the last batch's reduce and emit, before the
     * outputs are closed (it may exit, leaving no output behind). */
    void (*end)(void *ctx);
} stage_ops;

/* Stores a rewritten line for document i of b (the line must end in '\n'). */
void stage_doc_rewrite(stage_batch *b, int i, const wbuf *line);

/* Marks document i dropped for reason; extra (may be NULL) is JSON members
 * added to its rejects entry, e.g. "\"dup_of\":\"doc-7\"". */
void stage_doc_drop(stage_batch *b, int i, const char *reason, const char *extra);

/* Runs the stage over o->inputs (and counts o->given's skipped entries);
 * returns the exit status (0, or 2 when an input could not be read). Writes
 * stats and rejects when asked. */
int stage_run(const stage_opts *o, const stage_ops *ops);

#endif
