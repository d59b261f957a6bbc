/* unicode_class.h - the Unicode character classes the pre-tokenisers' patterns use,
 * one byte of bits per code point, looked up in a two-stage table generated
 * from ICU (tokenize/unicode_tables.c, by scripts/tokenize_gen_unicode.c).
 * Plain arrays so the GPU twin can copy them to device memory as they are. */
#ifndef WINNOW_TOKENIZE_UNICODE_CLASS_H
#define WINNOW_TOKENIZE_UNICODE_CLASS_H

#include <stdint.h>

enum {
    UCLASS_L = 1,        /* \p{L}: Lu Ll Lt Lm Lo */
    UCLASS_N = 2,        /* \p{N}: Nd Nl No */
    UCLASS_WS = 4,       /* \s: the White_Space property (Rust regex's \s) */
    UCLASS_UPPERISH = 8, /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k) */
    UCLASS_LOWERISH = 16, /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k) */
    UCLASS_P = 32,        /* \p{P}: Pc Pd Ps Pe Pi Pf Po (DeepSeek V3's pattern) */
    UCLASS_S = 64         /* \p{S}: Sm Sc Sk So (DeepSeek V3's pattern) */
};

#define UCLASS_BLOCK 128
#define UCLASS_MAX_CP 0x10FFFF

extern const char uclass_unicode_version[];
extern const uint16_t uclass_stage1[(UCLASS_MAX_CP + 1) / UCLASS_BLOCK];
extern const uint8_t uclass_stage2[][UCLASS_BLOCK];

/* Class bits of code point cp (0 for cp beyond U+10FFFF). */
static inline uint8_t uclass_of(uint32_t cp)
{
    if (cp > UCLASS_MAX_CP) return 0;
    return uclass_stage2[uclass_stage1[cp / UCLASS_BLOCK]][cp % UCLASS_BLOCK];
}

#endif
