/* sign.h - fingerprints of documents: exact hash, MinHash signature, band keys.
 *
 * A signer belongs to one thread. Texts are added one by one; finish() then
 * computes all their signatures in one go. On the CPU a text is normalised
 * and its shingles hashed when added. With a GPU it is only normalised and
 * its normal form kept: the device hashes the shingles too (falling back to
 * the CPU, with the same results, if the GPU fails). */
#ifndef WINNOW_DEDUP_SIGN_H
#define WINNOW_DEDUP_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dedup/minhash.h"

typedef struct {
    uint64_t exact[2];  /* XXH3-128 of the normal form: high 64 bits, low 64 bits */
    uint32_t nshingles; /* 0: empty normal form, no signature, no band keys */
} dedup_fp;

typedef struct dedup_signer dedup_signer;

/* Makes a signer for params p (kept by reference); it signs on the CPU. */
dedup_signer *dedup_signer_create(const minhash_params *p);

/* Moves s's signatures to the GPU from its next finish() on; false (with
 * the reason in why, n bytes) when no GPU context can be made. */
bool dedup_signer_use_gpu(dedup_signer *s, char *why, size_t n);

/* Keeps texts as normal forms from the next text on, as a signer on the GPU
 * does, even without a GPU (finish() then hashes them on the CPU): for
 * tests of that layout. */
void dedup_signer_keep_text(dedup_signer *s);

/* Frees the signer. */
void dedup_signer_destroy(dedup_signer *s);

/* Adds one text; fills *fp at once (exact hash and shingle count). */
void dedup_signer_add(dedup_signer *s, const char *text, size_t len, dedup_fp *fp);

/* The same for a scanned JSON string value, read without decoding it
 * first (its escaped length counts as the text's bytes). */
void dedup_signer_add_json(dedup_signer *s, const jvalue *text, dedup_fp *fp);

/* Writes the k-value signature of every text added since the last finish,
 * in order, to sigs (count * k values), and forgets them. */
void dedup_signer_finish(dedup_signer *s, uint64_t *sigs);

/* Milliseconds the GPU's kernel took in the last finish(); 0 when it ran on
 * the CPU. For timing reports. */
double dedup_signer_last_kernel_ms(const dedup_signer *s);

/* Text bytes added since the signer was made; for benchmarks. */
uint64_t dedup_signer_bytes(const dedup_signer *s);

#endif
