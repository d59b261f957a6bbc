/* bpe.h - byte-pair merging of one pre-tokenised piece, by tiktoken's rule:
 * a piece that is a whole token maps directly; otherwise, starting from
 * single bytes, repeatedly merge the adjacent pair whose joined bytes form
 * the token of lowest rank (the leftmost such pair on ties) until no pair
 * joins into a token. Short pieces use a scan over an array (tiktoken's own
 * method), long ones a heap, so the cost is O(n log n) in the piece length. */
#ifndef WINNOW_TOKENIZE_BPE_H
#define WINNOW_TOKENIZE_BPE_H

#include <stddef.h>
#include <stdint.h>

#include "tokenize/vocab.h"

/* Pieces up to this many bytes merge by scanning; longer ones with a heap. */
#define BPE_SCAN_MAX 64

/* Reusable working memory for the heap merge (one per thread). */
typedef struct {
    void *mem;
    size_t cap;
} bpe_scratch;

/* A growable array of token ids. */
typedef struct {
    uint32_t *ids;
    size_t n, cap;
} tok_ids;

/* Appends one id. */
void ids_push(tok_ids *t, uint32_t id);

/* Frees the ids. */
void ids_free(tok_ids *t);

/* Appends the ids of piece s[0..n) (n > 0) to out. */
void bpe_encode_piece(const tok_vocab *v, const uint8_t *s, size_t n, bpe_scratch *scratch, tok_ids *out);

/* The same merge done by the heap whatever the length (for tests). */
void bpe_encode_piece_heap(const tok_vocab *v, const uint8_t *s, size_t n, bpe_scratch *scratch, tok_ids *out);

/* Frees the scratch memory. */
void bpe_scratch_free(bpe_scratch *scratch);

#endif
