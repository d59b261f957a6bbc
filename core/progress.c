/* progress.c - one status line on stderr, redrawn twice a second. */
#include "progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define REDRAW_NANOSECONDS 500000000L

static atomic_ullong docs_done, bytes_done;
static atomic_bool running;
static pthread_t thread;
static const char *label;
static double started;

static void draw(void)
{
    double secs = now_seconds() - started;
    unsigned long long d = atomic_load(&docs_done), b = atomic_load(&bytes_done);
    double rate = secs > 0 ? 1.0 / secs : 0;
    fprintf(stderr, "\r\033[K%s: %llu docs  %.0f docs/s  %.1f MB/s  %.1f MB  %02d:%02d", label, d, d * rate,
            b * rate / 1e6, b / 1e6, (int)secs / 60, (int)secs % 60);
}

static void *loop(void *arg)
{
    (void)arg;
    struct timespec tick = {0, REDRAW_NANOSECONDS};
    while (atomic_load(&running)) {
        nanosleep(&tick, NULL);
        if (atomic_load(&running)) draw();
    }
    return NULL;
}

void progress_start(const char *what, bool quiet)
{
    atomic_store(&docs_done, 0);
    atomic_store(&bytes_done, 0);
    started = now_seconds();
    if (quiet || !isatty(STDERR_FILENO)) return;
    label = what;
    atomic_store(&running, true);
    if (pthread_create(&thread, NULL, loop, NULL) != 0) atomic_store(&running, false);
}

void progress_add(uint64_t docs, uint64_t bytes)
{
    atomic_fetch_add_explicit(&docs_done, docs, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes_done, bytes, memory_order_relaxed);
}

void progress_stop(void)
{
    if (!atomic_load(&running)) return;
    atomic_store(&running, false);
    pthread_join(thread, NULL);
    fprintf(stderr, "\r\033[K");
}
