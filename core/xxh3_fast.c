/* xxh3_fast.c - XXH3-64 updates by the AVX2 build of libxxhash's code when
 * the CPU has AVX2, else by the library (see xxh3_fast.h). */
#include "core/xxh3_fast.h"

#include <stdbool.h>

void xxh3_update(XXH3_state_t *s, const void *p, size_t n)
{
    static int avx2 = -1; /* racing first calls agree */
    if (avx2 < 0) avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    if (avx2) xxh3_update_avx2(s, p, n);
    else XXH3_64bits_update(s, p, n);
}
