/* none.c - the GPU layer of a build without CUDA: no GPU is ever usable. */
#include <stdio.h>

#include "gpu/gpu.h"
#include "gpu/minhash.h"

bool gpu_usable(char *why, size_t n)
{
    snprintf(why, n, "this winnow was built without CUDA (no nvcc at build time)");
    return false;
}

gpu_minhash *gpu_minhash_create(int k, const uint64_t *a, const uint64_t *b, char *why, size_t n)
{
    (void)k, (void)a, (void)b;
    gpu_usable(why, n);
    return NULL;
}

int gpu_minhash_warm_up(char *why, size_t n)
{
    gpu_usable(why, n);
    return -1;
}

int gpu_minhash_signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs,
                           uint64_t *sigs, char *why, size_t n)
{
    (void)g, (void)hashes, (void)offsets, (void)ndocs, (void)sigs;
    gpu_usable(why, n);
    return -1;
}

int gpu_minhash_text_signatures(gpu_minhash *g, const char *text, size_t text_len, const uint32_t *units,
                                size_t nunits, const gpu_text_doc *docs, int ndocs, int ngram, uint64_t *sigs,
                                char *why, size_t n)
{
    (void)g, (void)text, (void)text_len, (void)units, (void)nunits, (void)docs, (void)ndocs, (void)ngram, (void)sigs;
    gpu_usable(why, n);
    return -1;
}

bool gpu_pin(void *p, size_t n)
{
    (void)p, (void)n;
    return false;
}

void gpu_unpin(void *p)
{
    (void)p;
}

double gpu_minhash_last_kernel_ms(const gpu_minhash *g)
{
    (void)g;
    return 0;
}

void gpu_minhash_destroy(gpu_minhash *g)
{
    (void)g;
}
