/* pool.c - ordered worker pool: a ring of slots, filled in order by the
 * caller, claimed by workers in order, returned in order. */
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>

#include "util.h"

typedef struct {
    void *item;
    bool done;
} slot;

struct wpool {
    pthread_mutex_t lock;
    pthread_cond_t work_ready; /* a slot waits for a worker, or stop */
    pthread_cond_t work_done;  /* a slot finished */
    pthread_cond_t room;       /* a slot was popped */
    pthread_t *threads;
    int nthreads, depth;
    slot *ring;
    unsigned long pushed, claimed, popped; /* sequence numbers */
    bool stop;
    pool_work_fn work;
    void *ctx;
};

typedef struct {
    wpool *pool;
    int index;
} worker_arg;

static void *worker_main(void *arg)
{
    worker_arg *wa = arg;
    wpool *p = wa->pool;
    int index = wa->index;
    free(wa);
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->claimed == p->pushed) pthread_cond_wait(&p->work_ready, &p->lock);
        if (p->claimed == p->pushed) break; /* stop and nothing left */
        slot *s = &p->ring[p->claimed % (unsigned long)p->depth];
        p->claimed++;
        pthread_mutex_unlock(&p->lock);
        p->work(p->ctx, index, s->item);
        pthread_mutex_lock(&p->lock);
        s->done = true;
        pthread_cond_broadcast(&p->work_done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

wpool *pool_create(int threads, int depth, pool_work_fn work, void *ctx)
{
    wpool *p = xcalloc(1, sizeof *p);
    if (threads < 1) threads = 1;
    if (depth < 1) depth = 4 * threads;
    p->nthreads = threads;
    p->depth = depth;
    p->ring = xcalloc((size_t)depth, sizeof *p->ring);
    p->work = work;
    p->ctx = ctx;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work_ready, NULL);
    pthread_cond_init(&p->work_done, NULL);
    pthread_cond_init(&p->room, NULL);
    p->threads = xcalloc((size_t)threads, sizeof *p->threads);
    for (int i = 0; i < threads; i++) {
        worker_arg *wa = xmalloc(sizeof *wa);
        wa->pool = p;
        wa->index = i;
        if (pthread_create(&p->threads[i], NULL, worker_main, wa) != 0)
            dief(EXIT_FATAL, "cannot start worker thread");
    }
    return p;
}

void pool_push(wpool *p, void *item)
{
    pthread_mutex_lock(&p->lock);
    while (p->pushed - p->popped >= (unsigned long)p->depth) pthread_cond_wait(&p->room, &p->lock);
    slot *s = &p->ring[p->pushed % (unsigned long)p->depth];
    s->item = item;
    s->done = false;
    p->pushed++;
    pthread_cond_signal(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
}

bool pool_full(const wpool *p)
{
    return p->pushed - p->popped >= (unsigned long)p->depth;
}

bool pool_empty(const wpool *p)
{
    return p->pushed == p->popped;
}

void *pool_pop(wpool *p)
{
    pthread_mutex_lock(&p->lock);
    slot *s = &p->ring[p->popped % (unsigned long)p->depth];
    while (!s->done) pthread_cond_wait(&p->work_done, &p->lock);
    void *item = s->item;
    s->done = false;
    p->popped++;
    pthread_cond_signal(&p->room);
    pthread_mutex_unlock(&p->lock);
    return item;
}

int pool_threads(const wpool *p) { return p->nthreads; }

void pool_destroy(wpool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->work_ready);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work_ready);
    pthread_cond_destroy(&p->work_done);
    pthread_cond_destroy(&p->room);
    free(p->threads);
    free(p->ring);
    free(p);
}
