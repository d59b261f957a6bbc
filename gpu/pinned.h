/* pinned.h - what the CUDA libraries (gpu/bpe.cu, gpu/tlz.cu) share: page-
 * locked host memory made so that pinning it does not hold up a thread
 * that launches kernels (see pin_alloc), and CUDA_TRY. CUDA code only. */
#ifndef WINNOW_GPU_PINNED_H
#define WINNOW_GPU_PINNED_H

#include <cuda_runtime.h>
#include <stddef.h>

/* In a set-up function returning int with a wbuf *err: a failed CUDA call
 * is described in err and the function returns -1. */
#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            buf_printf(err, "CUDA: %s: %s", #call, cudaGetErrorString(e_));                        \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

#define PINNED_FLAGS cudaHostRegisterPortable
#define MAPPED_FLAGS (cudaHostRegisterMapped | cudaHostRegisterPortable)

/* Page-locked host memory of at least bytes at *p (flags: PINNED_FLAGS, or
 * MAPPED_FLAGS for memory the kernels write to); freed by pin_free(). */
cudaError_t pin_alloc(void **p, size_t bytes, unsigned flags);

/* Frees memory from pin_alloc() (NULL: nothing). */
void pin_free(void *p);

#endif
