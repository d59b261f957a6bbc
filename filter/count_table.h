/* count_table.h - an open-addressing table from 64-bit hashes to counts,
 * reused from document to document: a reset only starts a new generation
 * (slots of older ones read as empty), so it costs nothing per slot. Rules
 * count lines, paragraphs, words and n-grams in it by their hashes. */
#ifndef WINNOW_FILTER_COUNT_TABLE_H
#define WINNOW_FILTER_COUNT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tables are kept at most half full. */
#define CT_LOAD_FACTOR 2

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

/* Doubles t's slots, keeping its keys (ct_add's slow path). */
void ct_grow(count_table *t);

/* Spreads the bits of a hash that may be a plain combination. */
static inline uint64_t ct_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* The slot of key, or the empty slot where it would go. */
static inline ct_slot *ct_probe(const count_table *t, uint64_t key)
{
    for (size_t i = ct_mix(key) & t->mask;; i = (i + 1) & t->mask) {
        ct_slot *s = &t->slots[i];
        if (s->gen != t->gen || s->key == key) return s;
    }
}

/* Counts key once; returns its slot (count 1 and first = pos when new).
 * Inline: the rules call it once per line, paragraph and n-gram. */
static inline ct_slot *ct_add(count_table *t, uint64_t key, uint32_t pos)
{
    ct_slot *s = ct_probe(t, key);
    if (s->gen == t->gen) {
        s->count++;
        return s;
    }
    if ((t->n + 1) * CT_LOAD_FACTOR > t->mask + 1) {
        ct_grow(t);
        s = ct_probe(t, key);
    }
    t->n++;
    s->key = key;
    s->count = 1;
    s->first = pos;
    s->gen = t->gen;
    return s;
}

/* The slot of key, or NULL. */
static inline ct_slot *ct_find(const count_table *t, uint64_t key)
{
    ct_slot *s = ct_probe(t, key);
    return s->gen == t->gen ? s : NULL;
}

/* Frees t's memory. */
void ct_free(count_table *t);

#endif
