/* bpe.h - byte-pair merging of one pre-tokenised piece, by tiktoken's rule:
 * a piece that is a whole token maps directly; otherwise, starting from
 * single bytes, repeatedly merge the adjacent pair whose joined bytes form
 * the token of lowest rank (the leftmost such pair on ties) until no pair
 * joins into a token. Short pieces use a scan over an array (tiktoken's own
 * method), long ones a heap, so the cost is O(n log n) in the piece length. */
#ifndef WINNOW_TOKENIZE_BPE_H
#define WINNOW_TOKENIZE_BPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tokenize/vocab.h"

/* Pieces up to this many bytes merge by scanning on the GPU; longer ones
 * with a heap. */
#define BPE_SCAN_MAX 64
/* The same limit on the CPU, where the scan compares four ranks at once
 * (at most 255: positions are bytes). */
#define BPE_CPU_SCAN_MAX 255

/* Pieces up to this many bytes that merge into at most BPE_CACHE_IDS ids
 * have their merge result remembered in a 64-byte entry; longer pieces go to
 * the long-piece cache. */
#define BPE_CACHE_BYTES 24
#define BPE_CACHE_IDS 8
#define BPE_CACHE_SLOTS 65536 /* a power of two */
#define BPE_LONG_CACHE_SLOTS 1024 /* longer pieces: separator lines, long identifiers */
#define BPE_LONG_CACHE_MAX 4096   /* longer than this: not remembered */

/* One remembered merge: the piece and its ids (one cache line). */
typedef struct {
    uint32_t hash; /* the low half of the piece's hash */
    uint8_t len, nids; /* len 0: empty */
    uint8_t bytes[BPE_CACHE_BYTES];
    uint32_t ids[BPE_CACHE_IDS];
} bpe_cache_entry;

/* Recent lookups of byte strings of up to 16 bytes in the vocabulary, found
 * or not: a small direct-mapped table that stays in the core's cache, in
 * front of the vocabulary's hash (frequent tokens hit it). A string that is
 * not a token and, as a piece, merges into two or three ids keeps them here
 * too, so that a frequent such piece needs no remembered-merge lookup. */
#define BPE_HOT_SLOTS 16384 /* a power of two */
#define BPE_HOT_MAX_LEN 16
#define BPE_HOT_IDS 3 /* ids of a merged piece an entry holds */

typedef struct {
    uint64_t head, tail; /* vocab_head and vocab_tail of the string */
    uint32_t len;        /* 0: empty */
    /* ids[0]: the token, VOCAB_NO_TOKEN when the string is not one; or, when
     * ids[1] is not VOCAB_NO_TOKEN, the string is not a token and these are
     * the ids it merges into as a piece (ids[2] VOCAB_NO_TOKEN when two) */
    uint32_t ids[BPE_HOT_IDS];
} bpe_hot_entry; /* 32 bytes: an entry never straddles two cache lines */

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
    bpe_hot_entry *hot;
    bpe_cache_entry *cache;
    bpe_long_entry *long_cache;
    const tok_vocab *cache_vocab; /* the vocabulary the caches hold results of */
    struct hf_scratch *hf;        /* the tokenizer.json pipeline's working memory (hf_pipeline.h) */
} bpe_scratch;

/* Makes the scratch ready for encoding with v (allocates and, when it held
 * another vocabulary's results, empties its tables). */
void bpe_scratch_ready(const tok_vocab *v, bpe_scratch *scratch);

#define BPE_NOT_RECENT (VOCAB_NO_TOKEN - 1) /* never an id: ids are at most VOCAB_MAX_ID */

/* The recent-lookup entry of a string of len bytes with this head, tail
 * (len > 8) and hash (after bpe_scratch_ready). */
static inline bpe_hot_entry *bpe_recent_entry(const bpe_scratch *scratch, uint64_t hash)
{
    return &scratch->hot[(hash >> 48) & (BPE_HOT_SLOTS - 1)];
}

/* True when entry e holds the string of len bytes with this head and tail. */
static inline bool bpe_recent_holds(const bpe_hot_entry *e, size_t len, uint64_t head, uint64_t tail)
{
    return (e->head == head) & (e->tail == tail) & (e->len == len);
}

/* What the recent lookups say of the string: its id, VOCAB_NO_TOKEN, or
 * BPE_NOT_RECENT when they do not hold it (they hold strings of at most
 * BPE_HOT_MAX_LEN bytes, so a longer one never matches an entry). */
static inline uint32_t bpe_recent_token(const bpe_scratch *scratch, size_t len, uint64_t head, uint64_t tail,
                                        uint64_t hash)
{
    const bpe_hot_entry *e = bpe_recent_entry(scratch, hash);
    if (!bpe_recent_holds(e, len, head, tail)) return BPE_NOT_RECENT;
    return e->ids[1] == VOCAB_NO_TOKEN ? e->ids[0] : VOCAB_NO_TOKEN;
}

/* The vocabulary's answer for the string (id or VOCAB_NO_TOKEN), remembered
 * among the recent lookups. */
static inline uint32_t bpe_lookup_token(const tok_vocab *v, bpe_scratch *scratch, const uint8_t *s, size_t len,
                                        uint64_t head, uint64_t tail, uint64_t hash)
{
    uint32_t id = vocab_find_parts(v, s, len, head, tail, hash);
    if (len <= BPE_HOT_MAX_LEN)
        *bpe_recent_entry(scratch, hash) =
            (bpe_hot_entry){head, tail, (uint32_t)len, {id, VOCAB_NO_TOKEN, VOCAB_NO_TOKEN}};
    return id;
}

/* Remembers among the recent lookups that the piece of len bytes with this
 * head, tail and hash, not a token, merges into ids[0..nids), when it is
 * short enough and they are two or three. */
static inline void bpe_remember_piece(bpe_scratch *scratch, size_t len, uint64_t head, uint64_t tail, uint64_t hash,
                                      const uint32_t *ids, size_t nids)
{
    if (len > BPE_HOT_MAX_LEN || nids < 2 || nids > BPE_HOT_IDS) return;
    *bpe_recent_entry(scratch, hash) =
        (bpe_hot_entry){head, tail, (uint32_t)len, {ids[0], ids[1], nids > 2 ? ids[2] : VOCAB_NO_TOKEN}};
}

/* The id of the byte string s[0..len) (len >= 1) or VOCAB_NO_TOKEN, given its
 * head, tail (len > 8) and hash, through the recent lookups. */
static inline uint32_t bpe_find_token(const tok_vocab *v, bpe_scratch *scratch, const uint8_t *s, size_t len,
                                      uint64_t head, uint64_t tail, uint64_t hash)
{
    uint32_t id = bpe_recent_token(scratch, len, head, tail, hash);
    return id != BPE_NOT_RECENT ? id : bpe_lookup_token(v, scratch, s, len, head, tail, hash);
}

/* Starts loading the remembered merge a piece of len bytes with this hash
 * would have (after bpe_scratch_ready). */
VOCAB_PREFETCH_INLINE void bpe_prefetch_merge(const bpe_scratch *scratch, uint64_t hash, size_t len)
{
    if (len <= BPE_CACHE_BYTES) __builtin_prefetch(&scratch->cache[(hash >> 32) & (BPE_CACHE_SLOTS - 1)]);
}

/* Starts loading the recent-lookup entry for this hash. */
VOCAB_PREFETCH_INLINE void bpe_prefetch_token(const bpe_scratch *scratch, uint64_t hash)
{
    __builtin_prefetch(bpe_recent_entry(scratch, hash));
}

/* A growable array of token ids. */
typedef struct {
    uint32_t *ids;
    size_t n, cap;
} tok_ids;

/* Makes room for at least need ids in all, at least doubling (the slow
 * path of ids_push and ids_reserve). */
void ids_grow_to(tok_ids *t, size_t need);

/* Appends one id. */
static inline void ids_push(tok_ids *t, uint32_t id)
{
    if (t->n == t->cap) ids_grow_to(t, t->n + 1);
    t->ids[t->n++] = id;
}

/* Makes room for at least m more ids. */
static inline void ids_reserve(tok_ids *t, size_t m)
{
    if (t->cap - t->n < m) ids_grow_to(t, t->n + m);
}

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
