/* block_source.c - the inputs as blocks of whole lines: plain files mapped,
 * the others decoded by a thread each, several at once (see block_source.h). */
#include "block_source.h"

#include <errno.h>
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

#include "input.h"
#include "util.h"

/* Decoded bytes waiting for the consumer: at most physical memory / this. */
#define AHEAD_MEMORY_SHARE 4
#define MIN_AHEAD_BYTES ((uint64_t)256 << 20)

typedef struct dblock {
    char *data;
    size_t len;
    struct dblock *next;
} dblock;

typedef struct {
    const char *path;
    char *name;
    int index;
    bool mapped;
    /* mapped: the whole file, handed out from pos; unmapped when passed and no block is out */
    char *map;
    size_t size, pos;
    int blocks_out;
    bool passed;
    /* decoded: blocks queued by the input's thread */
    pthread_t thread;
    bool started, finished;
    dblock *head, *tail;
    bool first_given;
} src_input;

struct block_source {
    src_input *in;
    int n, cur;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int decoders, running, next_start;
    size_t decoded_bytes; /* per block a decoding thread hands over (a longer line makes a bigger one) */
    uint64_t ahead, ahead_limit;
    int status;
    bool closing;
};

typedef struct {
    block_source *s;
    src_input *in;
} decode_job;

/* Maps path when it is a plain regular file (not empty); false otherwise. */
static bool map_plain_file(src_input *in)
{
    struct stat st;
    if (!strcmp(in->path, "-") || stat(in->path, &st) || !S_ISREG(st.st_mode)) return false;
    winput *probe = input_open(in->path);
    if (!probe) return false; /* the decoding thread reports it */
    bool plain = input_get_codec(probe) == CODEC_PLAIN;
    input_close(probe);
    if (!plain) return false;
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

static void unmap_if_done(src_input *in)
{
    if (in->mapped && in->passed && in->blocks_out == 0 && in->map) {
        munmap(in->map, in->size);
        in->map = NULL;
    }
}

static void *decode_input(void *arg);

/* Whether the consumer has closed the source (decoding may stop). */
static bool stopping(block_source *s)
{
    pthread_mutex_lock(&s->lock);
    bool c = s->closing;
    pthread_mutex_unlock(&s->lock);
    return c;
}

/* Starts decoding threads for the next decoded inputs while fewer than
 * s->decoders run. Called with the lock held. */
static void start_more(block_source *s)
{
    while (s->running < s->decoders && s->next_start < s->n) {
        src_input *in = &s->in[s->next_start++];
        if (in->mapped) continue;
        decode_job *job = xmalloc(sizeof *job);
        *job = (decode_job){s, in};
        in->started = true;
        s->running++;
        if (pthread_create(&in->thread, NULL, decode_input, job)) dief(EXIT_FATAL, "cannot start a thread");
    }
}

/* Queues a decoded block, first waiting while too much waits ahead of the
 * consumer (unless the consumer is on this input). */
static void push_block(block_source *s, src_input *in, char *data, size_t len)
{
    dblock *d = xmalloc(sizeof *d);
    *d = (dblock){data, len, NULL};
    pthread_mutex_lock(&s->lock);
    while (s->ahead > s->ahead_limit && s->cur != in->index && !s->closing) pthread_cond_wait(&s->changed, &s->lock);
    s->ahead += len;
    if (in->tail) in->tail->next = d;
    else in->head = d;
    in->tail = d;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

/* A decoding thread: the input in blocks of whole lines, then finished. */
static void *decode_input(void *arg)
{
    decode_job job = *(decode_job *)arg;
    free(arg);
    block_source *s = job.s;
    src_input *in = job.in;
    int failed = 0;
    winput *w = input_open(in->path);
    if (!w) failed = 1;
    char *carry = NULL;
    size_t carry_len = 0;
    while (w) {
        size_t cap = s->decoded_bytes > 2 * carry_len ? s->decoded_bytes : 2 * carry_len;
        char *data = xmalloc(cap);
        size_t len = carry_len;
        if (carry_len) memcpy(data, carry, carry_len);
        free(carry);
        carry = NULL;
        carry_len = 0;
        bool eof = false;
        char *nl = NULL;
        for (;;) { /* fill the block, then make sure it holds a line end */
            while (len < cap && !eof) {
                size_t got = input_read(w, data + len, cap - len);
                len += got;
                eof = got == 0 || stopping(s);
            }
            if (eof || (nl = memrchr(data, '\n', len))) break;
            data = xrealloc(data, cap *= 2);
        }
        if (!eof) { /* keep the partial last line for the next block */
            size_t keep = (size_t)(nl + 1 - data);
            carry_len = len - keep;
            carry = xmalloc(carry_len ? carry_len : 1);
            memcpy(carry, data + keep, carry_len);
            len = keep;
        }
        if (len) push_block(s, in, data, len);
        else free(data);
        if (eof) break;
    }
    if (w) {
        failed = input_errors(w) > 0;
        input_close(w);
    }
    pthread_mutex_lock(&s->lock);
    if (failed) s->status = EXIT_FATAL;
    in->finished = true;
    s->running--;
    start_more(s);
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

block_source *block_source_open(char **inputs, int ninputs, int decoders, size_t decoded_bytes)
{
    static char *const stdin_only[] = {"-"};
    block_source *s = xcalloc(1, sizeof *s);
    if (ninputs <= 0) inputs = (char **)stdin_only, ninputs = 1;
    s->n = ninputs;
    s->in = xcalloc((size_t)ninputs, sizeof *s->in);
    s->decoders = decoders < 1 ? 1 : decoders;
    s->decoded_bytes = decoded_bytes ? decoded_bytes : 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    s->ahead_limit = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / AHEAD_MEMORY_SHARE : MIN_AHEAD_BYTES;
    if (s->ahead_limit < MIN_AHEAD_BYTES) s->ahead_limit = MIN_AHEAD_BYTES;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    for (int i = 0; i < ninputs; i++) {
        src_input *in = &s->in[i];
        in->path = inputs[i];
        in->index = i;
        in->name = xstrdup(strcmp(inputs[i], "-") ? inputs[i] : "stdin");
        in->mapped = map_plain_file(in);
    }
    pthread_mutex_lock(&s->lock);
    start_more(s);
    pthread_mutex_unlock(&s->lock);
    return s;
}

/* The next block of mapped input in, or false when it is passed. */
static bool next_mapped(src_input *in, size_t want, source_block *b)
{
    if (in->pos >= in->size) return false;
    size_t end = in->size - in->pos > want ? in->pos + want : in->size;
    if (end < in->size) {
        const char *nl = memchr(in->map + end - 1, '\n', in->size - (end - 1));
        end = nl ? (size_t)(nl + 1 - in->map) : in->size;
    }
    *b = (source_block){in->map + in->pos, end - in->pos, in->name, in->index, in->pos == 0, NULL, in};
    in->pos = end;
    in->blocks_out++;
    if (end < in->size) { /* start reading the next block ahead (files not in the page cache) */
        size_t page = (size_t)sysconf(_SC_PAGESIZE), from = end & ~(page - 1);
        size_t ahead = in->size - from < want ? in->size - from : want;
        madvise(in->map + from, ahead, MADV_WILLNEED);
    }
    return true;
}

bool block_source_next(block_source *s, size_t want, source_block *b)
{
    if (want == 0) want = 1;
    pthread_mutex_lock(&s->lock);
    while (s->cur < s->n) {
        src_input *in = &s->in[s->cur];
        if (in->mapped) {
            if (next_mapped(in, want, b)) {
                pthread_mutex_unlock(&s->lock);
                return true;
            }
        } else {
            if (!in->started) start_more(s);
            while (!in->head && !in->finished) pthread_cond_wait(&s->changed, &s->lock);
            dblock *d = in->head;
            if (d) {
                in->head = d->next;
                if (!in->head) in->tail = NULL;
                *b = (source_block){d->data, d->len, in->name, in->index, !in->first_given, d->data, in};
                in->first_given = true;
                free(d);
                pthread_mutex_unlock(&s->lock);
                return true;
            }
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
        free(b->owned);
        s->ahead -= b->len;
        pthread_cond_broadcast(&s->changed);
    } else {
        in->blocks_out--;
        unmap_if_done(in);
    }
    pthread_mutex_unlock(&s->lock);
    b->owned = b->input = NULL;
}

int block_source_close(block_source *s)
{
    pthread_mutex_lock(&s->lock);
    s->closing = true; /* decoders still waiting to queue stop */
    s->next_start = s->n;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < s->n; i++) {
        src_input *in = &s->in[i];
        if (in->started) pthread_join(in->thread, NULL);
        for (dblock *d = in->head, *next; d; d = next) next = d->next, free(d->data), free(d);
        if (in->map) munmap(in->map, in->size);
        free(in->name);
    }
    int status = s->status;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s->in);
    free(s);
    return status;
}
