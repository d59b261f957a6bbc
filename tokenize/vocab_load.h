/* vocab_load.h - reading vocabulary files into a tok_vocab.
 *
 * Formats: tiktoken (.tiktoken and Llama 3's tokenizer.model: one token per
 * line, base64 bytes, a space, the rank) and Hugging Face tokenizer.json
 * byte-level BPE (model.vocab + model.merges, ByteLevel or Split+ByteLevel
 * pre-tokeniser). Errors are returned as a message naming the line or field;
 * the loaders never print and never exit, so fuzzing them is safe. */
#ifndef WINNOW_TOKENIZE_VOCAB_LOAD_H
#define WINNOW_TOKENIZE_VOCAB_LOAD_H

#include <stddef.h>

#include "core/buf.h"
#include "tokenize/vocab.h"

/* Parses tiktoken-format text into v (initialised by the caller). Returns 0,
 * or -1 with a message in err. */
int vocab_parse_tiktoken(tok_vocab *v, const char *text, size_t n, wbuf *err);

/* Parses a tokenizer.json into v (initialised by the caller); *family gets
 * the pre-tokeniser family its pattern is (a pretok_family). Added tokens
 * marked special become special tokens. Returns 0, or -1 with a message. */
int vocab_parse_hf_json(tok_vocab *v, const char *text, size_t n, int *family, wbuf *err);

/* True when the text looks like a tokenizer.json (starts with '{'). */
int vocab_looks_like_json(const char *text, size_t n);

#endif
