/* pretok_hf.h - hand-written scanners for the pre-tokenizers of
 * tokenizer.json files that are not tiktoken's patterns, each giving exactly
 * the pieces the steps it replaces give (the loader, hf_pretok.c, matches
 * the steps' pattern strings exactly; any other pattern runs in PCRE2):
 *
 *   PRETOK_HF_TEKKEN    Mistral Nemo's Split (PRETOK_HF_TEKKEN_PATTERN),
 *                       as PCRE2 with MATCH_INVALID_UTF runs it
 *   PRETOK_HF_DEEPSEEK  DeepSeek V3's three Splits (pretok_hf_deepseek_patterns)
 *                       in sequence, each as PCRE2 with MATCH_INVALID_UTF
 *   PRETOK_HF_DIGITS_BYTE_LEVEL  Digits (individual_digits) then ByteLevel's
 *                       GPT-2 split (Command R+)
 *
 * PCRE2's MATCH_INVALID_UTF: no match holds a byte that is not part of a
 * valid character, and the valid text on each side is matched as if the
 * subject ended there; the bytes between matches (such bytes, and for
 * DeepSeek's pattern valid characters no alternative matches) are a piece.
 * Classes are uclass_onig's (tokenize/unicode_tables.c: Oniguruma's in HF
 * tokenizers, Unicode 16), Digits' Rust's char::is_numeric (Unicode 17). */
#ifndef WINNOW_TOKENIZE_PRETOK_HF_H
#define WINNOW_TOKENIZE_PRETOK_HF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { PRETOK_HF_TEKKEN = 0, PRETOK_HF_DEEPSEEK, PRETOK_HF_DIGITS_BYTE_LEVEL } pretok_hf_scanner;

#define PRETOK_HF_DEEPSEEK_SPLITS 3

extern const char PRETOK_HF_TEKKEN_PATTERN[];
extern const char *const pretok_hf_deepseek_patterns[PRETOK_HF_DEEPSEEK_SPLITS];

/* Where a scan of one text stands between calls of pretok_hf_split. */
typedef struct {
    size_t stretch_end; /* end of the stretch the last piece was in (0: none yet) */
    bool valid;         /* the text is all valid UTF-8 (checked once) */
    bool checked;
    bool stretch_invalid; /* DeepSeek: the stretch holds an invalid byte */
    size_t valid_end;     /* DeepSeek: end of the valid run the last match was tried in */
} pretok_hf_state;

/* Splits up to max pieces of s[0..n) from pos (the end of an earlier piece
 * of the same text, or 0 with *st zeroed): stores each piece's end offset
 * in ends and returns how many (0 only when pos == n). The pieces tile the
 * text. */
int pretok_hf_split(pretok_hf_scanner sc, const uint8_t *s, size_t n, size_t pos, size_t *ends, int max,
                    pretok_hf_state *st);

#endif
