/* count_table.h - an open-addressing table from 64-bit hashes to counts,
 * reused from document to document: a reset only starts a new generation
 * (slots of older ones read as empty), so it costs nothing per slot. Rules
 * count lines, paragraphs, words and n-grams in it by their hashes. */
#ifndef WINNOW_FILTER_COUNT_TABLE_H
#define WINNOW_FILTER_COUNT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;
    uint32_t count; /* valid in the slot's generation only */
    uint32_t first; /* caller's position of the first insertion */
    uint32_t gen;   /* generation that filled the slot; another: empty */
} ct_slot;

typedef struct {
    ct_slot *slots;
    size_t cap;   /* slots allocated */
    size_t mask;  /* slots in use - 1 */
    size_t n;     /* keys */
    uint32_t gen; /* current generation (0: none yet) */
} count_table;

/* Empties t and makes room for up to expected keys: slots stay where they
 * are until more keys than that are added (then the table grows). */
void ct_reset(count_table *t, size_t expected);

/* Counts key once; returns its slot (count 1 and first = pos when new). */
ct_slot *ct_add(count_table *t, uint64_t key, uint32_t pos);

/* The slot of key, or NULL. */
ct_slot *ct_find(const count_table *t, uint64_t key);

/* Spreads the bits of a hash that may be a plain combination. */
static inline uint64_t ct_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Asks the CPU to fetch the slot where key's lookup starts (a hint: a later
 * ct_add of key then waits less). */
static inline void ct_prefetch(const count_table *t, uint64_t key)
{
    __builtin_prefetch(&t->slots[ct_mix(key) & t->mask], 1);
}

/* True when slot s of t holds a key of the current generation. */
static inline bool ct_slot_used(const count_table *t, const ct_slot *s) { return s->gen == t->gen; }

/* Frees t's memory. */
void ct_free(count_table *t);

#endif
