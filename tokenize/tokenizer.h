/* tokenizer.h - text to token ids and back: a vocabulary, the pre-tokeniser
 * of its pattern family, and its special tokens. */
#ifndef WINNOW_TOKENIZE_TOKENIZER_H
#define WINNOW_TOKENIZE_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "tokenize/bpe.h"
#include "tokenize/pretokenize.h"
#include "tokenize/vocab.h"

typedef struct {
    tok_vocab vocab;
    pretok_family family;
    uint32_t eos, bos; /* VOCAB_NO_TOKEN when the encoding has none */
    bool eos_default, bos_default; /* what --eos/--bos default to: a tokenizer.json's
                                    * post_processor template; else eos only */
    char name[64];     /* encoding name, or the vocabulary file's base name */
    struct hf_pipeline *hf; /* a tokenizer.json: its whole pipeline (NULL: tiktoken-style) */
    struct sp_model *sp;    /* a SentencePiece .model, encoded by SentencePiece (sp_tokenizer.h) */
} tokenizer;

/* Loads the encoding called name from path (a .tiktoken file, Llama 3's
 * tokenizer.model, a tokenizer.json or a SentencePiece .model). With name
 * NULL the file alone says what it is: a tokenizer.json or a SentencePiece
 * model carries its pipeline; a tiktoken file is taken
 * with the pattern of family (or, when family < 0, gives an error).
 * Checks the file's sha256 against tiktoken's published hash when name is a
 * known encoding. Returns 0, or -1 with a message in err. */
int tokenizer_load(tokenizer *t, const char *name, const char *path, int family, wbuf *err);

/* Same from bytes already in memory (no hash check). On failure t holds
 * nothing (tokenizer_free on it is allowed and does nothing). */
int tokenizer_load_mem(tokenizer *t, const char *name, const char *text, size_t n, int family, wbuf *err);

/* Frees t. */
void tokenizer_free(tokenizer *t);

/* Appends the ids of text s[0..n) to out. With allow_special, special-token
 * strings in the text become their ids; otherwise they are ordinary text.
 * Returns 0, or (a tokenizer.json only) the error code of a normalizer or
 * pre-tokenizer regex that could not finish on the text (PCRE2's match,
 * depth or heap limit, or memory): then the ids appended are incomplete,
 * and the document fails (TOKENIZER_REGEX_FAILURE; tokenizer_encode_error
 * says why) rather than be written with plausible but wrong ids. */
int tokenizer_encode(const tokenizer *t, const char *s, size_t n, bool allow_special, bpe_scratch *scratch,
                     tok_ids *out);

/* The failure kind of a document tokenizer_encode could not encode. */
#define TOKENIZER_REGEX_FAILURE "regex_limit"

/* Appends the message of tokenizer_encode's error code to out ("PCRE2: ..."). */
void tokenizer_encode_error(int code, wbuf *out);

/* NULL when tokenizer_decode can decode; else what of the tokenizer.json
 * decoder it does not implement ("the decoder CTC"). */
const char *tokenizer_decode_refused(const tokenizer *t);

/* Appends the bytes of ids to out (for a tokenizer.json, through its
 * decoder; for a SentencePiece model, through SentencePiece); returns how
 * many ids were unknown (skipped). */
size_t tokenizer_decode(const tokenizer *t, const uint32_t *ids, size_t n, wbuf *out);

/* True when tokenizer_decode knows id: it has a token of the vocabulary
 * (for a SentencePiece model: it is below the model's size). */
bool tokenizer_knows_id(const tokenizer *t, uint32_t id);

/* The index of the first of ids[0..n) that tokenizer_decode does not know, or n. */
size_t tokenizer_first_unknown(const tokenizer *t, const uint32_t *ids, size_t n);

#endif
