/* bpe.cu - the GPU tokenizer: kernels, their host emulation, and the
 * batching pipeline (see bpe.h).
 *
 * One batch is a run of segments (documents, or pieces of documents longer
 * than a batch cut at safe points) packed back to back. Per batch:
 *   1. cut:    one thread per slot of slot_bytes finds the slot's first
 *              chunk start: a segment start or a safe cut (gb_find_cut), if
 *              any;
 *   2. encode: one thread per chunk (a slot with a cut, up to the next cut)
 *              pre-tokenises its text and looks each piece up, writing ids
 *              at the chunk's own byte offset in a scratch array (a piece
 *              never has more ids than bytes). A piece that is not one
 *              token gets a marker and joins a merge queue, so that no
 *              thread merges while the rest of its warp waits;
 *   3. merge:  one thread per queued piece merges it (gb_merge) into a
 *              scratch array at the piece's byte offset. The queue is kept
 *              in buckets by piece length, so a warp's pieces take about
 *              as long as each other, and the longest go first; pieces of
 *              33-128 bytes get a warp each (gb_merge_warp), so that none
 *              takes one thread O(n^2) steps of O(n);
 *   4. scan:   exclusive sum of the per-chunk id counts (CUB);
 *   5. gather: one warp per chunk expands the markers and writes its ids
 *              to their final place; per-segment first ids follow, and a
 *              copy kernel moves the ids to mapped pinned host memory in
 *              16-byte stores (a copy engine would need their number on
 *              the host first).
 * NSLOTS batch slots rotate on their own streams, so batch b's transfer and
 * kernels run while the host packs the next batch and unpacks an earlier
 * one. Batches start small and end small, so that the device starts early
 * and the host's last unpack is short.
 *
 * Every device CUDA sees (CUDA_VISIBLE_DEVICES selects them) gets its own
 * copy of the tables and NSLOTS batch slots; slot i belongs to device
 * i % ndevs, so consecutive batches go to the devices in turn, and since
 * slots are unpacked in the order they were launched, the ids come out in
 * input order whichever device finishes first. The first device is set up
 * before gpu_bpe_open returns; the others each on a thread of their own
 * afterwards, joining at the next call once ready, so that start-up waits
 * for one device only. A device whose CUDA call fails is retired: that
 * call fails (its caller encodes the documents on the CPU) and later calls
 * use the devices left. */
extern "C" {
#include "gpu/bpe.h"
#include "core/pool.h"
#include "core/util.h"
#include "tokenize/hf_gpu.h"
#include "tokenize/hf_pipeline.h" /* before gpu/bpe_device.h, which includes it too: C linkage */
}

#include <atomic>
#include <pthread.h>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu/bpe_device.h"
#include "gpu/pinned.h"

#define SLOT_BYTES 64                       /* text per cut-finding thread, by default */
#define MIN_SLOT_BYTES 64
#define MAX_SLOT_BYTES 4096
#define BATCH_BYTES ((size_t)32 << 20)      /* text per batch, by default */
#define MIN_BATCH_BYTES ((size_t)4 << 20)   /* the first and the last batches of a call */
#define RAMP_STEPS 16 /* a call's first batches double from MIN_BATCH_BYTES this many times at most */
#define MAX_BATCH_BYTES ((size_t)256 << 20) /* offsets and markers stay below 2^30 */
#define BATCH_SEGS ((size_t)1 << 20)        /* segments per batch */
#define NO_CUT UINT32_MAX
#define NO_FIRST UINT32_MAX
#define THREADS 128
#define WARP 32
#define FULL_WARP 0xFFFFFFFFu
#define MIN_COMPUTE_MAJOR 9 /* the kernels are built for sm_90 */
#define NSLOTS 3             /* batches in flight per device */
#define MAX_DEVICES 16       /* devices used at most (the first 16 CUDA sees) */
/* Tests: how many devices the host emulation pretends to have (default 1),
 * and one of them whose every batch fails, as a device that dies mid-run. */
#define EMULATE_DEVICES_ENV "GPU_BPE_EMULATE_DEVICES"
#define EMULATE_FAIL_ENV "GPU_BPE_EMULATE_FAIL_DEVICE"
/* cudaHostRegisterPortable: pinned for every device, not only the current one. */
#define HOST_THREADS_MAX 16  /* threads that pack texts and unpack ids */
#define COPY_BLOCKS_PER_SM 4
/* Ids per part of the unpack copy (1 MiB), which threads take one at a time. */
#define UNPACK_PART_IDS ((uint32_t)1 << 18)
#define UNPACK_MIN_PARTS 4 /* per thread, at least */
/* A batch's long pieces are merged by the calling thread when they hold
 * fewer bytes than this, else on the pool: waking the pool's threads while
 * the command's scanner keeps the cores busy cost ~1.3 ms a batch on the
 * device (8.5 GB to bin: 0.31-0.34 s in all, against 0.07 s on the calling
 * thread, ~120 MB/s of long pieces; bench/results/gpu-tokenize-direct-
 * 2026-11-27.md), as much as merging ~150 KB of them. */
#define LONG_ON_CALLER_BYTES ((size_t)256 << 10)
#define DEV_TABLES 12 /* device copies of tables: class stages, vocabulary (5), pairs, bytes, merges */
#define NFC_FIRST_LEAD 0xCC  /* UTF-8 lead byte of U+0300, the first character NFC may change */

/* Markers in the scratch ids (real ids stay below 2^24): a piece merged on
 * the device (low bits: its merge queue entry) or on the host (low bits: its
 * long piece number). */
#define GB_MERGED 0x40000000u
#define GB_LONG_PIECE 0x80000000u
#define GB_MARK_INDEX 0x3FFFFFFFu

/* Merge queue buckets by piece length: 2-8, 9-16, 17-32, 33-64, 65-128;
 * those from WARP_BUCKETS on are merged a warp per piece, the others a
 * thread per piece. */
#define NBUCKETS 5
#define WARP_BUCKETS 3
#define BYTES_PER_MERGE_THREAD 16  /* threads launched: enough for a merge every 16 bytes */
#define BYTES_PER_MERGE_WARP 4096  /* warps launched: one per 4 KB */

static HD uint32_t bucket_of(uint32_t len) { return len <= 8 ? 0 : len <= 16 ? 1 : len <= 32 ? 2 : len <= 64 ? 3 : 4; }

/* Most entries bucket b can get in a batch of nbytes (each covers at least its shortest length). */
static HD uint32_t bucket_cap(uint32_t b, size_t nbytes)
{
    uint32_t shortest = b == 0 ? 2 : (4u << b) + 1;
    return (uint32_t)(nbytes / shortest + 1);
}

/* Counters a batch reports back. */
typedef struct {
    uint32_t total; /* ids in the batch */
    uint32_t nlong; /* long pieces left to the host */
} gb_info;

/* Long piece: batch byte offset and length, and where its marker lands
 * among the batch's ids. */
typedef struct {
    uint32_t off, len, at;
} gb_long;

/* A piece queued for merging: batch byte offset, chunk, length, and (once
 * merged) how many ids it became. */
typedef struct {
    uint32_t p, chunk;
    uint16_t len, nids;
} gb_merge_piece;

/* Device counters, zeroed per batch. */
typedef struct {
    uint32_t nlong;
    uint32_t nmerge[NBUCKETS];
    uint32_t total; /* ids in the batch, once gathered */
} gb_counters;

/* Arrays one batch works in (device pointers; host_ids, first, longs and
 * info are mapped host memory). */
typedef struct {
    const uint8_t *text;
    const uint32_t *seg_off; /* nseg + 1 */
    uint32_t nbytes, nseg, nslots, slot_bytes;
    uint32_t *cut, *cut_seg, *raw, *count, *off, *tmp, *seg_chunk, *seg_local;
    gb_merge_piece *merges;       /* bucket b's entries from merge_base[b] */
    uint32_t merge_base[NBUCKETS];
    uint32_t *merged;             /* merged ids, at their piece's byte offset */
    gb_counters *counters;
    gb_long *longs;
    uint32_t *ids;      /* gathered (emulation: host_ids itself) */
    uint32_t *host_ids; /* where the host reads them */
    uint32_t *first;    /* per segment */
    gb_info *info;
} gb_batch;

/* ---- per-thread bodies (device and emulation) ---- */

static HD uint32_t seg_containing(const uint32_t *seg_off, uint32_t nseg, uint32_t p)
{
    uint32_t lo = 0, hi = nseg + 1; /* first index with seg_off > p, minus one */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (seg_off[mid] <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

static HD void cut_body(const gb_tables *t, const gb_batch *b, uint32_t k)
{
    uint32_t lo = k * b->slot_bytes, hi = lo + b->slot_bytes < b->nbytes ? lo + b->slot_bytes : b->nbytes;
    uint32_t d = seg_containing(b->seg_off, b->nseg, lo);
    uint32_t ds = b->seg_off[d], de = b->seg_off[d + 1], cut = NO_CUT;
    if (ds == lo) cut = lo;
    else {
        size_t p = gb_find_cut(t, b->text + ds, de - ds, lo - ds, (hi < de ? hi : de) - ds);
        if (p) cut = ds + (uint32_t)p;
        else if (de < hi) cut = de;
    }
    b->cut[k] = cut;
    b->cut_seg[k] = d; /* a segment at or before the cut */
}

/* A fresh index from counter, shared out among the lanes that ask for the
 * same counter at once (one atomic per counter and warp). */
static HD uint32_t take_index(uint32_t *counter)
{
#ifdef __CUDA_ARCH__
    uint32_t active = __activemask(), lane = threadIdx.x % WARP;
    uint32_t peers = __match_any_sync(active, (unsigned long long)counter);
    uint32_t leader = __ffs(peers) - 1, base = 0;
    if (lane == leader) base = atomicAdd(counter, __popc(peers));
    base = __shfl_sync(peers, base, leader);
    return base + __popc(peers & ((1u << lane) - 1));
#else
    return (*counter)++;
#endif
}

static HD void add_count(uint32_t *count, uint32_t n)
{
#ifdef __CUDA_ARCH__
    atomicAdd(count, n);
#else
    *count += n;
#endif
}

/* Writes the ids (or a marker) of piece text[p, p+len) of chunk k at out; returns how many. */
static HD uint32_t encode_piece(const gb_tables *t, const gb_batch *b, uint32_t k, uint32_t p, uint32_t len,
                                uint32_t *out)
{
    const uint8_t *s = b->text + p;
    if (len == 1) {
        out[0] = t->byte_id[s[0]];
        return 1;
    }
    /* a piece that is a token is that token (tiktoken; tokenizer.json with
     * ignore_merges; without, when its merges lead back to it) */
    uint32_t id = len == 2 ? t->pair_id[s[0] | (unsigned)s[1] << 8] : gb_vocab_find(t, s, len);
    if (id != VOCAB_NO_TOKEN && t->merges && !t->ignore_merges && !t->whole[id]) id = VOCAB_NO_TOKEN;
    if (id != VOCAB_NO_TOKEN) {
        out[0] = id;
        return 1;
    }
    if (t->merges && len == 2) { /* by pair rank: one merge or none */
        uint32_t rank, left = t->byte_id[s[0]], right = t->byte_id[s[1]];
        id = gb_pair_merge(t, left, right, &rank);
        if (rank != GB_NO_RANK) {
            out[0] = id;
            return 1;
        }
        out[0] = left, out[1] = right;
        return 2;
    }
    if (len <= GB_MERGE_MAX) {
        uint32_t bk = bucket_of(len), i = b->merge_base[bk] + take_index(&b->counters->nmerge[bk]);
        b->merges[i] = (gb_merge_piece){p, k, (uint16_t)len, 0};
        out[0] = GB_MERGED | i;
        return 1;
    }
    uint32_t i = take_index(&b->counters->nlong);
    b->longs[i] = (gb_long){p, len, 0};
    out[0] = GB_LONG_PIECE | i;
    return 1;
}

static HD void encode_body(const gb_tables *t, const gb_batch *b, uint32_t k)
{
    uint32_t p = b->cut[k];
    if (p == NO_CUT) {
        b->raw[k] = b->count[k] = 0;
        return;
    }
    uint32_t j = k + 1;
    while (j < b->nslots && b->cut[j] == NO_CUT) j++;
    uint32_t e = j < b->nslots ? b->cut[j] : b->nbytes;
    uint32_t d = b->cut_seg[k], m = 0;
    uint32_t *out = b->tmp + p;
    size_t barrier = 0; /* gb_pretok_next's, for document d */
    while (p < e) {
        while (b->seg_off[d + 1] <= p) d++, barrier = 0;
        uint32_t ds = b->seg_off[d], n = b->seg_off[d + 1] - ds;
        if (p == ds) {
            b->seg_chunk[d] = k;
            b->seg_local[d] = m;
        }
        uint32_t stop = (e < ds + n ? e : ds + n) - ds;
        uint32_t end = ds + (uint32_t)gb_pretok_next(t, b->text + ds, n, p - ds, stop, &barrier);
        m += encode_piece(t, b, k, p, end - p, out + m);
        p = end;
    }
    b->raw[k] = b->count[k] = m;
}

/* Merges queue entry i and adds its extra ids to its chunk's count. */
static HD void merge_body(const gb_tables *t, const gb_batch *b, uint32_t i)
{
    gb_merge_piece *m = &b->merges[i];
    uint32_t n = gb_merge(t, b->text + m->p, m->len, b->merged + m->p);
    m->nids = (uint16_t)n;
    add_count(&b->count[m->chunk], n - 1);
}

/* The queue entry of the i-th merge in buckets lo..hi-1 (bucket by bucket,
 * the longest pieces first, so that they start first), or UINT32_MAX past
 * the last. */
static HD uint32_t merge_entry(const gb_batch *b, uint32_t i, uint32_t lo, uint32_t hi)
{
    for (uint32_t bk = hi; bk-- > lo;) {
        uint32_t n = b->counters->nmerge[bk];
        if (i < n) return b->merge_base[bk] + i;
        i -= n;
    }
    return UINT32_MAX;
}

/* How many ids scratch entry id stands for (long pieces count 1 until the host expands them). */
static HD uint32_t ids_of(const gb_batch *b, uint32_t id)
{
    return id & GB_MERGED ? b->merges[id & GB_MARK_INDEX].nids : 1;
}

/* Writes the ids scratch entry id stands for at dst (a long piece's
 * marker as it is, noting where it lands). */
static HD void put_ids(const gb_batch *b, uint32_t id, uint32_t *dst)
{
    if (!(id & GB_MERGED)) {
        dst[0] = id;
        if (id & GB_LONG_PIECE) b->longs[id & GB_MARK_INDEX].at = (uint32_t)(dst - b->ids);
        return;
    }
    const gb_merge_piece *m = &b->merges[id & GB_MARK_INDEX];
    for (uint32_t j = 0; j < m->nids; j++) dst[j] = b->merged[m->p + j];
}

static HD void first_body(const gb_batch *b, uint32_t d)
{
    if (b->seg_off[d] == b->seg_off[d + 1]) {
        b->first[d] = NO_FIRST;
        return;
    }
    uint32_t k = b->seg_chunk[d], at = b->off[k];
    const uint32_t *src = b->tmp + b->cut[k];
    for (uint32_t r = 0; r < b->seg_local[d]; r++) at += ids_of(b, src[r]);
    b->first[d] = at;
}

/* One thread's share of the gather (emulation): chunk k's ids in order. */
static void gather_body(const gb_batch *b, uint32_t k)
{
    const uint32_t *src = b->tmp + b->cut[k];
    uint32_t *dst = b->ids + b->off[k];
    for (uint32_t r = 0; r < b->raw[k]; r++) {
        put_ids(b, src[r], dst);
        dst += ids_of(b, src[r]);
    }
}

/* ---- kernels ---- */

__global__ void cut_kernel(gb_tables t, gb_batch b)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < b.nslots) cut_body(&t, &b, k);
}

__global__ void encode_kernel(gb_tables t, gb_batch b)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < b.nslots) encode_body(&t, &b, k);
}

__global__ void merge_kernel(gb_tables t, gb_batch b)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;; i += gridDim.x * blockDim.x) {
        uint32_t e = merge_entry(&b, i, 0, WARP_BUCKETS);
        if (e == UINT32_MAX) return;
        merge_body(&t, &b, e);
    }
}

/* One warp per piece of the buckets from WARP_BUCKETS on (gb_merge_warp). */
__global__ void merge_warp_kernel(gb_tables t, gb_batch b)
{
    __shared__ gb_warp_merge work[THREADS / WARP];
    uint32_t lane = threadIdx.x % WARP, nwarps = gridDim.x * blockDim.x / WARP;
    gb_warp_merge *w = &work[threadIdx.x / WARP];
    for (uint32_t k = (blockIdx.x * blockDim.x + threadIdx.x) / WARP;; k += nwarps) {
        uint32_t e = merge_entry(&b, k, WARP_BUCKETS, NBUCKETS);
        if (e == UINT32_MAX) return;
        gb_merge_piece *m = &b.merges[e];
        uint32_t n = gb_merge_warp(&t, b.text + m->p, m->len, b.merged + m->p, w);
        if (lane == 0) {
            m->nids = (uint16_t)n;
            atomicAdd(&b.count[m->chunk], n - 1);
        }
        __syncwarp();
    }
}

/* One warp per chunk: each lane takes one scratch entry of a window of 32,
 * a warp scan of their id counts gives each its place. */
__global__ void gather_kernel(gb_batch b)
{
    uint32_t k = (blockIdx.x * blockDim.x + threadIdx.x) / WARP, lane = threadIdx.x % WARP;
    if (k >= b.nslots) return;
    uint32_t n = b.raw[k], at = b.off[k];
    const uint32_t *src = b.tmp + (n ? b.cut[k] : 0);
    for (uint32_t w = 0; w < n; w += WARP) {
        uint32_t id = 0, size = 0;
        if (w + lane < n) id = src[w + lane], size = ids_of(&b, id);
        uint32_t end = size; /* inclusive scan */
        for (uint32_t d = 1; d < WARP; d *= 2) {
            uint32_t y = __shfl_up_sync(FULL_WARP, end, d);
            if (lane >= d) end += y;
        }
        if (size) put_ids(&b, id, b.ids + at + end - size);
        at += __shfl_sync(FULL_WARP, end, WARP - 1);
    }
    if (k == b.nslots - 1 && lane == 0) {
        b.counters->total = b.info->total = at;
        b.info->nlong = b.counters->nlong;
    }
}

/* Copies the gathered ids to mapped host memory, 16 bytes per thread and
 * step, so that each warp writes whole 512-byte runs over PCIe. */
__global__ void copy_ids_kernel(gb_batch b)
{
    uint32_t n = b.counters->total, stride = gridDim.x * blockDim.x, tid = blockIdx.x * blockDim.x + threadIdx.x;
    const uint4 *src = (const uint4 *)b.ids;
    uint4 *dst = (uint4 *)b.host_ids;
    for (uint32_t i = tid; i < n / 4; i += stride) dst[i] = src[i];
    if (tid < n % 4) b.host_ids[n / 4 * 4 + tid] = b.ids[n / 4 * 4 + tid];
}

__global__ void first_kernel(gb_batch b)
{
    uint32_t d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d < b.nseg) first_body(&b, d);
}

/* ---- host side ---- */

/* A stretch of one document that goes to the device whole (or, cpu set,
 * that the host encodes because no safe cut splits it into batches). */
typedef struct {
    size_t doc;
    const uint8_t *text;
    size_t len;
    bool cpu;
} segment;

typedef struct {
    /* host */
    uint8_t *h_text;     /* pinned */
    uint32_t *h_seg_off; /* pinned */
    gb_info *h_info;     /* mapped */
    uint32_t *h_ids, *h_first;
    gb_long *h_longs;
    /* device */
    gb_batch b;
    uint8_t *d_text;
    uint32_t *d_seg_off;
    void *d_cub;
    size_t cub_bytes;
    cudaStream_t stream;
    cudaEvent_t phase[GPU_BPE_PHASES + 1]; /* before cut, encode, merge, scan, gather, copy; after copy */
    /* which segments it holds, of which call's segment array; where their ids go */
    const segment *segs;
    size_t seg_begin, seg_end;
    tok_ids *out;
    size_t *doc_end;
    gpu_bpe_id_sink *sink; /* NULL: the ids come to h_ids (copy kernel) and are copied into out */
    unsigned call; /* the encode call that launched it */
    bool busy;
    /* the device's copy of its last batch's ids into a sink's place (fetch_ids), not yet waited for */
    cudaEvent_t copied;
    bool copy_pending;
    unsigned copy_call; /* the call that launched that batch */
    int dev; /* index in gpu_bpe.devs */
} batch_slot;

/* Where a device's set-up stands (written by its set-up thread, read by the caller's). */
enum { SETUP_RUNNING = 0, SETUP_DONE, SETUP_FAILED };

/* One device: its CUDA number, its copies of the tables, and whether it failed. */
typedef struct {
    int id;            /* CUDA device number (emulated: 0, 1, ...) */
    std::atomic<int> setup; /* SETUP_*: batches go to it once DONE */
    wbuf setup_err;    /* why its set-up failed */
    bool setup_thread; /* set up by a thread not yet joined */
    pthread_t thread;
    gpu_bpe *owner;    /* for that thread */
    int index;         /* in owner->devs */
    gb_tables tables;  /* device copies (unused when emulated) */
    void *mem[DEV_TABLES];
    int nmem;
    int copy_blocks;   /* blocks of copy_ids_kernel: a few per SM */
    bool failed;       /* its set-up or a CUDA call on it failed: no more batches go to it */
    bool emulate_fail; /* tests: every batch on it fails (EMULATE_FAIL_ENV) */
    double kernel_seconds;
    size_t batches;    /* launched on it since open */
} gb_device;

struct gpu_bpe {
    const tokenizer *tok;
    gpu_bpe_mode mode;
    gb_tables host_tables;
    gb_device devs[MAX_DEVICES];
    int ndevs;
    batch_slot slots[NSLOTS * MAX_DEVICES]; /* slot i on device i % ndevs */
    size_t batch_bytes; /* what the slots hold */
    double kernel_seconds, phase_seconds[GPU_BPE_PHASES], host_seconds[GPU_BPE_HOST_PHASES];
    uint32_t slot_bytes;
    bool overlap;  /* false: one batch at a time, on the first device left, to time kernels alone */
    int turn;      /* the next call's first slot, in the rotation (calls continue it) */
    int host_threads;
    wpool *pool;
    bpe_scratch scratch[HOST_THREADS_MAX];
    tok_ids long_ids[HOST_THREADS_MAX]; /* long pieces' ids, by the thread that merged them */
    uint32_t *long_at, *long_n;         /* per long piece: where in long_ids[i % long_threads], how many */
    int long_threads;                   /* threads that merged the last batch's long pieces */
    /* this call's segments; two arrays in turn, so that a call's batches left in flight
     * (gpu_bpe_encode_begin) keep theirs while the next call makes its own */
    segment *seg_bufs[2];
    size_t seg_caps[2], nsegs;
    int seg_buf;
    unsigned call; /* encode calls so far */
    /* batches of an earlier call still in flight (gpu_bpe_encode_begin), and the slot order they went in */
    bool in_flight;
    int flight_order[NSLOTS * MAX_DEVICES], flight_n;
    bool keep_in_flight; /* this call may return with batches in flight: no short batches at its end */
    /* a tokenizer.json with an NFC normalizer: the texts NFC may change, normalized */
    bool nfc;
    wbuf nfc_text[HOST_THREADS_MAX]; /* by the thread that normalized them */
    const char **nfc_texts;
    size_t *nfc_lens, *nfc_off, nfc_cap;
    uint8_t *whole; /* gb_tables.whole on the host */
    size_t packed, unpacked_bytes; /* batches packed in this call; bytes of segments not yet packed */
    bool texts_pinned; /* this call's texts lie in gpu_bpe_host_register() memory: sent from there, not packed */
};

extern "C" bool gpu_bpe_maybe_present(void) { return access("/dev/nvidiactl", F_OK) == 0; }

extern "C" bool gpu_bpe_usable(wbuf *why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        buf_printf(why, "no usable CUDA device: %s", cudaGetErrorString(e));
        return false;
    }
    if (n == 0) {
        buf_printf(why, "no CUDA device");
        return false;
    }
    return true;
}

/* Copies n bytes to new memory on device d (the current one). */
static int to_device(gb_device *d, const void *src, size_t n, const void **dst, wbuf *err)
{
    void *p;
    CUDA_TRY(cudaMalloc(&p, n ? n : 1));
    d->mem[d->nmem++] = p;
    CUDA_TRY(cudaMemcpy(p, src, n, cudaMemcpyHostToDevice));
    *dst = p;
    return 0;
}

/* The tables on the host; for a tokenizer.json, plan says how it splits. */
static void host_tables(const tokenizer *t, const hf_gpu_plan *plan, gb_tables *ht)
{
    const tok_vocab *v = &t->vocab;
    const uclass_table *classes = t->hf ? &uclass_onig : &uclass_tiktoken;
    ht->stage1 = classes->stage1;
    ht->stage2 = &classes->stage2[0][0];
    ht->nblocks = classes->nblocks;
    ht->slots = v->slots;
    ht->mask = v->mask;
    ht->bytes = v->bytes;
    ht->tok_off = v->tok_off;
    ht->tok_rank = v->tok_rank;
    ht->pair_id = v->pair_id;
    ht->byte_id = v->byte_id;
    ht->family = (int)t->family;
    ht->max_digits = plan ? plan->max_digits : 3;
    ht->contractions = plan ? plan->contractions : true;
    ht->invalid_barrier = plan && plan->invalid_barrier;
    ht->merges = NULL;
    if (t->hf) {
        ht->family = plan->family;
        ht->merges = t->hf->bpe.merges;
        ht->merges_mask = t->hf->bpe.merges_mask;
        ht->ignore_merges = t->hf->bpe.ignore_merges;
    }
    ht->whole = NULL;
}

/* Copies the tables to device dev (made current). */
static int device_tables(gpu_bpe *g, gb_device *dev, wbuf *err)
{
    const tok_vocab *v = &g->tok->vocab;
    gb_tables *d = &dev->tables;
    *d = g->host_tables;
    CUDA_TRY(cudaSetDevice(dev->id));
    const void *p;
    if (to_device(dev, d->stage1, (UCLASS_MAX_CP + 1) / UCLASS_BLOCK * sizeof *d->stage1, &p, err)) return -1;
    d->stage1 = (const uint16_t *)p;
    if (to_device(dev, d->stage2, (size_t)d->nblocks * UCLASS_BLOCK, &p, err)) return -1;
    d->stage2 = (const uint8_t *)p;
    if (to_device(dev, v->slots, ((size_t)v->mask + 1) * sizeof *v->slots, &p, err)) return -1;
    d->slots = (const vocab_slot *)p;
    if (to_device(dev, v->bytes, v->nbytes, &p, err)) return -1;
    d->bytes = (const uint8_t *)p;
    if (to_device(dev, v->tok_off, (size_t)v->nids * sizeof *v->tok_off, &p, err)) return -1;
    d->tok_off = (const uint64_t *)p;
    d->tok_rank = NULL;
    if (v->tok_rank) {
        if (to_device(dev, v->tok_rank, (size_t)v->nids * sizeof *v->tok_rank, &p, err)) return -1;
        d->tok_rank = (const uint32_t *)p;
    }
    if (to_device(dev, v->pair_id, (size_t)65536 * sizeof *v->pair_id, &p, err)) return -1;
    d->pair_id = (const uint32_t *)p;
    if (to_device(dev, v->byte_id, sizeof v->byte_id, &p, err)) return -1;
    d->byte_id = (const uint32_t *)p;
    if (d->merges) {
        if (to_device(dev, d->merges, ((size_t)d->merges_mask + 1) * sizeof *d->merges, &p, err)) return -1;
        d->merges = (const hf_merge_slot *)p;
    }
    if (d->whole) {
        if (to_device(dev, d->whole, v->nids, &p, err)) return -1;
        d->whole = (const uint8_t *)p;
    }
    int sms = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev->id));
    dev->copy_blocks = (sms > 0 ? sms : 1) * COPY_BLOCKS_PER_SM;
    return 0;
}

static size_t max_slots(size_t batch_bytes) { return batch_bytes / MIN_SLOT_BYTES + 1; }
static size_t max_longs(size_t batch_bytes) { return batch_bytes / (GB_MERGE_MAX + 1) + 1; }

/* Sets the merge queue's bucket bases for batches of up to batch_bytes; returns the entries it needs. */
static size_t merge_layout(gb_batch *b, size_t batch_bytes)
{
    size_t n = 0;
    for (uint32_t bk = 0; bk < NBUCKETS; bk++) {
        b->merge_base[bk] = (uint32_t)n;
        n += bucket_cap(bk, batch_bytes);
    }
    return n;
}

/* Allocates a batch slot's buffers for batches of g->batch_bytes: on its
 * device (ids, first ids, long pieces and counters in mapped host memory),
 * or (emulation) on the host. */
static int slot_alloc(gpu_bpe *g, batch_slot *s, wbuf *err)
{
    gb_batch *b = &s->b;
    size_t bytes = g->batch_bytes, nslots = max_slots(bytes), nlongs = max_longs(bytes);
    size_t nmerges = merge_layout(b, bytes);
    if (g->mode == GPU_BPE_EMULATE) {
        s->h_text = (uint8_t *)xmalloc(bytes);
        s->h_seg_off = (uint32_t *)xmalloc((BATCH_SEGS + 1) * sizeof(uint32_t));
        s->h_info = (gb_info *)xmalloc(sizeof(gb_info));
        s->h_ids = (uint32_t *)xmalloc(bytes * sizeof(uint32_t));
        s->h_first = (uint32_t *)xmalloc(BATCH_SEGS * sizeof(uint32_t));
        s->h_longs = (gb_long *)xmalloc(nlongs * sizeof(gb_long));
        b->cut = (uint32_t *)xmalloc(nslots * sizeof(uint32_t));
        b->cut_seg = (uint32_t *)xmalloc(nslots * sizeof(uint32_t));
        b->raw = (uint32_t *)xmalloc(nslots * sizeof(uint32_t));
        b->count = (uint32_t *)xmalloc(nslots * sizeof(uint32_t));
        b->off = (uint32_t *)xmalloc(nslots * sizeof(uint32_t));
        b->tmp = (uint32_t *)xmalloc(bytes * sizeof(uint32_t));
        b->merged = (uint32_t *)xmalloc(bytes * sizeof(uint32_t));
        b->merges = (gb_merge_piece *)xmalloc(nmerges * sizeof(gb_merge_piece));
        b->seg_chunk = (uint32_t *)xmalloc(BATCH_SEGS * sizeof(uint32_t));
        b->seg_local = (uint32_t *)xmalloc(BATCH_SEGS * sizeof(uint32_t));
        b->counters = (gb_counters *)xmalloc(sizeof(gb_counters));
        b->text = s->h_text;
        b->seg_off = s->h_seg_off;
        b->longs = s->h_longs;
        b->ids = b->host_ids = s->h_ids;
        b->first = s->h_first;
        b->info = s->h_info;
        return 0;
    }
    CUDA_TRY(cudaSetDevice(g->devs[s->dev].id));
    CUDA_TRY(pin_alloc((void **)&s->h_text, bytes, PINNED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_seg_off, (BATCH_SEGS + 1) * sizeof(uint32_t), PINNED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_info, sizeof(gb_info), MAPPED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_ids, bytes * sizeof(uint32_t), MAPPED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_first, BATCH_SEGS * sizeof(uint32_t), MAPPED_FLAGS));
    CUDA_TRY(pin_alloc((void **)&s->h_longs, nlongs * sizeof(gb_long), MAPPED_FLAGS));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&b->info, s->h_info, 0));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&b->host_ids, s->h_ids, 0));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&b->first, s->h_first, 0));
    CUDA_TRY(cudaHostGetDevicePointer((void **)&b->longs, s->h_longs, 0));
    CUDA_TRY(cudaMalloc((void **)&s->d_text, bytes));
    CUDA_TRY(cudaMalloc((void **)&s->d_seg_off, (BATCH_SEGS + 1) * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->cut, nslots * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->cut_seg, nslots * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->raw, nslots * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->count, nslots * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->off, nslots * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->tmp, bytes * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->merged, bytes * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->ids, bytes * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->merges, nmerges * sizeof(gb_merge_piece)));
    CUDA_TRY(cudaMalloc((void **)&b->seg_chunk, BATCH_SEGS * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->seg_local, BATCH_SEGS * sizeof(uint32_t)));
    CUDA_TRY(cudaMalloc((void **)&b->counters, sizeof(gb_counters)));
    b->text = s->d_text;
    b->seg_off = s->d_seg_off;
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, s->cub_bytes, b->count, b->off, (int)nslots));
    CUDA_TRY(cudaMalloc(&s->d_cub, s->cub_bytes));
    CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    for (int i = 0; i <= GPU_BPE_PHASES; i++) CUDA_TRY(cudaEventCreate(&s->phase[i]));
    CUDA_TRY(cudaEventCreateWithFlags(&s->copied, cudaEventDisableTiming));
    return 0;
}

static void slot_free(gpu_bpe *g, batch_slot *s)
{
    gb_batch *b = &s->b;
    if (g->mode == GPU_BPE_EMULATE) {
        free(s->h_text), free(s->h_seg_off), free(s->h_info), free(s->h_ids), free(s->h_first);
        free(s->h_longs), free(b->cut), free(b->cut_seg), free(b->raw), free(b->count), free(b->off);
        free(b->tmp), free(b->merged), free(b->merges), free(b->seg_chunk), free(b->seg_local), free(b->counters);
    } else {
        cudaSetDevice(g->devs[s->dev].id);
        if (s->stream) cudaStreamSynchronize(s->stream);
        pin_free(s->h_text), pin_free(s->h_seg_off), pin_free(s->h_info), pin_free(s->h_ids);
        pin_free(s->h_first), pin_free(s->h_longs);
        cudaFree(s->d_text), cudaFree(s->d_seg_off), cudaFree(b->cut), cudaFree(b->cut_seg), cudaFree(b->raw);
        cudaFree(b->count), cudaFree(b->off), cudaFree(b->tmp), cudaFree(b->merged), cudaFree(b->merges), cudaFree(b->ids);
        cudaFree(b->seg_chunk), cudaFree(b->seg_local), cudaFree(b->counters), cudaFree(s->d_cub);
        if (s->stream) cudaStreamDestroy(s->stream);
        for (int i = 0; i <= GPU_BPE_PHASES; i++)
            if (s->phase[i]) cudaEventDestroy(s->phase[i]);
        if (s->copied) cudaEventDestroy(s->copied);
    }
    int dev = s->dev;
    memset(s, 0, sizeof *s);
    s->dev = dev;
}

/* A whole number from environment variable name, or fallback when it is unset or not one. */
static bool device_usable(gpu_bpe *g, gb_device *d);

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    return v && *v && !*end ? (int)n : fallback;
}

/* Finds the devices: every one CUDA sees (CUDA_VISIBLE_DEVICES selects
 * them) that can run the kernels, up to MAX_DEVICES; emulated, as many as
 * EMULATE_DEVICES_ENV says (default 1). */
static int find_devices(gpu_bpe *g, wbuf *err)
{
    if (g->mode == GPU_BPE_EMULATE) {
        int n = env_int(EMULATE_DEVICES_ENV, 1), fail = env_int(EMULATE_FAIL_ENV, -1);
        g->ndevs = n < 1 ? 1 : n > MAX_DEVICES ? MAX_DEVICES : n;
        for (int i = 0; i < g->ndevs; i++) g->devs[i].id = i, g->devs[i].emulate_fail = i == fail;
        return 0;
    }
    int count = 0;
    CUDA_TRY(cudaGetDeviceCount(&count));
    for (int i = 0; i < count && g->ndevs < MAX_DEVICES; i++) {
        int major = 0;
        CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, i));
        if (major >= MIN_COMPUTE_MAJOR) g->devs[g->ndevs++].id = i;
    }
    if (!g->ndevs) {
        buf_printf(err, "no CUDA device with compute capability %d.0 or newer (the kernels are built for sm_90)",
                   MIN_COMPUTE_MAJOR);
        return -1;
    }
    return 0;
}

/* Sets up device dev: its tables (the first time) and its batch slots. */
static int setup_device(gpu_bpe *g, int dev, wbuf *err)
{
    gb_device *d = &g->devs[dev];
    int rc = 0;
    if (g->mode == GPU_BPE_DEVICE && !d->nmem) rc = device_tables(g, d, err);
    for (int i = dev; !rc && i < NSLOTS * g->ndevs; i += g->ndevs) rc = slot_alloc(g, &g->slots[i], err);
    d->setup.store(rc ? SETUP_FAILED : SETUP_DONE, std::memory_order_release);
    return rc;
}

/* A further device's set-up thread. */
static void *setup_thread(void *arg)
{
    gb_device *d = (gb_device *)arg;
    setup_device(d->owner, d->index, &d->setup_err);
    return NULL;
}

/* Waits for the further devices' set-up threads. */
static void join_setups(gpu_bpe *g)
{
    for (int d = 0; d < g->ndevs; d++)
        if (g->devs[d].setup_thread) {
            pthread_join(g->devs[d].thread, NULL);
            g->devs[d].setup_thread = false;
        }
}

/* (Re)allocates every batch slot and the long-piece tables for batches of
 * batch_bytes, copying the tables to each device the first time. The first
 * device is set up here; each further one by a thread of its own, started
 * once the first is ready (a context, the table copies and ~0.5 GB of
 * pinned buffers take ~0.45 s per device, and the driver does much of it
 * one device at a time: measured on two H200s, setting both up at once
 * doubled the wait for the first, bench/results/multi-gpu-2026-11-27.md).
 * Batches go to a further device from the first call after it is ready. */
static int alloc_slots(gpu_bpe *g, size_t batch_bytes, wbuf *err)
{
    join_setups(g);
    for (int i = 0; i < NSLOTS * g->ndevs; i++) slot_free(g, &g->slots[i]);
    g->batch_bytes = batch_bytes;
    g->long_at = (uint32_t *)xrealloc(g->long_at, max_longs(batch_bytes) * sizeof(uint32_t));
    g->long_n = (uint32_t *)xrealloc(g->long_n, max_longs(batch_bytes) * sizeof(uint32_t));
    for (int i = 0; i < NSLOTS * g->ndevs; i++) g->slots[i].dev = i % g->ndevs;
    bool failed_before[MAX_DEVICES]; /* set-up failed earlier (tables maybe half copied): left out for good */
    for (int d = 0; d < g->ndevs; d++) {
        failed_before[d] = g->devs[d].setup.load() == SETUP_FAILED;
        if (failed_before[d]) continue;
        g->devs[d].setup.store(SETUP_RUNNING);
        g->devs[d].owner = g, g->devs[d].index = d;
    }
    wbuf why = WBUF_INIT;
    if (failed_before[0] || setup_device(g, 0, &why)) {
        buf_printf(err, "CUDA device %d: %s", g->devs[0].id, why.data ? why.data : "");
        buf_free(&why);
        return -1;
    }
    buf_free(&why);
    for (int d = 1; d < g->ndevs; d++) {
        gb_device *dev = &g->devs[d];
        if (failed_before[d]) continue;
        dev->setup_thread = pthread_create(&dev->thread, NULL, setup_thread, dev) == 0;
        if (!dev->setup_thread) setup_device(g, d, &dev->setup_err);
    }
    return 0;
}

/* A host task: fn(arg, t, nt). */
typedef struct {
    void (*fn)(void *arg, int t, int nt);
    void *arg;
    int t, nt;
} host_task;

static void host_task_run(void *ctx, int worker, void *item)
{
    (void)ctx, (void)worker;
    host_task *h = (host_task *)item;
    h->fn(h->arg, h->t, h->nt);
}

static void run_parallel(gpu_bpe *g, void (*fn)(void *, int, int), void *arg, int nt);
static hf_scratch *host_hf_scratch(gpu_bpe *g, int t);

/* Sets whole[id] for ids t, t+nt, ...: whether HF's merges turn the
 * token's bytes back into the token (hf_bpe.c, the CPU path's encoder). */
static void find_whole_tokens(void *arg, int t, int nt)
{
    gpu_bpe *g = (gpu_bpe *)arg;
    const tok_vocab *v = &g->tok->vocab;
    hf_scratch *h = host_hf_scratch(g, t);
    tok_ids ids = {0};
    for (uint32_t id = (uint32_t)t; id < v->nids; id += (uint32_t)nt) {
        size_t len;
        const uint8_t *s = vocab_token_bytes(v, id, &len);
        if (!s || !len) continue;
        ids.n = 0;
        hf_bpe_encode(&g->tok->hf->bpe, v, s, len, hf_word_hash(&g->tok->hf->bpe, s, len), h, &ids);
        g->whole[id] = ids.n == 1 && ids.ids[0] == id;
    }
    ids_free(&ids);
}

extern "C" gpu_bpe *gpu_bpe_open(const tokenizer *t, gpu_bpe_mode mode, wbuf *err)
{
    gpu_bpe *g = (gpu_bpe *)xcalloc(1, sizeof *g);
    g->tok = t;
    g->mode = mode;
    g->slot_bytes = SLOT_BYTES;
    g->overlap = true;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    g->host_threads = cpus < 1 ? 1 : cpus > HOST_THREADS_MAX ? HOST_THREADS_MAX : (int)cpus;
    g->pool = pool_create(g->host_threads, g->host_threads, host_task_run, NULL);
    hf_gpu_plan plan;
    if (t->hf) {
        wbuf why = WBUF_INIT;
        if (!hf_gpu_plan_of(t->hf, &t->vocab, &plan, &why)) {
            buf_printf(err, "this tokenizer.json runs on the CPU: %s", why.data);
            buf_free(&why);
            gpu_bpe_close(g);
            return NULL;
        }
        g->nfc = plan.nfc;
    }
    host_tables(t, t->hf ? &plan : NULL, &g->host_tables);
    if (t->hf && !t->hf->bpe.ignore_merges) {
        g->whole = (uint8_t *)xcalloc(t->vocab.nids ? t->vocab.nids : 1, 1);
        run_parallel(g, find_whole_tokens, g, g->host_threads);
        g->host_tables.whole = g->whole;
    }
    if (find_devices(g, err) || alloc_slots(g, BATCH_BYTES, err)) {
        gpu_bpe_close(g);
        return NULL;
    }
    return g;
}

extern "C" void gpu_bpe_close(gpu_bpe *g)
{
    if (!g) return;
    join_setups(g);
    for (int i = 0; i < NSLOTS * g->ndevs; i++) slot_free(g, &g->slots[i]);
    for (int d = 0; d < g->ndevs; d++) {
        if (g->devs[d].nmem) cudaSetDevice(g->devs[d].id);
        for (int i = 0; i < g->devs[d].nmem; i++) cudaFree(g->devs[d].mem[i]);
        buf_free(&g->devs[d].setup_err);
    }
    for (int t = 0; t < HOST_THREADS_MAX; t++)
        bpe_scratch_free(&g->scratch[t]), ids_free(&g->long_ids[t]), buf_free(&g->nfc_text[t]);
    free(g->nfc_texts), free(g->nfc_lens), free(g->nfc_off), free(g->whole);
    if (g->pool) pool_destroy(g->pool);
    free(g->long_at), free(g->long_n);
    free(g->seg_bufs[0]), free(g->seg_bufs[1]);
    free(g);
}

extern "C" int gpu_bpe_tune(gpu_bpe *g, size_t chunk_bytes, size_t batch_bytes, bool overlap, wbuf *err)
{
    size_t c = chunk_bytes;
    g->slot_bytes = (uint32_t)(c < MIN_SLOT_BYTES ? MIN_SLOT_BYTES : c > MAX_SLOT_BYTES ? MAX_SLOT_BYTES : c);
    g->overlap = overlap;
    size_t b = batch_bytes ? batch_bytes : BATCH_BYTES;
    b = b < MIN_BATCH_BYTES ? MIN_BATCH_BYTES : b > MAX_BATCH_BYTES ? MAX_BATCH_BYTES : b;
    int rc = b == g->batch_bytes ? 0 : alloc_slots(g, b, err);
    join_setups(g); /* benchmarks time every device */
    return rc;
}

extern "C" double gpu_bpe_kernel_seconds(const gpu_bpe *g) { return g->kernel_seconds; }

extern "C" int gpu_bpe_devices(const gpu_bpe *g) { return g->ndevs; }

extern "C" int gpu_bpe_wait_devices(gpu_bpe *g)
{
    join_setups(g);
    int n = 0;
    for (int d = 0; d < g->ndevs; d++) n += device_usable(g, &g->devs[d]);
    return n;
}

extern "C" double gpu_bpe_device_kernel_seconds(const gpu_bpe *g, int i)
{
    return i >= 0 && i < g->ndevs ? g->devs[i].kernel_seconds : 0;
}

extern "C" size_t gpu_bpe_device_batches(const gpu_bpe *g, int i)
{
    return i >= 0 && i < g->ndevs ? g->devs[i].batches : 0;
}

extern "C" void gpu_bpe_phase_seconds(const gpu_bpe *g, double seconds[GPU_BPE_PHASES])
{
    memcpy(seconds, g->phase_seconds, sizeof g->phase_seconds);
}

extern "C" void gpu_bpe_host_seconds(const gpu_bpe *g, double seconds[GPU_BPE_HOST_PHASES])
{
    memcpy(seconds, g->host_seconds, sizeof g->host_seconds);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs fn(arg, t, nt) for every t < nt on the pool's threads and waits for all. */
static void run_parallel(gpu_bpe *g, void (*fn)(void *, int, int), void *arg, int nt)
{
    host_task h[HOST_THREADS_MAX];
    for (int t = 0; t < nt; t++) {
        h[t] = (host_task){fn, arg, t, nt};
        pool_push(g->pool, &h[t]);
    }
    for (int t = 0; t < nt; t++) pool_pop(g->pool);
}

/* The same, the calling thread taking part too (as t = nt): for work that
 * threads share by taking parts, so the caller does not sit idle. */
static void run_parallel_with_caller(gpu_bpe *g, void (*fn)(void *, int, int), void *arg, int nt)
{
    host_task h[HOST_THREADS_MAX];
    for (int t = 0; t < nt; t++) {
        h[t] = (host_task){fn, arg, t, nt + 1};
        pool_push(g->pool, &h[t]);
    }
    fn(arg, nt, nt + 1);
    for (int t = 0; t < nt; t++) pool_pop(g->pool);
}

static void push_segment(gpu_bpe *g, segment s)
{
    int k = g->seg_buf;
    if (g->nsegs == g->seg_caps[k]) {
        g->seg_caps[k] = g->seg_caps[k] ? 2 * g->seg_caps[k] : 1024;
        g->seg_bufs[k] = (segment *)xrealloc(g->seg_bufs[k], g->seg_caps[k] * sizeof *g->seg_bufs[k]);
    }
    g->seg_bufs[k][g->nsegs++] = s;
}

/* Splits the documents into segments of at most a batch, cutting long
 * documents at safe cuts (in the second half of each stretch when there is
 * one there); a stretch with no safe cut at all goes to the host. */
static void make_segments(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs)
{
    size_t max = g->batch_bytes;
    g->seg_buf ^= 1; /* the other array: the one batches of the call before may still use stays */
    g->nsegs = 0;
    g->unpacked_bytes = 0;
    for (size_t d = 0; d < ndocs; d++) {
        const uint8_t *s = (const uint8_t *)texts[d];
        size_t n = lens[d], pos = 0;
        while (n - pos > max) {
            size_t c = gb_find_cut(&g->host_tables, s, n, pos + max / 2, pos + max);
            if (!c) c = gb_find_cut(&g->host_tables, s, n, pos, pos + max);
            if (!c) break;
            push_segment(g, (segment){d, s + pos, c - pos, false});
            pos = c;
        }
        bool cpu = n - pos > max;
        push_segment(g, (segment){d, s + pos, n - pos, cpu});
        g->unpacked_bytes += n;
    }
}

typedef struct {
    const gpu_bpe *g;
    batch_slot *s;
} slot_job;

/* Copies byte share t of nt of the batch's segments into its pinned buffer. */
static void copy_texts(void *arg, int t, int nt)
{
    const slot_job *j = (const slot_job *)arg;
    const batch_slot *s = j->s;
    uint32_t n = s->b.nbytes, lo = (uint32_t)((uint64_t)n * t / nt), hi = (uint32_t)((uint64_t)n * (t + 1) / nt);
    if (lo >= hi) return;
    for (uint32_t d = seg_containing(s->h_seg_off, s->b.nseg, lo); d < s->b.nseg && s->h_seg_off[d] < hi; d++) {
        uint32_t a = s->h_seg_off[d] > lo ? s->h_seg_off[d] : lo, e = s->h_seg_off[d + 1] < hi ? s->h_seg_off[d + 1] : hi;
        if (a < e) memcpy(s->h_text + a, s->segs[s->seg_begin + d].text + (a - s->h_seg_off[d]), e - a);
    }
}

/* Text for the next batch: the first batches of a call double from
 * MIN_BATCH_BYTES, and near the end each takes half of what is left, so the
 * device starts early and the host's last unpack is short. */
static size_t batch_limit(const gpu_bpe *g)
{
    size_t limit = g->batch_bytes, ramp = g->packed < RAMP_STEPS ? MIN_BATCH_BYTES << g->packed : limit;
    size_t tail = g->unpacked_bytes / 2 > MIN_BATCH_BYTES ? g->unpacked_bytes / 2 : MIN_BATCH_BYTES;
    if (ramp < limit) limit = ramp;
    if (tail < limit && !g->keep_in_flight) limit = tail;
    return limit;
}

/* Packs segments from *next into slot s: the first always, more while they
 * fit batch_limit(); a host-only segment goes alone. */
static void pack(gpu_bpe *g, batch_slot *s, size_t *next, tok_ids *out, size_t *doc_end, gpu_bpe_id_sink *sink)
{
    size_t i = *next, bytes = 0, limit = batch_limit(g);
    const segment *segs = g->seg_bufs[g->seg_buf];
    s->segs = segs;
    s->out = out;
    s->doc_end = doc_end;
    s->sink = sink;
    s->call = g->call;
    s->seg_begin = i;
    g->packed++;
    if (segs[i].cpu) {
        s->seg_end = i + 1;
        *next = i + 1;
        g->unpacked_bytes -= segs[i].len;
        return;
    }
    s->h_seg_off[0] = 0;
    while (i < g->nsegs && !segs[i].cpu && i - s->seg_begin < BATCH_SEGS &&
           (i == s->seg_begin || bytes + segs[i].len <= limit)) {
        bytes += segs[i].len;
        s->h_seg_off[i - s->seg_begin + 1] = (uint32_t)bytes;
        i++;
    }
    s->seg_end = i;
    *next = i;
    g->unpacked_bytes -= bytes;
    gb_batch *b = &s->b;
    b->nbytes = (uint32_t)bytes;
    b->nseg = (uint32_t)(i - s->seg_begin);
    b->slot_bytes = g->slot_bytes;
    b->nslots = (uint32_t)((bytes + g->slot_bytes - 1) / g->slot_bytes);
    slot_job job = {g, s};
    if (bytes && !g->texts_pinned) run_parallel(g, copy_texts, &job, g->host_threads);
}

/* Sends slot s's texts from the caller's pinned memory (texts_pinned): one
 * copy per run of segments that lie back to back there (empty ones join any
 * run); emulated, the same runs are copied into the slot's host buffer. */
static int send_pinned_texts(gpu_bpe *g, batch_slot *s, wbuf *err)
{
    const segment *seg = &s->segs[s->seg_begin];
    uint32_t nseg = s->b.nseg;
    for (uint32_t i = 0; i < nseg;) {
        if (!seg[i].len) {
            i++;
            continue;
        }
        const uint8_t *run_end = seg[i].text + seg[i].len;
        uint32_t j = i + 1;
        for (; j < nseg && (!seg[j].len || seg[j].text == run_end); j++) run_end += seg[j].len;
        size_t at = s->h_seg_off[i], n = s->h_seg_off[j] - at;
        if (g->mode == GPU_BPE_EMULATE) memcpy(s->h_text + at, seg[i].text, n);
        else CUDA_TRY(cudaMemcpyAsync(s->d_text + at, seg[i].text, n, cudaMemcpyHostToDevice, s->stream));
        i = j;
    }
    return 0;
}

/* Where batch byte off of slot s lies in host memory (the caller's text). */
static const uint8_t *host_text_at(const gpu_bpe *g, const batch_slot *s, uint32_t off)
{
    uint32_t d = seg_containing(s->h_seg_off, s->b.nseg, off);
    (void)g;
    return s->segs[s->seg_begin + d].text + (off - s->h_seg_off[d]);
}

static uint32_t blocks(size_t n, size_t per_block) { return (uint32_t)((n + per_block - 1) / per_block); }

/* Runs the packed batch in slot s: on the device (asynchronously) or emulated. */
static int launch(gpu_bpe *g, batch_slot *s, wbuf *err)
{
    gb_batch *b = &s->b;
    if (s->segs[s->seg_begin].cpu) return 0;
    if (b->nbytes == 0) {
        s->h_info->total = s->h_info->nlong = 0;
        for (uint32_t d = 0; d < b->nseg; d++) s->h_first[d] = NO_FIRST;
        return 0;
    }
    gb_device *dev = &g->devs[s->dev];
    dev->batches++;
    if (g->mode == GPU_BPE_DEVICE) CUDA_TRY(cudaSetDevice(dev->id));
    if (dev->emulate_fail) {
        buf_printf(err, "emulated failure of device %d", dev->id);
        return -1;
    }
    if (g->texts_pinned && send_pinned_texts(g, s, err)) return -1;
    if (g->mode == GPU_BPE_EMULATE) {
        const gb_tables *t = &g->host_tables;
        memset(b->counters, 0, sizeof *b->counters);
        for (uint32_t k = 0; k < b->nslots; k++) cut_body(t, b, k);
        for (uint32_t k = 0; k < b->nslots; k++) encode_body(t, b, k);
        for (uint32_t i = 0, e; (e = merge_entry(b, i, 0, NBUCKETS)) != UINT32_MAX; i++) merge_body(t, b, e);
        uint32_t sum = 0;
        for (uint32_t k = 0; k < b->nslots; k++) b->off[k] = sum, sum += b->count[k];
        for (uint32_t k = 0; k < b->nslots; k++) gather_body(b, k);
        b->info->total = sum;
        b->info->nlong = b->counters->nlong;
        for (uint32_t d = 0; d < b->nseg; d++) first_body(b, d);
        return 0;
    }
    cudaStream_t st = s->stream;
    if (!g->texts_pinned) CUDA_TRY(cudaMemcpyAsync(s->d_text, s->h_text, b->nbytes, cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(s->d_seg_off, s->h_seg_off, (b->nseg + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemsetAsync(b->counters, 0, sizeof(gb_counters), st));
    CUDA_TRY(cudaEventRecord(s->phase[0], st));
    cut_kernel<<<blocks(b->nslots, THREADS), THREADS, 0, st>>>(dev->tables, *b);
    CUDA_TRY(cudaEventRecord(s->phase[1], st));
    encode_kernel<<<blocks(b->nslots, THREADS), THREADS, 0, st>>>(dev->tables, *b);
    CUDA_TRY(cudaEventRecord(s->phase[2], st));
    uint32_t merge_threads = b->nbytes / BYTES_PER_MERGE_THREAD, merge_warps = b->nbytes / BYTES_PER_MERGE_WARP;
    merge_warp_kernel<<<blocks((size_t)merge_warps * WARP + 1, THREADS), THREADS, 0, st>>>(dev->tables, *b);
    merge_kernel<<<blocks(merge_threads + 1, THREADS), THREADS, 0, st>>>(dev->tables, *b);
    CUDA_TRY(cudaEventRecord(s->phase[3], st));
    CUDA_TRY(cub::DeviceScan::ExclusiveSum(s->d_cub, s->cub_bytes, b->count, b->off, (int)b->nslots, st));
    CUDA_TRY(cudaEventRecord(s->phase[4], st));
    gather_kernel<<<blocks((size_t)b->nslots * WARP, THREADS), THREADS, 0, st>>>(*b);
    first_kernel<<<blocks(b->nseg, THREADS), THREADS, 0, st>>>(*b);
    CUDA_TRY(cudaEventRecord(s->phase[5], st));
    if (!s->sink) copy_ids_kernel<<<dev->copy_blocks, THREADS, 0, st>>>(*b); /* else fetch_ids, once the count is known */
    CUDA_TRY(cudaEventRecord(s->phase[6], st));
    CUDA_TRY(cudaGetLastError());
    return 0;
}

/* Unpacking a batch's ids into the caller's array, in parallel. The device
 * recorded where each long piece's marker landed; the host merges the long
 * pieces, sorts the markers by place, and each thread copies its equal
 * share of the batch's ids with memcpy, splicing in the merged ids of the
 * markers in its share. */
typedef struct {
    uint32_t at, piece; /* marker's place in the batch's ids; long piece number */
} long_mark;

typedef struct {
    gpu_bpe *g;
    const batch_slot *s;
    uint32_t *out;      /* where the batch's first id goes */
    const long_mark *marks; /* by place */
    const size_t *grow; /* per mark: extra ids of the marks before it; one more entry: all of them */
    uint32_t nparts;    /* the copy's parts of about UNPACK_PART_IDS ids */
    std::atomic<uint32_t> next_part; /* the next part a thread takes */
} unpack_job;

static inline void id_range(uint32_t total, int t, int nt, uint32_t *lo, uint32_t *hi)
{
    *lo = (uint32_t)((uint64_t)total * t / nt);
    *hi = (uint32_t)((uint64_t)total * (t + 1) / nt);
}

/* Host thread t's working memory for the tokenizer.json pipeline (in its
 * bpe_scratch, where the CPU path's hf_encode finds it too). */
static hf_scratch *host_hf_scratch(gpu_bpe *g, int t)
{
    bpe_scratch *sc = &g->scratch[t];
    if (!sc->hf) {
        sc->hf = (hf_scratch *)xcalloc(1, sizeof *sc->hf);
        sc->hf->owner = g->tok->hf; /* its caches hold this pipeline's words (hf_encode's rule) */
    }
    return sc->hf;
}

/* Appends the ids of one pre-tokenized piece, merged on the host as the
 * CPU path does (tokenize/bpe.c, or hf_bpe.c for a tokenizer.json). */
static void long_piece_ids(gpu_bpe *g, const uint8_t *s, size_t n, int t, tok_ids *out)
{
    const hf_pipeline *hf = g->tok->hf;
    if (!hf) {
        bpe_encode_piece(&g->tok->vocab, s, n, &g->scratch[t], out);
        return;
    }
    hf_bpe_encode(&hf->bpe, &g->tok->vocab, s, n, hf_word_hash(&hf->bpe, s, n), host_hf_scratch(g, t), out);
}

/* Merges long pieces t, t+nt, ... on the host. */
static void merge_long_pieces(void *arg, int t, int nt)
{
    unpack_job *j = (unpack_job *)arg;
    gpu_bpe *g = j->g;
    tok_ids *ids = &g->long_ids[t];
    ids->n = 0;
    for (uint32_t i = (uint32_t)t; i < j->s->h_info->nlong; i += (uint32_t)nt) {
        gb_long l = j->s->h_longs[i];
        g->long_at[i] = (uint32_t)ids->n;
        long_piece_ids(g, host_text_at(g, j->s, l.off), l.len, t, ids);
        g->long_n[i] = (uint32_t)(ids->n - g->long_at[i]);
    }
}

/* The number of marks placed before id place k. */
static uint32_t marks_before(const long_mark *marks, uint32_t nmarks, uint32_t k)
{
    uint32_t a = 0, e = nmarks;
    while (a < e) {
        uint32_t mid = (a + e) / 2;
        if (marks[mid].at < k) a = mid + 1;
        else e = mid;
    }
    return a;
}

/* Copies id part t of nt, the marks in it expanded. */
static void copy_id_part(unpack_job *j, uint32_t t, uint32_t nt)
{
    const gpu_bpe *g = j->g;
    uint32_t lo, hi, nmarks = j->s->h_info->nlong;
    id_range(j->s->h_info->total, (int)t, (int)nt, &lo, &hi);
    const uint32_t *src = j->s->h_ids;
    for (uint32_t k = lo, r = marks_before(j->marks, nmarks, lo); k < hi; r++) {
        uint32_t end = r < nmarks && j->marks[r].at < hi ? j->marks[r].at : hi;
        memcpy(j->out + k + j->grow[r], src + k, (size_t)(end - k) * sizeof(uint32_t));
        if (end == hi) break;
        uint32_t i = j->marks[r].piece;
        memcpy(j->out + end + j->grow[r], g->long_ids[i % g->long_threads].ids + g->long_at[i],
               g->long_n[i] * sizeof(uint32_t));
        k = end + 1;
    }
}

/* Copies parts of the batch's ids until none is left. The parts are small
 * and taken one at a time, so a thread that the scanner's threads keep off
 * a core holds up the copy by one part, not by an equal share of it. */
static void copy_ids(void *arg, int t, int nt)
{
    (void)t, (void)nt;
    unpack_job *j = (unpack_job *)arg;
    for (uint32_t p; (p = j->next_part.fetch_add(1)) < j->nparts;) copy_id_part(j, p, j->nparts);
}

/* Brings the batch's total ids from the device (slot s has a sink): into
 * the room its place() gives, *placed (the copy is waited for by
 * wait_copies), else into h_ids, waited for here, for the copy into out. */
static int fetch_ids(gpu_bpe *g, batch_slot *s, uint32_t total, uint32_t **placed, wbuf *err)
{
    *placed = s->sink->place(s->sink, total);
    if (g->mode == GPU_BPE_EMULATE) {
        if (*placed) memcpy(*placed, s->h_ids, (size_t)total * sizeof(uint32_t));
        return 0;
    }
    uint32_t *dst = *placed ? *placed : s->h_ids;
    CUDA_TRY(cudaMemcpyAsync(dst, s->b.ids, (size_t)total * sizeof(uint32_t), cudaMemcpyDeviceToHost, s->stream));
    if (!*placed) {
        CUDA_TRY(cudaStreamSynchronize(s->stream));
        return 0;
    }
    CUDA_TRY(cudaEventRecord(s->copied, s->stream));
    s->copy_pending = true;
    s->copy_call = s->call;
    return 0;
}

static void push_run(gpu_bpe_id_sink *sink, size_t at, const uint32_t *ids, size_t n)
{
    if (sink->nruns == sink->cap) {
        sink->cap = sink->cap ? 2 * sink->cap : 64;
        sink->runs = (gpu_bpe_run *)xrealloc(sink->runs, sink->cap * sizeof *sink->runs);
    }
    sink->runs[sink->nruns++] = (gpu_bpe_run){at, ids, n};
}

/* The batch's ids, placed at placed by fetch_ids, as runs of the sink from
 * out place base on: one per stretch between long pieces' markers, and one
 * per long piece, whose merged ids are copied into a place of their own
 * (else into out itself), so that out's pages are not touched. */
static void add_runs(const unpack_job *j, const uint32_t *placed, uint32_t total, size_t base)
{
    const gpu_bpe *g = j->g;
    gpu_bpe_id_sink *sink = j->s->sink;
    uint32_t nmarks = j->s->h_info->nlong;
    uint32_t *long_room = nmarks ? sink->place(sink, nmarks + j->grow[nmarks]) : NULL; /* every long piece's ids */
    for (uint32_t r = 0, k = 0;; r++) {
        uint32_t end = r < nmarks ? j->marks[r].at : total;
        if (end > k) push_run(sink, base + k + j->grow[r], placed + k, end - k);
        if (r == nmarks) break;
        uint32_t i = j->marks[r].piece, n = g->long_n[i];
        const uint32_t *ids = g->long_ids[i % g->long_threads].ids + g->long_at[i];
        if (long_room) {
            memcpy(long_room, ids, n * sizeof *ids);
            push_run(sink, base + end + j->grow[r], long_room, n);
            long_room += n;
        } else {
            memcpy(j->out + end + j->grow[r], ids, n * sizeof *ids);
        }
        k = end + 1;
    }
}

/* Waits for the device's copies into sinks' places (fetch_ids) of the
 * batches of calls before this one, or (all) of every call: their ids are
 * then where their runs say. 0, or -1 with a message in err, *failed the
 * slot whose copy failed. */
static int wait_copies(gpu_bpe *g, bool all, batch_slot **failed, wbuf *err)
{
    int rc = 0;
    for (int i = 0; i < NSLOTS * g->ndevs; i++) {
        batch_slot *s = &g->slots[i];
        if (!s->copy_pending || (!all && s->copy_call == g->call)) continue;
        s->copy_pending = false;
        if (rc) continue;
        double t0 = seconds_now();
        cudaError_t e = cudaSetDevice(g->devs[s->dev].id);
        if (e == cudaSuccess) e = cudaEventSynchronize(s->copied);
        g->host_seconds[1] += seconds_now() - t0;
        if (e != cudaSuccess) {
            buf_printf(err, "CUDA: copying a batch's ids to the host: %s", cudaGetErrorString(e));
            *failed = s;
            rc = -1;
        }
    }
    return rc;
}

static int mark_order(const void *a, const void *b)
{
    uint32_t x = ((const long_mark *)a)->at, y = ((const long_mark *)b)->at;
    return (x > y) - (x < y);
}

/* unpack's result when the host's encoder refused the stretch it encodes
 * (tokenizer_encode's regex error): the call fails, but no device did. */
#define HOST_REFUSED (-2)

/* Waits for slot s and appends its segments' ids to its call's out: 0, -1
 * (a CUDA error) or HOST_REFUSED, with a message in err. */
static int unpack(gpu_bpe *g, batch_slot *s, wbuf *err)
{
    tok_ids *out = s->out;
    size_t *doc_end = s->doc_end;
    const segment *first_seg = &s->segs[s->seg_begin];
    double t0 = seconds_now();
    s->busy = false;
    if (first_seg->cpu) {
        int code = tokenizer_encode(g->tok, (const char *)first_seg->text, first_seg->len, false, &g->scratch[0], out);
        if (code) {
            buf_printf(err, "the host could not encode a document's %zu-byte stretch without a safe cut (",
                       first_seg->len);
            tokenizer_encode_error(code, err);
            buf_printf(err, ")");
            return HOST_REFUSED;
        }
        doc_end[first_seg->doc] = out->n;
        g->host_seconds[2] += seconds_now() - t0;
        return 0;
    }
    if (g->mode == GPU_BPE_DEVICE && s->b.nbytes) {
        CUDA_TRY(cudaSetDevice(g->devs[s->dev].id));
        CUDA_TRY(cudaStreamSynchronize(s->stream));
        double t1 = seconds_now();
        g->host_seconds[1] += t1 - t0;
        t0 = t1;
        for (int i = 0; i < GPU_BPE_PHASES; i++) {
            float ms = 0;
            CUDA_TRY(cudaEventElapsedTime(&ms, s->phase[i], s->phase[i + 1]));
            g->phase_seconds[i] += ms / 1e3;
            g->kernel_seconds += ms / 1e3;
            g->devs[s->dev].kernel_seconds += ms / 1e3;
        }
    }
    uint32_t nseg = s->b.nseg, total = s->h_info->total;
    uint32_t *placed = NULL;
    double t2 = seconds_now();
    if (s->sink && total && fetch_ids(g, s, total, &placed, err)) return -1;
    g->host_seconds[5] += seconds_now() - t2;
    uint32_t next_first = total; /* an empty segment starts where the next non-empty one does */
    for (uint32_t d = nseg; d-- > 0;) {
        if (s->h_first[d] == NO_FIRST) s->h_first[d] = next_first;
        else next_first = s->h_first[d];
    }
    int nt = g->host_threads;
    uint32_t nlong = s->h_info->nlong;
    long_mark *marks = (long_mark *)xmalloc(((size_t)nlong + 1) * sizeof *marks);
    size_t *grow = (size_t *)xmalloc(((size_t)nlong + 1) * sizeof *grow);
    unpack_job job;
    job.g = g, job.s = s, job.out = NULL, job.marks = marks, job.grow = grow;
    grow[0] = 0;
    if (nlong) {
        double t3 = seconds_now();
        size_t long_bytes = 0;
        for (uint32_t i = 0; i < nlong; i++) long_bytes += s->h_longs[i].len;
        g->long_threads = long_bytes < LONG_ON_CALLER_BYTES ? 1 : nt;
        if (g->long_threads == 1) merge_long_pieces(&job, 0, 1);
        else run_parallel(g, merge_long_pieces, &job, nt);
        g->host_seconds[4] += seconds_now() - t3;
        for (uint32_t i = 0; i < nlong; i++) marks[i] = (long_mark){s->h_longs[i].at, i};
        qsort(marks, nlong, sizeof *marks, mark_order);
        for (uint32_t r = 0; r < nlong; r++) grow[r + 1] = grow[r] + g->long_n[marks[r].piece] - 1;
    }
    size_t grown = total + grow[nlong];
    if (out->cap < out->n + grown) {
        out->cap = (out->n + grown) * 2;
        out->ids = (uint32_t *)xrealloc(out->ids, out->cap * sizeof *out->ids);
    }
    job.out = out->ids + out->n;
    if (placed) {
        add_runs(&job, placed, total, out->n);
    } else {
        job.nparts = total / UNPACK_PART_IDS; /* and at least a few parts per thread, to even out small batches */
        if (job.nparts < UNPACK_MIN_PARTS * (uint32_t)(nt + 1)) job.nparts = UNPACK_MIN_PARTS * (uint32_t)(nt + 1);
        job.next_part = 0;
        run_parallel_with_caller(g, copy_ids, &job, nt);
    }
    for (uint32_t d = 0; d < nseg; d++) {
        size_t end = d + 1 < nseg ? s->h_first[d + 1] + grow[marks_before(marks, nlong, s->h_first[d + 1])] : grown;
        doc_end[s->segs[s->seg_begin + d].doc] = out->n + end;
    }
    out->n += grown;
    free(marks), free(grow);
    g->host_seconds[2] += seconds_now() - t0;
    return 0;
}

/* Whether NFC may change s[0..n): only when it holds a character from
 * U+0300 on (lead byte 0xCC or more). Every character below is its own NFC
 * and composes with nothing below U+0300; invalid bytes stay as they are. */
static bool nfc_may_change(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] >= NFC_FIRST_LEAD) return true;
    return false;
}

typedef struct {
    gpu_bpe *g;
    const char *const *texts;
    const size_t *lens;
    size_t ndocs;
} nfc_job;

/* Normalizes document share t of nt into thread t's buffer (hf_normalize,
 * the CPU path's normalizer) and points nfc_texts at the results. */
static void nfc_texts(void *arg, int t, int nt)
{
    nfc_job *j = (nfc_job *)arg;
    gpu_bpe *g = j->g;
    const hf_pipeline *hf = g->tok->hf;
    size_t lo = j->ndocs * (size_t)t / (size_t)nt, hi = j->ndocs * (size_t)(t + 1) / (size_t)nt;
    wbuf *buf = &g->nfc_text[t];
    hf_scratch *h = host_hf_scratch(g, t);
    buf_clear(buf);
    for (size_t d = lo; d < hi; d++) {
        g->nfc_texts[d] = j->texts[d];
        g->nfc_lens[d] = j->lens[d];
        if (!nfc_may_change((const uint8_t *)j->texts[d], j->lens[d])) continue;
        hf_normalize(hf, j->texts[d], j->lens[d], h, &h->norm, &h->norm_tmp);
        g->nfc_texts[d] = NULL; /* at nfc_off[d] in buf, once buf stops growing */
        g->nfc_off[d] = buf->len;
        g->nfc_lens[d] = h->norm.len;
        buf_append(buf, h->norm.data, h->norm.len);
    }
    for (size_t d = lo; d < hi; d++)
        if (!g->nfc_texts[d]) g->nfc_texts[d] = buf->data + g->nfc_off[d];
}

/* Whether device d takes batches: set up, and not failed. A further
 * device whose set-up failed is reported here, once, and never used. */
static bool device_usable(gpu_bpe *g, gb_device *d)
{
    int state = d->setup.load(std::memory_order_acquire);
    if (state == SETUP_FAILED && !d->failed) {
        d->failed = true;
        warnf("GPU tokenizer: CUDA device %d is not used: %s", d->id, d->setup_err.data ? d->setup_err.data : "");
    }
    return state == SETUP_DONE && !d->failed;
}

/* The slots a call uses, in launch order: every slot of a device that is
 * usable (slot i is on device i % ndevs, so batches go to the devices in
 * turn), or the first of them alone without overlap. Returns how many. */
static int active_slots(gpu_bpe *g, int order[])
{
    bool usable[MAX_DEVICES];
    for (int d = 0; d < g->ndevs; d++) usable[d] = device_usable(g, &g->devs[d]);
    int n = 0;
    for (int i = 0; i < NSLOTS * g->ndevs && (g->overlap || n < 1); i++)
        if (usable[g->slots[i].dev]) order[n++] = i;
    return n;
}

/* Waits for the batches still in flight on any device (their errors
 * ignored), so that none writes into buffers the next call fills. */
static void wait_streams(gpu_bpe *g)
{
    if (g->mode != GPU_BPE_DEVICE) return;
    for (int i = 0; i < NSLOTS * g->ndevs; i++)
        if (g->slots[i].stream) {
            cudaSetDevice(g->devs[g->slots[i].dev].id);
            cudaStreamSynchronize(g->slots[i].stream);
        }
    cudaGetLastError(); /* clears a non-sticky error of this thread */
}

/* After a call failed in slot failed with rc: a device's failure (-1) means
 * no more batches go to that device, and the error says so; then, and after
 * the host's refusal of a stretch (HOST_REFUSED), the batches in flight are
 * waited for. */
static void settle_failure(gpu_bpe *g, const batch_slot *failed, int rc, wbuf *err)
{
    if (rc != HOST_REFUSED) {
        int dev = failed->dev, left = 0;
        g->devs[dev].failed = true;
        for (int d = 0; d < g->ndevs; d++) left += !g->devs[d].failed;
        buf_printf(err, " (on CUDA device %d, which this run no longer uses; %d other device%s left)",
                   g->devs[dev].id, left, left == 1 ? "" : "s");
    }
    wait_streams(g);
}

/* Unpacks every batch still in flight, oldest first; after a failure waits
 * for the others (settle_failure): 0 or -1. */
static int finish_in_flight(gpu_bpe *g, wbuf *err)
{
    int rc = 0, n = g->in_flight ? g->flight_n : 0;
    batch_slot *failed = NULL;
    for (int i = 0; i < n; i++) {
        batch_slot *s = &g->slots[g->flight_order[(g->turn % n + i) % n]];
        if (s->busy && !rc && (rc = unpack(g, s, err))) failed = s;
        s->busy = false;
    }
    g->in_flight = false;
    if (!rc) rc = wait_copies(g, true, &failed, err);
    if (failed) settle_failure(g, failed, rc, err);
    return rc ? -1 : 0;
}

/* Encodes the documents; with keep_in_flight it may return with this
 * call's last batches still on the device (gpu_bpe_encode_begin). */
static int encode(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, tok_ids *out,
                  size_t *doc_end, bool keep_in_flight, gpu_bpe_id_sink *sink, wbuf *err)
{
    int order[NSLOTS * MAX_DEVICES], nactive = active_slots(g, order);
    if (!nactive) { /* none ready: wait for those still being set up, if any */
        join_setups(g);
        nactive = active_slots(g, order);
    }
    /* batches left in flight go on in the order they were launched in; when the slots in use change
     * (a device joined or failed), or the NFC buffers that their texts may lie in are about to be
     * rewritten, they are finished first */
    bool same_slots = g->in_flight && nactive == g->flight_n && !memcmp(order, g->flight_order, sizeof(int) * nactive);
    if (g->in_flight && (!same_slots || g->nfc) && finish_in_flight(g, err)) return -1;
    if (g->nfc && ndocs) {
        if (g->nfc_cap < ndocs) {
            g->nfc_cap = ndocs;
            g->nfc_texts = (const char **)xrealloc(g->nfc_texts, ndocs * sizeof *g->nfc_texts);
            g->nfc_lens = (size_t *)xrealloc(g->nfc_lens, ndocs * sizeof *g->nfc_lens);
            g->nfc_off = (size_t *)xrealloc(g->nfc_off, ndocs * sizeof *g->nfc_off);
        }
        nfc_job job = {g, texts, lens, ndocs};
        run_parallel(g, nfc_texts, &job, g->host_threads);
        texts = g->nfc_texts;
        lens = g->nfc_lens;
    }
    if (!nactive) {
        buf_printf(err, "every CUDA device failed earlier in this run");
        return -1;
    }
    double t0 = seconds_now();
    make_segments(g, texts, lens, ndocs);
    g->host_seconds[0] += seconds_now() - t0;
    g->packed = g->in_flight ? RAMP_STEPS : 0; /* the device is busy already: no short first batches */
    g->keep_in_flight = keep_in_flight;
    g->call++;
    size_t next = 0;
    int turn = g->turn % nactive, rc = 0;
    batch_slot *failed = NULL;
    while (next < g->nsegs && !rc) {
        batch_slot *s = &g->slots[order[turn]];
        if (s->busy) rc = unpack(g, s, err);
        if (rc) {
            failed = s;
            break;
        }
        double t0 = seconds_now();
        pack(g, s, &next, out, doc_end, sink);
        double t1 = seconds_now();
        g->host_seconds[0] += t1 - t0;
        rc = launch(g, s, err);
        g->host_seconds[3] += seconds_now() - t1;
        if (rc) failed = s;
        s->busy = true;
        turn = (turn + 1) % nactive;
    }
    /* oldest first, so that the ids stay in input order; this call's own batches may stay */
    bool kept = false;
    for (int i = 0; i < nactive; i++) {
        batch_slot *s = &g->slots[order[(turn + i) % nactive]];
        if (s->busy && !rc && keep_in_flight && s->call == g->call) {
            kept = true;
            continue;
        }
        if (s->busy && !rc && (rc = unpack(g, s, err))) failed = s;
        s->busy = false;
    }
    if (!rc) rc = wait_copies(g, false, &failed, err); /* the calls before are complete */
    g->turn = turn; /* the next call goes on from here, so a call of few batches does not always start on device 0 */
    g->in_flight = kept && !rc;
    g->flight_n = nactive;
    for (int i = 0; i < nactive; i++) g->flight_order[i] = order[i];
    if (rc) {
        for (int i = 0; i < nactive; i++) g->slots[order[i]].busy = false;
        g->in_flight = false;
    }
    if (failed) settle_failure(g, failed, rc, err);
    return rc ? -1 : 0;
}

extern "C" int gpu_bpe_encode(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, tok_ids *out,
                              size_t *doc_end, wbuf *err)
{
    g->texts_pinned = false;
    return encode(g, texts, lens, ndocs, out, doc_end, false, NULL, err);
}

extern "C" int gpu_bpe_encode_pinned(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs,
                                     tok_ids *out, size_t *doc_end, wbuf *err)
{
    g->texts_pinned = true;
    int rc = encode(g, texts, lens, ndocs, out, doc_end, false, NULL, err);
    g->texts_pinned = false;
    return rc;
}

extern "C" int gpu_bpe_encode_begin(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs,
                                    bool texts_pinned, tok_ids *out, size_t *doc_end, gpu_bpe_id_sink *sink,
                                    wbuf *err)
{
    g->texts_pinned = texts_pinned;
    int rc = encode(g, texts, lens, ndocs, out, doc_end, true, sink, err);
    g->texts_pinned = false;
    return rc;
}

extern "C" int gpu_bpe_finish(gpu_bpe *g, wbuf *err) { return finish_in_flight(g, err); }

extern "C" int gpu_bpe_host_register(gpu_bpe *g, void *p, size_t bytes)
{
    if (g->mode == GPU_BPE_EMULATE) return 0;
    return cudaHostRegister(p, bytes, PINNED_FLAGS) == cudaSuccess ? 0 : -1;
}

extern "C" void gpu_bpe_host_free(gpu_bpe *g, void *p)
{
    if (!p) return;
    if (g->mode == GPU_BPE_EMULATE) free(p);
    else pin_free(p);
}
