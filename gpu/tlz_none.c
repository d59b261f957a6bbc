/* tlz_none.c - the GPU token encoder in builds without CUDA: never usable,
 * so callers compress shard frames on the CPU (shards/tlz.c), which writes
 * the same bytes. Only the host memory functions work, so that callers can
 * share the code that fills frames. */
#include <stdlib.h>

#include "core/util.h"
#include "gpu/tlz.h"

bool gpu_tlz_usable(wbuf *why)
{
    buf_puts(why, "winnow was built without CUDA (no nvcc at build time)");
    return false;
}

gpu_tlz *gpu_tlz_open(size_t max_frames, size_t max_frame_bytes, wbuf *err)
{
    (void)max_frames, (void)max_frame_bytes;
    gpu_tlz_usable(err);
    return NULL;
}

void *gpu_tlz_alloc_host(size_t bytes)
{
    return xmalloc(bytes ? bytes : 1);
}

void gpu_tlz_free_host(void *p)
{
    free(p);
}

int gpu_tlz_submit(gpu_tlz *g, size_t n, const uint8_t *const *src, const size_t *len, int width,
                   const uint32_t *checksum)
{
    (void)g, (void)n, (void)src, (void)len, (void)width, (void)checksum;
    dief(EXIT_FATAL, "GPU token encoder: winnow was built without CUDA");
}

void gpu_tlz_finish(gpu_tlz *g, int slot, uint8_t *const *dst, size_t *size)
{
    (void)g, (void)slot, (void)dst, (void)size;
    dief(EXIT_FATAL, "GPU token encoder: winnow was built without CUDA");
}

void gpu_tlz_phase_seconds(const gpu_tlz *g, double seconds[GPU_TLZ_PHASES])
{
    (void)g;
    for (int p = 0; p < GPU_TLZ_PHASES; p++) seconds[p] = 0;
}

void gpu_tlz_close(gpu_tlz *g)
{
    (void)g;
}
