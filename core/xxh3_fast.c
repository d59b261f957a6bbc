/* xxh3_fast.c - XXH3-64 updates by the AVX2 build of libxxhash's code when
 * the CPU has AVX2, else by the library (see xxh3_fast.h). */
#include "core/xxh3_fast.h"

#include <stdatomic.h>

void xxh3_update(XXH3_state_t *s, const void *p, size_t n)
{
    static atomic_int avx2 = -1; /* threads racing to the first call find the same answer */
    int has = atomic_load_explicit(&avx2, memory_order_relaxed);
    if (has < 0) {
        has = __builtin_cpu_supports("avx2") ? 1 : 0;
        atomic_store_explicit(&avx2, has, memory_order_relaxed);
    }
    if (has) xxh3_update_avx2(s, p, n);
    else XXH3_64bits_update(s, p, n);
}
