/* steps.c - the work of one rank of one step. */
#include "pipeline/steps.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/doc.h"
#include "core/input.h"
#include "core/output.h"
#include "core/util.h"
#include "pipeline/dedup_step.h"
#include "pipeline/docs_unit.h"
#include "pipeline/rank_lock.h"
#include "pipeline/shards_rank.h"
#include "pipeline/spawn.h"

#define MESSAGE_MAX 1024
#define OUTPUT_ZSTD_LEVEL 3
#define COPY_CHUNK (1 << 20)

static void remove_file(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT) warnf("cannot remove %s: %m", path);
}

/* True when a stage's last message says the work directory cannot take
 * more (disk full, read-only, quota, no permission): not the input's fault,
 * so the run stops instead of marking the file failed. */
static bool work_unwritable(const pl_plan *p, const char *message)
{
    static const char *const always[] = {"No space left on device", "Read-only file system", "Disk quota exceeded"};
    for (size_t k = 0; k < sizeof always / sizeof *always; k++)
        if (strstr(message, always[k])) return true;
    return strstr(message, "Permission denied") && strstr(message, p->cfg.work);
}

/* Records why input i failed, for the report and the user. */
static void record_failure(const pl_plan *p, int i, const char *why, const char *last, const char *log_path)
{
    char msg[3 * MESSAGE_MAX];
    if (work_unwritable(p, last))
        dief(EXIT_FATAL, "%s: cannot write the work directory: %s. Finished files are kept: make room and rerun",
             p->files[i], last);
    snprintf(msg, sizeof msg, "%s: %s%s%s\n", p->files[i], why, *last ? ": " : "", last);
    warnf("input file failed: %s (log: %s)", msg, log_path);
    char *path = pl_path(p, "failed/%06d", i);
    woutput *o = output_open(path, 0);
    output_write(o, msg, strlen(msg));
    output_close(o);
    free(path);
    static const char *const stages[] = {"ingest", "filter"};
    for (int k = 0; k < 2; k++) {
        char *st = pl_path(p, "stats/%06d.%s.json", i, stages[k]);
        remove_file(st);
        free(st);
    }
}

/* The child process of one input file: its stages in-process. */
static int docs_unit_main(void *arg)
{
    winnow_prog = "winnow run (ingest | filter)";
    return pl_docs_unit_run(arg);
}

/* ingest -> filter for input file i in a child process, its output renamed
 * into place only when the child succeeded. Returns 0 or 2. */
static int run_unit(const pl_plan *p, const filter *f, int i, const pl_step_opts *o)
{
    char *out = pl_docs_path(p, i), *failed = pl_path(p, "failed/%06d", i);
    if (pl_exists(out)) {
        free(out);
        free(failed);
        return 0;
    }
    remove_file(failed);
    char *part = pl_path(p, "docs/%06d.part", i), *log = pl_path(p, "logs/%06d.log", i);
    pl_docs_unit unit = {p, f, i, part, o->threads};
    char why[MESSAGE_MAX], last[MESSAGE_MAX];
    int rc = pl_run_call(docs_unit_main, &unit, f ? "ingest | filter" : "ingest", log, why, sizeof why, last, sizeof last);
    if (rc == 0 && rename(part, out) != 0) {
        snprintf(why, sizeof why, "cannot rename %s to %s", part, out);
        snprintf(last, sizeof last, "%s", strerror(errno));
        rc = 1;
    }
    if (rc) {
        remove_file(part);
        record_failure(p, i, why, last, log);
    }
    free(out), free(failed), free(part), free(log);
    return rc ? EXIT_FATAL : 0;
}

static int step_docs(const pl_plan *p, int rank, const pl_step_opts *o)
{
    int files = 0, failures = 0;
    filter *f = p->has_filter ? filter_create(&p->stages.filter) : NULL; /* once; every file's process shares it */
    for (int i = rank; i < p->nfiles; i += p->cfg.tasks) {
        files++;
        if (run_unit(p, f, i, o) == 0) continue;
        failures++;
        if (o->fail_fast) {
            filter_destroy(f);
            return EXIT_FATAL;
        }
    }
    filter_destroy(f);
    char note[128];
    snprintf(note, sizeof note, "files %d failed %d\n", files, failures);
    pl_mark_done(p, STEP_DOCS, rank, note);
    return 0;
}

/* The per-file documents that exist (input files that did not fail), in order. */
static void push_document_files(const pl_plan *p, pl_argv *a)
{
    for (int i = 0; i < p->nfiles; i++) {
        char *path = pl_docs_path(p, i);
        if (pl_exists(path)) pl_argv_push(a, path);
        free(path);
    }
}

/* Exit status 1 with a message unless every rank of step s is done. */
static int require_done(const pl_plan *p, pl_step s, pl_step wanted_by)
{
    if (!pl_step_enabled(p, s)) return 0;
    for (int r = 0; r < pl_step_ranks(p, s); r++)
        if (!pl_done(p, s, r)) {
            warnf("step %s needs step %s finished, and its rank %d has no completion marker (%s/done/%s.%d)",
                  pl_step_name(wanted_by), pl_step_name(s), r, p->cfg.work, pl_step_name(s), r);
            return EXIT_USAGE;
        }
    return 0;
}

/* True when at least one input file has documents (did not fail). */
static bool any_documents(const pl_plan *p)
{
    for (int i = 0; i < p->nfiles; i++) {
        char *path = pl_docs_path(p, i);
        bool found = pl_exists(path);
        free(path);
        if (found) return true;
    }
    return false;
}

/* The child process of a dedup step. */
static int dedup_main(void *arg)
{
    winnow_prog = "winnow dedup";
    return pl_dedup_run(arg);
}

static int step_dedup(const pl_plan *p, pl_step s, int rank, const pl_step_opts *o)
{
    if (!any_documents(p)) {
        pl_mark_done(p, s, rank, "no documents: every input file failed\n");
        return 0;
    }
    char *work = pl_path(p, "dedup"), *out = pl_path(p, "dedup-out"), *stats = pl_path(p, "stats/dedup");
    char *log = pl_path(p, "logs/%s.%d.log", pl_step_name(s), rank), *rejects = NULL;
    pl_mkdirs(stats);
    pl_dedup_work w = {p, s, rank, o->threads, work, NULL, NULL, NULL, NULL, 0};
    if (s == STEP_APPLY) {
        w.output = out;
        w.stats = stats;
        if (p->cfg.rejects) {
            rejects = pl_path(p, "rejects/dedup");
            pl_mkdirs(rejects);
            w.rejects = rejects;
        }
    }
    pl_argv inputs = {0};
    if (s == STEP_SIGNATURES) {
        push_document_files(p, &inputs);
        w.inputs = inputs.argv;
        w.ninputs = inputs.argc;
    }
    char why[MESSAGE_MAX], last[MESSAGE_MAX];
    int rc = pl_run_call(dedup_main, &w, "winnow dedup", log, why, sizeof why, last, sizeof last);
    if (rc) {
        warnf("dedup %s rank %d failed: %s%s%s (log: %s)", pl_step_name(s), rank, why, *last ? ": " : "", last, log);
    } else {
        pl_mark_done(p, s, rank, "ok\n");
    }
    pl_argv_free(&inputs);
    free(work), free(out), free(stats), free(log), free(rejects);
    return rc ? EXIT_FATAL : 0;
}

/* Without [tokenize]: the final documents, concatenated, are the output. */
static int concatenate_documents(const pl_plan *p)
{
    pl_mkdirs(p->cfg.output);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/documents.jsonl%s", p->cfg.output, p->cfg.compress ? ".zst" : "");
    woutput *out = output_open(path, p->cfg.compress ? OUTPUT_ZSTD_LEVEL : 0);
    char *chunk = xmalloc(COPY_CHUNK);
    for (int i = 0; i < p->nfiles; i++) {
        char *src = pl_final_docs_path(p, i);
        if (pl_exists(src)) {
            winput *in = input_open(src);
            if (!in) dief(EXIT_FATAL, "cannot read %s", src);
            size_t n;
            while ((n = input_read(in, chunk, COPY_CHUNK)) > 0) output_write(out, chunk, n);
            if (input_errors(in)) dief(EXIT_FATAL, "%s is damaged; remove it and its completion marker, then rerun", src);
            input_close(in);
        }
        free(src);
    }
    free(chunk);
    output_close(out);
    return 0;
}

/* Rank `rank` of the shards step: a part of the token shards, or without
 * [tokenize] (one rank) the final documents concatenated. */
static int step_shards(const pl_plan *p, int rank, const pl_step_opts *o)
{
    if (p->has_tokenize) return pl_shards_rank_run(p, rank, o->threads);
    int rc = concatenate_documents(p);
    if (rc == 0) pl_mark_done(p, STEP_SHARDS, 0, "ok\n");
    return rc;
}

static int run_rank(const pl_plan *p, pl_step s, int rank, const pl_step_opts *o)
{
    switch (s) {
    case STEP_DOCS: return step_docs(p, rank, o);
    case STEP_SIGNATURES:
    case STEP_BUCKETS:
    case STEP_APPLY: return step_dedup(p, s, rank, o);
    case STEP_SHARDS: return step_shards(p, rank, o);
    case STEP_MERGE: return pl_merge_run(p, o->quiet);
    default: return EXIT_USAGE;
    }
}

int pl_step_run(const pl_plan *p, pl_step s, int rank, const pl_step_opts *o)
{
    if (!pl_step_enabled(p, s)) return 0;
    if (rank < 0 || rank >= pl_step_ranks(p, s))
        dief(EXIT_USAGE, "step %s has ranks 0 to %d; %d is not one", pl_step_name(s), pl_step_ranks(p, s) - 1, rank);
    if (pl_done(p, s, rank)) return 0;
    for (int before = 0; before < (int)s; before++) {
        int rc = require_done(p, (pl_step)before, s);
        if (rc) return rc;
    }
    int lock = pl_rank_lock(p, s, rank); /* a second copy of this rank waits here, then finds it done */
    /* [ingest] text-column names the inputs' text; the steps after the first
     * read the work directory's documents, whose text is "text" */
    char *inputs_text = xstrdup(doc_text_name());
    if (s != STEP_DOCS) doc_set_text_name("text");
    int rc = pl_done(p, s, rank) ? 0 : run_rank(p, s, rank, o);
    doc_set_text_name(inputs_text);
    free(inputs_text);
    pl_rank_unlock(lock);
    return rc;
}
