/* xxh3_fast.h - XXH3-64 streaming at the speed of the machine.
 *
 * Debian's libxxhash is built for the x86-64 baseline (SSE2): ~5 GB/s on
 * the GPU machine's Xeon, where the same library's header compiled for
 * AVX2 hashes ~30 GB/s. The shard writer hashes every id on one thread, so
 * xxh3_update() takes the AVX2 build of libxxhash's own code when the CPU
 * has AVX2, else the library: the state and the hash are the library's,
 * whichever runs. */
#ifndef WINNOW_XXH3_FAST_H
#define WINNOW_XXH3_FAST_H

#include <stddef.h>
#include <xxhash.h>

/* Adds n bytes at p to state s, as XXH3_64bits_update() does. */
void xxh3_update(XXH3_state_t *s, const void *p, size_t n);

/* The AVX2 build of XXH3_64bits_update() (core/xxh3_avx2.c); call it only
 * where the CPU has AVX2. */
void xxh3_update_avx2(XXH3_state_t *s, const void *p, size_t n);

#endif
