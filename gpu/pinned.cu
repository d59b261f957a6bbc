/* pinned.cu - page-locked host memory for the CUDA libraries (pinned.h). */
extern "C" {
#include "core/pages.h"
}

#include <stdlib.h>
#include <sys/mman.h>

#include "gpu/pinned.h"

/* Pinned host memory is made of whole huge pages. */
#define PIN_PAGE ((size_t)2 << 20)
#define SMALL_PAGE ((size_t)4096)
/* Threads that fault in a pinned buffer's pages before it is registered. */
#define PIN_POPULATE_THREADS 8

/* Page-locked host memory of at least bytes at *p (flags: PINNED_FLAGS, or
 * MAPPED_FLAGS for memory the kernels write to). Not cudaHostAlloc, which
 * faults and pins 4 KiB pages one by one: in the tokenize command it took
 * ~0.5 s per GB and held up the main thread's launches meanwhile (~0.6 s
 * of an 8.5 GB run). Here the memory is asked for in huge pages
 * (MADV_HUGEPAGE, a hint), faulted in on PIN_POPULATE_THREADS threads
 * (pages_populate), and only then registered, so the driver pins pages
 * that are already there, and the launches no longer wait (bench/results/
 * gpu-tokenize-inplace-2026-11-27.md). On the H200 machine the faulting
 * is most of the cost: the batch slots' 547 MB took 0.08-0.10 s to fault
 * in on one thread, 0.045-0.06 on 8, and 0.012-0.016 to register
 * (bench/results/gpu-tokenize-bin-2026-11-27.md). Freed with pin_free. */
cudaError_t pin_alloc(void **p, size_t bytes, unsigned flags)
{
    size_t page = bytes >= PIN_PAGE ? PIN_PAGE : SMALL_PAGE; /* small buffers (a batch's counters) stay small */
    size_t rounded = bytes ? (bytes + page - 1) / page * page : page;
    char *m = (char *)aligned_alloc(page, rounded);
    if (!m) return cudaErrorMemoryAllocation;
    madvise(m, rounded, MADV_HUGEPAGE);
    pages_populate(m, rounded, PIN_POPULATE_THREADS);
    cudaError_t e = cudaHostRegister(m, rounded, flags);
    if (e != cudaSuccess) {
        free(m);
        return e;
    }
    *p = m;
    return cudaSuccess;
}

/* Frees memory from pin_alloc (NULL: nothing). */
void pin_free(void *p)
{
    if (!p) return;
    cudaHostUnregister(p);
    free(p);
}

