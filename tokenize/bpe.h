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

/* Pieces up to this many bytes have their merge result remembered. */
#define BPE_CACHE_BYTES 32
#define BPE_CACHE_SLOTS 8192 /* a power of two */
#define BPE_LONG_CACHE_SLOTS 1024 /* longer pieces: separator lines, long identifiers */
#define BPE_LONG_CACHE_MAX 4096   /* longer than this: not remembered */

/* One remembered merge: the piece and its ids. */
typedef struct {
    uint64_t hash;
    uint8_t len, nids; /* len 0: empty */
    uint8_t bytes[BPE_CACHE_BYTES];
    uint32_t ids[BPE_CACHE_BYTES];
} bpe_cache_entry;

/* One remembered merge of a longer piece: bytes, then ids, in mem. */
typedef struct {
    uint64_t hash;
    uint32_t len, nids;
    uint8_t *mem;
} bpe_long_entry;

/* Per-thread working memory: the heap merge's arrays and a direct-mapped
 * cache of recent merge results (pieces that are not whole tokens repeat:
 * identifiers, rare words). Zero-initialise; free with bpe_scratch_free.
 * The caches follow the vocabulary pointer they are used with and empty
 * themselves when it changes; free the scratch before freeing its vocabulary
 * if another may be loaded at the same address. */
typedef struct {
    void *mem;
    size_t cap;
    bpe_cache_entry *cache;
    bpe_long_entry *long_cache;
    const tok_vocab *cache_vocab; /* the vocabulary the caches hold results of */
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

/* Appends the ids of a piece that is known not to be one token (n >= 2);
 * hash is vocab_hash(s, n). */
void bpe_merge_piece(const tok_vocab *v, const uint8_t *s, size_t n, uint64_t hash, bpe_scratch *scratch,
                     tok_ids *out);

/* The same merge done by the heap whatever the length (for tests). */
void bpe_encode_piece_heap(const tok_vocab *v, const uint8_t *s, size_t n, bpe_scratch *scratch, tok_ids *out);

/* Frees the scratch memory. */
void bpe_scratch_free(bpe_scratch *scratch);

#endif
