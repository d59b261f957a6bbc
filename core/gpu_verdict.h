/* gpu_verdict.h - whether a GPU is usable, decided once by the thread that
 * checks it and waited for by the others; --device gpu's refusal.
 *
 * A stage run with --device gpu checks the GPU on a thread of its own while
 * the CPU starts working, and its first output waits for the answer: a run
 * without a usable GPU exits 1 with "--device gpu: WHY" and writes nothing.
 * Plain C and pthreads: the check itself (a CUDA call) is the caller's, so
 * nothing here touches the GPU. */
#ifndef WINNOW_CORE_GPU_VERDICT_H
#define WINNOW_CORE_GPU_VERDICT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Longest reason kept, with its NUL (the GPU probes' reasons are shorter). */
#define GPU_VERDICT_WHY_MAX 256

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t decided_cond;
    bool decided;                  /* under lock */
    atomic_bool usable;            /* set with decided; once true, read without the lock */
    char why[GPU_VERDICT_WHY_MAX]; /* why not, once decided unusable */
} gpu_verdict;

/* An undecided verdict. */
void gpu_verdict_init(gpu_verdict *v);

/* Frees what gpu_verdict_init() made (no thread may be waiting). */
void gpu_verdict_destroy(gpu_verdict *v);

/* Decides: usable, or not with the reason why (copied; NULL: none given),
 * and wakes every waiter. Only the first call decides; later ones change
 * nothing. */
void gpu_verdict_set(gpu_verdict *v, bool usable, const char *why);

/* Waits until the verdict is decided; returns whether a GPU is usable. */
bool gpu_verdict_wait(gpu_verdict *v);

/* Waits until the verdict is decided and refuses the run (gpu_refuse) when
 * no GPU is usable; returns at once once a usable verdict was seen. */
void gpu_verdict_require(gpu_verdict *v);

/* Exits 1 (EXIT_USAGE) with "--device gpu: WHY" (why NULL: "the GPU did not
 * start"). Of several threads that come here, one prints and exits, the
 * others wait for the exit. */
void gpu_refuse(const char *why) __attribute__((noreturn));

#endif
