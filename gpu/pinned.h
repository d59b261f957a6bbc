/* pinned.h - page-locked host memory for the CUDA libraries (gpu/bpe.cu,
 * gpu/tlz.cu), made so that pinning it does not hold up a thread that
 * launches kernels (see pin_alloc). CUDA code only. */
#ifndef WINNOW_GPU_PINNED_H
#define WINNOW_GPU_PINNED_H

#include <cuda_runtime.h>
#include <stddef.h>

#define PINNED_FLAGS cudaHostRegisterPortable
#define MAPPED_FLAGS (cudaHostRegisterMapped | cudaHostRegisterPortable)

/* Page-locked host memory of at least bytes at *p (flags: PINNED_FLAGS, or
 * MAPPED_FLAGS for memory the kernels write to); freed by pin_free(). */
cudaError_t pin_alloc(void **p, size_t bytes, unsigned flags);

/* Frees memory from pin_alloc() (NULL: nothing). */
void pin_free(void *p);

#endif
