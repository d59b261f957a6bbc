/* xxh3_avx2.c - libxxhash's own XXH3 code (its header, inlined) built with
 * -mavx2 (the Makefile's rule for this file), for xxh3_update() on CPUs
 * with AVX2. The state is the library's XXH3_state_t: the header and the
 * library come from the same package (libxxhash-dev). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/xxh3_fast.h"

void xxh3_update_avx2(XXH3_state_t *s, const void *p, size_t n)
{
    XXH3_64bits_update(s, p, n);
}
