/* gpu_bandwidth.cu - the two ceilings the GPU tokenizer is measured against:
 * pinned host-to-device copy (PCIe) and device-to-device copy (HBM, counted
 * as bytes read plus bytes written). Prints markdown table rows. */
#include <cuda_runtime.h>
#include <stdio.h>

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
    return 0;
}
