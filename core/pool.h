/* pool.h - an ordered worker pool.
 *
 * The caller pushes work items in order; N threads run work(ctx, item) on
 * them in any order; pool_pop() hands items back in exactly the order they
 * were pushed. At most `depth` items are in flight, which bounds memory.
 * Typical use:
 *     while (have_input) {
 *         if (pool_full(p)) emit(pool_pop(p));
 *         pool_push(p, next_item());
 *     }
 *     while (!pool_empty(p)) emit(pool_pop(p));
 * One thread may push while another pops (push then waits for room); then
 * pool_full() and pool_empty(), which read without the lock, are not used.
 */
#ifndef WINNOW_POOL_H
#define WINNOW_POOL_H

#include <stdbool.h>

typedef struct wpool wpool;

/* work() runs on a worker thread; worker_index is 0..threads-1, so each
 * thread can keep its own scratch state. */
typedef void (*pool_work_fn)(void *ctx, int worker_index, void *item);

/* Starts threads workers (at least 1); depth is the in-flight limit
 * (0: 4 per thread). */
wpool *pool_create(int threads, int depth, pool_work_fn work, void *ctx);

/* Queues item. When full, waits until another thread pops one (a caller
 * that also pops checks pool_full() first). */
void pool_push(wpool *p, void *item);

/* True when depth items are in flight. */
bool pool_full(const wpool *p);

/* True when no items are in flight. */
bool pool_empty(const wpool *p);

/* Waits for the oldest item in flight and returns it. */
void *pool_pop(wpool *p);

/* Number of worker threads. */
int pool_threads(const wpool *p);

/* Stops the threads (nothing may be in flight) and frees the pool. */
void pool_destroy(wpool *p);

#endif
