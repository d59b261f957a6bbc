/* gzmembers.c - gzip members inflated by several threads, handed back in
 * order along the chain of members that starts at the first byte. */
#include "gzmembers.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Free output room a stretch has before each member is inflated (it grows,
 * doubling, while a member needs more, up to GZM_MEMBER_MAX). */
#define MEMBER_ROOM ((size_t)4 << 20)
/* Stretches in flight beyond one a thread: inflated but not yet taken. */
#define SPARE_STRETCHES 2
/* Bytes of the smallest gzip member (10 of header, 2 of empty deflate, 8 of trailer). */
#define GZIP_MIN_MEMBER 18
#define GZIP_FHCRC 0x02     /* header CRC follows: libdeflate does not check it, zlib does */
#define GZIP_FRESERVED 0xe0 /* flag bits that must be zero */
#define GZIP_DEFLATE 8

typedef struct {
    size_t start, end;  /* the members inflated: compressed bytes [start, end) */
    bool broken;        /* the member at `end` could not be taken (before the nominal end) */
    bool done;
    char *out;          /* GZM_HEADROOM free bytes, then their inflated bytes, then one free */
    size_t len, cap;    /* len: inflated bytes; cap: the size of out */
    size_t *raw_ends, *out_ends; /* after member i: its compressed end and the output so far */
    size_t nmembers, mcap;
} stretch;

struct gzmembers {
    const unsigned char *data;
    size_t size;
    size_t nstretch;
    int window; /* slots in the ring: stretches in flight */
    stretch *ring;
    pthread_t *threads;
    int nthreads;
    pthread_mutex_t lock;
    pthread_cond_t work_ready, work_done;
    size_t next_claim, next_take; /* stretch numbers */
    bool holding;    /* the consumer holds stretch next_take's output */
    bool stop;
    size_t expected; /* compressed offset where the next piece must begin */
    bool broken;     /* the chain stopped at `expected` */
};

static bool member_header_at(const unsigned char *p, size_t n)
{
    return n >= GZIP_MIN_MEMBER && p[0] == 0x1f && p[1] == 0x8b && p[2] == GZIP_DEFLATE &&
           !(p[3] & (GZIP_FHCRC | GZIP_FRESERVED));
}

/* Inflates the member at pos onto s's output; returns its compressed size,
 * 0 when it cannot be taken (no member there, damaged, header CRC, too big). */
static size_t inflate_member(struct libdeflate_decompressor *ld, const unsigned char *data, size_t size, size_t pos,
                             stretch *s)
{
    if (!member_header_at(data + pos, size - pos)) return 0;
    size_t room = MEMBER_ROOM;
    for (;;) {
        size_t need = GZM_HEADROOM + s->len + room + 1;
        if (s->cap < need) {
            size_t cap = s->cap > GZM_HEADROOM ? s->cap : GZM_HEADROOM + room;
            while (cap < need) cap *= 2;
            s->out = xrealloc(s->out, cap);
            s->cap = cap;
        }
        size_t used_in, used_out;
        char *at = s->out + GZM_HEADROOM + s->len;
        enum libdeflate_result r =
            libdeflate_gzip_decompress_ex(ld, data + pos, size - pos, at, s->cap - GZM_HEADROOM - s->len - 1, &used_in,
                                          &used_out);
        if (r == LIBDEFLATE_SUCCESS) {
            if (used_out > GZM_MEMBER_MAX) return 0; /* left to zlib, as on every path */
            s->len += used_out;
            if (s->nmembers == s->mcap) {
                s->mcap = s->mcap ? 2 * s->mcap : 256;
                s->raw_ends = xrealloc(s->raw_ends, s->mcap * sizeof *s->raw_ends);
                s->out_ends = xrealloc(s->out_ends, s->mcap * sizeof *s->out_ends);
            }
            s->raw_ends[s->nmembers] = pos + used_in;
            s->out_ends[s->nmembers] = s->len;
            s->nmembers++;
            return used_in;
        }
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE || room >= GZM_MEMBER_MAX) return 0;
        room *= 2;
    }
}

/* Stretch k: from the first member that inflates at or after its nominal
 * start (the first byte for stretch 0), members until its nominal end. */
static void run_stretch(gzmembers *g, struct libdeflate_decompressor *ld, size_t k, stretch *s)
{
    const unsigned char *data = g->data;
    size_t size = g->size;
    size_t pos = k * GZM_STRETCH;
    size_t nominal_end = pos + GZM_STRETCH < size ? pos + GZM_STRETCH : size;
    s->len = 0;
    s->nmembers = 0;
    s->broken = false;
    if (k > 0) { /* find where a member begins: it must inflate */
        for (;; pos++) {
            const unsigned char *p = memchr(data + pos, 0x1f, size - pos);
            if (!p) {
                s->start = s->end = size;
                return;
            }
            pos = (size_t)(p - data);
            size_t used = inflate_member(ld, data, size, pos, s);
            if (used) {
                s->start = pos;
                pos += used;
                break;
            }
        }
    } else {
        s->start = 0;
    }
    while (pos < nominal_end) {
        size_t used = inflate_member(ld, data, size, pos, s);
        if (!used) {
            s->broken = true;
            break;
        }
        pos += used;
    }
    s->end = pos;
}

static void *helper_main(void *arg)
{
    gzmembers *g = arg;
    pthread_setname_np(pthread_self(), "gzip-members"); /* top -H, bench/thread_cpu.py */
    struct libdeflate_decompressor *ld = libdeflate_alloc_decompressor();
    if (!ld) dief(EXIT_FATAL, "libdeflate init failed");
    pthread_mutex_lock(&g->lock);
    for (;;) {
        while (!g->stop && (g->next_claim >= g->nstretch || g->next_claim >= g->next_take + (size_t)g->window))
            pthread_cond_wait(&g->work_ready, &g->lock);
        if (g->stop) break;
        size_t k = g->next_claim++;
        stretch *s = &g->ring[k % (size_t)g->window];
        pthread_mutex_unlock(&g->lock);
        run_stretch(g, ld, k, s);
        pthread_mutex_lock(&g->lock);
        s->done = true;
        pthread_cond_broadcast(&g->work_done);
    }
    pthread_mutex_unlock(&g->lock);
    libdeflate_free_decompressor(ld);
    return NULL;
}

gzmembers *gzm_start(const unsigned char *data, size_t size, int threads)
{
    gzmembers *g = xcalloc(1, sizeof *g);
    g->data = data;
    g->size = size;
    g->nstretch = (size + GZM_STRETCH - 1) / GZM_STRETCH;
    g->nthreads = threads < 1 ? 1 : threads;
    g->window = g->nthreads + SPARE_STRETCHES;
    g->ring = xcalloc((size_t)g->window, sizeof *g->ring);
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->work_ready, NULL);
    pthread_cond_init(&g->work_done, NULL);
    g->threads = xcalloc((size_t)g->nthreads, sizeof *g->threads);
    for (int i = 0; i < g->nthreads; i++)
        if (pthread_create(&g->threads[i], NULL, helper_main, g) != 0) dief(EXIT_FATAL, "cannot start a thread");
    return g;
}

/* Gives the stretch the consumer held back to the helpers (lock held). */
static void release_taken(gzmembers *g)
{
    g->ring[g->next_take % (size_t)g->window].done = false;
    g->next_take++;
    pthread_cond_broadcast(&g->work_ready);
}

/* Where in s's output the chain at `at` goes on; false when s has no member boundary there. */
static bool output_from(const stretch *s, size_t at, size_t *off)
{
    if (s->start == at) {
        *off = 0;
        return true;
    }
    size_t lo = 0, hi = s->nmembers; /* raw_ends ascend */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->raw_ends[mid] < at) lo = mid + 1;
        else hi = mid;
    }
    if (lo == s->nmembers || s->raw_ends[lo] != at) return false;
    *off = s->out_ends[lo];
    return true;
}

bool gzm_next(gzmembers *g, char **out, size_t *len, uint64_t *raw_end)
{
    pthread_mutex_lock(&g->lock);
    if (g->holding) {
        g->holding = false;
        release_taken(g);
    }
    for (;;) {
        if (g->broken || g->expected == g->size || g->next_take >= g->nstretch) break;
        stretch *s = &g->ring[g->next_take % (size_t)g->window];
        while (!s->done) pthread_cond_wait(&g->work_done, &g->lock);
        if (s->end <= g->expected) { /* wholly behind the chain */
            release_taken(g);
            continue;
        }
        size_t off;
        if (!output_from(s, g->expected, &off)) break; /* the chain does not go on through s */
        g->expected = s->end;
        g->broken = s->broken;
        if (off == s->len) {
            release_taken(g);
            continue;
        }
        g->holding = true;
        *out = s->out + GZM_HEADROOM + off;
        *len = s->len - off;
        *raw_end = g->expected;
        pthread_mutex_unlock(&g->lock);
        return true;
    }
    *raw_end = g->expected;
    pthread_mutex_unlock(&g->lock);
    return false;
}

void gzm_swap(gzmembers *g, char **buf, size_t *size)
{
    stretch *s = &g->ring[g->next_take % (size_t)g->window];
    char *out = s->out;
    size_t cap = s->cap;
    s->out = *buf;
    s->cap = *buf ? *size : 0;
    *buf = out;
    *size = cap;
}

void gzm_stop(gzmembers *g)
{
    if (!g) return;
    pthread_mutex_lock(&g->lock);
    g->stop = true;
    pthread_cond_broadcast(&g->work_ready);
    pthread_mutex_unlock(&g->lock);
    for (int i = 0; i < g->nthreads; i++) pthread_join(g->threads[i], NULL);
    for (int i = 0; i < g->window; i++) {
        free(g->ring[i].out);
        free(g->ring[i].raw_ends);
        free(g->ring[i].out_ends);
    }
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->work_ready);
    pthread_cond_destroy(&g->work_done);
    free(g->ring);
    free(g->threads);
    free(g);
}
