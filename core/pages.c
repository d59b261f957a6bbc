/* pages.c - faulting in large buffers on several threads (see pages.h). */
#include "core/pages.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older headers lack it */
#endif
#define SMALL_PAGE ((size_t)4096)
#define PAGES_THREADS_MAX 64

typedef struct {
    char *p;
    size_t n;
    pthread_t thread;
    int started;
} pages_part;

static void *populate_part(void *arg)
{
    pages_part *q = arg;
    for (size_t at = 0; at < q->n; at += PAGES_PIECE) {
        size_t len = q->n - at < PAGES_PIECE ? q->n - at : PAGES_PIECE;
        if (madvise(q->p + at, len, MADV_POPULATE_WRITE))
            for (size_t i = 0; i < len; i += SMALL_PAGE) ((volatile char *)q->p)[at + i] = 0;
    }
    return NULL;
}

void pages_populate(void *p, size_t n, int threads)
{
    size_t pieces = (n + PAGES_PIECE - 1) / PAGES_PIECE;
    int nt = threads < 1 ? 1 : threads > PAGES_THREADS_MAX ? PAGES_THREADS_MAX : threads;
    if ((size_t)nt > pieces) nt = pieces ? (int)pieces : 1;
    pages_part parts[PAGES_THREADS_MAX];
    for (int t = 0; t < nt; t++) { /* whole pieces per thread, the last one takes the rest */
        size_t lo = pieces * (size_t)t / (size_t)nt * PAGES_PIECE;
        size_t hi = t + 1 == nt ? n : pieces * (size_t)(t + 1) / (size_t)nt * PAGES_PIECE;
        parts[t] = (pages_part){(char *)p + lo, hi - lo, 0, 0};
        if (t) parts[t].started = pthread_create(&parts[t].thread, NULL, populate_part, &parts[t]) == 0;
    }
    populate_part(&parts[0]);
    for (int t = 1; t < nt; t++) {
        if (parts[t].started) pthread_join(parts[t].thread, NULL);
        else populate_part(&parts[t]);
    }
}
