/* minhash.h (gpu) - MinHash signatures of document batches on a CUDA GPU.
 *
 * The GPU twin of minhash_signature() in dedup/minhash.c, bit for bit: for
 * each document, the minimum over its shingle hashes of (a_k*h + b_k) mod
 * 2^61-1 for every permutation k (UINT64_MAX when it has no shingles). The
 * CPU normalises and hashes shingles (XXH3-64); the GPU does the K modular
 * multiplications per shingle, which are nearly all of the arithmetic. One
 * context serves one thread at a time; each has its own CUDA stream (calls
 * run on it in the order submitted), and
 * contexts are spread over every visible device in turn (CUDA_VISIBLE_DEVICES
 * selects them). */
#ifndef WINNOW_GPU_MINHASH_H
#define WINNOW_GPU_MINHASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_minhash gpu_minhash;

/* Makes a context for k permutations (a, b) on the next device in turn;
 * NULL with a reason in why when the GPU cannot be used. */
gpu_minhash *gpu_minhash_create(int k, const uint64_t *a, const uint64_t *b, char *why, size_t n);

/* Calls a context may have submitted and not yet waited for: the caller
 * prepares the next call's hashes on the host while the device signs the
 * previous one. */
#define GPU_MINHASH_IN_FLIGHT 2

/* Signatures of ndocs documents: document i's shingle hashes are
 * hashes[offsets[i] .. offsets[i+1]); writes ndocs * k values to sigs
 * (document-major). Returns 0, or -1 with a reason (naming the device) in why.
 * The same as a submit followed by its wait; none may be in flight. */
int gpu_minhash_signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs,
                           uint64_t *sigs, char *why, size_t n);

/* Starts the signatures of ndocs documents (hashes and offsets as above) on
 * the device and returns without waiting for them: the hashes are copied
 * into the context's own buffer first, so the caller may change or free its
 * arrays at once. At most GPU_MINHASH_IN_FLIGHT calls may be in flight.
 * Returns 0, or -1 with a reason (naming the device) in why. */
int gpu_minhash_submit(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs, char *why,
                       size_t n);

/* Waits for the oldest submitted call still in flight and writes its
 * ndocs * k signatures to sigs. Returns 0, or -1 with a reason (naming the
 * device) in why; after a failure only gpu_minhash_destroy() is safe. */
int gpu_minhash_wait(gpu_minhash *g, uint64_t *sigs, char *why, size_t n);

/* Milliseconds the kernels of the last call waited for took (without the
 * transfers), for benchmarks. */
double gpu_minhash_last_kernel_ms(const gpu_minhash *g);

/* Frees the context (after the calls still in flight end). */
void gpu_minhash_destroy(gpu_minhash *g);

#ifdef __cplusplus
}
#endif

#endif
