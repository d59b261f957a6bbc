/* gpu_bandwidth.cu - the ceilings the GPU tokenizer is measured against:
 * pinned host-to-device copy (PCIe), device-to-device copy (HBM, counted
 * as bytes read plus bytes written), and host memcpy between ordinary and
 * pinned memory on all cores (what packing text and unpacking ids cost).
 * Prints markdown table rows. */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BYTES ((size_t)1 << 30)
#define RUNS 5

static double time_copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    float best = 1e30f;
    for (int r = 0; r < RUNS; r++) {
        cudaEventRecord(a);
        cudaMemcpyAsync(dst, src, n, kind);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (ms < best) best = ms;
    }
    return best / 1e3;
}

typedef struct {
    char *dst;
    const char *src;
    size_t n;
} copy_part;

static void *copy_thread(void *arg)
{
    copy_part *c = (copy_part *)arg;
    memcpy(c->dst, c->src, c->n);
    return NULL;
}

/* Seconds for the best of RUNS memcpys of n bytes split over nt threads. */
static double time_host_copy(char *dst, const char *src, size_t n, int nt)
{
    double best = 1e30;
    for (int r = 0; r < RUNS; r++) {
        pthread_t th[64];
        copy_part part[64];
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int t = 0; t < nt; t++) {
            part[t] = (copy_part){dst + n * t / nt, src + n * t / nt, n * (t + 1) / nt - n * t / nt};
            pthread_create(&th[t], NULL, copy_thread, &part[t]);
        }
        for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9;
        if (s < best) best = s;
    }
    return best;
}

int main(void)
{
    void *host, *d1, *d2;
    if (cudaHostAlloc(&host, BYTES, cudaHostAllocDefault) || cudaMalloc(&d1, BYTES) || cudaMalloc(&d2, BYTES)) {
        fprintf(stderr, "gpu_bandwidth: allocation failed\n");
        return 1;
    }
    cudaMemset(d1, 1, BYTES);
    double h2d = time_copy(d1, host, BYTES, cudaMemcpyHostToDevice);
    double d2h = time_copy(host, d1, BYTES, cudaMemcpyDeviceToHost);
    double d2d = time_copy(d2, d1, BYTES, cudaMemcpyDeviceToDevice);
    printf("| ceiling | pinned H2D copy (PCIe) | %.0f MB/s | 1 GiB, best of %d |\n", BYTES / h2d / 1e6, RUNS);
    printf("| ceiling | pinned D2H copy (PCIe) | %.0f MB/s | 1 GiB, best of %d |\n", BYTES / d2h / 1e6, RUNS);
    printf("| ceiling | D2D copy (HBM read+write) | %.0f MB/s | 1 GiB, best of %d |\n", 2 * BYTES / d2d / 1e6, RUNS);
    char *plain = (char *)malloc(BYTES);
    if (!plain) return 1;
    memset(plain, 1, BYTES);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
    for (int t = 1; t <= nt; t = t < nt && 2 * t > nt ? nt : 2 * t) {
        double in = time_host_copy((char *)host, plain, BYTES, t), out = time_host_copy(plain, (char *)host, BYTES, t);
        printf("| ceiling | host memcpy ordinary -> pinned, %d threads | %.0f MB/s | 1 GiB, best of %d |\n", t,
               BYTES / in / 1e6, RUNS);
        printf("| ceiling | host memcpy pinned -> ordinary, %d threads | %.0f MB/s | 1 GiB, best of %d |\n", t,
               BYTES / out / 1e6, RUNS);
        if (t == nt) break;
    }
    return 0;
}
