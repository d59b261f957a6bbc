/* stage.c - common options and the document-stream engine. */
#include "stage.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "doc.h"
#include "input.h"
#include "parquet_jsonl.h"
#include "pool.h"
#include "progress.h"
#include "util.h"

#define BATCH_BYTES (1u << 20) /* default input read per batch; a longer line makes a bigger batch */
/* A worker reading a plain file's range reads on past its end in steps of
 * this, to the end of the range's last line. */
#define OVERHANG_STEP (64u << 10)
/* Batches mapped and waiting for the writer thread, at most. The writer
 * copies every kept byte once (write()), and so does the reader (main thread)
 * for inputs that are not plain files (read()): apart they keep up with twice
 * the input rate they could together. */
#define WRITER_DEPTH 4
/* Batches with the workers at once, per worker (and two more). */
#define DEPTH_PER_WORKER 2
#define MAX_DEPTH_PER_WORKER 64

const char STAGE_COMMON_HELP[] =
    "common options:\n"
    "  -o, --output FILE   write to FILE (default: stdout); written atomically; a name\n"
    "                      ending in .parquet is written as Parquet (zstd)\n"
    "  -z, --zstd          zstd-compress the output\n"
    "  -j, --jobs N        worker threads (default: all cores)\n"
    "      --stats FILE    write counts (in/out/dropped by reason/failed by kind) as JSON\n"
    "      --rejects FILE  write every dropped document with its reason (JSONL)\n"
    "  -q, --quiet         no progress display on stderr\n"
    "      --text-column C the JSON member or Parquet column that holds the text (default:\n"
    "                      text); the output calls it text, so a pipe needs it only first\n"
    "  -h, --help          this help\n"
    "Inputs are files, '-' (stdin, the default) or directories (every regular file under\n"
    "them, recursively, in name order; FIFOs and devices skipped): plain, gzip or zstd\n"
    "JSON Lines, or Parquet, found by content.\n";

void stage_opts_init(stage_opts *o)
{
    memset(o, 0, sizeof *o);
    o->threads = cpu_count();
}

void stage_opts_init_quiet(stage_opts *o, int threads, char **inputs, int ninputs)
{
    stage_opts_init(o);
    o->threads = threads;
    o->quiet = true;
    o->inputs = inputs;
    o->ninputs = ninputs;
}

bool stage_parse_common(stage_opts *o, int opt, const char *arg)
{
    switch (opt) {
    case 'o':
        if (!*arg) dief(EXIT_USAGE, "-o wants a file name ('-' for stdout), not an empty one");
        o->output = arg;
        return true;
    case 'z': o->zstd_level = STAGE_ZSTD_LEVEL; return true;
    case 'j': {
        long long n = parse_count(arg);
        if (n < 1 || n > 4096) dief(EXIT_USAGE, "-j wants a thread count from 1 to 4096, not '%s'", arg);
        o->threads = (int)n;
        parquet_set_threads(o->threads);
        return true;
    }
    case OPT_TEXT_COLUMN:
        if (!doc_set_text_name(arg)) dief(EXIT_USAGE, "--text-column wants a member or column name without a line break");
        return true;
    case OPT_STATS: o->stats_path = arg; return true;
    case OPT_REJECTS: o->rejects_path = arg; return true;
    case 'q': o->quiet = true; return true;
    default: return false;
    }
}

/* The inputs of the command this process runs (stage_take_inputs). */
static input_list taken;

void stage_take_inputs(stage_opts *o, int argc, char **argv)
{
    inputs_free(&taken);
    inputs_expand(&taken, argv + optind, argc - optind);
    o->inputs = taken.files;
    o->ninputs = taken.nfiles;
    o->given = &taken;
}

void stage_doc_rewrite(stage_batch *b, int i, const wbuf *line)
{
    stage_doc *d = &b->docs[i];
    d->verdict = DOC_REWRITE;
    d->out_off = b->out.len;
    d->out_len = line->len;
    buf_append(&b->out, line->data, line->len);
}

void stage_doc_drop(stage_batch *b, int i, const char *reason, const char *extra)
{
    stage_doc *d = &b->docs[i];
    d->verdict = DOC_DROP;
    d->reason = reason;
    d->extra_len = 0;
    if (extra && *extra) {
        d->extra_off = b->out.len;
        d->extra_len = strlen(extra);
        buf_append(&b->out, extra, d->extra_len);
    }
}

typedef struct sink sink;

typedef struct {
    const stage_ops *ops;
    const stage_opts *opts;
    sink *sink;
    /* numbering: a worker counts its batch's lines and documents and goes
     * on scanning; batches are numbered in input order as soon as every
     * batch before them is counted (number_counted) */
    pthread_mutex_t order_lock;
    pthread_cond_t order_numbered;
    stage_batch **counted;  /* counted batches not yet numbered, at seq % ncounted */
    int ncounted;           /* batches that can be with the workers at once */
    uint64_t order_seq;     /* the next batch to number */
    uint64_t order_ordinal; /* the ordinal of its first document */
    uint64_t order_lineno;  /* the line number after the previous batch's last line */
    atomic_int read_errors; /* in plain files read by the workers */
    stage_times *times;     /* opts->times: where the threads' time goes, or NULL */
    uint64_t *first_ns, *last_ns; /* with times: each worker's first batch's start, last batch's end */
} engine;

/* Nanoseconds on a monotonic clock (for stage_times). */
static uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* With times: adds the nanoseconds since *since to *sum and restarts *since. */
static void lap_ns(const engine *e, atomic_uint_fast64_t *sum, uint64_t *since)
{
    if (!e->times) return;
    uint64_t now = clock_ns();
    atomic_fetch_add(sum, now - *since);
    *since = now;
}

/* A plain input file read by the workers: each batch is a byte range of it
 * that its worker reads with pread() (so the reading thread copies nothing)
 * and cuts to the lines that start in it. Closed when the reader and every
 * batch have let go. */
struct stage_file {
    int fd;
    uint64_t size;       /* as found at open: bytes past it are not read */
    atomic_int refs;
    atomic_int errors;   /* read errors (each reported) */
};

/* Opens input in (opened from path) for reading by range when it is a plain
 * regular file that is not empty; NULL when it is anything else (read through
 * input_read). */
static struct stage_file *open_plain_input(const char *path, winput *in)
{
    struct stat st;
    if (!strcmp(path, "-") || input_get_codec(in) != CODEC_PLAIN || input_is_json_array(in)) return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return NULL;
    }
    struct stage_file *f = xmalloc(sizeof *f);
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    atomic_init(&f->refs, 1);
    atomic_init(&f->errors, 0);
    return f;
}

/* Lets go of f (the reader's hold, or a batch's); returns its read errors
 * when this was the last hold (then f is gone), else 0. */
static int file_release(struct stage_file *f)
{
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1) return 0;
    int errors = atomic_load(&f->errors);
    close(f->fd);
    free(f);
    return errors;
}

/* Reads up to n bytes of b's file at offset into b->text (appended); returns
 * the bytes read, short only at the end of the file (or a read error, which
 * is reported and counted). */
static size_t read_at(stage_batch *b, uint64_t offset, size_t n)
{
    struct stage_file *f = b->src;
    if (offset >= f->size) return 0;
    if (n > f->size - offset) n = (size_t)(f->size - offset);
    buf_reserve(&b->text, n);
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(f->fd, b->text.data + b->text.len + got, n - got, (off_t)(offset + got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            warnf("%s: read error: %s", b->file, strerror(errno));
            atomic_fetch_add(&f->errors, 1);
        }
        if (r <= 0) break;
        got += (size_t)r;
    }
    b->text.len += got;
    b->text.data[b->text.len] = 0;
    return got;
}

/* Worker: reads b's range of its plain file and sets b->block to the lines
 * that start in the range [from, to): from the byte after the first '\n' at
 * or past from - 1 (from itself at 0) to the first '\n' at or past to - 1
 * (the file's end at the latest, where a missing last line end is added). So
 * consecutive ranges take every line once, and a range inside one long line
 * takes none. */
static void read_range(stage_batch *b)
{
    uint64_t from = b->range_from, to = b->range_to, at = from ? from - 1 : 0;
    size_t got = read_at(b, at, (size_t)(to - at));
    size_t skip = 0;
    if (from) {
        const char *nl = memchr(b->text.data, '\n', got);
        skip = nl ? (size_t)(nl + 1 - b->text.data) : got;
    }
    if (skip < got && b->text.data[got - 1] != '\n') /* the last line goes on past to */
        for (size_t more; (more = read_at(b, at + b->text.len, OVERHANG_STEP));) {
            const char *nl = memchr(b->text.data + b->text.len - more, '\n', more);
            if (nl) {
                b->text.len = (size_t)(nl + 1 - b->text.data);
                break;
            }
        }
    if (skip < b->text.len && b->text.data[b->text.len - 1] != '\n')
        buf_putc(&b->text, '\n'); /* the last line of a file without its '\n' */
    b->block = b->text.data + skip;
    b->block_len = b->text.len - skip;
}

/* True when the line holds only spaces and tabs: not a document (as in
 * ingest), neither counted nor written. */
static bool blank(const char *p, size_t len)
{
    if (p[0] != ' ' && p[0] != '\t') return false; /* the usual case: one test */
    for (size_t i = 1; i < len; i++)
        if (p[i] != ' ' && p[i] != '\t') return false;
    return true;
}

/* Splits the batch's block into documents (non-blank lines), their
 * lineno counted from 0 in the block; returns the number of lines. */
static uint64_t split_lines(stage_batch *b)
{
    const char *p = b->block, *end = p + b->block_len;
    uint64_t lineno = 0;
    b->n = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end; /* cannot happen: blocks end in '\n' */
        size_t len = (size_t)(nl - p);
        size_t span = len + (nl < end);
        if (len && p[len - 1] == '\r') len--;
        if (len && !blank(p, len)) {
            if (b->n == b->cap) {
                b->cap = b->cap ? 2 * b->cap : 1024;
                b->docs = xrealloc(b->docs, (size_t)b->cap * sizeof *b->docs);
            }
            stage_doc *d = &b->docs[b->n++];
            memset(d, 0, sizeof *d);
            d->line = p;
            d->len = len;
            d->span = span;
            d->lineno = lineno;
        }
        lineno++;
        p += span;
    }
    return lineno;
}

/* Numbers every counted batch whose turn it is: its documents' ordinals and
 * line numbers follow the batch before it. Called with the order lock held. */
static void number_counted(engine *e)
{
    stage_batch *b;
    while ((b = e->counted[e->order_seq % (uint64_t)e->ncounted]) && b->seq == e->order_seq) {
        e->counted[e->order_seq % (uint64_t)e->ncounted] = NULL;
        b->first_line = b->file_start ? 1 : e->order_lineno;
        for (int i = 0; i < b->n; i++) {
            b->docs[i].ordinal = e->order_ordinal + (uint64_t)i;
            b->docs[i].lineno += b->first_line;
        }
        e->order_ordinal += (uint64_t)b->n;
        e->order_lineno = b->first_line + b->lines;
        b->numbered = true;
        e->order_seq++;
    }
    pthread_cond_broadcast(&e->order_numbered);
}

/* Worker, once b's lines are split: b is counted, and numbered with every
 * batch it completes the run of. Batches are claimed in input order, so a
 * batch with the workers is less than ncounted ahead of the next to number. */
static void count_batch(engine *e, stage_batch *b, uint64_t lines)
{
    pthread_mutex_lock(&e->order_lock);
    b->lines = lines;
    e->counted[b->seq % (uint64_t)e->ncounted] = b;
    number_counted(e);
    pthread_mutex_unlock(&e->order_lock);
}

/* Worker: waits until b is numbered (every batch before it counted). */
static void wait_numbered(engine *e, stage_batch *b)
{
    pthread_mutex_lock(&e->order_lock);
    while (!b->numbered) pthread_cond_wait(&e->order_numbered, &e->order_lock);
    pthread_mutex_unlock(&e->order_lock);
}

/* Puts every line of b in winnow's shape (doc_normalize_line: the inputs'
 * text member renamed "text") in b->renamed, the documents pointing there;
 * a line that cannot be is failed. Returns the failures. */
static int normalize_lines(stage_batch *b)
{
    int failed = 0;
    buf_clear(&b->renamed);
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        const char *err;
        size_t pos, at = b->renamed.len;
        d->reason = doc_normalize_line(d->line, d->len, &b->renamed, &err, &pos);
        if (d->reason) {
            d->verdict = DOC_FAIL;
            failed++;
        } else {
            d->out_off = at; /* the renamed line's place, until the buffer stops moving */
        }
    }
    size_t at_end = b->renamed.len;
    for (int i = b->n - 1; i >= 0; i--) { /* the lines follow one another: each ends where the next begins */
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        d->line = b->renamed.data + d->out_off;
        d->span = at_end - d->out_off;
        d->len = d->span - 1;
        at_end = d->out_off;
        d->out_off = 0;
    }
    return failed;
}

/* Worker: read (a plain file's range), split, count, scan every line; once
 * numbered, report the lines that failed, then the stage's map. */
static void engine_work(void *ctx, int worker, void *item)
{
    engine *e = ctx;
    stage_batch *b = item;
    stage_times *t = e->times;
    uint64_t since = t ? clock_ns() : 0;
    if (t && !e->first_ns[worker]) e->first_ns[worker] = since;
    if (b->src) {
        read_range(b);
        int errors = file_release(b->src);
        if (errors) atomic_fetch_add(&e->read_errors, errors);
        b->src = NULL;
        lap_ns(e, t ? &t->read_ns : NULL, &since);
    }
    count_batch(e, b, split_lines(b));
    lap_ns(e, t ? &t->split_ns : NULL, &since);
    int failed = doc_text_renamed() ? normalize_lines(b) : 0;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        const char *err;
        size_t pos;
        if (d->verdict == DOC_FAIL) continue;
        if (json_scan_doc(d->line, d->len, &d->json, &err, &pos) != 0) {
            d->verdict = DOC_FAIL;
            d->reason = "bad_json";
            failed++;
        } else if (d->json.text.kind != JSON_STRING) {
            d->verdict = DOC_FAIL;
            d->reason = "missing_text";
            failed++;
        }
    }
    lap_ns(e, t ? &t->scan_ns : NULL, &since);
    wait_numbered(e, b);
    lap_ns(e, t ? &t->numbered_ns : NULL, &since);
    for (int i = 0; failed && i < b->n; i++) { /* rare: the scan is repeated for the message */
        stage_doc *d = &b->docs[i];
        if (d->verdict != DOC_FAIL) continue;
        failed--;
        const char *err;
        size_t pos;
        jdoc scratch;
        if (!strcmp(d->reason, "bad_json") && json_scan_doc(d->line, d->len, &scratch, &err, &pos) != 0)
            warnf("%s: %s %llu: bad JSON at byte %zu: %s", b->file, b->unit, (unsigned long long)d->lineno, pos + 1,
                  err);
        else {
            char why[256];
            doc_describe_failure(d->reason, why, sizeof why);
            warnf("%s: %s %llu: %s", b->file, b->unit, (unsigned long long)d->lineno, why);
        }
    }
    if (e->ops->map) e->ops->map(e->ops->ctx, worker, b);
    lap_ns(e, t ? &t->map_ns : NULL, &since);
    if (t) e->last_ns[worker] = since;
}

static stage_batch *batch_new(void)
{
    stage_batch *b = xcalloc(1, sizeof *b);
    stats_init(&b->stats);
    return b;
}

static void batch_reset(stage_batch *b)
{
    b->n = 0;
    b->numbered = false;
    buf_clear(&b->out);
    buf_clear(&b->text);
    stats_free(&b->stats);
    stats_init(&b->stats);
    b->user = NULL;
}

static void batch_free(stage_batch *b)
{
    free(b->docs);
    buf_free(&b->renamed);
    buf_free(&b->out);
    buf_free(&b->text);
    stats_free(&b->stats);
    free(b);
}

struct sink {
    woutput *out, *rejects;
    wstats stats;
    wbuf scratch;
};

/* The writer thread, input order: reduce, write, count. */
static void finish_batch(engine *e, sink *s, stage_batch *b)
{
    const stage_ops *ops = e->ops;
    if (ops->reduce) ops->reduce(ops->ctx, b);
    uint64_t out_before = s->out ? output_bytes(s->out) : 0;
    if (ops->emit) ops->emit(ops->ctx, b, s->out);
    uint64_t bytes = 0;
    /* kept lines sit back to back in b->text: write each run of them at once */
    const char *run = NULL;
    size_t run_len = 0;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        s->stats.in++;
        bytes += d->span;
        bool extends_run = d->verdict == DOC_KEEP && run_len && d->line == run + run_len;
        if (run_len && !extends_run) {
            output_write(s->out, run, run_len);
            run_len = 0;
        }
        switch (d->verdict) {
        case DOC_KEEP:
            s->stats.out++;
            if (!ops->emit) {
                if (!run_len) run = d->line;
                run_len += d->span; /* the line as it came, with its line end */
            }
            break;
        case DOC_REWRITE:
            s->stats.out++;
            if (!ops->emit) output_write(s->out, b->out.data + d->out_off, d->out_len);
            break;
        case DOC_DROP:
            stats_drop(&s->stats, d->reason ? d->reason : "dropped");
            if (s->rejects) {
                buf_clear(&s->scratch);
                char *extra = NULL;
                if (d->extra_len) {
                    extra = xmalloc(d->extra_len + 1);
                    memcpy(extra, b->out.data + d->extra_off, d->extra_len);
                    extra[d->extra_len] = 0;
                }
                doc_reject_line(d->line, d->len, ops->name, d->reason ? d->reason : "dropped", extra, &s->scratch);
                free(extra);
                output_write(s->rejects, s->scratch.data, s->scratch.len);
            }
            break;
        case DOC_FAIL: stats_fail(&s->stats, d->reason ? d->reason : "failed"); break;
        }
    }
    if (run_len) output_write(s->out, run, run_len);
    s->stats.bytes_in += bytes;
    if (s->out) s->stats.bytes_out += output_bytes(s->out) - out_before;
    stats_merge(&s->stats, &b->stats); /* map() adds only stage-specific numbers */
    progress_add((uint64_t)b->n, bytes);
}

/* Opens input f of o; NULL, with status set, when it cannot. */
static winput *open_nth(const stage_opts *o, int f, int *status)
{
    winput *in = input_open(o->inputs[f]);
    if (!in) *status = EXIT_FATAL;
    else input_json_array(in, false); /* a JSON array file reads as its elements */
    return in;
}

/* The writer thread's work: one batch, in input order (the pool has one thread). */
static void writer_work(void *ctx, int worker, void *item)
{
    engine *e = ctx;
    stage_batch *b = item;
    (void)worker;
    uint64_t start = e->times ? clock_ns() : 0;
    finish_batch(e, e->sink, b);
    if (e->times) e->times->writer_ns += clock_ns() - start; /* (only this thread writes it) */
    free((char *)b->file);
    b->file = NULL;
}

/* The reading side of a run (the main thread): batches go from the spares
 * to the workers, then to the writer, and come back as spares. */
typedef struct {
    wpool *pool, *writer;
    stage_batch **spare;
    int nspare;
    uint64_t seq; /* batches handed out */
    stage_times *times;
} reader;

/* Hands the oldest mapped batch to the writer; a batch the writer is done
 * with comes back as a spare. */
static void to_writer(reader *r)
{
    uint64_t start = r->times ? clock_ns() : 0;
    if (pool_full(r->writer)) r->spare[r->nspare++] = pool_pop(r->writer);
    uint64_t popped = r->times ? clock_ns() : 0;
    stage_batch *oldest = pool_pop(r->pool);
    uint64_t mapped = r->times ? clock_ns() : 0;
    pool_push(r->writer, oldest);
    if (!r->times) return;
    r->times->reader_writer_ns += popped - start + clock_ns() - mapped;
    r->times->reader_oldest_ns += mapped - popped;
}

/* An empty batch, a spare one if there is one. */
static stage_batch *take_batch(reader *r)
{
    stage_batch *b = r->nspare ? r->spare[--r->nspare] : batch_new();
    batch_reset(b);
    return b;
}

/* Queues b, whose block is set, for the workers. */
static void submit(reader *r, stage_batch *b, const winput *in, bool file_start)
{
    b->file = xstrdup(input_name(in));
    b->unit = input_is_json_array(in) ? "element" : "line";
    b->file_start = file_start;
    b->seq = r->seq++;
    if (pool_full(r->pool)) to_writer(r);
    pool_push(r->pool, b);
}

/* Hands out plain file f as byte ranges of batch_bytes, which the workers
 * read and cut to whole lines (read_range). */
static void read_ranges(reader *r, struct stage_file *f, const winput *in, size_t batch_bytes)
{
    for (uint64_t pos = 0; pos < f->size; pos += batch_bytes) {
        stage_batch *b = take_batch(r);
        b->src = f;
        atomic_fetch_add(&f->refs, 1);
        b->range_from = pos;
        b->range_to = f->size - pos > batch_bytes ? pos + batch_bytes : f->size;
        submit(r, b, in, pos == 0);
    }
}

/* Reads input in into batches of whole lines (a line begun in one read is
 * carried to the next batch). */
static void read_stream(reader *r, winput *in, size_t batch_bytes, wbuf *carry)
{
    buf_clear(carry);
    bool file_start = true;
    for (;;) {
        stage_batch *b = take_batch(r);
        buf_append(&b->text, carry->data ? carry->data : "", carry->len);
        buf_clear(carry);
        /* read until the block holds a line end (a huge line makes a huge block) */
        bool last = false;
        char *nl = NULL;
        while (!nl && !last) {
            size_t from = b->text.len;
            buf_reserve(&b->text, batch_bytes);
            size_t got = input_read(in, b->text.data + from, batch_bytes);
            b->text.len += got;
            b->text.data[b->text.len] = 0;
            last = got == 0;
            nl = got ? memrchr(b->text.data + from, '\n', got) : NULL;
        }
        if (nl) {
            size_t keep = (size_t)(nl + 1 - b->text.data);
            buf_append(carry, b->text.data + keep, b->text.len - keep);
            b->text.len = keep;
        } else if (b->text.len && b->text.data[b->text.len - 1] != '\n') {
            buf_putc(&b->text, '\n'); /* the last line of a file without its '\n' */
        }
        if (!b->text.len) {
            r->spare[r->nspare++] = b;
            break;
        }
        b->block = b->text.data;
        b->block_len = b->text.len;
        submit(r, b, in, file_start);
        file_start = false;
        if (last && !carry->len) break;
    }
}

/* With times: the workers' time before their first batch and after their
 * last, and their whole window (started .. joined, once per worker). */
static void times_of_workers(engine *e, int threads, uint64_t started, uint64_t joined)
{
    stage_times *t = e->times;
    for (int w = 0; w < threads; w++) {
        bool worked = e->first_ns[w] != 0;
        t->before_first_ns += (worked ? e->first_ns[w] : joined) - started;
        t->after_last_ns += worked ? joined - e->last_ns[w] : 0;
    }
    t->workers_ns += (uint64_t)threads * (joined - started);
    free(e->first_ns);
    free(e->last_ns);
}

/* Batches with the workers at once, per worker: DEPTH_PER_WORKER, or
 * WINNOW_STAGE_DEPTH (1 to 64), a knob for measuring how far ahead of a slow
 * batch the workers should be able to run. */
static int batches_per_worker(void)
{
    const char *v = getenv("WINNOW_STAGE_DEPTH");
    int n = v ? atoi(v) : 0;
    return n >= 1 && n <= MAX_DEPTH_PER_WORKER ? n : DEPTH_PER_WORKER;
}

int stage_run(const stage_opts *o, const stage_ops *ops)
{
    sink s = {0};
    engine e = {.ops = ops, .opts = o, .sink = &s};
    pthread_mutex_init(&e.order_lock, NULL);
    pthread_cond_init(&e.order_numbered, NULL);
    stats_init(&s.stats);
    s.out = output_open(o->output, o->zstd_level);
    if (o->rejects_path) s.rejects = output_open(o->rejects_path, 0);
    int depth = batches_per_worker() * o->threads + 2;
    e.ncounted = depth;
    e.counted = xcalloc((size_t)depth, sizeof *e.counted);
    e.times = o->times;
    uint64_t workers_start = 0;
    int nworkers = o->threads < 1 ? 1 : o->threads; /* (as pool_create makes them) */
    if (e.times) {
        e.first_ns = xcalloc((size_t)nworkers, sizeof *e.first_ns);
        e.last_ns = xcalloc((size_t)nworkers, sizeof *e.last_ns);
        workers_start = clock_ns();
    }
    reader rd = {.times = o->times};
    rd.pool = pool_create(o->threads, depth, engine_work, &e);
    rd.writer = pool_create(1, WRITER_DEPTH, writer_work, &e);
    input_set_threads(o->threads);
    rd.spare = xcalloc((size_t)depth + WRITER_DEPTH + 1, sizeof *rd.spare);
    input_losses lost = {0}; /* counted once the writer thread is done with s */
    int status = inputs_count_skipped(o->given, &s.stats);
    wbuf carry = WBUF_INIT; /* a line begun in the previous block */
    progress_start(ops->name, o->quiet);

    /* The main thread hands out byte ranges of plain files (each read and
     * cut to whole lines by its worker) or reads other inputs into blocks of
     * whole lines; workers split, number, scan and map them; the writer
     * thread reduces and writes, in input order. */
    size_t batch_bytes = o->batch_bytes ? o->batch_bytes : BATCH_BYTES;
    int ninputs = o->ninputs;
    winput *next = ninputs ? open_nth(o, 0, &status) : NULL;
    for (int f = 0; f < ninputs; f++) {
        winput *in = next;
        /* the next file opens before this one is read: the threads that
         * inflate its gzip members start early (stdin opens in its turn) */
        next = f + 1 < ninputs && strcmp(o->inputs[f + 1], "-") != 0 ? open_nth(o, f + 1, &status) : NULL;
        if (!in && f > 0 && !strcmp(o->inputs[f], "-")) in = open_nth(o, f, &status);
        if (!in) { /* reported by input_open */
            lost.unreadable++;
            continue;
        }
        struct stage_file *plain = open_plain_input(o->inputs[f], in);
        if (plain) {
            read_ranges(&rd, plain, in, batch_bytes);
            if (file_release(plain)) status = EXIT_FATAL;
        } else {
            read_stream(&rd, in, batch_bytes, &carry);
        }
        if (input_errors(in)) status = EXIT_FATAL;
        input_add_losses(&lost, in);
        input_close(in);
    }
    while (!pool_empty(rd.pool)) to_writer(&rd);
    while (!pool_empty(rd.writer)) rd.spare[rd.nspare++] = pool_pop(rd.writer);
    pool_destroy(rd.pool);
    if (e.times) times_of_workers(&e, nworkers, workers_start, clock_ns());
    pool_destroy(rd.writer);
    if (atomic_load(&e.read_errors)) status = EXIT_FATAL;
    input_count_losses(&s.stats, &lost);
    progress_stop();
    for (int i = 0; i < rd.nspare; i++) batch_free(rd.spare[i]);
    free(rd.spare);
    buf_free(&carry);
    pthread_mutex_destroy(&e.order_lock);
    pthread_cond_destroy(&e.order_numbered);
    free(e.counted);

    if (ops->end) ops->end(ops->ctx);
    output_close(s.out);
    if (s.rejects) output_close(s.rejects);
    if (o->stats_path) stats_write_json(&s.stats, ops->name, o->stats_path);
    if (o->counts) stats_merge(o->counts, &s.stats);
    if (!o->quiet) stats_print_summary(&s.stats, winnow_prog);
    stats_free(&s.stats);
    buf_free(&s.scratch);
    return status;
}
