/* gpu_tlz_bench.c - shard frames of token ids by the GPU token encoder
 * (gpu/tlz.h) against tlz_compress_frame() on host threads: the ids of
 * --format bin files repeated to GIGABYTES of ids in pinned memory, cut into
 * 1 MiB frames, coded in batches of BATCH frames with GPU_TLZ_IN_FLIGHT in
 * flight (ids GB/s, wall, from the first submit to the last finish), and on
 * THREADS host threads (0: not), whose frames every GPU frame is compared with.
 *   usage: gpu_tlz_bench VOCAB GIGABYTES BATCH THREADS REPEATS IDS.bin... */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "bench/bin_ids.h"
#include "core/buf.h"
#include "core/util.h"
#include "gpu/tlz.h"
#include "shards/shard_format.h"
#include "shards/tlz.h"

#define FRAME_BYTES ((size_t)SHARD_FRAME_BYTES)

typedef struct {
    uint8_t *ids; /* pinned */
    size_t len, nframes;
    int width;
    uint32_t *checksum;
    size_t bound; /* per frame */
    uint8_t *out; /* frame i at i * bound */
    size_t *size;
} bench_input;

static const uint8_t *frame_src(const bench_input *b, size_t i) { return b->ids + i * FRAME_BYTES; }
static size_t frame_len(const bench_input *b, size_t i)
{
    return b->len - i * FRAME_BYTES < FRAME_BYTES ? b->len - i * FRAME_BYTES : FRAME_BYTES;
}

/* One pass of every frame through the GPU in batches of batch frames; returns wall seconds. */
static double gpu_pass(gpu_tlz *g, bench_input *b, size_t batch)
{
    size_t nbatches = (b->nframes + batch - 1) / batch;
    const uint8_t **src = xmalloc(batch * sizeof(uint8_t *));
    size_t *len = xmalloc(batch * sizeof(size_t));
    uint8_t **dst = xmalloc(b->nframes * sizeof(uint8_t *));
    for (size_t i = 0; i < b->nframes; i++) dst[i] = b->out + i * b->bound;
    int slot[GPU_TLZ_IN_FLIGHT];
    double t0 = now_seconds();
    for (size_t k = 0; k < nbatches + GPU_TLZ_IN_FLIGHT - 1; k++) {
        if (k < nbatches) {
            size_t from = k * batch, n = b->nframes - from < batch ? b->nframes - from : batch;
            for (size_t i = 0; i < n; i++) {
                src[i] = frame_src(b, from + i);
                len[i] = frame_len(b, from + i);
            }
            slot[k % GPU_TLZ_IN_FLIGHT] = gpu_tlz_submit(g, n, src, len, b->width, b->checksum + from);
        }
        if (k + 1 >= GPU_TLZ_IN_FLIGHT) {
            size_t done = k + 1 - GPU_TLZ_IN_FLIGHT, from = done * batch;
            gpu_tlz_finish(g, slot[done % GPU_TLZ_IN_FLIGHT], dst + from, b->size + from);
        }
    }
    double t = now_seconds() - t0;
    free(src);
    free(len);
    free(dst);
    return t;
}

typedef struct {
    const bench_input *b;
    uint8_t *out;
    size_t *size;
    atomic_size_t *next;
} host_job;

static void *host_worker(void *arg)
{
    host_job *j = arg;
    tlz_ctx *c = tlz_ctx_new();
    for (size_t i; (i = atomic_fetch_add(j->next, 1)) < j->b->nframes;)
        j->size[i] = tlz_compress_frame(c, frame_src(j->b, i), frame_len(j->b, i), j->b->width, j->out + i * j->b->bound);
    tlz_ctx_free(c);
    return NULL;
}

/* Every frame on threads host threads into out/size; returns wall seconds. */
static double host_pass(const bench_input *b, int threads, uint8_t *out, size_t *size)
{
    atomic_size_t next = 0;
    pthread_t *t = xmalloc((size_t)threads * sizeof(pthread_t));
    host_job j = {b, out, size, &next};
    double t0 = now_seconds();
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, host_worker, &j);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double s = now_seconds() - t0;
    free(t);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: gpu_tlz_bench VOCAB GIGABYTES BATCH THREADS REPEATS IDS.bin...\n");
        return 1;
    }
    uint64_t vocab = strtoull(argv[1], NULL, 10);
    double gigabytes = atof(argv[2]);
    size_t batch = strtoull(argv[3], NULL, 10);
    int threads = atoi(argv[4]), repeats = atoi(argv[5]);
    wbuf why = WBUF_INIT;
    if (!gpu_tlz_usable(&why)) dief(EXIT_FATAL, "no GPU: %s", why.data);

    /* the ids of every file, then repeated to the size asked for */
    wbuf all = WBUF_INIT;
    int width = 0;
    for (int f = 6; f < argc; f++) {
        id_array a;
        load_ids(argv[f], vocab, &a);
        buf_append(&all, a.raw, a.len);
        width = a.width;
        free(a.raw);
    }
    bench_input b = {0};
    b.width = width;
    b.len = (size_t)(gigabytes * 1e9) / (size_t)width * (size_t)width;
    b.nframes = (b.len + FRAME_BYTES - 1) / FRAME_BYTES;
    double t0 = now_seconds();
    b.ids = gpu_tlz_alloc_host(b.len);
    for (size_t at = 0; at < b.len; at += all.len) memcpy(b.ids + at, all.data, b.len - at < all.len ? b.len - at : all.len);
    double t_pin = now_seconds() - t0;
    buf_free(&all);
    b.checksum = xmalloc(b.nframes * sizeof(uint32_t));
    t0 = now_seconds();
    for (size_t i = 0; i < b.nframes; i++) b.checksum[i] = (uint32_t)XXH64(frame_src(&b, i), frame_len(&b, i), 0);
    double t_sum = now_seconds() - t0;
    b.bound = tlz_frame_bound(FRAME_BYTES);
    b.out = xmalloc_huge(b.nframes * b.bound);
    memset(b.out, 0, b.nframes * b.bound);
    b.size = xcalloc(b.nframes, sizeof(size_t));
    printf("ids: %.3f GB of %d-byte ids (%s%s repeated), %zu frames of 1 MiB; pinned and filled in %.2f s; "
           "XXH64 checksums on one thread %.2f s (%.2f GB/s)\n",
           b.len / 1e9, width, argv[6], argc > 7 ? " and more" : "", b.nframes, t_pin, t_sum, b.len / 1e9 / t_sum);

    t0 = now_seconds();
    gpu_tlz *g = gpu_tlz_open(batch, FRAME_BYTES, &why);
    if (!g) dief(EXIT_FATAL, "gpu_tlz_open: %s", why.data);
    printf("gpu_tlz_open: %.2f s (GPU_TLZ_TABLE=%s GPU_TLZ_CTA_THREADS=%s)\n", now_seconds() - t0,
           getenv("GPU_TLZ_TABLE") ? getenv("GPU_TLZ_TABLE") : "default",
           getenv("GPU_TLZ_CTA_THREADS") ? getenv("GPU_TLZ_CTA_THREADS") : "default");
    size_t nbatches = (b.nframes + batch - 1) / batch;
    double best = 0;
    for (int r = 0; r < repeats; r++) {
        double before[GPU_TLZ_PHASES], after[GPU_TLZ_PHASES];
        gpu_tlz_phase_seconds(g, before);
        double s = gpu_pass(g, &b, batch);
        gpu_tlz_phase_seconds(g, after);
        size_t packed = 0;
        for (size_t i = 0; i < b.nframes; i++) packed += b.size[i];
        printf("gpu pass %d: %.3f s, %.2f GB/s of ids, %zu batches of %zu frames, ratio %.3f; per batch (ms, stream "
               "time): copy in %.2f, code %.2f, copy out %.2f\n",
               r + 1, s, b.len / 1e9 / s, nbatches, batch, (double)packed / b.len,
               (after[0] - before[0]) * 1e3 / nbatches, (after[1] - before[1]) * 1e3 / nbatches,
               (after[2] - before[2]) * 1e3 / nbatches);
        if (!best || s < best) best = s;
    }
    printf("gpu best: %.2f GB/s of ids\n", b.len / 1e9 / best);
    gpu_tlz_close(g);

    if (threads > 0) {
        uint8_t *host = xmalloc_huge(b.nframes * b.bound);
        memset(host, 0, b.nframes * b.bound);
        size_t *hsize = xcalloc(b.nframes, sizeof(size_t));
        double s = host_pass(&b, threads, host, hsize);
        size_t differ = 0, first = 0;
        for (size_t i = 0; i < b.nframes; i++)
            if (hsize[i] != b.size[i] || memcmp(host + i * b.bound, b.out + i * b.bound, hsize[i]))
                if (!differ++) first = i;
        printf("host: %d threads of tlz_compress_frame %.3f s, %.2f GB/s of ids; GPU frames identical: %s", threads, s,
               b.len / 1e9 / s, differ ? "NO" : "yes");
        if (differ) printf(" (%zu differ, the first frame %zu)", differ, first);
        printf("\n");
        free(host);
        free(hsize);
    }
    gpu_tlz_free_host(b.ids);
    free(b.out);
    free(b.size);
    free(b.checksum);
    buf_free(&why);
    return 0;
}
