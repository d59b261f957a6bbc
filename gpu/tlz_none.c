/* tlz_none.c - the GPU frame encoder in builds without CUDA: never usable,
 * so shard frames are coded on the host (shards/tlz.c), the same bytes. */
#include "gpu/tlz.h"

#include <stdlib.h>

#include "core/util.h"

bool gpu_tlz_usable(wbuf *why)
{
    buf_puts(why, "winnow was built without CUDA (no nvcc at build time)");
    return false;
}

gpu_tlz *gpu_tlz_open(size_t max_frames, size_t max_frame_bytes, wbuf *err)
{
    (void)max_frames, (void)max_frame_bytes;
    buf_puts(err, "winnow was built without CUDA (no nvcc at build time)");
    return NULL;
}

void *gpu_tlz_alloc_host(size_t bytes) { return xmalloc(bytes); }

void gpu_tlz_free_host(void *p) { free(p); }

int gpu_tlz_submit(gpu_tlz *g, size_t n, const uint8_t *const *src, const size_t *len, int width,
                   const uint32_t *checksum)
{
    (void)g, (void)n, (void)src, (void)len, (void)width, (void)checksum;
    return 0;
}

void gpu_tlz_finish(gpu_tlz *g, int slot, uint8_t *const *dst, size_t *size) { (void)g, (void)slot, (void)dst, (void)size; }

void gpu_tlz_close(gpu_tlz *g) { (void)g; }
