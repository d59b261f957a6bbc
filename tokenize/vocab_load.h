/* vocab_load.h - reading vocabulary files into a tok_vocab.
 *
 * The tiktoken format (.tiktoken and Llama 3's tokenizer.model: one token
 * per line, base64 bytes, a space, the rank); a Hugging Face tokenizer.json
 * is a whole pipeline (hf_pipeline.h). Errors are returned as a message
 * naming the line; the loader never prints and never exits, so fuzzing it
 * is safe. */
#ifndef WINNOW_TOKENIZE_VOCAB_LOAD_H
#define WINNOW_TOKENIZE_VOCAB_LOAD_H

#include <stddef.h>

#include "core/buf.h"
#include "tokenize/vocab.h"

/* Parses tiktoken-format text into v (initialised by the caller). Returns 0,
 * or -1 with a message in err. */
int vocab_parse_tiktoken(tok_vocab *v, const char *text, size_t n, wbuf *err);

#endif
