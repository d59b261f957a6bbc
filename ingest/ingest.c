/* ingest.c - the ingest driver: inputs by kind, batches, the worker pool and
 * the in-order hand-off to the sink. */
#include "ingest/ingest.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/input.h"
#include "core/pool.h"
#include "core/progress.h"
#include "core/util.h"
#include "ingest/archive.h"
#include "ingest/ingest_batch.h"
#include "ingest/ingest_warc.h"
#include "ingest/sniff.h"

/* Archives inside archives (or compressed members) are followed this deep. */
#define MAX_NESTING 4
/* Larger single-document files are reported and skipped. */
#define MAX_FILE_DOC ((size_t)256 << 20)
/* Directories are followed this deep (a symlink loop ends here). */
#define MAX_DIR_DEPTH 32
/* Bytes read at a time from a single-document file. */
#define READ_STEP 65536
/* Files opened before the one being read is finished: the threads that
 * inflate the gzip members of the next file (core/input) start while this
 * one's records are still being split, so they never wait for a file to open. */
#define OPEN_AHEAD 1

struct ingest {
    ingest_options opt;
    ingest_sink sink;
    wpool *pool;
    ingest_worker *workers;
    ingest_batch *current, *free_list;
    wstats stats;
    wbuf whole; /* a single-document file's bytes */
    winput *reading;        /* the file being read, for progress */
    uint64_t shown_offset;  /* its bytes already given to progress */
    winput *opened[OPEN_AHEAD + 1]; /* files opened, not yet read, in input order */
    int nopened;
};

static void work(void *ctx, int worker_index, void *item)
{
    ingest *g = ctx;
    ingest_run_batch(&g->workers[worker_index], item, &g->opt);
}

void ingest_options_init(ingest_options *o)
{
    o->extract = EXTRACT_MAIN;
    o->threads = cpu_count();
    o->want_rejects = false;
    o->hook = NULL;
}

ingest *ingest_create(const ingest_options *o, const ingest_sink *sink)
{
    ingest *g = xcalloc(1, sizeof *g);
    g->opt = *o;
    if (g->opt.threads < 1) g->opt.threads = 1;
    g->sink = *sink;
    g->workers = xcalloc((size_t)g->opt.threads, sizeof *g->workers);
    for (int i = 0; i < g->opt.threads; i++) g->workers[i].index = i;
    g->pool = pool_create(g->opt.threads, 0, work, g);
    input_set_threads(g->opt.threads);
    stats_init(&g->stats);
    return g;
}

ingest_batch *ingest_batch_current(ingest *g)
{
    if (!g->current) {
        ingest_batch *b = g->free_list;
        if (b) {
            g->free_list = b->next_free;
        } else {
            b = xcalloc(1, sizeof *b);
            buf_reserve(&b->arena, BATCH_BYTES); /* filled once to about this: no growing copies */
        }
        b->njobs = 0;
        buf_clear(&b->arena);
        buf_clear(&b->out);
        buf_clear(&b->rejects);
        buf_clear(&b->hook_rejects);
        stats_free(&b->stats);
        stats_init(&b->stats);
        stats_free(&b->hook_stats);
        stats_init(&b->hook_stats);
        g->current = b;
    }
    return g->current;
}

bool ingest_wants_rejects(const ingest *g) { return g->opt.want_rejects; }

/* Hands a finished batch's output to the sink and recycles it. */
static void emit(ingest *g, ingest_batch *b)
{
    if (b->out.len) g->sink.docs(g->sink.ctx, b->out.data, b->out.len);
    if (b->rejects.len && g->sink.rejects) g->sink.rejects(g->sink.ctx, b->rejects.data, b->rejects.len);
    if (g->opt.hook) g->opt.hook->batch_done(g->opt.hook->ctx, b->hook_rejects.data, b->hook_rejects.len, &b->hook_stats);
    else b->stats.bytes_out += b->out.len; /* with a hook, counted document by document */
    progress_add(b->stats.out, 0);
    b->stats.started = g->stats.started;
    stats_merge(&g->stats, &b->stats);
    b->next_free = g->free_list;
    g->free_list = b;
}

/* Shows the bytes read since the last call on the progress line. */
static void show_progress(ingest *g)
{
    if (!g->reading) return;
    uint64_t at = input_offset(g->reading);
    progress_add(0, at - g->shown_offset);
    g->shown_offset = at;
}

static void submit(ingest *g)
{
    ingest_batch *b = g->current;
    if (!b) return;
    show_progress(g);
    g->current = NULL;
    if (pool_full(g->pool)) emit(g, pool_pop(g->pool));
    pool_push(g->pool, b);
}

void ingest_batch_check(ingest *g)
{
    ingest_batch *b = g->current;
    if (b && (b->njobs >= BATCH_JOBS || b->arena.len >= BATCH_BYTES || b->stats.in >= BATCH_INPUTS)) submit(g);
}

static void read_oldest_opened(ingest *g);

void ingest_flush(ingest *g)
{
    while (g->nopened) read_oldest_opened(g);
    submit(g);
    while (!pool_empty(g->pool)) emit(g, pool_pop(g->pool));
}

const wstats *ingest_stats(const ingest *g) { return &g->stats; }

static void free_batch(ingest_batch *b)
{
    free(b->jobs);
    buf_free(&b->arena);
    buf_free(&b->out);
    buf_free(&b->rejects);
    buf_free(&b->hook_rejects);
    stats_free(&b->stats);
    stats_free(&b->hook_stats);
    free(b);
}

void ingest_destroy(ingest *g)
{
    ingest_flush(g);
    pool_destroy(g->pool);
    while (g->free_list) {
        ingest_batch *b = g->free_list;
        g->free_list = b->next_free;
        free_batch(b);
    }
    for (int i = 0; i < g->opt.threads; i++) {
        ingest_worker *w = &g->workers[i];
        html_result_free(&w->html);
        buf_free(&w->text);
        buf_free(&w->line);
        buf_free(&w->tmp);
        buf_free(&w->meta);
    }
    free(g->workers);
    stats_free(&g->stats);
    buf_free(&g->whole);
    free(g);
}

/* ---- inputs by kind ---- */

static void ingest_source(ingest *g, isrc *s, const char *name, int depth);

static void count_failure(ingest *g, const char *kind)
{
    ingest_batch *b = ingest_batch_current(g);
    b->stats.in++;
    stats_fail(&b->stats, kind);
}

static void jsonl_input(ingest *g, isrc *s, const char *name)
{
    const char *line;
    size_t len;
    uint64_t number = 0;
    while (isrc_getline(s, &line, &len)) {
        number++;
        size_t k = 0;
        while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) k++;
        if (k == len) continue; /* blank lines are not documents */
        ingest_batch *b = ingest_batch_current(g);
        b->stats.in++;
        ingest_job *j = batch_add_job(b, JOB_JSONL);
        j->payload = batch_put(b, line, len);
        j->source = batch_put(b, name, strlen(name));
        j->ordinal = number;
        ingest_batch_check(g);
    }
}

/* A whole file (or member) that is one document: HTML or plain text. */
static void single_doc_input(ingest *g, isrc *s, const char *name, input_kind kind)
{
    buf_clear(&g->whole);
    for (;;) {
        buf_reserve(&g->whole, READ_STEP);
        size_t got = isrc_read(s, g->whole.data + g->whole.len, READ_STEP);
        if (!got) break;
        g->whole.len += got;
        if (g->whole.len > MAX_FILE_DOC) {
            warnf("%s: over %zu bytes, too large for one document; skipped", name, MAX_FILE_DOC);
            isrc_read(s, NULL, SIZE_MAX);
            count_failure(g, "file_too_large");
            return;
        }
    }
    ingest_batch *b = ingest_batch_current(g);
    b->stats.in++;
    ingest_job *j = batch_add_job(b, kind == INPUT_HTML ? JOB_HTML : JOB_TEXT);
    j->payload = batch_put(b, g->whole.data, g->whole.len);
    j->source = batch_put(b, name, strlen(name));
    j->id = j->source;
    snprintf(j->content_type, sizeof j->content_type, "%s", kind == INPUT_HTML ? "text/html" : "text/plain");
    ingest_batch_check(g);
}

typedef struct {
    ingest *g;
    const char *archive;
    int depth;
    wbuf name;
} member_ctx;

static void on_member(void *ctx, const char *name, const char *data, size_t n)
{
    member_ctx *m = ctx;
    buf_clear(&m->name);
    buf_printf(&m->name, "%s/%s", m->archive, name);
    isrc s;
    isrc_from_memory(&s, data, n, m->name.data);
    ingest_source(m->g, &s, m->name.data, m->depth + 1);
}

static void on_archive_error(void *ctx, const char *name, const char *what)
{
    member_ctx *m = ctx;
    if (name) warnf("%s: member %s: %s", m->archive, name, what);
    else warnf("%s: %s", m->archive, what);
    count_failure(m->g, "bad_archive");
}

static void ingest_source(ingest *g, isrc *s, const char *name, int depth)
{
    const char *p;
    size_t n = isrc_peek(s, SNIFF_BYTES, &p);
    input_kind kind = sniff_kind(p, n < SNIFF_BYTES ? n : SNIFF_BYTES);
    if (depth > MAX_NESTING && (kind == INPUT_ARCHIVE || kind == INPUT_COMPRESSED)) {
        warnf("%s: archives nested more than %d deep; skipped", name, MAX_NESTING);
        count_failure(g, "nested_too_deep");
        return;
    }
    switch (kind) {
    case INPUT_EMPTY:
        break;
    case INPUT_WARC:
        ingest_warc_input(g, s, name);
        break;
    case INPUT_JSONL:
        jsonl_input(g, s, name);
        break;
    case INPUT_HTML:
    case INPUT_TEXT:
        single_doc_input(g, s, name, kind);
        break;
    case INPUT_ARCHIVE: {
        member_ctx m = {g, name, depth, WBUF_INIT};
        archive_each_member(s, on_member, on_archive_error, &m);
        buf_free(&m.name);
        break;
    }
    case INPUT_COMPRESSED: { /* only met inside archives: files are decoded by core input */
        wbuf plain = WBUF_INIT;
        if (decompress_memory(p, n, &plain) != 0) {
            warnf("%s: damaged compressed data; reading what decoded", name);
            stats_add(&ingest_batch_current(g)->stats, "damaged_streams", 1);
        }
        isrc inner;
        isrc_from_memory(&inner, plain.data ? plain.data : "", plain.len, name);
        ingest_source(g, &inner, name, depth + 1);
        buf_free(&plain);
        break;
    }
    case INPUT_BINARY: {
        ingest_batch *b = ingest_batch_current(g);
        b->stats.in++;
        stats_drop(&b->stats, "binary_file");
        if (g->opt.want_rejects) ingest_reject(b, "binary_file", name, strlen(name), "", 0, name, NULL);
        isrc_read(s, NULL, SIZE_MAX);
        break;
    }
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ingest_file_or_dir(ingest *g, const char *path, int depth);
static void read_oldest_opened(ingest *g);

/* True when path (followed through symlinks) is a regular file or a
 * directory, or does not exist (opening it then fails and says so). */
static bool regular_or_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

static int ingest_directory(ingest *g, const char *path, int depth)
{
    if (depth > MAX_DIR_DEPTH) {
        warnf("%s: directories nested more than %d deep (a symlink loop?); skipped", path, MAX_DIR_DEPTH);
        count_failure(g, "unreadable_input");
        return -1;
    }
    DIR *d = opendir(path);
    if (!d) {
        warnf("%s: cannot open directory", path);
        count_failure(g, "unreadable_input");
        return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (count == cap) names = xrealloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
        names[count++] = xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    int rc = 0;
    wbuf child = WBUF_INIT;
    for (size_t i = 0; i < count; i++) {
        buf_clear(&child);
        buf_printf(&child, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names[i]);
        struct stat ls, st;
        if (lstat(child.data, &ls) == 0 && S_ISLNK(ls.st_mode) && stat(child.data, &st) == 0 && S_ISDIR(st.st_mode)) {
            warnf("%s: a symlink to a directory, not followed", child.data);
            free(names[i]);
            continue;
        }
        if (!regular_or_directory(child.data)) { /* a FIFO or /dev/zero would block or never end */
            warnf("%s: not a regular file (a FIFO, device or socket); skipped", child.data);
            count_failure(g, "not_regular_file");
            free(names[i]);
            continue;
        }
        char *copy = xstrdup(child.data);
        if (ingest_file_or_dir(g, copy, depth + 1) != 0) rc = -1;
        free(copy);
        free(names[i]);
    }
    free(names);
    buf_free(&child);
    return rc;
}

int ingest_path(ingest *g, const char *path) { return ingest_file_or_dir(g, path, 0); }

static int ingest_file_or_dir(ingest *g, const char *path, int depth)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return ingest_directory(g, path, depth);
    if (!strcmp(path, "-")) /* stdin opened early would be read before an earlier "-" ends */
        while (g->nopened) read_oldest_opened(g);
    winput *in = input_open(path);
    if (!in) {
        count_failure(g, "unreadable_input");
        return -1;
    }
    g->opened[g->nopened++] = in;
    if (g->nopened > OPEN_AHEAD) read_oldest_opened(g);
    return 0;
}

/* Reads the oldest file opened and closes it. */
static void read_oldest_opened(ingest *g)
{
    winput *in = g->opened[0];
    memmove(g->opened, g->opened + 1, (size_t)(g->nopened - 1) * sizeof *g->opened);
    g->nopened--;
    isrc s;
    isrc_from_input(&s, in);
    g->reading = in;
    g->shown_offset = 0;
    ingest_source(g, &s, input_name(in), 0);
    isrc_read(&s, NULL, SIZE_MAX);
    show_progress(g);
    g->reading = NULL;
    ingest_batch *b = ingest_batch_current(g);
    b->stats.bytes_in += input_offset(in);
    if (input_errors(in)) stats_add(&b->stats, "damaged_streams", (double)input_errors(in));
    for (int k = input_lost_members(in); k > 0; k--) count_failure(g, "damaged_member");
    input_close(in);
    ingest_batch_check(g);
}
