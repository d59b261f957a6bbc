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
 * thread calling it may have used another. */
#include <atomic>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/minhash.h"
#include "gpu/xxh3_words.h"

#define THREADS 128
#define TILE 512
#define CHUNK_SHINGLES 4096
#define PRIME ((1ULL << 61) - 1)

struct chunk {
    unsigned long long begin, end; /* shingle range in the batch */
    unsigned int doc;
};

/* A chunk of a text batch: shingles [begin, end) of document doc, whose
 * text starts at byte text_from of the batch and whose nunits unit starts
 * (then as many ends) start at units[unit_from]. */
struct text_chunk {
    unsigned long long text_from, unit_from;
    unsigned long long begin, end;
    unsigned nunits, last, doc;
};

struct gpu_minhash {
    int k;
    int device; /* the CUDA device its stream and buffers are on */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    unsigned long long *d_a, *d_b, *d_hashes, *d_sigs;
    chunk *d_chunks;
    size_t cap_hashes, cap_sigs, cap_chunks;
    chunk *h_chunks;
    size_t cap_h_chunks;
    unsigned long long *d_words; /* text batches: the text, as words */
    unsigned *d_units;
    text_chunk *d_text_chunks, *h_text_chunks;
    size_t cap_words, cap_units, cap_text_chunks, cap_h_text_chunks;
    unsigned long long *h_sigs; /* the signatures' way back */
    size_t cap_h_sigs;
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

/* A batch of shingle hashes cut into chunks: chunk c is hashes [begin, end)
 * of document doc. */
struct hash_chunks {
    const chunk *chunks;
    const unsigned long long *hashes;
    struct view {
        unsigned long long begin, end;
        unsigned doc;
        const unsigned long long *hashes;
        __device__ unsigned long long hash(unsigned long long s) const { return hashes[s]; }
    };
    __device__ view at(unsigned c) const
    {
        chunk x = chunks[c];
        return {x.begin, x.end, x.doc, hashes};
    }
};

/* A batch of normal forms cut into chunks: chunk c is shingles [begin, end)
 * of document doc, hashed here from the text (gpu/xxh3_words.h). */
struct text_chunks {
    const text_chunk *chunks;
    const uint64_t *words; /* the batch's text */
    const unsigned *units;
    struct view {
        unsigned long long begin, end;
        unsigned doc;
        const uint64_t *words;
        const unsigned *starts, *ends; /* the document's units */
        unsigned long long text_from;
        unsigned last; /* a shingle's last unit, after its first */
        __device__ unsigned long long hash(unsigned long long s) const
        {
            unsigned from = starts[s], to = ends[s + last];
            return wx_xxh3_64(words, text_from + from, to - from);
        }
    };
    __device__ view at(unsigned c) const
    {
        text_chunk x = chunks[c];
        const unsigned *starts = units + x.unit_from;
        return {x.begin, x.end, x.doc, words, starts, starts + x.nunits, x.text_from, x.last};
    }
};

template <class Source>
__global__ void __launch_bounds__(THREADS) minhash_kernel(Source src, const unsigned long long *a,
                                                          const unsigned long long *b, int k, unsigned long long *sigs)
{
    __shared__ unsigned long long tile[TILE];
    const typename Source::view c = src.at(blockIdx.x);
    for (int round = 0; round * THREADS < k; round++) {
        int perm = round * THREADS + threadIdx.x;
        unsigned long long pa = perm < k ? a[perm] : 0, pb = perm < k ? b[perm] : 0;
        unsigned long long best = ~0ULL;
        for (unsigned long long base = c.begin; base < c.end; base += TILE) {
            int m = (int)min((unsigned long long)TILE, c.end - base);
            __syncthreads();
            for (int i = threadIdx.x; i < m; i += THREADS) {
                unsigned long long h = c.hash(base + i);
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

extern "C" int gpu_minhash_warm_up(char *why, size_t n)
{
    int count = 0;
    if (cuda_failed(cudaGetDeviceCount(&count), "device count", why, n)) return -1;
    for (int d = 0; d < count; d++) {
        cudaFuncAttributes attr;
        if (cuda_failed(cudaSetDevice(d), "set device", why, n) || cuda_failed(cudaFree(0), "context", why, n) ||
            cuda_failed(cudaFuncGetAttributes(&attr, minhash_kernel<text_chunks>), "kernel load", why, n) ||
            cuda_failed(cudaFuncGetAttributes(&attr, minhash_kernel<hash_chunks>), "kernel load", why, n))
            return -1;
    }
    return 0;
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
        cuda_failed(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "stream", why, n) ||
        cuda_failed(cudaEventCreate(&g->start), "event", why, n) ||
        cuda_failed(cudaEventCreate(&g->stop), "event", why, n) ||
        cuda_failed(cudaMalloc(&g->d_a, k * sizeof(uint64_t)), "malloc", why, n) ||
        cuda_failed(cudaMalloc(&g->d_b, k * sizeof(uint64_t)), "malloc", why, n) ||
        cuda_failed(cudaMemcpy(g->d_a, a, k * sizeof(uint64_t), cudaMemcpyHostToDevice), "copy", why, n) ||
        cuda_failed(cudaMemcpy(g->d_b, b, k * sizeof(uint64_t), cudaMemcpyHostToDevice), "copy", why, n)) {
        gpu_minhash_destroy(g);
        return NULL;
    }
    return g;
}

/* Makes sure the host array *p holds at least want elements of size bytes,
 * page-locked: a copy from or to pageable memory goes through the driver's
 * staging buffers, synchronously. With the chunk tables and signatures
 * page-locked the signature calls of a 5.4 GB dedup run took 3.2-3.35
 * worker-seconds against 4.0-4.4 (bench/results/dedup-gpu-pinned-2026-11-27.md). */
static int reserve_host(void **p, size_t *cap, size_t want, size_t size, char *why, size_t n)
{
    if (want <= *cap) return 0;
    if (*p) cudaFreeHost(*p);
    *p = NULL;
    *cap = want + want / 2;
    if (!cuda_failed(cudaMallocHost(p, *cap * size), "page-locked malloc", why, n)) return 0;
    *p = NULL;
    *cap = 0;
    return -1;
}

/* Clears ndocs signatures, runs the kernel over src's nchunks chunks (their
 * data already queued on g's stream), copies the signatures to sigs and
 * waits for them. */
template <class Source>
static int run_kernel(gpu_minhash *g, Source src, size_t nchunks, int ndocs, uint64_t *sigs, char *why, size_t n)
{
    size_t nsigs = (size_t)ndocs * g->k;
    if (reserve_host((void **)&g->h_sigs, &g->cap_h_sigs, nsigs, 8, why, n) ||
        cuda_failed(reserve_device((void **)&g->d_sigs, &g->cap_sigs, nsigs, 8), "malloc", why, n) ||
        cuda_failed(cudaMemsetAsync(g->d_sigs, 0xFF, nsigs * 8, g->stream), "memset", why, n))
        return -1;
    cudaEventRecord(g->start, g->stream);
    if (nchunks) minhash_kernel<<<(unsigned)nchunks, THREADS, 0, g->stream>>>(src, g->d_a, g->d_b, g->k, g->d_sigs);
    cudaEventRecord(g->stop, g->stream);
    if (cuda_failed(cudaGetLastError(), "kernel launch", why, n) ||
        cuda_failed(cudaMemcpyAsync(g->h_sigs, g->d_sigs, nsigs * 8, cudaMemcpyDeviceToHost, g->stream), "copy", why, n) ||
        cuda_failed(cudaStreamSynchronize(g->stream), "kernel", why, n))
        return -1;
    memcpy(sigs, g->h_sigs, nsigs * 8);
    cudaEventElapsedTime(&g->last_ms, g->start, g->stop);
    return 0;
}

static int signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs, uint64_t *sigs,
                      char *why, size_t n)
{
    if (ndocs <= 0) return 0;
    size_t nchunks = 0;
    for (int d = 0; d < ndocs; d++) {
        unsigned long long len = offsets[d + 1] - offsets[d];
        nchunks += (len + CHUNK_SHINGLES - 1) / CHUNK_SHINGLES;
    }
    if (reserve_host((void **)&g->h_chunks, &g->cap_h_chunks, nchunks, sizeof(chunk), why, n)) return -1;
    size_t c = 0;
    for (int d = 0; d < ndocs; d++)
        for (unsigned long long s = offsets[d]; s < offsets[d + 1]; s += CHUNK_SHINGLES) {
            g->h_chunks[c].begin = s;
            g->h_chunks[c].end = s + CHUNK_SHINGLES < offsets[d + 1] ? s + CHUNK_SHINGLES : offsets[d + 1];
            g->h_chunks[c].doc = (unsigned)d;
            c++;
        }
    if (cuda_failed(cudaSetDevice(g->device), "set device", why, n)) return -1;
    size_t nhashes = offsets[ndocs] - offsets[0];
    const uint64_t *first = hashes + offsets[0];
    if (offsets[0]) /* chunks index from the batch's first hash */
        for (size_t i = 0; i < nchunks; i++) g->h_chunks[i].begin -= offsets[0], g->h_chunks[i].end -= offsets[0];
    if (cuda_failed(reserve_device((void **)&g->d_hashes, &g->cap_hashes, nhashes ? nhashes : 1, 8), "malloc", why, n) ||
        cuda_failed(reserve_device((void **)&g->d_chunks, &g->cap_chunks, nchunks ? nchunks : 1, sizeof(chunk)), "malloc", why, n) ||
        cuda_failed(cudaMemcpyAsync(g->d_hashes, first, nhashes * 8, cudaMemcpyHostToDevice, g->stream), "copy", why, n) ||
        cuda_failed(cudaMemcpyAsync(g->d_chunks, g->h_chunks, nchunks * sizeof(chunk), cudaMemcpyHostToDevice, g->stream), "copy", why, n))
        return -1;
    hash_chunks src = {g->d_chunks, g->d_hashes};
    return run_kernel(g, src, nchunks, ndocs, sigs, why, n);
}

/* Words of device memory a text of len bytes takes: whole words
 * and one more, since a read may take the word after the last byte's. */
static size_t text_words(size_t len)
{
    return len / 8 + 2;
}

static int text_signatures(gpu_minhash *g, const char *text, size_t text_len, const uint32_t *units, size_t nunits,
                           const gpu_text_doc *docs, int ndocs, int ngram, uint64_t *sigs, char *why, size_t n)
{
    if (ndocs <= 0) return 0;
    size_t nchunks = 0;
    for (int d = 0; d < ndocs; d++) {
        size_t units_d = docs[d].nunits;
        size_t shingles = units_d == 0 ? 0 : units_d < (size_t)ngram ? 1 : units_d - ngram + 1;
        nchunks += (shingles + CHUNK_SHINGLES - 1) / CHUNK_SHINGLES;
    }
    if (reserve_host((void **)&g->h_text_chunks, &g->cap_h_text_chunks, nchunks, sizeof(text_chunk), why, n))
        return -1;
    size_t c = 0;
    for (int d = 0; d < ndocs; d++) {
        unsigned units_d = docs[d].nunits;
        unsigned long long shingles = units_d == 0 ? 0 : units_d < (unsigned)ngram ? 1 : units_d - ngram + 1;
        unsigned last = units_d < (unsigned)ngram ? units_d - 1 : (unsigned)ngram - 1;
        for (unsigned long long s = 0; s < shingles; s += CHUNK_SHINGLES) {
            text_chunk *x = &g->h_text_chunks[c++];
            x->text_from = docs[d].text_from;
            x->unit_from = docs[d].unit_from;
            x->begin = s;
            x->end = s + CHUNK_SHINGLES < shingles ? s + CHUNK_SHINGLES : shingles;
            x->nunits = units_d;
            x->last = last;
            x->doc = (unsigned)d;
        }
    }
    if (cuda_failed(cudaSetDevice(g->device), "set device", why, n) ||
        cuda_failed(reserve_device((void **)&g->d_words, &g->cap_words, text_words(text_len), 8), "malloc", why, n) ||
        cuda_failed(reserve_device((void **)&g->d_units, &g->cap_units, nunits ? 2 * nunits : 1, 4), "malloc", why, n) ||
        cuda_failed(reserve_device((void **)&g->d_text_chunks, &g->cap_text_chunks, nchunks ? nchunks : 1, sizeof(text_chunk)), "malloc", why, n) ||
        cuda_failed(cudaMemcpyAsync(g->d_words, text, text_len, cudaMemcpyHostToDevice, g->stream), "copy", why, n) ||
        cuda_failed(cudaMemcpyAsync(g->d_units, units, 2 * nunits * 4, cudaMemcpyHostToDevice, g->stream), "copy", why, n) ||
        cuda_failed(cudaMemcpyAsync(g->d_text_chunks, g->h_text_chunks, nchunks * sizeof(text_chunk), cudaMemcpyHostToDevice, g->stream), "copy", why, n))
        return -1;
    text_chunks src = {g->d_text_chunks, (const uint64_t *)g->d_words, g->d_units};
    return run_kernel(g, src, nchunks, ndocs, sigs, why, n);
}

/* Prefixes why's reason with g's device. */
static void name_device(const gpu_minhash *g, char *why, size_t n)
{
    char reason[256];
    snprintf(reason, sizeof reason, "%s", why);
    snprintf(why, n, "device %d: %s", g->device, reason);
}

extern "C" int gpu_minhash_signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs,
                                      uint64_t *sigs, char *why, size_t n)
{
    if (signatures(g, hashes, offsets, ndocs, sigs, why, n) == 0) return 0;
    name_device(g, why, n);
    return -1;
}

extern "C" int gpu_minhash_text_signatures(gpu_minhash *g, const char *text, size_t text_len, const uint32_t *units,
                                           size_t nunits, const gpu_text_doc *docs, int ndocs, int ngram, uint64_t *sigs,
                                           char *why, size_t n)
{
    if (text_signatures(g, text, text_len, units, nunits, docs, ndocs, ngram, sigs, why, n) == 0) return 0;
    name_device(g, why, n);
    return -1;
}

extern "C" bool gpu_pin(void *p, size_t n)
{
    if (cudaHostRegister(p, n, cudaHostRegisterPortable) == cudaSuccess) return true;
    cudaGetLastError(); /* not left for a later call's check to find */
    return false;
}

extern "C" void gpu_unpin(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

extern "C" double gpu_minhash_last_kernel_ms(const gpu_minhash *g)
{
    return g ? g->last_ms : 0;
}

extern "C" void gpu_minhash_destroy(gpu_minhash *g)
{
    if (!g) return;
    cudaSetDevice(g->device);
    cudaFree(g->d_a);
    cudaFree(g->d_b);
    cudaFree(g->d_hashes);
    cudaFree(g->d_sigs);
    cudaFree(g->d_chunks);
    cudaFree(g->d_words);
    cudaFree(g->d_units);
    cudaFree(g->d_text_chunks);
    if (g->h_text_chunks) cudaFreeHost(g->h_text_chunks);
    if (g->h_sigs) cudaFreeHost(g->h_sigs);
    if (g->start) cudaEventDestroy(g->start);
    if (g->stop) cudaEventDestroy(g->stop);
    if (g->stream) cudaStreamDestroy(g->stream);
    if (g->h_chunks) cudaFreeHost(g->h_chunks);
    free(g);
}
