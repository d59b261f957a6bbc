/* unicode_class.h - the Unicode character classes the pre-tokenisers' patterns use,
 * one byte of bits per code point, looked up in a two-stage table generated
 * from ICU and from classes measured in HF tokenizers (tokenize/unicode_tables.c,
 * by scripts/tokenize_gen_unicode.c). Two tables, because the engines differ in
 * their Unicode version: tiktoken's (Unicode 15) and Oniguruma's in HF
 * tokenizers (Unicode 16). Plain arrays so the GPU twin can copy them to
 * device memory as they are. */
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
    UCLASS_S = 64,        /* \p{S}: Sm Sc Sk So (DeepSeek V3's pattern) */
    UCLASS_NUMERIC = 128  /* Rust's char::is_numeric (Unicode 17): HF's Digits */
};

#define UCLASS_BLOCK 128
#define UCLASS_MAX_CP 0x10FFFF

typedef struct {
    const char *unicode;                 /* the Unicode version of its classes */
    const uint16_t *stage1;              /* (UCLASS_MAX_CP + 1) / UCLASS_BLOCK block numbers */
    const uint8_t (*stage2)[UCLASS_BLOCK]; /* nblocks distinct blocks; U+0000..007F first */
    int nblocks;
} uclass_table;

extern const uclass_table uclass_tiktoken; /* tiktoken's regex crate: ICU 72, Unicode 15.0 */
extern const uclass_table uclass_onig;     /* HF tokenizers 0.23.2's Oniguruma: Unicode 16.0 */

/* Class bits of code point cp in table t (0 for cp beyond U+10FFFF). */
static inline uint8_t uclass_of(const uclass_table *t, uint32_t cp)
{
    if (cp > UCLASS_MAX_CP) return 0;
    return t->stage2[t->stage1[cp / UCLASS_BLOCK]][cp % UCLASS_BLOCK];
}

/* Class bits of an ASCII byte, the same in both tables. */
#define UCLASS_ASCII(b) (uclass_tiktoken.stage2[0][b])

/* A Unicode property a pattern names (L, Lu, Nd, Alphabetic...) and, as text
 * to add inside a PCRE2 class, the code points Oniguruma has in it and the
 * PCRE2 the tables were generated with lacks (hf_regex.c). */
typedef struct {
    const char *property;
    const char *ranges;
} uclass_pcre2_addition;

extern const uclass_pcre2_addition uclass_pcre2_additions[];
extern const int uclass_npcre2_additions;

/* All those characters, as sorted first-last ranges. */
extern const uint32_t uclass_pcre2_newer[][2];
extern const int uclass_npcre2_newer;

#endif
