/* simd.h - which vector unit the byte scanners (UTF-8 validation, JSON
 * strings) use. The build targets x86-64-v2, so SSE4.2 is the baseline that
 * always works; AVX2 code is used when the CPU has it. Both give the same
 * answers byte for byte. */
#ifndef WINNOW_SIMD_H
#define WINNOW_SIMD_H

#include <stdbool.h>

/* Set once at program start from the CPU; read it through simd_avx2(). */
extern bool simd_avx2_enabled;

/* True when the scanners run their AVX2 code. */
static inline bool simd_avx2(void) { return simd_avx2_enabled; }

/* Set with simd_avx2_enabled: the CPU has AVX-512 BW and VBMI2 (byte
 * compression), for the code that packs 64 bytes at a time. */
extern bool simd_avx512_vbmi2_enabled;

/* True when 64-byte AVX-512 (BW, VBMI2) code may run. */
static inline bool simd_avx512_vbmi2(void) { return simd_avx512_vbmi2_enabled; }

/* Makes the scanners use the baseline (true) or the best the CPU has (false);
 * for tests, fuzzers and benchmarks that cover both paths. Call it before
 * starting threads. */
void simd_force_baseline(bool baseline);

#endif
