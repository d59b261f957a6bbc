/* block_source.c - the inputs as blocks of whole lines: plain files mapped,
 * gzip and zstd files cut into units that a pool of threads decodes at once,
 * the rest decoded serially by one of them (see block_source.h). */
#include "block_source.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older headers lack it */
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "block_units.h"
#include "input.h"
#include "util.h"

/* Decoded bytes waiting for the consumer: at most physical memory / this. */
#define AHEAD_MEMORY_SHARE 4
#define MIN_AHEAD_BYTES ((uint64_t)256 << 20)
/* A unit decodes into one buffer of at most physical memory / this (a bigger
 * frame or member is decoded serially, streaming). */
#define UNIT_MEMORY_SHARE 16
#define MIN_UNIT_BYTES ((uint64_t)256 << 20)
#define MAGIC_BYTES 4

/* Decoded memory shared by the blocks cut from it. */
typedef struct {
    char *mem;
    uint64_t ahead; /* bytes it counts in the source's ahead */
    int refs;
} sbuf;

/* Decoded bytes of one input, in order: a unit's output or a serial read. */
typedef struct piece {
    sbuf *buf;
    char *data; /* UNIT_HEADROOM free bytes before it in buf */
    size_t len;
    struct piece *next;
} piece;

enum { IN_MAPPED, IN_UNITS, IN_SERIAL };
enum { UNIT_PENDING, UNIT_RUNNING, UNIT_DONE };

typedef struct {
    unit_span span;
    int state;
    bool ok;
    unit_out out;
} unit;

typedef struct {
    const char *path;
    char *name;
    int index;
    int mode;
    /* IN_MAPPED: the whole file, handed out from pos; unmapped when passed and no block is out */
    char *map;
    size_t size, pos;
    int blocks_out;
    bool passed;
    /* IN_UNITS: the compressed file mapped, its units planned by a worker */
    units_kind kind;
    unsigned char *cmap;
    size_t csize;
    bool planning, planned, abandoned;
    unit *units;
    size_t nunits, next_take, next_use;
    int running; /* units being decoded */
    uint64_t expected; /* the chain: compressed offset where the next unit must begin */
    uint64_t decoded;  /* decoded bytes taken from units */
    /* IN_SERIAL: decoded by one thread from (from_raw, from_decoded) */
    bool serial_started, finished, own_thread;
    pthread_t thread;
    uint64_t from_raw, from_decoded;
    piece *head, *tail;
    /* the consumer's place: the piece being cut, and a partial line waiting for the next piece */
    sbuf *cur;
    char *cur_data;
    size_t cur_len;
    char *carry;
    size_t carry_len, carry_cap;
    bool first_given;
    bool array; /* a JSON array file, read as its elements (set before its first piece) */
} src_input;

struct block_source {
    src_input *in;
    int n, cur;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int decoders;
    pthread_t *workers;
    size_t decoded_bytes; /* per serial read, and the units' target */
    uint64_t ahead, ahead_limit, unit_max;
    uint64_t reserved; /* decoded bytes the units being decoded are expected to make */
    int status;
    input_losses lost; /* what the inputs lost that no line shows (input_add_losses) */
    bool closing;
};

/* Which codec the first bytes of path say (gzip or zstd units), or -1. */
static int units_codec(const char *path)
{
    unsigned char m[MAGIC_BYTES];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t got = read(fd, m, sizeof m);
    close(fd);
    if (got >= 2 && m[0] == 0x1f && m[1] == 0x8b) return UNITS_GZIP;
    if (got == MAGIC_BYTES && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) return UNITS_ZSTD;
    /* a skippable frame first (0x184D2A50..5F, RFC 8878 3.1.2), as pzstd writes each frame */
    if (got == MAGIC_BYTES && (m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18) return UNITS_ZSTD;
    return -1;
}

/* Maps path when it is a plain regular file (not empty) that is no JSON array; false otherwise. */
static bool map_plain_file(src_input *in)
{
    struct stat st;
    if (!strcmp(in->path, "-") || stat(in->path, &st) || !S_ISREG(st.st_mode)) return false;
    if (units_codec(in->path) >= 0) return false;
    winput *probe = input_open(in->path);
    if (!probe) return false; /* the decoding thread reports it */
    bool plain = input_get_codec(probe) == CODEC_PLAIN;
    input_close(probe);
    if (!plain || input_path_is_json_array(in->path)) return false; /* an array: serially, through the transform */
    in->size = (size_t)st.st_size;
    if (in->size == 0) return true;
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    void *p = mmap(NULL, in->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return false;
    in->map = p;
    return true;
}

/* Maps a regular gzip or zstd file that is no JSON array for its units; false otherwise. */
static bool map_units_file(src_input *in)
{
    struct stat st;
    if (!strcmp(in->path, "-") || stat(in->path, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
    int kind = units_codec(in->path);
    if (kind < 0 || input_path_is_json_array(in->path)) return false;
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return false;
    in->kind = (units_kind)kind;
    in->cmap = p;
    in->csize = (size_t)st.st_size;
    return true;
}

static void unmap_if_done(src_input *in)
{
    if (in->mode == IN_MAPPED && in->passed && in->blocks_out == 0 && in->map) {
        munmap(in->map, in->size);
        in->map = NULL;
    }
}

static sbuf *sbuf_new(char *mem, uint64_t ahead)
{
    sbuf *b = xmalloc(sizeof *b);
    *b = (sbuf){mem, ahead, 1};
    return b;
}

/* Drops one reference to b (lock held). */
static void sbuf_unref(block_source *s, sbuf *b)
{
    if (--b->refs) return;
    s->ahead -= b->ahead;
    pthread_cond_broadcast(&s->changed);
    free(b->mem);
    free(b);
}

/* Whether the consumer has closed the source (decoding may stop). */
static bool stopping(block_source *s)
{
    pthread_mutex_lock(&s->lock);
    bool c = s->closing;
    pthread_mutex_unlock(&s->lock);
    return c;
}

/* Queues decoded bytes of a serial input, first waiting while too much waits
 * ahead of the consumer (unless the consumer is on this input). */
static void push_piece(block_source *s, src_input *in, char *mem, size_t len)
{
    piece *p = xmalloc(sizeof *p);
    *p = (piece){sbuf_new(mem, len), mem + UNIT_HEADROOM, len, NULL};
    pthread_mutex_lock(&s->lock);
    while (s->ahead > s->ahead_limit && s->cur != in->index && !s->closing) pthread_cond_wait(&s->changed, &s->lock);
    s->ahead += len;
    if (in->tail) in->tail->next = p;
    else in->head = p;
    in->tail = p;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* Decodes a serial input (from where its units stopped, if they did) in
 * pieces of s->decoded_bytes, then marks it finished. */
static void decode_serial(block_source *s, src_input *in)
{
    winput *w = in->from_raw ? input_open_at(in->path, in->from_raw, in->from_decoded) : input_open(in->path);
    int failed = !w;
    input_losses lost = {0};
    if (w && input_json_array(w, false)) {
        pthread_mutex_lock(&s->lock);
        in->array = true;
        pthread_mutex_unlock(&s->lock);
    }
    while (w && !stopping(s)) {
        char *mem = xmalloc(UNIT_HEADROOM + s->decoded_bytes + 1);
        size_t len = input_read(w, mem + UNIT_HEADROOM, s->decoded_bytes);
        if (!len) {
            free(mem);
            break;
        }
        push_piece(s, in, mem, len);
    }
    if (w) {
        failed = input_errors(w) > 0;
        input_add_losses(&lost, w);
        input_close(w);
    }
    pthread_mutex_lock(&s->lock);
    if (failed) s->status = EXIT_FATAL;
    s->lost.members += lost.members;
    s->lost.bad_elements += lost.bad_elements;
    s->lost.damaged_rows += lost.damaged_rows;
    s->lost.unusable_rows += lost.unusable_rows;
    s->lost.unreadable += !w;
    in->finished = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

typedef struct {
    block_source *s;
    src_input *in;
} serial_job;

static void *serial_thread(void *arg)
{
    serial_job job = *(serial_job *)arg;
    free(arg);
    decode_serial(job.s, job.in);
    return NULL;
}

/* ---- the workers: plan units, decode units, decode serial inputs, in input order ---- */

typedef enum { JOB_NONE, JOB_WAIT, JOB_PLAN, JOB_UNIT, JOB_SERIAL } job_kind;

/* Decoded bytes a unit is expected to make (what it reserves while decoded). */
static uint64_t unit_need(const block_source *s, const unit *u)
{
    return u->span.out_hint < s->unit_max ? u->span.out_hint : s->unit_max;
}

/* The first job in input order (lock held). The inputs after one being
 * planned wait for it, so that every job of an input is taken before any
 * job of a later one (the consumer never waits on a job no worker can
 * take). A unit waits while it would take the decoded bytes ahead of the
 * consumer (those being decoded included) over the limit, unless it is the
 * only one of the consumer's input: so at most about the limit is decoded
 * and waiting, whatever the number of threads, and the consumer never
 * waits for nothing. */
static job_kind find_job(block_source *s, src_input **job_in, size_t *job_unit)
{
    for (int j = s->cur; j < s->n; j++) {
        src_input *in = &s->in[j];
        *job_in = in;
        if (in->mode == IN_UNITS) {
            if (!in->planned) {
                if (in->planning) return JOB_WAIT;
                in->planning = true;
                return JOB_PLAN;
            }
            if (in->abandoned || in->next_take == in->nunits) continue;
            uint64_t need = unit_need(s, &in->units[in->next_take]);
            if (s->ahead + s->reserved + need > s->ahead_limit && !(j == s->cur && !in->running)) return JOB_WAIT;
            s->reserved += need;
            in->running++;
            *job_unit = in->next_take++;
            in->units[*job_unit].state = UNIT_RUNNING;
            return JOB_UNIT;
        }
        if (in->mode == IN_SERIAL && !in->serial_started) {
            in->serial_started = true;
            return JOB_SERIAL;
        }
    }
    return JOB_NONE;
}

static void plan_units(block_source *s, src_input *in)
{
    unit_span *spans;
    size_t n;
    /* where the units stop, the chain does, and the rest of the file goes serial from there */
    units_plan(in->kind, in->cmap, in->csize, s->decoded_bytes, (size_t)s->unit_max, &spans, &n, NULL);
    unit *units = xcalloc(n ? n : 1, sizeof *units);
    for (size_t i = 0; i < n; i++) units[i].span = spans[i];
    free(spans);
    pthread_mutex_lock(&s->lock);
    in->units = units;
    in->nunits = n;
    in->planned = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void run_unit(block_source *s, units_decoder *d, src_input *in, size_t k)
{
    unit *u = &in->units[k];
    unit_out out;
    bool ok = units_decode(d, in->kind, in->cmap, in->csize, &u->span, (size_t)s->unit_max, &out);
    pthread_mutex_lock(&s->lock);
    s->reserved -= unit_need(s, u);
    in->running--;
    if (in->abandoned) {
        units_out_free(&out);
    } else {
        u->ok = ok;
        u->out = out;
        s->ahead += out.len;
    }
    u->state = UNIT_DONE;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void *worker_main(void *arg)
{
    block_source *s = arg;
    units_decoder *d = NULL;
    pthread_mutex_lock(&s->lock);
    while (!s->closing) {
        src_input *in = NULL;
        size_t k = 0;
        job_kind job = find_job(s, &in, &k);
        if (job == JOB_NONE) break;
        if (job == JOB_WAIT) {
            pthread_cond_wait(&s->changed, &s->lock);
            continue;
        }
        pthread_mutex_unlock(&s->lock);
        if (job == JOB_PLAN) plan_units(s, in);
        else if (job == JOB_SERIAL) decode_serial(s, in);
        else {
            if (!d) d = units_decoder_new();
            run_unit(s, d, in, k);
        }
        pthread_mutex_lock(&s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    units_decoder_free(d);
    return NULL;
}

block_source *block_source_open(char **inputs, int ninputs, int decoders, size_t decoded_bytes)
{
    block_source *s = xcalloc(1, sizeof *s);
    s->n = ninputs;
    s->in = xcalloc((size_t)ninputs, sizeof *s->in);
    s->decoders = decoders < 1 ? 1 : decoders;
    s->decoded_bytes = decoded_bytes ? decoded_bytes : 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    s->ahead_limit = memory / AHEAD_MEMORY_SHARE > MIN_AHEAD_BYTES ? memory / AHEAD_MEMORY_SHARE : MIN_AHEAD_BYTES;
    s->unit_max = memory / UNIT_MEMORY_SHARE > MIN_UNIT_BYTES ? memory / UNIT_MEMORY_SHARE : MIN_UNIT_BYTES;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    bool decoding = false;
    for (int i = 0; i < ninputs; i++) {
        src_input *in = &s->in[i];
        in->path = inputs[i];
        in->index = i;
        in->name = xstrdup(strcmp(inputs[i], "-") ? inputs[i] : "stdin");
        in->mode = map_plain_file(in) ? IN_MAPPED : map_units_file(in) ? IN_UNITS : IN_SERIAL;
        decoding |= in->mode != IN_MAPPED;
    }
    if (decoding) {
        s->workers = xcalloc((size_t)s->decoders, sizeof *s->workers);
        for (int i = 0; i < s->decoders; i++)
            if (pthread_create(&s->workers[i], NULL, worker_main, s)) dief(EXIT_FATAL, "cannot start a thread");
    }
    return s;
}

/* ---- the consumer ---- */

/* The next block of mapped input in, or false when it is passed. */
static bool next_mapped(src_input *in, size_t want, source_block *b)
{
    if (in->pos >= in->size) return false;
    size_t end = in->size - in->pos > want ? in->pos + want : in->size;
    if (end < in->size) {
        const char *nl = memchr(in->map + end - 1, '\n', in->size - (end - 1));
        end = nl ? (size_t)(nl + 1 - in->map) : in->size;
    }
    *b = (source_block){in->map + in->pos, end - in->pos, in->name, in->index, in->pos == 0, NULL, in, "line"};
    in->pos = end;
    in->blocks_out++;
    if (end < in->size) { /* start reading the next block ahead (files not in the page cache) */
        size_t page = (size_t)sysconf(_SC_PAGESIZE), from = end & ~(page - 1);
        size_t ahead = in->size - from < want ? in->size - from : want;
        madvise(in->map + from, ahead, MADV_WILLNEED);
    }
    return true;
}

/* Frees a decoded unit nobody will use (lock held). */
static void drop_unit_output(block_source *s, unit *u)
{
    s->ahead -= u->out.len;
    pthread_cond_broadcast(&s->changed);
    units_out_free(&u->out);
}

/* The chain of units broke at in->expected (or the units end there before
 * the file does): the rest of the file goes to a serial decoder on a thread
 * of its own, from that place (lock held). */
static void go_serial(block_source *s, src_input *in)
{
    in->abandoned = true;
    for (size_t k = in->next_use; k < in->nunits; k++)
        if (in->units[k].state == UNIT_DONE) drop_unit_output(s, &in->units[k]);
    in->mode = IN_SERIAL;
    in->serial_started = in->own_thread = true;
    in->from_raw = in->expected;
    in->from_decoded = in->decoded;
    serial_job *job = xmalloc(sizeof *job);
    *job = (serial_job){s, in};
    if (pthread_create(&in->thread, NULL, serial_thread, job)) dief(EXIT_FATAL, "cannot start a thread");
}

/* The next piece of a units input along the chain of members (frames) from
 * byte 0; false at its end (lock held; may turn the input serial). */
static bool next_unit_piece(block_source *s, src_input *in, piece *p)
{
    while (!in->planned) pthread_cond_wait(&s->changed, &s->lock);
    while (in->next_use < in->nunits) {
        unit *u = &in->units[in->next_use];
        while (u->state != UNIT_DONE) pthread_cond_wait(&s->changed, &s->lock);
        size_t off;
        if (!u->ok || !units_output_from(&u->out, in->expected, &off)) {
            uint64_t end = u->ok ? u->out.raw_end : u->span.end;
            if (end > in->expected) break; /* the chain does not go on through it */
            drop_unit_output(s, u); /* wholly inside members taken before */
            in->next_use++;
            continue;
        }
        in->next_use++;
        in->expected = u->out.raw_end;
        if (off == u->out.len) {
            drop_unit_output(s, u);
            continue;
        }
        *p = (piece){sbuf_new(u->out.mem, u->out.len), u->out.mem + UNIT_HEADROOM + off, u->out.len - off, NULL};
        u->out.mem = NULL; /* the piece's now */
        u->out.len = 0;
        units_out_free(&u->out);
        in->decoded += p->len;
        return true;
    }
    if (in->expected < in->csize) go_serial(s, in);
    return false;
}

/* The next piece of decoded input in, waiting for it; false at its end (lock held). */
static bool next_piece(block_source *s, src_input *in, piece *p)
{
    if (in->mode == IN_UNITS && next_unit_piece(s, in, p)) return true;
    if (in->mode != IN_SERIAL) return false;
    while (!in->head && !in->finished) pthread_cond_wait(&s->changed, &s->lock);
    piece *h = in->head;
    if (!h) return false;
    in->head = h->next;
    if (!in->head) in->tail = NULL;
    *p = *h;
    free(h);
    return true;
}

/* Keeps bytes of a line that goes on in the next piece. */
static void carry_add(src_input *in, const char *p, size_t n)
{
    if (in->carry_len + n > in->carry_cap) {
        in->carry_cap = 2 * (in->carry_len + n);
        in->carry = xrealloc(in->carry, in->carry_cap);
    }
    memcpy(in->carry + in->carry_len, p, n);
    in->carry_len += n;
}

/* Makes p the piece being cut, with the carried partial line put in front
 * of it (in its free room, or with it in a new buffer when it is longer). */
static void start_piece(block_source *s, src_input *in, piece *p)
{
    if (in->carry_len > UNIT_HEADROOM) {
        char *mem = xmalloc(UNIT_HEADROOM + in->carry_len + p->len + 1);
        memcpy(mem + UNIT_HEADROOM, in->carry, in->carry_len);
        memcpy(mem + UNIT_HEADROOM + in->carry_len, p->data, p->len);
        sbuf_unref(s, p->buf);
        *p = (piece){sbuf_new(mem, 0), mem + UNIT_HEADROOM, in->carry_len + p->len, NULL};
    } else if (in->carry_len) {
        p->data -= in->carry_len;
        memcpy(p->data, in->carry, in->carry_len);
        p->len += in->carry_len;
    }
    in->carry_len = 0;
    in->cur = p->buf;
    in->cur_data = p->data;
    in->cur_len = p->len;
}

static void give(src_input *in, source_block *b, sbuf *buf, const char *data, size_t len)
{
    buf->refs++;
    *b = (source_block){data, len, in->name, in->index, !in->first_given, buf, in, in->array ? "element" : "line"};
    in->first_given = true;
}

/* The next block of decoded input in: whole lines of about want bytes cut
 * from its pieces; false at its end (lock held). */
static bool next_decoded(block_source *s, src_input *in, size_t want, source_block *b)
{
    for (;;) {
        if (in->cur_len) {
            char *p = in->cur_data;
            size_t n = in->cur_len, end = n;
            if (n > want) {
                const char *nl = memchr(p + want - 1, '\n', n - (want - 1));
                if (nl) end = (size_t)(nl + 1 - p);
            }
            if (end == n && p[n - 1] != '\n') { /* the last line goes on in the next piece (or ends the input) */
                const char *nl = memrchr(p, '\n', n);
                end = nl ? (size_t)(nl + 1 - p) : 0;
                carry_add(in, p + end, n - end);
                in->cur_len = end;
            }
            if (end) {
                give(in, b, in->cur, p, end);
                in->cur_data += end;
                in->cur_len -= end;
            }
            if (!in->cur_len) {
                sbuf_unref(s, in->cur);
                in->cur = NULL;
            }
            if (end) return true;
            continue;
        }
        piece p;
        if (next_piece(s, in, &p)) {
            if (!memchr(p.data, '\n', p.len)) {
                /* the line goes on through the whole piece: the piece joins what is
                 * carried (which grows by doubling), rather than the carry being copied
                 * in front of each piece (quadratic in the length of a long line) */
                carry_add(in, p.data, p.len);
                sbuf_unref(s, p.buf);
                continue;
            }
            start_piece(s, in, &p);
            continue;
        }
        if (!in->carry_len) return false;
        sbuf *last = sbuf_new(in->carry, 0); /* the last line, without a line end */
        give(in, b, last, in->carry, in->carry_len);
        sbuf_unref(s, last);
        in->carry = NULL;
        in->carry_len = in->carry_cap = 0;
        return true;
    }
}

bool block_source_next(block_source *s, size_t want, source_block *b)
{
    if (want == 0) want = 1;
    pthread_mutex_lock(&s->lock);
    while (s->cur < s->n) {
        src_input *in = &s->in[s->cur];
        if (in->mode == IN_MAPPED ? next_mapped(in, want, b) : next_decoded(s, in, want, b)) {
            pthread_mutex_unlock(&s->lock);
            return true;
        }
        in->passed = true;
        unmap_if_done(in);
        s->cur++;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return false;
}

void block_source_prefault(const source_block *b, const char *lo, const char *hi)
{
    if (b->owned || hi <= lo) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from = (uintptr_t)lo & ~(page - 1);
    madvise((void *)from, (size_t)((uintptr_t)hi - from), MADV_POPULATE_READ); /* older kernels: EINVAL, no harm */
}

/* Drops the mapping's pages that lie wholly inside block b (the pages it
 * shares with the blocks beside it stay) from the page tables; the page cache
 * keeps them, and a later read of them would fault them in again. */
static void drop_block_pages(const source_block *b)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)b->data + page - 1) & ~(page - 1), to = ((uintptr_t)b->data + b->len) & ~(page - 1);
    if (to > from) madvise((void *)from, (size_t)(to - from), MADV_DONTNEED);
}

void block_source_release(block_source *s, source_block *b)
{
    /* A mapped block's page-table entries go now, by the thread that is done
     * with it: left to the final munmap, all of them (8.5 GB of input: 2 M
     * pages, ~0.1 s per GB on the dev VM) went at the very end, on the run's critical
     * path, and the madvise takes the mm lock only to read. */
    if (!b->owned) drop_block_pages(b);
    pthread_mutex_lock(&s->lock);
    src_input *in = b->input;
    if (b->owned) {
        sbuf_unref(s, b->owned);
    } else {
        in->blocks_out--;
        unmap_if_done(in);
    }
    pthread_mutex_unlock(&s->lock);
    b->owned = b->input = NULL;
}

input_losses block_source_losses(block_source *s)
{
    pthread_mutex_lock(&s->lock);
    input_losses lost = s->lost;
    pthread_mutex_unlock(&s->lock);
    return lost;
}

int block_source_close(block_source *s)
{
    pthread_mutex_lock(&s->lock);
    s->closing = true; /* decoders still waiting to queue stop */
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; s->workers && i < s->decoders; i++) pthread_join(s->workers[i], NULL);
    for (int i = 0; i < s->n; i++) {
        src_input *in = &s->in[i];
        if (in->own_thread) pthread_join(in->thread, NULL);
        for (piece *p = in->head, *next; p; p = next) next = p->next, sbuf_unref(s, p->buf), free(p);
        for (size_t k = 0; k < in->nunits; k++) drop_unit_output(s, &in->units[k]);
        if (in->cur) sbuf_unref(s, in->cur);
        if (in->map) munmap(in->map, in->size);
        if (in->cmap) munmap(in->cmap, in->csize);
        free(in->units);
        free(in->carry);
        free(in->name);
    }
    int status = s->status;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s->workers);
    free(s->in);
    free(s);
    return status;
}
