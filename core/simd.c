/* simd.c - choosing the vector unit once, at program start. */
#include "simd.h"

bool simd_avx2_enabled;
bool simd_avx512_vbmi2_enabled;

__attribute__((constructor)) static void simd_detect(void)
{
    simd_force_baseline(false);
}

void simd_force_baseline(bool baseline)
{
    __builtin_cpu_init();
    simd_avx2_enabled = !baseline && __builtin_cpu_supports("avx2");
    simd_avx512_vbmi2_enabled = !baseline && __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2");
}
