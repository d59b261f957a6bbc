/* ingest.c - the ingest driver: inputs by kind, opened on the calling thread
 * and split into batches by reader threads (several files at once, each file
 * by one), batches worked on by worker threads, and each file's output handed
 * to the sink on the calling thread in input order. */
#include "ingest/ingest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/input.h"
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
/* Bytes read at a time from a single-document file. */
#define READ_STEP 65536
/* Reader threads: one for every READER_SHARE workers, at least two when
 * there are two workers or more. A reader splits records at several GB/s,
 * about a twentieth of what the workers spend on the same bytes, so one
 * reader for 4 workers leaves room for files whose records are cheap. */
#define READER_SHARE 4
/* Files opened beyond those being read: the threads that inflate the gzip
 * members of the next file (core/input) start while the others are still
 * being split, so a reader never waits for a file to open. Files read out
 * wait for the ones before them to be written: at most as many as readers. */
#define OPEN_AHEAD 1
/* Batches of one file made and not yet handed to the sink, and their
 * payload bytes: a reader ahead of the file being written waits at either.
 * Enough for a reader to split a whole file of tens of MB of HTML while the
 * one before it is written (a batch worked on holds only its output, a small
 * part of its payloads for HTML, about as much for JSON lines). */
#define FILE_BATCHES 256
#define FILE_BYTES ((size_t)32 << 20)

/* Batches waiting for a worker, per worker, beyond which readers wait: the
 * payloads in memory stay a few MiB a worker, however far ahead readers are. */
#define QUEUED_PER_WORKER 2

/* One input file, from its opening to the last of its output handed to the sink. */
typedef struct file_slot {
    winput *in;        /* NULL: no file, only counts made by the caller (first, a done batch) */
    bool claimed;      /* a reader has it */
    bool read_done;    /* its reader has submitted its last batch */
    ingest_batch *first, *last; /* submitted, not yet handed to the sink, in input order */
    int held;          /* their number */
    size_t held_bytes; /* and their payload bytes */
    struct file_slot *next;
} file_slot;

typedef struct ingest_reader {
    struct ingest *g;
    file_slot *slot;        /* the file being read */
    ingest_batch *current;  /* the batch being filled */
    wbuf whole;             /* a single-document file's bytes */
    winput *reading;        /* the file being read, for progress */
    uint64_t shown_offset;  /* its bytes already given to progress */
    pthread_t thread;
} ingest_reader;

struct ingest {
    ingest_options opt;
    ingest_sink sink;
    ingest_worker *workers;
    pthread_t *worker_threads;
    ingest_reader *readers;
    int nreaders;
    ingest_reader caller; /* counts made on the calling thread (unreadable directories) */
    pthread_mutex_t lock;
    pthread_cond_t work_ready;  /* a batch waits for a worker, or stop */
    pthread_cond_t file_ready;  /* a file waits for a reader, room in a file, or stop */
    pthread_cond_t progress;    /* a batch is done or a file read out: the caller may emit */
    file_slot *oldest, *newest; /* files not yet written out, in input order */
    file_slot *unclaimed;       /* the first that no reader has */
    int nslots;
    ingest_batch *todo_first, *todo_last; /* batches waiting for a worker, oldest first */
    int ntodo;
    ingest_batch *free_list;
    wbuf *spare_arenas; /* the arenas of batches worked on, for new batches */
    int nspare, spare_cap;
    bool stop;
    wstats stats;
};

static void *worker_main(void *arg);
static void *reader_main(void *arg);

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
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->work_ready, NULL);
    pthread_cond_init(&g->file_ready, NULL);
    pthread_cond_init(&g->progress, NULL);
    stats_init(&g->stats);
    g->caller.g = g;
    input_set_threads(g->opt.threads);
    int threads = g->opt.threads;
    g->workers = xcalloc((size_t)threads, sizeof *g->workers);
    g->worker_threads = xcalloc((size_t)threads, sizeof *g->worker_threads);
    for (int i = 0; i < threads; i++) {
        g->workers[i].index = i;
        g->workers[i].g = g;
        if (pthread_create(&g->worker_threads[i], NULL, worker_main, &g->workers[i]) != 0)
            dief(EXIT_FATAL, "cannot start a thread");
    }
    g->nreaders = threads < 2 ? 1 : threads / READER_SHARE > 2 ? threads / READER_SHARE : 2;
    g->readers = xcalloc((size_t)g->nreaders, sizeof *g->readers);
    for (int i = 0; i < g->nreaders; i++) {
        g->readers[i].g = g;
        if (pthread_create(&g->readers[i].thread, NULL, reader_main, &g->readers[i]) != 0)
            dief(EXIT_FATAL, "cannot start a thread");
    }
    return g;
}

/* A batch from the free list or a new one (lock held). */
static ingest_batch *new_batch(ingest *g)
{
    ingest_batch *b = g->free_list;
    if (b) {
        g->free_list = b->next_free;
    } else {
        b = xcalloc(1, sizeof *b);
    }
    if (!b->arena.data) {
        if (g->nspare) b->arena = g->spare_arenas[--g->nspare];
        else buf_reserve(&b->arena, BATCH_BYTES); /* filled once to about this: no growing copies */
    }
    b->njobs = 0;
    b->done = false;
    b->next_free = b->next_in_file = NULL;
    buf_clear(&b->arena);
    buf_clear(&b->out);
    buf_clear(&b->rejects);
    buf_clear(&b->hook_rejects);
    stats_free(&b->stats);
    stats_init(&b->stats);
    stats_free(&b->hook_stats);
    stats_init(&b->hook_stats);
    return b;
}

ingest_batch *ingest_batch_current(ingest_reader *r)
{
    if (!r->current) {
        pthread_mutex_lock(&r->g->lock);
        r->current = new_batch(r->g);
        pthread_mutex_unlock(&r->g->lock);
    }
    return r->current;
}

bool ingest_wants_rejects(const ingest_reader *r) { return r->g->opt.want_rejects; }

/* Hands a finished batch's output to the sink (the calling thread, no lock). */
static void emit(ingest *g, ingest_batch *b)
{
    if (b->out.len) g->sink.docs(g->sink.ctx, b->out.data, b->out.len);
    if (b->rejects.len && g->sink.rejects) g->sink.rejects(g->sink.ctx, b->rejects.data, b->rejects.len);
    if (g->opt.hook) g->opt.hook->batch_done(g->opt.hook->ctx, b->hook_rejects.data, b->hook_rejects.len, &b->hook_stats,
                                            b->hook_seconds);
    else b->stats.bytes_out += b->out.len; /* with a hook, counted document by document */
    progress_add(b->stats.out, 0);
    b->stats.started = g->stats.started;
    stats_merge(&g->stats, &b->stats);
}

/* Hands to the sink, in input order, every batch whose output is made, and
 * forgets the files written out; with wait, when there is none, first waits
 * for a batch to be done or a file read out. Lock held; released while the
 * sink runs. */
static void emit_ready(ingest *g, bool wait)
{
    for (;;) {
        file_slot *f = g->oldest;
        if (!f) return;
        if (f->first && f->first->done) {
            ingest_batch *b = f->first;
            f->first = b->next_in_file;
            if (!f->first) f->last = NULL;
            f->held--;
            f->held_bytes -= b->payload_bytes;
            pthread_cond_broadcast(&g->file_ready);
            pthread_mutex_unlock(&g->lock);
            emit(g, b);
            pthread_mutex_lock(&g->lock);
            b->next_free = g->free_list;
            g->free_list = b;
            wait = false;
        } else if (!f->first && f->read_done) {
            g->oldest = f->next;
            if (!g->oldest) g->newest = NULL;
            g->nslots--;
            free(f);
            pthread_cond_broadcast(&g->file_ready);
            wait = false;
        } else if (wait) { /* once: a file read out elsewhere may be what the caller waits for */
            pthread_cond_wait(&g->progress, &g->lock);
            wait = false;
        } else {
            return;
        }
    }
}

/* Appends a file to the input order (lock held). */
static void add_slot(ingest *g, file_slot *f)
{
    if (g->newest) g->newest->next = f;
    else g->oldest = f;
    g->newest = f;
    if (!g->unclaimed && !f->claimed) g->unclaimed = f;
    g->nslots++;
}

/* Files opened and not yet read out (lock held). */
static int files_open(const ingest *g)
{
    int n = 0;
    for (const file_slot *f = g->oldest; f; f = f->next) n += f->in && !f->read_done;
    return n;
}

/* Shows the bytes read since the last call on the progress line. */
static void show_progress(ingest_reader *r)
{
    if (!r->reading) return;
    uint64_t at = input_offset(r->reading);
    progress_add(0, at - r->shown_offset);
    r->shown_offset = at;
}

/* Hands the reader's batch to the workers, behind the file's others; waits
 * while its file holds FILE_BATCHES or FILE_BYTES not yet written, or the
 * workers have enough queued. */
static void submit(ingest_reader *r)
{
    ingest_batch *b = r->current;
    if (!b) return;
    show_progress(r);
    r->current = NULL;
    ingest *g = r->g;
    file_slot *f = r->slot;
    pthread_mutex_lock(&g->lock);
    if (f->last) f->last->next_in_file = b;
    else f->first = b;
    f->last = b;
    f->held++;
    b->payload_bytes = b->arena.len;
    f->held_bytes += b->payload_bytes;
    if (g->todo_last) g->todo_last->next_free = b;
    else g->todo_first = b;
    g->todo_last = b;
    g->ntodo++;
    pthread_cond_signal(&g->work_ready);
    while ((f->held >= FILE_BATCHES || f->held_bytes >= FILE_BYTES || g->ntodo >= QUEUED_PER_WORKER * g->opt.threads) &&
           !g->stop)
        pthread_cond_wait(&g->file_ready, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

void ingest_batch_check(ingest_reader *r)
{
    ingest_batch *b = r->current;
    if (b && (b->njobs >= BATCH_JOBS || b->arena.len >= BATCH_BYTES || b->stats.in >= BATCH_INPUTS)) submit(r);
}

static void *worker_main(void *arg)
{
    ingest_worker *w = arg;
    ingest *g = w->g;
    pthread_setname_np(pthread_self(), "ingest-worker"); /* top -H, bench/thread_cpu.py */
    pthread_mutex_lock(&g->lock);
    for (;;) {
        while (!g->stop && !g->todo_first) pthread_cond_wait(&g->work_ready, &g->lock);
        if (!g->todo_first) break; /* stop and nothing left */
        ingest_batch *b = g->todo_first;
        g->todo_first = b->next_free;
        if (!g->todo_first) g->todo_last = NULL;
        if (g->ntodo-- == QUEUED_PER_WORKER * g->opt.threads) pthread_cond_broadcast(&g->file_ready);
        pthread_mutex_unlock(&g->lock);
        ingest_run_batch(w, b, &g->opt);
        pthread_mutex_lock(&g->lock);
        b->done = true;
        /* only the output waits for the sink: the payloads' arena serves a new batch */
        if (g->nspare == g->spare_cap) {
            g->spare_cap = g->spare_cap ? 2 * g->spare_cap : 16;
            g->spare_arenas = xrealloc(g->spare_arenas, (size_t)g->spare_cap * sizeof *g->spare_arenas);
        }
        g->spare_arenas[g->nspare++] = b->arena;
        memset(&b->arena, 0, sizeof b->arena);
        pthread_cond_signal(&g->progress);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

static void read_input(ingest_reader *r, winput *in);

static void *reader_main(void *arg)
{
    ingest_reader *r = arg;
    ingest *g = r->g;
    pthread_setname_np(pthread_self(), "ingest-reader");
    pthread_mutex_lock(&g->lock);
    for (;;) {
        while (!g->stop && !g->unclaimed) pthread_cond_wait(&g->file_ready, &g->lock);
        if (g->stop) break;
        file_slot *f = g->unclaimed;
        f->claimed = true;
        g->unclaimed = f->next;
        while (g->unclaimed && g->unclaimed->claimed) g->unclaimed = g->unclaimed->next;
        pthread_mutex_unlock(&g->lock);
        r->slot = f;
        read_input(r, f->in);
        submit(r);
        pthread_mutex_lock(&g->lock);
        f->read_done = true;
        r->slot = NULL;
        pthread_cond_signal(&g->progress);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* Counts a failure met on the calling thread (an unreadable directory or
 * input) in its place in the input order. */
static void caller_failure(ingest *g, const char *kind)
{
    pthread_mutex_lock(&g->lock);
    ingest_batch *b = new_batch(g);
    b->stats.in++;
    stats_fail(&b->stats, kind);
    b->done = true;
    file_slot *f = xcalloc(1, sizeof *f);
    f->claimed = f->read_done = true;
    f->first = f->last = b;
    f->held = 1;
    add_slot(g, f);
    emit_ready(g, false);
    pthread_mutex_unlock(&g->lock);
}

void ingest_flush(ingest *g)
{
    pthread_mutex_lock(&g->lock);
    while (g->oldest) emit_ready(g, true);
    pthread_mutex_unlock(&g->lock);
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
    pthread_mutex_lock(&g->lock);
    g->stop = true;
    pthread_cond_broadcast(&g->work_ready);
    pthread_cond_broadcast(&g->file_ready);
    pthread_mutex_unlock(&g->lock);
    for (int i = 0; i < g->opt.threads; i++) pthread_join(g->worker_threads[i], NULL);
    for (int i = 0; i < g->nreaders; i++) {
        pthread_join(g->readers[i].thread, NULL);
        buf_free(&g->readers[i].whole);
    }
    while (g->free_list) {
        ingest_batch *b = g->free_list;
        g->free_list = b->next_free;
        free_batch(b);
    }
    while (g->nspare) buf_free(&g->spare_arenas[--g->nspare]);
    free(g->spare_arenas);
    for (int i = 0; i < g->opt.threads; i++) {
        ingest_worker *w = &g->workers[i];
        html_result_free(&w->html);
        buf_free(&w->text);
        buf_free(&w->line);
        buf_free(&w->tmp);
        buf_free(&w->renamed);
        buf_free(&w->meta);
    }
    free(g->workers);
    free(g->worker_threads);
    free(g->readers);
    stats_free(&g->stats);
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->work_ready);
    pthread_cond_destroy(&g->file_ready);
    pthread_cond_destroy(&g->progress);
    free(g);
}

/* ---- inputs by kind ---- */

static void ingest_source(ingest_reader *r, isrc *s, const char *name, int depth);

static void count_failure(ingest_reader *r, const char *kind)
{
    ingest_batch *b = ingest_batch_current(r);
    b->stats.in++;
    stats_fail(&b->stats, kind);
}

/* JSON Lines (or a JSON array file's elements, one a line: element) passed on as jobs. */
static void jsonl_input(ingest_reader *r, isrc *s, const char *name, bool element)
{
    const char *line;
    size_t len;
    uint64_t number = 0;
    while (isrc_getline(s, &line, &len)) {
        number++;
        size_t k = 0;
        while (k < len && (line[k] == ' ' || line[k] == '\t' || line[k] == '\r')) k++;
        if (k == len) continue; /* blank lines are not documents */
        ingest_batch *b = ingest_batch_current(r);
        b->stats.in++;
        ingest_job *j = batch_add_job(b, JOB_JSONL);
        j->payload = batch_put(b, line, len);
        j->source = batch_put(b, name, strlen(name));
        j->ordinal = number;
        j->element = element;
        ingest_batch_check(r);
    }
}

/* A whole file (or member) that is one document: HTML or plain text. */
static void single_doc_input(ingest_reader *r, isrc *s, const char *name, input_kind kind)
{
    buf_clear(&r->whole);
    for (;;) {
        buf_reserve(&r->whole, READ_STEP);
        size_t got = isrc_read(s, r->whole.data + r->whole.len, READ_STEP);
        if (!got) break;
        r->whole.len += got;
        if (r->whole.len > MAX_FILE_DOC) {
            warnf("%s: over %zu bytes, too large for one document; skipped", name, MAX_FILE_DOC);
            isrc_read(s, NULL, SIZE_MAX);
            count_failure(r, "file_too_large");
            return;
        }
    }
    ingest_batch *b = ingest_batch_current(r);
    b->stats.in++;
    ingest_job *j = batch_add_job(b, kind == INPUT_HTML ? JOB_HTML : JOB_TEXT);
    j->payload = batch_put(b, r->whole.data, r->whole.len);
    j->source = batch_put(b, name, strlen(name));
    j->id = j->source;
    snprintf(j->content_type, sizeof j->content_type, "%s", kind == INPUT_HTML ? "text/html" : "text/plain");
    ingest_batch_check(r);
}

typedef struct {
    ingest_reader *r;
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
    ingest_source(m->r, &s, m->name.data, m->depth + 1);
}

static void on_archive_error(void *ctx, const char *name, const char *what)
{
    member_ctx *m = ctx;
    if (name) warnf("%s: member %s: %s", m->archive, name, what);
    else warnf("%s: %s", m->archive, what);
    count_failure(m->r, "bad_archive");
}

static void ingest_source(ingest_reader *r, isrc *s, const char *name, int depth)
{
    const char *p;
    /* a file that is one JSON array of objects reads as its elements, one a line (core/json_array.h) */
    bool array = s->in && input_json_array(s->in, true);
    size_t n = isrc_peek(s, SNIFF_BYTES, &p);
    input_kind kind = sniff_kind(p, n < SNIFF_BYTES ? n : SNIFF_BYTES);
    if (depth > MAX_NESTING && (kind == INPUT_ARCHIVE || kind == INPUT_COMPRESSED)) {
        warnf("%s: archives nested more than %d deep; skipped", name, MAX_NESTING);
        count_failure(r, "nested_too_deep");
        return;
    }
    switch (kind) {
    case INPUT_EMPTY:
        break;
    case INPUT_WARC:
    case INPUT_ARC:
        ingest_warc_input(r, s, name, kind == INPUT_ARC);
        break;
    case INPUT_JSONL:
        jsonl_input(r, s, name, array);
        break;
    case INPUT_HTML:
    case INPUT_TEXT:
        single_doc_input(r, s, name, kind);
        break;
    case INPUT_ARCHIVE: {
        member_ctx m = {r, name, depth, WBUF_INIT};
        archive_each_member(s, on_member, on_archive_error, &m);
        buf_free(&m.name);
        break;
    }
    case INPUT_COMPRESSED: { /* only met inside archives: files are decoded by core input */
        wbuf plain = WBUF_INIT;
        if (decompress_memory(p, n, &plain) != 0) {
            warnf("%s: damaged compressed data; reading what decoded", name);
            stats_add(&ingest_batch_current(r)->stats, "damaged_streams", 1);
        }
        isrc inner;
        isrc_from_memory(&inner, plain.data ? plain.data : "", plain.len, name);
        ingest_source(r, &inner, name, depth + 1);
        buf_free(&plain);
        break;
    }
    case INPUT_BINARY: {
        ingest_batch *b = ingest_batch_current(r);
        b->stats.in++;
        stats_drop(&b->stats, "binary_file");
        if (r->g->opt.want_rejects) ingest_reject(b, "binary_file", name, strlen(name), "", 0, name, strlen(name), NULL);
        isrc_read(s, NULL, SIZE_MAX);
        break;
    }
    }
}

/* Opens file path ("-": stdin) on the calling thread and queues it for the
 * readers in input order; returns 0, or -1 when it cannot be opened (counted
 * failed unreadable_input). */
static int ingest_file(ingest *g, const char *path)
{
    pthread_mutex_lock(&g->lock);
    if (!strcmp(path, "-")) { /* stdin opened early would be read before an earlier "-" ends */
        for (;;) {
            bool reading = false;
            for (file_slot *f = g->oldest; f; f = f->next) reading |= !f->read_done;
            if (!reading) break;
            emit_ready(g, true);
        }
    }
    while (g->nslots >= 2 * g->nreaders + OPEN_AHEAD || files_open(g) >= g->nreaders + OPEN_AHEAD)
        emit_ready(g, true);
    emit_ready(g, false);
    pthread_mutex_unlock(&g->lock);
    winput *in = input_open(path);
    if (!in) {
        caller_failure(g, INPUTS_UNREADABLE);
        return -1;
    }
    file_slot *f = xcalloc(1, sizeof *f);
    f->in = in;
    pthread_mutex_lock(&g->lock);
    add_slot(g, f);
    pthread_cond_broadcast(&g->file_ready);
    pthread_mutex_unlock(&g->lock);
    return 0;
}

int ingest_inputs(ingest *g, const input_list *l)
{
    int rc = inputs_status(l) == EXIT_OK ? 0 : -1;
    for (int i = 0; i < l->n; i++) {
        const input_entry *e = &l->entries[i];
        if (e->failure) caller_failure(g, e->failure); /* counted in its place in the input order */
        else if (ingest_file(g, e->path) != 0) rc = -1;
    }
    return rc;
}

int ingest_path(ingest *g, const char *path)
{
    char *args[] = {(char *)path};
    input_list l;
    inputs_expand(&l, args, 1);
    int rc = ingest_inputs(g, &l);
    inputs_free(&l);
    return rc;
}

/* Reads an opened file into batches of its own and closes it (reader thread). */
static void read_input(ingest_reader *r, winput *in)
{
    isrc s;
    isrc_from_input(&s, in);
    r->reading = in;
    r->shown_offset = 0;
    ingest_source(r, &s, input_name(in), 0);
    isrc_read(&s, NULL, SIZE_MAX);
    show_progress(r);
    r->reading = NULL;
    ingest_batch *b = ingest_batch_current(r);
    b->stats.bytes_in += input_offset(in);
    if (input_errors(in)) stats_add(&b->stats, "damaged_streams", (double)input_errors(in));
    input_losses lost = {0};
    input_add_losses(&lost, in);
    input_count_losses(&b->stats, &lost);
    input_close(in);
}
