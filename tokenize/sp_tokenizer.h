/* sp_tokenizer.h - a SentencePiece .model as a winnow tokenizer: loading it
 * (the pieces into the tokenizer's vocabulary, BOS/EOS from the model),
 * encoding with control symbols matched in the text when asked, and decoding
 * with control symbols written as their names (see docs/tokenize.md). */
#ifndef WINNOW_TOKENIZE_SP_TOKENIZER_H
#define WINNOW_TOKENIZE_SP_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "tokenize/tokenizer.h"

/* Whether data[0..n) starts as a serialized SentencePiece ModelProto does
 * (its first field, a piece: tag 0x0A and a length that fits in data, then
 * the piece's own string field: tag 0x0A and a length that fits in the
 * piece). No tiktoken file (not one that starts with blank lines, 0x0A
 * bytes) or tokenizer.json starts so. */
bool sp_tokenizer_sniff(const char *data, size_t n);

/* Loads the model in data[0..n) into t (initialised as tokenizer.c does,
 * vocab empty). Returns 0, or -1 with a message in err. */
int sp_tokenizer_load(tokenizer *t, const char *data, size_t n, wbuf *err);

/* Probe text i of the ordinary texts every loaded model encodes (the
 * loader refuses a model that cannot), its length in *n; NULL past the last. */
const char *sp_tokenizer_probe_text(size_t i, size_t *n);

/* Appends the ids of s[0..n) to out: SentencePiece's Encode of the text;
 * with allow_special, control symbols written in the text become their ids
 * and the text between them is encoded piece by piece. Exits (status 2)
 * when SentencePiece refuses the text: a damaged model can, on text unlike
 * the probe texts it had to encode to load. */
void sp_tokenizer_encode(const tokenizer *t, const char *s, size_t n, bool allow_special, tok_ids *out);

/* Appends the text of ids to out: SentencePiece's DecodeIds of each run of
 * ids between control symbols, each control symbol as its name; ids
 * outside the vocabulary are skipped and counted (the return value). */
size_t sp_tokenizer_decode(const tokenizer *t, const uint32_t *ids, size_t n, wbuf *out);

#endif
