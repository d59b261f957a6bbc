/* tlz.h - shard frames by winnow's token encoder on a CUDA GPU: the same
 * bytes as shards/tlz.h's tlz_compress_frame() on the host, which is the
 * reference (the device runs the very code of shards/tlz_block.h, one
 * thread per 128 KiB block).
 *
 * Batches are asynchronous: gpu_tlz_submit() copies a batch of frames to the
 * device and starts it; gpu_tlz_finish() waits for it and writes the frames
 * out. GPU_TLZ_IN_FLIGHT batches may be submitted before the first is
 * finished, so the host writes one batch while the device codes the next.
 * The same functions exist in builds without CUDA (gpu/tlz_none.c), where
 * gpu_tlz_usable() says no.
 *
 * No command uses it yet: on the 16-core H200 machine, shard writers that
 * sent frames here were slower than the host alone (the tokenizer's kernels
 * share the GPU, and the frames cross PCIe twice): bench/results/
 * shards-tlz-2026-11-27.md. It is the tested device half of frames coded
 * where the tokenizer's ids already are. */
#ifndef WINNOW_GPU_TLZ_H
#define WINNOW_GPU_TLZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_TLZ_IN_FLIGHT 2

typedef struct gpu_tlz gpu_tlz;

/* True when a CUDA device can run the encoder; otherwise false with the reason in why. */
bool gpu_tlz_usable(wbuf *why);

/* Prepares device and pinned buffers for batches of up to max_frames
 * frames of up to max_frame_bytes each. NULL with the reason in err when it
 * cannot. */
gpu_tlz *gpu_tlz_open(size_t max_frames, size_t max_frame_bytes, wbuf *err);

/* Host memory the device reads fastest (pinned), for frame contents given
 * to gpu_tlz_submit(); freed by gpu_tlz_free_host(). Exits when out of memory. */
void *gpu_tlz_alloc_host(size_t bytes);
void gpu_tlz_free_host(void *p);

/* Starts coding n frames: frame i is src[i][0..len[i]), whole tokens of
 * width (2 or 4) bytes, with content checksum checksum[i] (the low 32 bits
 * of XXH64 of its content, seed 0). src may be reused when this returns.
 * Returns the batch's slot, to give to gpu_tlz_finish(); at most
 * GPU_TLZ_IN_FLIGHT batches are open at once. A CUDA error is fatal. */
int gpu_tlz_submit(gpu_tlz *g, size_t n, const uint8_t *const *src, const size_t *len, int width,
                   const uint32_t *checksum);

/* Waits for the batch in slot and writes frame i at dst[i] (room for
 * tlz_frame_bound(len[i]) bytes) and its size at size[i]. */
void gpu_tlz_finish(gpu_tlz *g, int slot, uint8_t *const *dst, size_t *size);

/* Device seconds of the batches finished so far, summed, in the order
 * they run in a batch's stream: copying the frames in, coding the blocks,
 * and putting the frames together and out into host memory. Two batches in
 * flight on one device overlap, so a phase may include waiting for the
 * other batch's kernels. */
enum { GPU_TLZ_COPY_IN, GPU_TLZ_CODE, GPU_TLZ_COPY_OUT, GPU_TLZ_PHASES };
void gpu_tlz_phase_seconds(const gpu_tlz *g, double seconds[GPU_TLZ_PHASES]);

/* Frees what gpu_tlz_open() took. */
void gpu_tlz_close(gpu_tlz *g);

#ifdef __cplusplus
}
#endif

#endif
