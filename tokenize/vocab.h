/* vocab.h - a BPE vocabulary: token byte strings, their ids and merge ranks,
 * and a hash table from byte string to token.
 *
 * For tiktoken vocabularies a token's rank is its id. For HF byte-level BPE
 * the rank is the priority of the merge that makes the token and the id comes
 * from the vocab; bpe.c merges by rank and outputs ids. Special tokens live in
 * the same id space but not in the hash table: ordinary text never maps to
 * them. All arrays are flat so the GPU twin can copy them as they are. */
#ifndef WINNOW_TOKENIZE_VOCAB_H
#define WINNOW_TOKENIZE_VOCAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VOCAB_NO_TOKEN UINT32_MAX
#define VOCAB_MAX_ID ((1u << 24) - 1) /* loaders refuse larger ids: no real vocabulary is near */
#define VOCAB_HEAD_BYTES 8 /* bytes of a token kept inline in its hash slot */

typedef struct {
    uint64_t head; /* the first up to 8 bytes, little-endian, zero-padded */
    uint32_t len;  /* 0: empty slot */
    uint32_t id;
} vocab_slot;

typedef struct {
    char *name;
    uint32_t id;
} vocab_special;

typedef struct {
    uint8_t *bytes;     /* every token's bytes, back to back */
    size_t nbytes, bytes_cap;
    uint64_t *tok_off;  /* by id: offset in bytes (UINT64_MAX: no such id) */
    uint32_t *tok_len;  /* by id: length */
    uint32_t *tok_rank; /* by id: merge rank (NULL: rank == id) */
    uint32_t nids;      /* 1 + the largest id */
    uint32_t ids_cap;   /* room in the by-id arrays */
    uint32_t ntokens;   /* ordinary tokens */
    vocab_slot *slots;  /* open addressing, linear probing */
    uint32_t mask;
    vocab_special *specials;
    int nspecials;
    /* direct tables filled by vocab_finish(): the id of each single byte and
     * of each two-byte string (index b0 | b1 << 8), VOCAB_NO_TOKEN when none */
    uint32_t byte_id[256];
    uint32_t *pair_id;
    /* by slot (after vocab_finish): bytes 8..15 of the slot's token as a
     * little-endian integer, zero-padded, so the encoder compares tokens of
     * up to 16 bytes without reaching their bytes */
    uint64_t *slot_tail;
} tok_vocab;

/* An empty vocabulary. */
void vocab_init(tok_vocab *v);

/* Frees everything v holds. */
void vocab_free(tok_vocab *v);

/* Adds an ordinary token. Returns false (and adds nothing) when the byte
 * string or the id is already there. */
bool vocab_add(tok_vocab *v, const void *bytes, size_t len, uint32_t id, uint32_t rank);

/* vocab_add of len >= 1 bytes whose vocab_hash is hash. */
bool vocab_add_hashed(tok_vocab *v, const void *bytes, size_t len, uint64_t hash, uint32_t id, uint32_t rank);

/* Starts loading the hash slot vocab_add of bytes with this vocab_hash probes first. */
void vocab_prefetch_add(const tok_vocab *v, uint64_t hash);

/* Makes room for ntokens tokens of nbytes bytes in all and ids below
 * ntokens, so adding them never rehashes or grows an array (a loader that
 * knows the counts calls it first; the table is the same size it would have
 * grown to). */
void vocab_reserve(tok_vocab *v, size_t ntokens, size_t nbytes);

/* Builds the direct tables; call after the last vocab_add. */
void vocab_finish(tok_vocab *v);

/* Adds a special token (recognised only with allow_special). */
void vocab_add_special(tok_vocab *v, const char *name, uint32_t id);

/* The id of the special token called name, or VOCAB_NO_TOKEN. */
uint32_t vocab_special_id(const tok_vocab *v, const char *name);

/* The id of the ordinary token with exactly these bytes, or VOCAB_NO_TOKEN. */
uint32_t vocab_find(const tok_vocab *v, const uint8_t *s, size_t len);

/* ---- the hash table, inline for the encoder's hot loop ---- */

#define VOCAB_HASH_MUL1 0x9E3779B97F4A7C15ull
#define VOCAB_HASH_MUL2 0xC2B2AE3D27D4EB4Full

/* The first up to 8 bytes of s as a little-endian integer, zero-padded. */
static inline uint64_t vocab_head(const uint8_t *s, size_t len)
{
    uint64_t h = 0;
    memcpy(&h, s, len < VOCAB_HEAD_BYTES ? len : VOCAB_HEAD_BYTES);
    return h;
}

/* The same when at least 8 bytes are readable at s: one load and a mask. */
static inline uint64_t vocab_head_wide(const uint8_t *s, size_t len)
{
    uint64_t h;
    memcpy(&h, s, VOCAB_HEAD_BYTES);
    return len >= VOCAB_HEAD_BYTES ? h : h & ((1ull << (8 * len)) - 1);
}

/* Hash of a byte string (len >= 1) whose head is vocab_head(s, len). */
static inline uint64_t vocab_hash_head(const uint8_t *s, size_t len, uint64_t head)
{
    uint64_t h = (head ^ len) * VOCAB_HASH_MUL1;
    for (size_t i = VOCAB_HEAD_BYTES; i < len; i += VOCAB_HEAD_BYTES) {
        uint64_t w = 0;
        memcpy(&w, s + i, len - i < VOCAB_HEAD_BYTES ? len - i : VOCAB_HEAD_BYTES);
        h = (h ^ w) * VOCAB_HASH_MUL2;
        h ^= h >> 29;
    }
    return h ^ (h >> 32);
}

/* Hash of a byte string (len >= 1). */
static inline uint64_t vocab_hash(const uint8_t *s, size_t len)
{
    return vocab_hash_head(s, len, vocab_head(s, len));
}

/* vocab_hash(s, len) when len + VOCAB_HEAD_BYTES - 1 bytes are readable at
 * s: each 8-byte word is one load, masked to the bytes of the string (the
 * same values vocab_hash's copies zero-pad). */
static inline uint64_t vocab_hash_wide(const uint8_t *s, size_t len)
{
    uint64_t h = (vocab_head_wide(s, len) ^ len) * VOCAB_HASH_MUL1;
    for (size_t i = VOCAB_HEAD_BYTES; i < len; i += VOCAB_HEAD_BYTES) {
        h = (h ^ vocab_head_wide(s + i, len - i)) * VOCAB_HASH_MUL2;
        h ^= h >> 29;
    }
    return h ^ (h >> 32);
}

/* Prefetch helpers must be inlined early: GCC 12 finds a function whose
 * only effect is __builtin_prefetch pure and deletes the call before its
 * inliner runs, so the loads would never start. */
#define VOCAB_PREFETCH_INLINE static inline __attribute__((always_inline))

/* Starts loading the slot a lookup of len bytes with this hash will read
 * first (and its tail, after vocab_finish, when len > 8). */
VOCAB_PREFETCH_INLINE void vocab_prefetch(const tok_vocab *v, uint64_t hash, size_t len)
{
    __builtin_prefetch(&v->slots[(uint32_t)hash & v->mask]);
    if (len > VOCAB_HEAD_BYTES) __builtin_prefetch(&v->slot_tail[(uint32_t)hash & v->mask]);
}

/* vocab_find with the head and hash already computed (len >= 1). */
static inline uint32_t vocab_find_head(const tok_vocab *v, const uint8_t *s, size_t len, uint64_t head,
                                       uint64_t hash)
{
    for (uint32_t i = (uint32_t)hash & v->mask;; i = (i + 1) & v->mask) {
        const vocab_slot *sl = &v->slots[i];
        if (!sl->len) return VOCAB_NO_TOKEN;
        if (sl->len == len && sl->head == head &&
            (len <= VOCAB_HEAD_BYTES || !memcmp(v->bytes + v->tok_off[sl->id] + VOCAB_HEAD_BYTES,
                                                s + VOCAB_HEAD_BYTES, len - VOCAB_HEAD_BYTES)))
            return sl->id;
    }
}

/* Bytes 8..15 of s (len > 8) as a little-endian integer, zero-padded; with
 * wide, at least 16 bytes are readable at s. */
static inline uint64_t vocab_tail(const uint8_t *s, size_t len, bool wide)
{
    uint64_t t = 0;
    if (wide) {
        memcpy(&t, s + VOCAB_HEAD_BYTES, VOCAB_HEAD_BYTES);
        return len >= 2 * VOCAB_HEAD_BYTES ? t : t & ((1ull << (8 * (len - VOCAB_HEAD_BYTES))) - 1);
    }
    memcpy(&t, s + VOCAB_HEAD_BYTES, len < 2 * VOCAB_HEAD_BYTES ? len - VOCAB_HEAD_BYTES : VOCAB_HEAD_BYTES);
    return t;
}

/* vocab_hash from the head and (len > 8) the tail already loaded. */
static inline uint64_t vocab_hash_parts(const uint8_t *s, size_t len, uint64_t head, uint64_t tail)
{
    uint64_t h = (head ^ len) * VOCAB_HASH_MUL1;
    if (len > VOCAB_HEAD_BYTES) {
        h = (h ^ tail) * VOCAB_HASH_MUL2;
        h ^= h >> 29;
        for (size_t i = 2 * VOCAB_HEAD_BYTES; i < len; i += VOCAB_HEAD_BYTES) {
            uint64_t w = 0;
            memcpy(&w, s + i, len - i < VOCAB_HEAD_BYTES ? len - i : VOCAB_HEAD_BYTES);
            h = (h ^ w) * VOCAB_HASH_MUL2;
            h ^= h >> 29;
        }
    }
    return h ^ (h >> 32);
}

/* The encoder's lookup (after vocab_finish): vocab_find with the head, the
 * tail (when len > 8) and the hash already computed. */
static inline uint32_t vocab_find_parts(const tok_vocab *v, const uint8_t *s, size_t len, uint64_t head,
                                        uint64_t tail, uint64_t hash)
{
    for (uint32_t i = (uint32_t)hash & v->mask;; i = (i + 1) & v->mask) {
        const vocab_slot *sl = &v->slots[i];
        if (sl->head == head && sl->len == len) {
            if (len <= VOCAB_HEAD_BYTES) return sl->id;
            if (v->slot_tail[i] == tail &&
                (len <= 2 * VOCAB_HEAD_BYTES || !memcmp(v->bytes + v->tok_off[sl->id] + 2 * VOCAB_HEAD_BYTES,
                                                        s + 2 * VOCAB_HEAD_BYTES, len - 2 * VOCAB_HEAD_BYTES)))
                return sl->id;
        } else if (!sl->len) {
            return VOCAB_NO_TOKEN;
        }
    }
}

/* vocab_find with the hash already computed (len >= 1). */
static inline uint32_t vocab_find_hashed(const tok_vocab *v, const uint8_t *s, size_t len, uint64_t hash)
{
    return vocab_find_head(v, s, len, vocab_head(s, len), hash);
}

/* vocab_find when at least 8 bytes are readable at s (len >= 1). */
static inline uint32_t vocab_find_wide(const tok_vocab *v, const uint8_t *s, size_t len)
{
    uint64_t head = vocab_head_wide(s, len);
    return vocab_find_head(v, s, len, head, vocab_hash_head(s, len, head));
}

/* The id of the two-byte string s[0..2) (after vocab_finish). */
static inline uint32_t vocab_find_pair(const tok_vocab *v, const uint8_t *s)
{
    return v->pair_id[s[0] | (unsigned)s[1] << 8];
}

/* The merge rank of token id. */
static inline uint32_t vocab_rank(const tok_vocab *v, uint32_t id)
{
    return v->tok_rank ? v->tok_rank[id] : id;
}

/* The bytes of token id (ordinary or special); NULL when there is no such id. */
const uint8_t *vocab_token_bytes(const tok_vocab *v, uint32_t id, size_t *len);

/* After vocab_finish: NULL when v can encode any byte string (all 256 bytes are tokens),
 * else a message saying what is missing. */
const char *vocab_check_complete(const tok_vocab *v);

#endif
