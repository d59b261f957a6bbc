/* pretokenize.h - hand-written scanners that split text exactly as tiktoken's
 * pre-tokenisation regexes do.
 *
 * Three pattern families cover every known encoding:
 *   PRETOK_GPT2    gpt2, r50k_base, p50k_base, p50k_edit
 *                  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *   PRETOK_CL100K  cl100k_base, llama3
 *   PRETOK_O200K   o200k_base
 * (full patterns in pretok_pattern_string()). Each scanner is a plain
 * function over a byte array with table-driven Unicode classes, no
 * recursion and no allocation, so the GPU twin can run the same code.
 * Pieces tile the text: every byte belongs to exactly one piece. Invalid
 * UTF-8 bytes are treated as one-byte characters of no class (punctuation). */
#ifndef WINNOW_TOKENIZE_PRETOKENIZE_H
#define WINNOW_TOKENIZE_PRETOKENIZE_H

#include <stddef.h>
#include <stdint.h>

#include "tokenize/unicode_class.h"

typedef enum { PRETOK_GPT2 = 0, PRETOK_CL100K, PRETOK_O200K, PRETOK_NFAMILIES } pretok_family;

/* End offset (> pos) of the piece that starts at pos (pos < n), with the
 * character classes of table u (uclass_tiktoken for tiktoken's encodings,
 * uclass_onig for a tokenizer.json's pattern). */
size_t pretok_next(pretok_family f, const uclass_table *u, const uint8_t *s, size_t n, size_t pos);

/* Splits up to max pieces from pos: stores each piece's end offset in ends
 * and returns how many (0 only when pos == n). The same as calling
 * pretok_next repeatedly, without a call per piece. */
int pretok_split(pretok_family f, const uclass_table *u, const uint8_t *s, size_t n, size_t pos, size_t *ends, int max);

/* End offset (> pos) of the piece that starts at pos (pos < n) by Tekken's
 * pattern (Mistral Nemo's tokenizer.json; pretok_hf.h has it), with
 * uclass_onig's classes: o200k's
 * without the contractions and with \p{N} for \p{N}{1,3}. Invalid bytes as
 * above; pretok_hf.c adds PCRE2's treatment of them. */
size_t pretok_next_tekken(const uint8_t *s, size_t n, size_t pos);

/* The tiktoken regex (pat_str) a family implements. */
const char *pretok_pattern_string(pretok_family f);

/* The family whose pattern is exactly pat; -1 when none is. */
int pretok_family_of_pattern(const char *pat);

#endif
