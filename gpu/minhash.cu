/* minhash.cu - MinHash signatures on the GPU (see gpu/minhash.h).
 *
 * The work is cut into chunks of at most CHUNK_SHINGLES shingles of one
 * document, one thread block per chunk, so a long document spreads over many
 * SMs and short ones do not leave threads idle for long. A block stages its
 * chunk's hashes in shared memory (reduced mod P once) tile by tile; thread t
 * owns permutations t, t + blockDim, ... and runs its running minimum over
 * the tile from registers, four shingles at a time for independent multiply
 * chains. Every thread of a warp reads the same hash at once (a shared-memory
 * broadcast). Partial minima meet in the output with 64-bit atomicMin.
 *
 * Contexts are spread over every device CUDA sees (CUDA_VISIBLE_DEVICES
 * selects them): the n-th context made in the process goes to device
 * n % count, so the signer's workers, one context each, share the devices
 * evenly. Each call makes its context's device current first, as the
 * thread calling it may have used another.
 *
 * A context has GPU_MINHASH_IN_FLIGHT slots, used in turn, each with its
 * own pinned host buffers, device buffers and events, so one call's copies
 * and kernel run while the caller prepares the next. The host buffers must
 * be pinned for that: a copy to pageable memory returns only once it (and
 * everything before it on the stream) is done, and one from pageable memory
 * first waits for the stream. Submit copies the caller's hashes into its
 * slot's pinned buffer (the copy the driver makes into its own staging
 * buffer for pageable memory anyway), so the caller's arrays are free again
 * at once; wait copies the signatures out of the slot's pinned buffer once
 * the slot's last event (after its device-to-host copy) has passed. A slot
 * is written again only after its call was waited for: calls are waited
 * for in the order submitted, and at most GPU_MINHASH_IN_FLIGHT are out. */
#include <atomic>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/minhash.h"

#define THREADS 128
#define TILE 512
#define CHUNK_SHINGLES 4096
#define PRIME ((1ULL << 61) - 1)

struct chunk {
    unsigned long long begin, end; /* shingle range in the batch */
    unsigned int doc;
};

/* One call's buffers and events; its host buffers are pinned. */
struct slot {
    unsigned long long *h_hashes, *h_sigs, *d_hashes, *d_sigs;
    chunk *h_chunks, *d_chunks;
    size_t cap_h_hashes, cap_h_sigs, cap_h_chunks, cap_hashes, cap_sigs, cap_chunks;
    cudaEvent_t start, stop, done; /* around the kernel; after the copy back */
    size_t nsigs;
};

struct gpu_minhash {
    int k;
    int device; /* the CUDA device its stream and buffers are on */
    cudaStream_t stream;
    unsigned long long *d_a, *d_b;
    slot slots[GPU_MINHASH_IN_FLIGHT];
    int next;    /* the slot the next submit uses */
    int pending; /* calls submitted and not yet waited for: the ones before next */
    float last_ms;
};

/* (a * h + b) mod P for h already below P + 8: the same arithmetic as
 * minhash_permute() on the CPU. */
__device__ __forceinline__ unsigned long long permute(unsigned long long a, unsigned long long b,
                                                      unsigned long long hr)
{
    unsigned long long lo = a * hr, hi = __umul64hi(a, hr);
    unsigned long long lo2 = lo + b;
    hi += lo2 < lo;
    unsigned long long low61 = lo2 & PRIME;
    unsigned long long high = (hi << 3) | (lo2 >> 61);
    unsigned long long r = low61 + high;
    r = (r & PRIME) + (r >> 61);
    return r >= PRIME ? r - PRIME : r;
}

__global__ void __launch_bounds__(THREADS) minhash_kernel(const chunk *chunks, const unsigned long long *hashes,
                                                          const unsigned long long *a, const unsigned long long *b,
                                                          int k, unsigned long long *sigs)
{
    __shared__ unsigned long long tile[TILE];
    const chunk c = chunks[blockIdx.x];
    for (int round = 0; round * THREADS < k; round++) {
        int perm = round * THREADS + threadIdx.x;
        unsigned long long pa = perm < k ? a[perm] : 0, pb = perm < k ? b[perm] : 0;
        unsigned long long best = ~0ULL;
        for (unsigned long long base = c.begin; base < c.end; base += TILE) {
            int m = (int)min((unsigned long long)TILE, c.end - base);
            __syncthreads();
            for (int i = threadIdx.x; i < m; i += THREADS) {
                unsigned long long h = hashes[base + i];
                tile[i] = (h & PRIME) + (h >> 61);
            }
            __syncthreads();
            if (perm < k) {
                int i = 0;
                for (; i + 4 <= m; i += 4) {
                    unsigned long long v0 = permute(pa, pb, tile[i]);
                    unsigned long long v1 = permute(pa, pb, tile[i + 1]);
                    unsigned long long v2 = permute(pa, pb, tile[i + 2]);
                    unsigned long long v3 = permute(pa, pb, tile[i + 3]);
                    best = min(best, min(min(v0, v1), min(v2, v3)));
                }
                for (; i < m; i++) best = min(best, permute(pa, pb, tile[i]));
            }
        }
        if (perm < k && c.end > c.begin) atomicMin(&sigs[(size_t)c.doc * k + perm], best);
    }
}

static int cuda_failed(cudaError_t err, const char *what, char *why, size_t n)
{
    if (err == cudaSuccess) return 0;
    snprintf(why, n, "CUDA %s: %s", what, cudaGetErrorString(err));
    return 1;
}

/* Makes sure *p holds at least want elements of size bytes each on the device. */
static cudaError_t reserve_device(void **p, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap) return cudaSuccess;
    if (*p) cudaFree(*p);
    *p = NULL;
    size_t grown = want + want / 2;
    cudaError_t err = cudaMalloc(p, grown * size);
    *cap = err == cudaSuccess ? grown : 0;
    return err;
}

/* The same in pinned host memory (only for a slot no call is using). */
static cudaError_t reserve_pinned(void **p, size_t *cap, size_t want, size_t size)
{
    if (want <= *cap) return cudaSuccess;
    if (*p) cudaFreeHost(*p);
    *p = NULL;
    size_t grown = want + want / 2;
    cudaError_t err = cudaMallocHost(p, grown * size);
    *cap = err == cudaSuccess ? grown : 0;
    return err;
}

extern "C" gpu_minhash *gpu_minhash_create(int k, const uint64_t *a, const uint64_t *b, char *why, size_t n)
{
    gpu_minhash *g = (gpu_minhash *)calloc(1, sizeof *g);
    if (!g) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    g->k = k;
    static std::atomic<unsigned> made; /* contexts made so far: the next one's device, modulo their count */
    int count = 0;
    if (cuda_failed(cudaGetDeviceCount(&count), "device count", why, n)) {
        free(g);
        return NULL;
    }
    g->device = count > 0 ? (int)(made.fetch_add(1) % (unsigned)count) : 0;
    if (cuda_failed(cudaSetDevice(g->device), "set device", why, n) ||
        cuda_failed(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "stream", why, n)) {
        gpu_minhash_destroy(g);
        return NULL;
    }
    for (int i = 0; i < GPU_MINHASH_IN_FLIGHT; i++)
        if (cuda_failed(cudaEventCreate(&g->slots[i].start), "event", why, n) ||
            cuda_failed(cudaEventCreate(&g->slots[i].stop), "event", why, n) ||
            cuda_failed(cudaEventCreateWithFlags(&g->slots[i].done, cudaEventDisableTiming), "event", why, n)) {
            gpu_minhash_destroy(g);
            return NULL;
        }
    if (cuda_failed(cudaMalloc(&g->d_a, k * sizeof(uint64_t)), "malloc", why, n) ||
        cuda_failed(cudaMalloc(&g->d_b, k * sizeof(uint64_t)), "malloc", why, n) ||
        cuda_failed(cudaMemcpy(g->d_a, a, k * sizeof(uint64_t), cudaMemcpyHostToDevice), "copy", why, n) ||
        cuda_failed(cudaMemcpy(g->d_b, b, k * sizeof(uint64_t), cudaMemcpyHostToDevice), "copy", why, n)) {
        gpu_minhash_destroy(g);
        return NULL;
    }
    return g;
}

/* Starts a call in slot g->next (see gpu_minhash_submit). */
static int submit(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs, char *why, size_t n)
{
    if (g->pending == GPU_MINHASH_IN_FLIGHT) {
        snprintf(why, n, "more than %d calls in flight", GPU_MINHASH_IN_FLIGHT);
        return -1;
    }
    slot *sl = &g->slots[g->next];
    if (ndocs < 0) ndocs = 0;
    size_t nchunks = 0;
    for (int d = 0; d < ndocs; d++) {
        unsigned long long len = offsets[d + 1] - offsets[d];
        nchunks += (len + CHUNK_SHINGLES - 1) / CHUNK_SHINGLES;
    }
    size_t nhashes = ndocs ? offsets[ndocs] - offsets[0] : 0;
    size_t nsigs = (size_t)ndocs * g->k;
    if (cuda_failed(cudaSetDevice(g->device), "set device", why, n) ||
        cuda_failed(reserve_pinned((void **)&sl->h_chunks, &sl->cap_h_chunks, nchunks ? nchunks : 1, sizeof(chunk)), "pinned malloc", why, n) ||
        cuda_failed(reserve_pinned((void **)&sl->h_hashes, &sl->cap_h_hashes, nhashes ? nhashes : 1, 8), "pinned malloc", why, n) ||
        cuda_failed(reserve_pinned((void **)&sl->h_sigs, &sl->cap_h_sigs, nsigs ? nsigs : 1, 8), "pinned malloc", why, n) ||
        cuda_failed(reserve_device((void **)&sl->d_hashes, &sl->cap_hashes, nhashes ? nhashes : 1, 8), "malloc", why, n) ||
        cuda_failed(reserve_device((void **)&sl->d_sigs, &sl->cap_sigs, nsigs ? nsigs : 1, 8), "malloc", why, n) ||
        cuda_failed(reserve_device((void **)&sl->d_chunks, &sl->cap_chunks, nchunks ? nchunks : 1, sizeof(chunk)), "malloc", why, n))
        return -1;
    size_t c = 0; /* chunks index from the call's first hash */
    for (int d = 0; d < ndocs; d++)
        for (unsigned long long s = offsets[d]; s < offsets[d + 1]; s += CHUNK_SHINGLES) {
            sl->h_chunks[c].begin = s - offsets[0];
            sl->h_chunks[c].end = (s + CHUNK_SHINGLES < offsets[d + 1] ? s + CHUNK_SHINGLES : offsets[d + 1]) - offsets[0];
            sl->h_chunks[c].doc = (unsigned)d;
            c++;
        }
    if (nhashes) memcpy(sl->h_hashes, hashes + offsets[0], nhashes * 8);
    if ((nhashes && cuda_failed(cudaMemcpyAsync(sl->d_hashes, sl->h_hashes, nhashes * 8, cudaMemcpyHostToDevice, g->stream), "copy", why, n)) ||
        (nchunks && cuda_failed(cudaMemcpyAsync(sl->d_chunks, sl->h_chunks, nchunks * sizeof(chunk), cudaMemcpyHostToDevice, g->stream), "copy", why, n)) ||
        (nsigs && cuda_failed(cudaMemsetAsync(sl->d_sigs, 0xFF, nsigs * 8, g->stream), "memset", why, n)) ||
        cuda_failed(cudaEventRecord(sl->start, g->stream), "event", why, n))
        return -1;
    if (nchunks)
        minhash_kernel<<<(unsigned)nchunks, THREADS, 0, g->stream>>>(sl->d_chunks, sl->d_hashes, g->d_a, g->d_b, g->k, sl->d_sigs);
    if (cuda_failed(cudaGetLastError(), "kernel launch", why, n) ||
        cuda_failed(cudaEventRecord(sl->stop, g->stream), "event", why, n) ||
        (nsigs && cuda_failed(cudaMemcpyAsync(sl->h_sigs, sl->d_sigs, nsigs * 8, cudaMemcpyDeviceToHost, g->stream), "copy", why, n)) ||
        cuda_failed(cudaEventRecord(sl->done, g->stream), "event", why, n))
        return -1;
    sl->nsigs = nsigs;
    g->next = (g->next + 1) % GPU_MINHASH_IN_FLIGHT;
    g->pending++;
    return 0;
}

/* Ends the oldest call in flight (see gpu_minhash_wait). */
static int wait_oldest(gpu_minhash *g, uint64_t *sigs, char *why, size_t n)
{
    if (g->pending == 0) {
        snprintf(why, n, "no call in flight");
        return -1;
    }
    slot *sl = &g->slots[(g->next - g->pending + GPU_MINHASH_IN_FLIGHT) % GPU_MINHASH_IN_FLIGHT];
    if (cuda_failed(cudaSetDevice(g->device), "set device", why, n) ||
        cuda_failed(cudaEventSynchronize(sl->done), "kernel", why, n))
        return -1;
    cudaEventElapsedTime(&g->last_ms, sl->start, sl->stop);
    if (sl->nsigs) memcpy(sigs, sl->h_sigs, sl->nsigs * 8);
    g->pending--;
    return 0;
}

/* Puts "device D: " before the reason of a failed call; returns rc. */
static int name_device(const gpu_minhash *g, int rc, char *why, size_t n)
{
    if (rc == 0) return 0;
    char reason[256];
    snprintf(reason, sizeof reason, "%s", why);
    snprintf(why, n, "device %d: %s", g->device, reason);
    return rc;
}

extern "C" int gpu_minhash_submit(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs,
                                  char *why, size_t n)
{
    return name_device(g, submit(g, hashes, offsets, ndocs, why, n), why, n);
}

extern "C" int gpu_minhash_wait(gpu_minhash *g, uint64_t *sigs, char *why, size_t n)
{
    return name_device(g, wait_oldest(g, sigs, why, n), why, n);
}

extern "C" int gpu_minhash_signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs,
                                      uint64_t *sigs, char *why, size_t n)
{
    if (g->pending) {
        snprintf(why, n, "device %d: a synchronous call with %d calls in flight", g->device, g->pending);
        return -1;
    }
    int rc = submit(g, hashes, offsets, ndocs, why, n);
    if (rc == 0) rc = wait_oldest(g, sigs, why, n);
    return name_device(g, rc, why, n);
}

extern "C" double gpu_minhash_last_kernel_ms(const gpu_minhash *g)
{
    return g ? g->last_ms : 0;
}

extern "C" void gpu_minhash_destroy(gpu_minhash *g)
{
    if (!g) return;
    cudaSetDevice(g->device);
    if (g->stream) cudaStreamSynchronize(g->stream); /* calls in flight still use the buffers */
    cudaFree(g->d_a);
    cudaFree(g->d_b);
    for (int i = 0; i < GPU_MINHASH_IN_FLIGHT; i++) {
        slot *sl = &g->slots[i];
        cudaFree(sl->d_hashes);
        cudaFree(sl->d_sigs);
        cudaFree(sl->d_chunks);
        cudaFreeHost(sl->h_hashes);
        cudaFreeHost(sl->h_sigs);
        cudaFreeHost(sl->h_chunks);
        if (sl->start) cudaEventDestroy(sl->start);
        if (sl->stop) cudaEventDestroy(sl->stop);
        if (sl->done) cudaEventDestroy(sl->done);
    }
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}
