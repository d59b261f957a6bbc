/* keyset.h - a compact hash set of fixed-width hash keys, each optionally
 * carrying a 32-bit value: the streaming dedup index.
 *
 * Keys are already uniform hashes (1 or 2 64-bit words). The table is a
 * bucketed cuckoo hash (8 slots per bucket, 2 candidate buckets per key), so
 * it stays fast at 90%+ load: a 1-word key with a value costs about
 * 12 / 0.9 = 13.3 bytes. It grows by half when an insert cannot be placed. */
#ifndef WINNOW_DEDUP_KEYSET_H
#define WINNOW_DEDUP_KEYSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int words;          /* 64-bit words per key: 1 or 2 */
    bool has_value;
    size_t nbuckets;
    size_t count;
    uint64_t *keys;     /* nbuckets * SLOTS * words */
    uint32_t *values;   /* nbuckets * SLOTS, when has_value */
    bool has_zero_key;  /* the all-zero key marks empty slots, so it is kept here */
    uint32_t zero_value;
    uint64_t rng;       /* for the cuckoo walk; fixed seed, so runs repeat */
} keyset;

/* Makes an empty set sized for expected keys (0: a small default). */
void keyset_init(keyset *s, int words, bool has_value, uint64_t expected);

/* Frees the set's memory. */
void keyset_free(keyset *s);

/* Looks key up; returns true when present and stores its value in *value
 * (when value is not NULL and the set has values). */
bool keyset_find(const keyset *s, const uint64_t *key, uint32_t *value);

/* Adds key with value unless present; returns
 * true when it was added. */
bool keyset_add(keyset *s, const uint64_t *key, uint32_t value);

/* Looks key up and adds it with value when absent: one probe for both.
 * Returns true when it was present (its value in *found, when the set has
 * values and found is not NULL), false when it was added. */
bool keyset_find_or_add(keyset *s, const uint64_t *key, uint32_t value, uint32_t *found);

/* Starts loading the two buckets key may sit in: a hint for a lookup soon
 * after, so lookups of many keys overlap their cache misses. */
void keyset_prefetch(const keyset *s, const uint64_t *key);

/* Bytes of memory the table holds. */
size_t keyset_bytes(const keyset *s);

#endif
