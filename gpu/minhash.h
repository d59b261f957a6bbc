/* minhash.h (gpu) - MinHash signatures of document batches on a CUDA GPU.
 *
 * The GPU twin of minhash_signature() in dedup/minhash.c, bit for bit: for
 * each document, the minimum over its shingle hashes of (a_k*h + b_k) mod
 * 2^61-1 for every permutation k (UINT64_MAX when it has no shingles). The
 * CPU normalises; the GPU cuts the normal forms into shingles, hashes them
 * (XXH3-64, gpu/xxh3_words.h) and does the K modular multiplications per
 * shingle, which are nearly all of the arithmetic (or takes shingle hashes
 * the CPU made: gpu_minhash_signatures). One
 * context serves one thread at a time; each has its own CUDA stream, and
 * contexts are spread over every visible device in turn (CUDA_VISIBLE_DEVICES
 * selects them). */
#ifndef WINNOW_GPU_MINHASH_H
#define WINNOW_GPU_MINHASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_minhash gpu_minhash;

/* Makes a context for k permutations (a, b) on the next device in turn;
 * NULL with a reason in why when the GPU cannot be used. */
gpu_minhash *gpu_minhash_create(int k, const uint64_t *a, const uint64_t *b, char *why, size_t n);

/* Makes every visible device's context and loads the signature kernels, so
 * that the contexts gpu_minhash_create() makes afterwards are ready at once:
 * for a thread to call while others work on the CPU. Returns 0, or -1 with
 * a reason in why. */
int gpu_minhash_warm_up(char *why, size_t n);

/* Signatures of ndocs documents: document i's shingle hashes are
 * hashes[offsets[i] .. offsets[i+1]); writes ndocs * k values to sigs
 * (document-major). Returns 0, or -1 with a reason (naming the device) in why. */
int gpu_minhash_signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs,
                           uint64_t *sigs, char *why, size_t n);

/* One document of a text batch (gpu_minhash_text_signatures): its normal
 * form is text bytes [text_from, ...), its units' starts are
 * units[unit_from .. unit_from + nunits) and their ends the nunits values
 * after those, both offsets into its own normal form (dedup/normalize.h). */
typedef struct {
    uint64_t text_from, unit_from;
    uint32_t nunits;
} gpu_text_doc;

/* Signatures of ndocs documents from their normal forms: the device cuts
 * each into shingles of ngram units (dedup/minhash.h's rule) and hashes
 * them with XXH3_64bits (gpu/xxh3_words.h) before the permutations, so the
 * host only normalises. text holds text_len bytes, units 2 * the documents'
 * nunits values. Writes ndocs * k values to sigs, the same as
 * minhash_shingle_hashes() then gpu_minhash_signatures(). Returns 0, or -1
 * with a reason (naming the device) in why. */
int gpu_minhash_text_signatures(gpu_minhash *g, const char *text, size_t text_len, const uint32_t *units,
                                size_t nunits, const gpu_text_doc *docs, int ndocs, int ngram, uint64_t *sigs,
                                char *why, size_t n);

/* Page-locks the n bytes at p (page-aligned host memory of the caller, not
 * shared with other buffers) so that copies from it to the device need no
 * staging copy on the CPU; false when that cannot be done (the copies then
 * stay correct, only slower). */
bool gpu_pin(void *p, size_t n);

/* Undoes gpu_pin(p) before p is freed. */
void gpu_unpin(void *p);

/* Milliseconds the kernels of the last gpu_minhash_signatures() call took
 * (without the transfers), for benchmarks. */
double gpu_minhash_last_kernel_ms(const gpu_minhash *g);

/* Frees the context. */
void gpu_minhash_destroy(gpu_minhash *g);

#ifdef __cplusplus
}
#endif

#endif
