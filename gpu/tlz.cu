/* tlz.cu - winnow's token encoder on CUDA devices (see tlz.h): shard frames
 * byte for byte those of shards/tlz.c, by the very code of
 * shards/tlz_block.h.
 *
 * A batch is n frames. In its slot's stream:
 *   1. the frames are copied in, each at a 16-byte aligned place of the
 *      slot's device buffer, with a table of them (where, how long, first
 *      block, checksum);
 *   2. code:   each thread takes blocks (128 KiB of a frame) one at a time
 *              from a shared counter and codes each with tlz_block() into a
 *              slot of TLZ_BLOCK_BOUND bytes, with its own scratch in global
 *              memory (hash table, literals, sequences, work buffer; the
 *              hash tables may go to shared memory instead: GPU_TLZ_TABLE).
 *              Only as many threads as the device holds at once are
 *              launched, so the scratch is per resident thread, not per
 *              block;
 *   3. place:  one CTA sums each frame's size (header, blocks, checksum)
 *              and scans them: each frame's place in the batch's output
 *              (16-byte aligned), and each block's;
 *   4. gather: one CTA per block copies it to its place; the CTAs of a
 *              frame's first and last blocks also write its header and its
 *              checksum;
 *   5. out:    a copy kernel moves the output to mapped pinned host memory
 *              in 16-byte stores (a copy engine would need its size on the
 *              host first), and the frames' places and sizes too.
 * gpu_tlz_finish() waits for the stream and copies each frame out of the
 * host buffer. The GPU_TLZ_IN_FLIGHT slots each have their own stream and
 * buffers; slot k runs on device k % (the devices CUDA sees), so with two
 * devices each codes every other batch.
 *
 * Bench knobs (environment, read by gpu_tlz_open): GPU_TLZ_TABLE=shared
 * puts the hash tables in shared memory instead of global memory, and
 * GPU_TLZ_CTA_THREADS=N sets the threads per CTA (default 1).
 *
 * Speed (bench/results/gpu-tlz-2026-11-27.md, H200): a block takes one
 * thread ~80 ms, so a batch of 256 1 MiB frames (2048 blocks) codes in
 * ~80-100 ms and two batches in flight give ~4 GB/s of uint32 ids
 * (2.6 GB/s of uint16 ids, which have twice the tokens per block); copying
 * in and out costs ~6 and ~2 ms a batch. Coding is the whole cost, and
 * twice the blocks at once (batches of 512 frames) took 1.7 times as long:
 * the SMs are saturated by work done one thread at a time (uncoalesced
 * loads and stores, the per-thread arrays of the Huffman and FSE coders in
 * local memory), not short of threads. */
extern "C" {
#include "gpu/tlz.h"
#include "core/util.h"
#include "shards/tlz.h"
}

#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/pinned.h"
#include "shards/tlz_block.h"

#define MIN_COMPUTE_MAJOR 9 /* the kernels are built for sm_90 */
#define TABLE_ENTRIES (1u << TLZ_HASH_LOG)
#define TABLE_BYTES (TABLE_ENTRIES * sizeof(uint16_t))
#define ALIGN 16 /* frames in the device and host buffers, and per-thread buffers, start at multiples of this */
#define ROUND_UP(n, a) (((n) + (a) - 1) / (a) * (a))
#define BLOCK_STRIDE ROUND_UP((size_t)TLZ_BLOCK_BOUND, ALIGN)
#define WORK_STRIDE ROUND_UP((size_t)TLZ_BLOCK_BOUND, ALIGN)
#define SEQS_STRIDE ROUND_UP((size_t)TLZ_MAX_SEQS * sizeof(tlz_seq), ALIGN)
#define PLACE_THREADS 256 /* the one CTA that places a batch's frames (its registers allow 768 at most) */
#define GATHER_THREADS 256 /* per block copied */
#define OUT_THREADS 256
#define OUT_CTAS_PER_SM 4
/* Threads per coding CTA by default, and whether the hash tables are in
 * shared memory. With the encoder of the first version, one thread per CTA
 * with the tables in global memory was the fastest layout on an H200 (3.8
 * GB/s of ids against 3.75 with 4 threads and shared tables); the encoder
 * that keeps its histograms and FSE states in the spent table too made 4
 * threads with shared tables the fastest: 4.45-4.72 GB/s against 3.86-3.97
 * (bench/results/gpu-tlz-2026-11-27*.md). */
#define DEFAULT_CTA_THREADS 4
#define DEFAULT_SHARED_TABLE true
#define MAX_CTA_THREADS 1024
#define TABLE_ENV "GPU_TLZ_TABLE" /* "shared" or "global" */
#define CTA_THREADS_ENV "GPU_TLZ_CTA_THREADS"
#define SMALL_PAGE ((size_t)4096) /* the alignment of host memory that could not be pinned */

/* A frame of a batch, as the kernels see it. */
typedef struct {
    uint64_t src;      /* where its content starts in the batch's device copy */
    uint32_t len;      /* content bytes */
    uint32_t first;    /* its first block's number among the batch's blocks */
    uint32_t checksum; /* the low 32 bits of XXH64 of its content */
} frame_desc;

/* What a batch's kernels read and write (passed by value). */
typedef struct {
    const uint8_t *src;
    const frame_desc *frames;
    uint32_t nframes, nblocks;
    int width;
    uint32_t *next_block;  /* the coding threads' shared counter */
    uint8_t *blocks;       /* block k coded at k * BLOCK_STRIDE */
    uint32_t *block_size;  /* its size, header included */
    uint64_t *block_at;    /* its place in out */
    uint64_t *frame_at;    /* each frame's place in out */
    uint64_t *total;       /* the bytes of out in use */
    uint8_t *out;          /* the frames back to back, each at a multiple of ALIGN */
    uint8_t *host_out;     /* the device's address of mapped host memory for out */
    uint64_t *host_frame_at;    /* likewise for frame_at */
    uint32_t *host_frame_size;  /* likewise for each frame's size */
    uint16_t *tables;      /* per thread, when not in shared memory */
    uint8_t *literals;     /* per thread: TLZ_BLOCK_BYTES */
    tlz_seq *seqs;         /* per thread: SEQS_STRIDE bytes */
    uint8_t *work;         /* per thread: WORK_STRIDE bytes */
} batch_args;

typedef struct {
    int dev;
    cudaStream_t stream;
    cudaEvent_t ev[GPU_TLZ_PHASES + 1]; /* the phases' boundaries */
    batch_args a;
    void *d_mem;           /* every device buffer of a, in one allocation */
    frame_desc *h_frames;  /* pinned: the table copied in */
    uint8_t *h_out;        /* the mapped host memory of a.host_out, a.host_frame_at, a.host_frame_size */
    uint64_t *h_frame_at;
    uint32_t *h_frame_size;
    uint32_t max_grid;     /* coding CTAs launched at most: what the device holds at once */
    uint32_t out_ctas;
    bool busy;
    size_t n;
} tlz_slot;

struct gpu_tlz {
    size_t max_frames, max_frame_bytes, max_blocks;
    bool shared_table;
    int cta_threads;
    int nslots;
    tlz_slot slots[GPU_TLZ_IN_FLIGHT];
    int next_slot;
    double seconds[GPU_TLZ_PHASES];
};

/* A CUDA error while batches run: fatal (the caller cannot tell which frames were written). */
#define CUDA_FATAL(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) dief(EXIT_FATAL, "GPU token encoder: %s: %s", #call, cudaGetErrorString(e_)); \
    } while (0)

/* Whether the kernel just launched could start (a CUDA error is fatal, as above). */
#define LAUNCHED(name)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = cudaGetLastError();                                                       \
        if (e_ != cudaSuccess) dief(EXIT_FATAL, "GPU token encoder: kernel %s: %s", name, cudaGetErrorString(e_)); \
    } while (0)

/* ---- kernels ---- */

/* The frame block k belongs to: the last one whose first block is k or before. */
static __device__ uint32_t frame_of_block(const frame_desc *f, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (f[mid].first <= k) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Codes the batch's blocks, each thread taking the next one until none is left. */
template <bool SHARED_TABLE> static __global__ void code_blocks(batch_args a)
{
    extern __shared__ uint16_t shared_tables[];
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    tlz_scratch s;
    s.table = SHARED_TABLE ? shared_tables + (size_t)threadIdx.x * TABLE_ENTRIES : a.tables + t * TABLE_ENTRIES;
    s.literals = a.literals + t * TLZ_BLOCK_BYTES;
    s.seqs = (tlz_seq *)((uint8_t *)a.seqs + t * SEQS_STRIDE);
    s.work = a.work + t * WORK_STRIDE;
    for (uint32_t k; (k = atomicAdd(a.next_block, 1u)) < a.nblocks;) {
        const frame_desc *f = &a.frames[frame_of_block(a.frames, a.nframes, k)];
        uint32_t i = k - f->first, at = i * TLZ_BLOCK_BYTES;
        uint32_t n = f->len - at < TLZ_BLOCK_BYTES ? f->len - at : TLZ_BLOCK_BYTES;
        int last = i + 1 == tlz_frame_blocks(f->len);
        a.block_size[k] = tlz_block(a.src + f->src + at, n, a.width, last, &s, a.blocks + (size_t)k * BLOCK_STRIDE);
    }
}

/* Places the frames back to back in out (each at a multiple of ALIGN) and their blocks in them. */
static __global__ void __launch_bounds__(PLACE_THREADS) place_frames(batch_args a)
{
    typedef cub::BlockScan<unsigned long long, PLACE_THREADS> scan;
    __shared__ typename scan::TempStorage temp;
    __shared__ unsigned long long carry;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    for (uint32_t base = 0; base < a.nframes; base += PLACE_THREADS) {
        uint32_t i = base + threadIdx.x;
        uint64_t size = 0;
        uint32_t header = 0;
        if (i < a.nframes) {
            const frame_desc *f = &a.frames[i];
            uint8_t scratch[TLZ_FRAME_HEADER_MAX];
            header = tlz_frame_header(f->len, scratch);
            size = header + TLZ_CHECKSUM_BYTES;
            for (uint32_t k = f->first; k < f->first + tlz_frame_blocks(f->len); k++) size += a.block_size[k];
        }
        unsigned long long at, sum;
        scan(temp).ExclusiveSum((unsigned long long)ROUND_UP(size, ALIGN), at, sum);
        at += carry;
        if (i < a.nframes) {
            const frame_desc *f = &a.frames[i];
            a.frame_at[i] = a.host_frame_at[i] = at;
            a.host_frame_size[i] = (uint32_t)size;
            uint64_t p = at + header;
            for (uint32_t k = f->first; k < f->first + tlz_frame_blocks(f->len); k++) {
                a.block_at[k] = p;
                p += a.block_size[k];
            }
        }
        __syncthreads(); /* every thread has read carry */
        if (threadIdx.x == 0) carry += sum;
        __syncthreads();
    }
    if (threadIdx.x == 0) *a.total = carry;
}

/* Copies block blockIdx.x to its place; a frame's first and last blocks' CTAs add its header and checksum. */
static __global__ void __launch_bounds__(GATHER_THREADS) gather_blocks(batch_args a)
{
    uint32_t k = blockIdx.x, size = a.block_size[k];
    const uint8_t *from = a.blocks + (size_t)k * BLOCK_STRIDE;
    uint8_t *to = a.out + a.block_at[k];
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x) to[i] = from[i];
    if (threadIdx.x != 0) return;
    uint32_t fi = frame_of_block(a.frames, a.nframes, k);
    const frame_desc *f = &a.frames[fi];
    if (k == f->first) tlz_frame_header(f->len, a.out + a.frame_at[fi]);
    if (k + 1 == f->first + tlz_frame_blocks(f->len)) tlz_put_le(to + size, f->checksum, TLZ_CHECKSUM_BYTES);
}

/* Copies out[0..total) to the mapped host buffer in 16-byte stores. */
static __global__ void __launch_bounds__(OUT_THREADS) copy_out(batch_args a)
{
    uint64_t units = (*a.total + sizeof(uint4) - 1) / sizeof(uint4);
    const uint4 *from = (const uint4 *)a.out;
    uint4 *to = (uint4 *)a.host_out;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < units; i += (uint64_t)gridDim.x * blockDim.x)
        to[i] = from[i];
}

/* ---- host memory ---- */

extern "C" void *gpu_tlz_alloc_host(size_t bytes)
{
    void *p;
    if (pin_alloc(&p, bytes, PINNED_FLAGS) == cudaSuccess) return p;
    /* not pinned (no device, or the driver refused): plain memory works, more slowly */
    cudaGetLastError();
    size_t rounded = bytes ? ROUND_UP(bytes, SMALL_PAGE) : SMALL_PAGE;
    p = aligned_alloc(SMALL_PAGE, rounded);
    if (!p) dief(EXIT_FATAL, "out of memory (%zu bytes of host memory for the GPU token encoder)", bytes);
    return p;
}

extern "C" void gpu_tlz_free_host(void *p)
{
    if (!p) return;
    if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError(); /* it was plain memory */
    free(p);
}

/* ---- set-up ---- */

extern "C" bool gpu_tlz_usable(wbuf *why)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    cudaDeviceProp prop;
    if (e != cudaSuccess) {
        buf_printf(why, "no usable CUDA device: %s", cudaGetErrorString(e));
        return false;
    }
    if (count == 0) {
        buf_printf(why, "no CUDA device");
        return false;
    }
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) {
        buf_printf(why, "cannot query CUDA device 0: %s", cudaGetErrorString(e));
        return false;
    }
    if (prop.major < MIN_COMPUTE_MAJOR) {
        buf_printf(why, "GPU %s has compute capability %d.%d; winnow's kernels need %d.0 or newer", prop.name,
                   prop.major, prop.minor, MIN_COMPUTE_MAJOR);
        return false;
    }
    return true;
}

/* The coding kernel of g's table placement. */
static const void *code_kernel(const gpu_tlz *g)
{
    return g->shared_table ? (const void *)code_blocks<true> : (const void *)code_blocks<false>;
}

static size_t code_shared_bytes(const gpu_tlz *g)
{
    return g->shared_table ? (size_t)g->cta_threads * TABLE_BYTES : 0;
}

/* Sets device dev up for the coding kernel: its shared memory, and a stack
 * (per-thread local memory) as large as its frame (the Huffman and FSE
 * arrays of tlz_block.h, ~6 KiB), so that no launch has to grow it. */
static int device_setup(gpu_tlz *g, int dev, wbuf *err)
{
    CUDA_TRY(cudaSetDevice(dev));
    int optin = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (g->shared_table && code_shared_bytes(g) > (size_t)optin) {
        g->cta_threads = optin / (int)TABLE_BYTES; /* what fits (the same on every device of a machine) */
        if (g->cta_threads < 1) {
            buf_printf(err, "GPU token encoder: device %d has %d bytes of shared memory per block, less than a hash table",
                       dev, optin);
            return -1;
        }
    }
    const void *k = code_kernel(g);
    CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)code_shared_bytes(g)));
    if (!g->shared_table)
        CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1));
    cudaFuncAttributes attr;
    CUDA_TRY(cudaFuncGetAttributes(&attr, k));
    size_t stack = 0;
    CUDA_TRY(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    if (stack < attr.localSizeBytes) CUDA_TRY(cudaDeviceSetLimit(cudaLimitStackSize, attr.localSizeBytes));
    return 0;
}

/* Sizes of the pieces of a slot's one device allocation, in order. */
enum { M_SRC, M_FRAMES, M_NEXT, M_TOTAL, M_BLOCKS, M_BLOCK_SIZE, M_BLOCK_AT, M_FRAME_AT, M_OUT, M_TABLES, M_LITERALS, M_SEQS, M_WORK, M_PIECES };

static size_t out_bytes(const gpu_tlz *g)
{
    return g->max_frames * ROUND_UP(tlz_frame_bound(g->max_frame_bytes), ALIGN);
}

/* Allocates slot s's buffers on its device and its stream and events. */
static int slot_open(gpu_tlz *g, tlz_slot *s, wbuf *err)
{
    CUDA_TRY(cudaSetDevice(s->dev));
    int sms = 0, per_sm = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, s->dev));
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, code_kernel(g), g->cta_threads, code_shared_bytes(g)));
    if (per_sm < 1) {
        buf_printf(err, "GPU token encoder: device %d cannot run a CTA of %d coding threads", s->dev, g->cta_threads);
        return -1;
    }
    size_t needed = (g->max_blocks + (size_t)g->cta_threads - 1) / (size_t)g->cta_threads;
    s->max_grid = (uint32_t)(needed < (size_t)sms * (size_t)per_sm ? needed : (size_t)sms * (size_t)per_sm);
    s->out_ctas = (uint32_t)sms * OUT_CTAS_PER_SM;
    size_t threads = (size_t)s->max_grid * (size_t)g->cta_threads;

    size_t piece[M_PIECES];
    piece[M_SRC] = g->max_frames * ROUND_UP(g->max_frame_bytes, ALIGN);
    piece[M_FRAMES] = g->max_frames * sizeof(frame_desc);
    piece[M_NEXT] = sizeof(uint32_t);
    piece[M_TOTAL] = sizeof(uint64_t);
    piece[M_BLOCKS] = g->max_blocks * BLOCK_STRIDE;
    piece[M_BLOCK_SIZE] = g->max_blocks * sizeof(uint32_t);
    piece[M_BLOCK_AT] = g->max_blocks * sizeof(uint64_t);
    piece[M_FRAME_AT] = g->max_frames * sizeof(uint64_t);
    piece[M_OUT] = out_bytes(g);
    piece[M_TABLES] = g->shared_table ? 0 : threads * TABLE_BYTES;
    piece[M_LITERALS] = threads * TLZ_BLOCK_BYTES;
    piece[M_SEQS] = threads * SEQS_STRIDE;
    piece[M_WORK] = threads * WORK_STRIDE;
    size_t at[M_PIECES], total = 0;
    for (int i = 0; i < M_PIECES; i++) {
        at[i] = total;
        total += ROUND_UP(piece[i], (size_t)256);
    }
    CUDA_TRY(cudaMalloc(&s->d_mem, total));
    uint8_t *m = (uint8_t *)s->d_mem;
    batch_args *a = &s->a;
    a->src = m + at[M_SRC];
    a->frames = (const frame_desc *)(m + at[M_FRAMES]);
    a->next_block = (uint32_t *)(m + at[M_NEXT]);
    a->total = (uint64_t *)(m + at[M_TOTAL]);
    a->blocks = m + at[M_BLOCKS];
    a->block_size = (uint32_t *)(m + at[M_BLOCK_SIZE]);
    a->block_at = (uint64_t *)(m + at[M_BLOCK_AT]);
    a->frame_at = (uint64_t *)(m + at[M_FRAME_AT]);
    a->out = m + at[M_OUT];
    a->tables = g->shared_table ? NULL : (uint16_t *)(m + at[M_TABLES]);
    a->literals = m + at[M_LITERALS];
    a->seqs = (tlz_seq *)(m + at[M_SEQS]);
    a->work = m + at[M_WORK];

    CUDA_TRY(pin_alloc((void **)&s->h_frames, piece[M_FRAMES], PINNED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_out, piece[M_OUT], MAPPED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_frame_at, piece[M_FRAME_AT], MAPPED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_frame_size, g->max_frames * sizeof(uint32_t), MAPPED_FLAGS));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&a->host_out, s->h_out, 0));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&a->host_frame_at, s->h_frame_at, 0));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&a->host_frame_size, s->h_frame_size, 0));
    CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    for (int i = 0; i <= GPU_TLZ_PHASES; i++) CUDA_TRY(cudaEventCreate(&s->ev[i]));
    return 0;
}

static void slot_close(tlz_slot *s)
{
    cudaSetDevice(s->dev);
    if (s->stream) cudaStreamSynchronize(s->stream);
    for (int i = 0; i <= GPU_TLZ_PHASES; i++)
        if (s->ev[i]) cudaEventDestroy(s->ev[i]);
    if (s->stream) cudaStreamDestroy(s->stream);
    cudaFree(s->d_mem);
    pin_free(s->h_frames);
    pin_free(s->h_out);
    pin_free(s->h_frame_at);
    pin_free(s->h_frame_size);
}

/* Reads the bench knobs (see the top of this file). */
static void read_knobs(gpu_tlz *g)
{
    const char *table = getenv(TABLE_ENV), *threads = getenv(CTA_THREADS_ENV);
    g->shared_table = table ? strcmp(table, "global") != 0 : DEFAULT_SHARED_TABLE;
    g->cta_threads = DEFAULT_CTA_THREADS;
    if (threads && atoi(threads) >= 1 && atoi(threads) <= MAX_CTA_THREADS) g->cta_threads = atoi(threads);
}

extern "C" gpu_tlz *gpu_tlz_open(size_t max_frames, size_t max_frame_bytes, wbuf *err)
{
    if (!gpu_tlz_usable(err)) return NULL;
    if (max_frames < 1 || max_frames > UINT32_MAX || max_frame_bytes > UINT32_MAX) {
        buf_printf(err, "GPU token encoder: batches of %zu frames of %zu bytes are not supported", max_frames,
                   max_frame_bytes);
        return NULL;
    }
    gpu_tlz *g = (gpu_tlz *)xcalloc(1, sizeof(gpu_tlz));
    g->max_frames = max_frames;
    g->max_frame_bytes = max_frame_bytes;
    g->max_blocks = max_frames * tlz_frame_blocks((uint32_t)max_frame_bytes);
    read_knobs(g);
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) ndev = 1;
    g->nslots = GPU_TLZ_IN_FLIGHT;
    int failed = 0;
    for (int d = 0; d < ndev && d < g->nslots && !failed; d++) failed = device_setup(g, d, err);
    for (int i = 0; i < g->nslots && !failed; i++) {
        g->slots[i].dev = i % ndev;
        failed = slot_open(g, &g->slots[i], err);
    }
    if (failed) {
        gpu_tlz_close(g);
        return NULL;
    }
    return g;
}

/* ---- batches ---- */

extern "C" int gpu_tlz_submit(gpu_tlz *g, size_t n, const uint8_t *const *src, const size_t *len, int width,
                              const uint32_t *checksum)
{
    int slot = -1;
    for (int i = 0; i < g->nslots && slot < 0; i++)
        if (!g->slots[(g->next_slot + i) % g->nslots].busy) slot = (g->next_slot + i) % g->nslots;
    if (slot < 0) dief(EXIT_FATAL, "GPU token encoder: more than %d batches submitted at once", g->nslots);
    if (n > g->max_frames || (width != 2 && width != 4))
        dief(EXIT_FATAL, "GPU token encoder: a batch of %zu frames of %d-byte tokens (at most %zu frames)", n, width,
             g->max_frames);
    g->next_slot = (slot + 1) % g->nslots;
    tlz_slot *s = &g->slots[slot];
    batch_args a = s->a;
    uint64_t at = 0;
    uint32_t blocks = 0;
    for (size_t i = 0; i < n; i++) {
        if (len[i] > g->max_frame_bytes || len[i] % (size_t)width)
            dief(EXIT_FATAL, "GPU token encoder: frame %zu of %zu bytes (at most %zu, whole %d-byte tokens)", i, len[i],
                 g->max_frame_bytes, width);
        frame_desc *f = &s->h_frames[i];
        f->src = at;
        f->len = (uint32_t)len[i];
        f->first = blocks;
        f->checksum = checksum[i];
        at += ROUND_UP(len[i], (size_t)ALIGN);
        blocks += tlz_frame_blocks((uint32_t)len[i]);
    }
    a.nframes = (uint32_t)n;
    a.nblocks = blocks;
    a.width = width;

    CUDA_FATAL(cudaSetDevice(s->dev));
    CUDA_FATAL(cudaEventRecord(s->ev[GPU_TLZ_COPY_IN], s->stream));
    for (size_t i = 0; i < n; i++)
        if (len[i])
            CUDA_FATAL(cudaMemcpyAsync((uint8_t *)a.src + s->h_frames[i].src, src[i], len[i], cudaMemcpyHostToDevice,
                                       s->stream));
    CUDA_FATAL(cudaMemcpyAsync((void *)a.frames, s->h_frames, n * sizeof(frame_desc), cudaMemcpyHostToDevice, s->stream));
    CUDA_FATAL(cudaMemsetAsync(a.next_block, 0, sizeof(uint32_t), s->stream));
    CUDA_FATAL(cudaEventRecord(s->ev[GPU_TLZ_CODE], s->stream));
    if (n > 0) {
        uint32_t grid = (blocks + (uint32_t)g->cta_threads - 1) / (uint32_t)g->cta_threads;
        if (grid > s->max_grid) grid = s->max_grid;
        if (g->shared_table)
            code_blocks<true><<<grid, g->cta_threads, code_shared_bytes(g), s->stream>>>(a);
        else
            code_blocks<false><<<grid, g->cta_threads, 0, s->stream>>>(a);
        LAUNCHED("code_blocks");
    }
    CUDA_FATAL(cudaEventRecord(s->ev[GPU_TLZ_COPY_OUT], s->stream));
    if (n > 0) {
        place_frames<<<1, PLACE_THREADS, 0, s->stream>>>(a);
        LAUNCHED("place_frames");
        gather_blocks<<<blocks, GATHER_THREADS, 0, s->stream>>>(a);
        LAUNCHED("gather_blocks");
        copy_out<<<s->out_ctas, OUT_THREADS, 0, s->stream>>>(a);
        LAUNCHED("copy_out");
    }
    CUDA_FATAL(cudaEventRecord(s->ev[GPU_TLZ_PHASES], s->stream));
    /* the caller may reuse src once this returns */
    CUDA_FATAL(cudaEventSynchronize(s->ev[GPU_TLZ_CODE]));
    s->busy = true;
    s->n = n;
    return slot;
}

extern "C" void gpu_tlz_finish(gpu_tlz *g, int slot, uint8_t *const *dst, size_t *size)
{
    if (slot < 0 || slot >= g->nslots || !g->slots[slot].busy)
        dief(EXIT_FATAL, "GPU token encoder: no batch in slot %d", slot);
    tlz_slot *s = &g->slots[slot];
    CUDA_FATAL(cudaSetDevice(s->dev));
    CUDA_FATAL(cudaEventSynchronize(s->ev[GPU_TLZ_PHASES]));
    for (int p = 0; p < GPU_TLZ_PHASES; p++) {
        float ms = 0;
        CUDA_FATAL(cudaEventElapsedTime(&ms, s->ev[p], s->ev[p + 1]));
        g->seconds[p] += ms / 1e3;
    }
    for (size_t i = 0; i < s->n; i++) {
        size[i] = s->h_frame_size[i];
        memcpy(dst[i], s->h_out + s->h_frame_at[i], size[i]);
    }
    s->busy = false;
}

extern "C" void gpu_tlz_phase_seconds(const gpu_tlz *g, double seconds[GPU_TLZ_PHASES])
{
    for (int p = 0; p < GPU_TLZ_PHASES; p++) seconds[p] = g->seconds[p];
}

extern "C" void gpu_tlz_close(gpu_tlz *g)
{
    if (!g) return;
    for (int i = 0; i < g->nslots; i++) slot_close(&g->slots[i]);
    free(g);
}
