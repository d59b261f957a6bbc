/* bpe.h - tiktoken-exact BPE tokenisation on a CUDA GPU, the twin of
 * tokenize/tokenizer_encode() (ordinary text, no special tokens), which is
 * the reference: the ids are identical for every input. tokenizer.json
 * files of byte-level BPE models are taken when tokenize/hf_gpu.h accepts
 * their pipeline (merges by pair rank, Qwen's and Tekken's patterns, NFC
 * on the host; docs/gpu_tokenize.md).
 *
 * Batches of documents go to the device, several in flight on their own
 * streams; there each document is cut into chunks at positions where every
 * pre-tokenisation pattern is sure to end a piece (a letter followed by a
 * character that is neither letter, mark nor apostrophe), one thread per
 * chunk runs the same scanner as tokenize/pretokenize.c over device copies
 * of the Unicode class tables and looks each piece up in a device copy of
 * the vocabulary hash table; the pieces that are not whole tokens are
 * queued and merged by tiktoken's rule in a second kernel, one thread per
 * piece, grouped by length; the ids are compacted with per-document offsets
 * and written straight into pinned host memory. Pieces longer than
 * GB_MERGE_MAX (128) bytes (a megabyte of one letter) are merged on the host
 * by tokenize/bpe.c, which keeps them O(n log n).
 *
 * Every CUDA device the process sees is used (CUDA_VISIBLE_DEVICES selects
 * them, as for any CUDA program): each has its own tables and batches in
 * flight, batches go to the devices in turn, and the ids come back in input
 * order, identical whatever the number of devices.
 *
 * The same functions exist in builds without CUDA (gpu/bpe_none.c), where
 * gpu_bpe_usable() says no; the "emulated" mode runs the very device code
 * on the host, one simulated thread after another, so the chunking and the
 * compaction can be tested on machines without a GPU. */
#ifndef WINNOW_GPU_BPE_H
#define WINNOW_GPU_BPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "tokenize/tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_bpe gpu_bpe;

typedef enum { GPU_BPE_DEVICE = 0, GPU_BPE_EMULATE } gpu_bpe_mode;

/* True when a CUDA device can run the GPU tokenizer; otherwise false with
 * the reason in why (a build without CUDA, no driver, no device). */
bool gpu_bpe_usable(wbuf *why);

/* True when this build has CUDA and the machine has an NVIDIA driver's
 * device node: a GPU may be usable. Cheap (no CUDA call, so no driver
 * start-up); gpu_bpe_usable() is the real test. */
bool gpu_bpe_maybe_present(void);

/* Prepares the tokenizer t (which must outlive the result) for every
 * visible device of compute capability 9.0 or newer (or the host emulation:
 * one pretended device, or GPU_BPE_EMULATE_DEVICES of them, for tests).
 * NULL with a message in err when it cannot (a CUDA error on any device, no
 * such device, or a tokenizer.json pipeline hf_gpu_plan_of refuses). */
gpu_bpe *gpu_bpe_open(const tokenizer *t, gpu_bpe_mode mode, wbuf *err);

/* Encodes ndocs documents texts[i][0..lens[i]) as ordinary text. Appends
 * their ids, document after document, to out and sets doc_end[i] to out->n
 * after document i. Returns 0, or -1 with a message in err (a CUDA error;
 * or tokenizer_encode refused a stretch of a document that has no safe cut
 * within a batch, which the host encodes itself: a tokenizer.json regex
 * that could not finish, no device's fault). One call at a time per
 * gpu_bpe (callers on several threads take a lock).
 * When a CUDA call fails, the call fails naming the device, and that device
 * gets no more batches: later calls use the devices left (-1 when none is). */
int gpu_bpe_encode(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, tok_ids *out,
                   size_t *doc_end, wbuf *err);

/* The same for texts that all lie in memory registered by gpu_bpe_host_register(g):
 * they go to the device straight from there (one copy per run of texts
 * that lie back to back), not through the library's own pinned buffers. */
int gpu_bpe_encode_pinned(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, tok_ids *out,
                          size_t *doc_end, wbuf *err);

/* A stretch of a call's ids that the device wrote into the caller's memory
 * (gpu_bpe_id_sink) instead of out: ids at .. at + n of out's numbering
 * lie at ids[0 .. n). */
typedef struct {
    size_t at;
    const uint32_t *ids;
    size_t n;
} gpu_bpe_run;

/* Where a call's ids may go instead of being copied into out: for each
 * batch, place(sink, n) gives room for its n ids in memory registered with
 * gpu_bpe_host_register (called on the encoding thread, batch after batch in
 * input order), and the device copies them there; or returns NULL, and they
 * are copied into out as without a sink. The library appends a run per
 * stretch placed (runs, nruns, cap: grown with realloc, freed by the
 * caller), in order; out->n and doc_end count every id as usual, and the
 * ids that no run covers (pieces merged on the host, documents encoded on
 * the host, batches not placed) are at their place in out->ids. */
typedef struct gpu_bpe_id_sink {
    uint32_t *(*place)(struct gpu_bpe_id_sink *sink, size_t n);
    void *ctx; /* the caller's */
    gpu_bpe_run *runs;
    size_t nruns, cap;
} gpu_bpe_id_sink;

/* The same (texts_pinned: as gpu_bpe_encode_pinned), but the call may
 * return with its last batches still on the device, their ids not yet in
 * out and doc_end: the next call (of any of the three) completes them
 * before its own, as does gpu_bpe_finish. So the device works on while
 * the caller passes on the block before and comes back with the next,
 * instead of each call starting with nothing in flight and waiting for its
 * last batch. The texts, out and doc_end must stay until then. With a sink
 * (else NULL), the ids go where its place() says (no copy on the host), and
 * "complete" includes the device's copies into the places. Returns -1
 * with a message in err when a batch of this call or of the call before
 * failed: the ids of both are then incomplete. */
int gpu_bpe_encode_begin(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, bool texts_pinned,
                         tok_ids *out, size_t *doc_end, gpu_bpe_id_sink *sink, wbuf *err);

/* Completes the batches gpu_bpe_encode_begin left on the device (none:
 * returns 0 at once): 0, or -1 with a message in err when one failed (that
 * call's ids are then incomplete). Call it before gpu_bpe_close. */
int gpu_bpe_finish(gpu_bpe *g, wbuf *err);

/* Makes bytes of memory at p (from malloc or aligned_alloc, page-aligned,
 * its pages already faulted in: core/pages.h) page-locked, for
 * gpu_bpe_encode_pinned()'s texts (nothing when emulated): 0, or -1 when it
 * cannot be (p is then still the caller's). Free it with gpu_bpe_host_free()
 * before gpu_bpe_close(g). */
int gpu_bpe_host_register(gpu_bpe *g, void *p, size_t bytes);
void gpu_bpe_host_free(gpu_bpe *g, void *p);

/* Tuning for benchmarks (ids never depend on it): the text each
 * cut-finding thread scans (default 64 bytes, kept within 64..4096), the
 * text per batch (0: the default, 32 MB; kept within 4..256 MB), and
 * whether batches overlap (default true; false runs one batch at a time,
 * on the first device, so that kernel time is measured alone). Returns
 * once every device is set up: 0, or -1 with a message in err when the
 * first device's batch buffers cannot be allocated (g is then unusable). */
int gpu_bpe_tune(gpu_bpe *g, size_t chunk_bytes, size_t batch_bytes, bool overlap, wbuf *err);

/* Seconds the devices spent in kernels (transfers excluded) since open,
 * all devices together. */
double gpu_bpe_kernel_seconds(const gpu_bpe *g);

/* How many devices g uses (emulated: pretends to use). gpu_bpe_open sets
 * up the first before it returns and each further one on a thread of its
 * own afterwards; a device takes batches from the first call after it is
 * ready (one whose set-up fails is reported with warnf and never used). */
int gpu_bpe_devices(const gpu_bpe *g);

/* Waits until every device's set-up has ended; returns how many devices
 * take batches (for benchmarks and tests that want all of them). */
int gpu_bpe_wait_devices(gpu_bpe *g);

/* Seconds device i (0 .. gpu_bpe_devices(g) - 1) spent in kernels since open. */
double gpu_bpe_device_kernel_seconds(const gpu_bpe *g, int i);

/* Batches sent to device i since open (a failed one included). */
size_t gpu_bpe_device_batches(const gpu_bpe *g, int i);

/* The same split by phase: finding cuts, encoding chunks, merging the
 * pieces that are not whole tokens, the scan of id counts, gathering ids,
 * copying them into host memory. */
#define GPU_BPE_PHASES 6
void gpu_bpe_phase_seconds(const gpu_bpe *g, double seconds[GPU_BPE_PHASES]);

/* Seconds the calling thread spent since open packing texts into pinned
 * memory, waiting for the device, unpacking ids (with the merges of long
 * pieces), and launching batches (the driver calls that queue a batch's
 * copies and kernels), in that order; then two parts of the unpacking:
 * merging long pieces, and placing ids in a sink (gpu_bpe_id_sink: its
 * place() and starting the device's copy). */
#define GPU_BPE_HOST_PHASES 6
void gpu_bpe_host_seconds(const gpu_bpe *g, double seconds[GPU_BPE_HOST_PHASES]);

/* Frees g and its device memory. */
void gpu_bpe_close(gpu_bpe *g);

#ifdef __cplusplus
}
#endif

#endif
