/* gpu-tokenize-outside-2026-11-27-pages.c - what the tokenize block path's id
 * arrays cost to touch and to free: ARRAYS arrays of RESERVE bytes each, of
 * which TOUCH bytes are written (as one block's ids are), then freed; with
 * malloc (4 KiB pages) and with 2 MiB-aligned memory advised MADV_HUGEPAGE
 * (core/util.c xmalloc_huge). Build: cc -O2 -o pages THIS.c */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define ARRAYS 5
#define RESERVE ((size_t)1100 << 20) /* room for the ids of 256 MB of text */
#define TOUCH ((size_t)600 << 20)    /* what a 256 MB block's ids took in the final call's arrays */
#define HUGE_PAGE ((size_t)2 << 20)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void run(int huge)
{
    char *a[ARRAYS];
    double t0 = now();
    for (int i = 0; i < ARRAYS; i++) {
        if (huge) {
            a[i] = aligned_alloc(HUGE_PAGE, RESERVE);
            madvise(a[i], RESERVE, MADV_HUGEPAGE);
        } else {
            a[i] = malloc(RESERVE);
        }
        memset(a[i], 1, TOUCH);
    }
    double t1 = now();
    for (int i = 0; i < ARRAYS; i++) memset(a[i], 2, TOUCH); /* reused: no faults */
    double t2 = now();
    for (int i = 0; i < ARRAYS; i++) free(a[i]);
    double t3 = now();
    printf("%s: first touch %.3f s, rewrite %.3f s, free %.3f s (%d x %zu MiB written)\n",
           huge ? "2 MiB aligned + MADV_HUGEPAGE" : "malloc (4 KiB pages)", t1 - t0, t2 - t1, t3 - t2, ARRAYS,
           TOUCH >> 20);
}

int main(void)
{
    run(0);
    run(1);
    run(0);
    run(1);
    return 0;
}
