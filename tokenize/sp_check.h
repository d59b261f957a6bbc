/* sp_check.h - checks the parts of a SentencePiece .model that
 * libsentencepiece (0.1.97) uses without bounds checks, so that a damaged
 * or hostile file is refused instead of crashing the encoder: the
 * precompiled_charsmap of normalizer_spec and denormalizer_spec (a
 * darts-clone trie and its string pool). Found by tests/fuzz/sp_model.c. */
#ifndef WINNOW_TOKENIZE_SP_CHECK_H
#define WINNOW_TOKENIZE_SP_CHECK_H

#include <stddef.h>

#include <stdint.h>

#include "core/buf.h"

/* Returns 0 when every precompiled_charsmap in the serialized ModelProto
 * data[0..n) is safe for SentencePiece to use, else -1 with a message
 * naming the field and its byte offset in err. */
int sp_model_check(const char *data, size_t n, wbuf *err);

/* Checks one precompiled_charsmap blob (also a tokenizer.json's Precompiled
 * normalizer, tokenize/hf_precompiled.c): every node a search can reach has
 * its 256 units inside the trie, every leaf's string is inside the pool and
 * NUL-terminated, no loop, at most 32 leaves on a path. NULL when it is
 * safe (an empty blob too), else what is wrong. */
const char *sp_charsmap_problem(const uint8_t *blob, size_t len);

#endif
