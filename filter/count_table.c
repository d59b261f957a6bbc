/* count_table.c - linear probing over a power-of-two table. */
#include "filter/count_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Keeps the table at most half full. */
#define CT_LOAD_FACTOR 2
#define CT_MIN_SLOTS 64

/* Starts a new generation over at least slots slots (all empty). */
static void make_room(count_table *t, size_t slots)
{
    if (t->cap < slots || t->gen == UINT32_MAX) { /* fresh memory, or generations used up */
        if (t->cap < slots) {
            free(t->slots);
            t->slots = xmalloc(slots * sizeof *t->slots);
            t->cap = slots;
        }
        memset(t->slots, 0, t->cap * sizeof *t->slots);
        t->gen = 0;
    }
    t->gen++;
    t->mask = slots - 1;
}

void ct_reset(count_table *t, size_t expected)
{
    size_t want = CT_MIN_SLOTS;
    while (want < expected * CT_LOAD_FACTOR) want *= 2;
    make_room(t, want);
    t->n = 0;
}

/* Spreads the bits of a hash that may be a plain combination. */
static inline uint64_t ct_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* The slot of key, or the empty slot where it would go. */
static ct_slot *probe(const count_table *t, uint64_t key)
{
    for (size_t i = ct_mix(key) & t->mask;; i = (i + 1) & t->mask) {
        ct_slot *s = &t->slots[i];
        if (s->gen != t->gen || s->key == key) return s;
    }
}

/* Doubles the table, keeping its keys. */
static void grow(count_table *t)
{
    size_t old_slots = t->mask + 1;
    uint32_t old_gen = t->gen;
    ct_slot *old = xmalloc(old_slots * sizeof *old);
    memcpy(old, t->slots, old_slots * sizeof *old);
    make_room(t, old_slots * 2);
    for (size_t i = 0; i < old_slots; i++) {
        if (old[i].gen != old_gen) continue;
        ct_slot *s = probe(t, old[i].key);
        *s = old[i];
        s->gen = t->gen;
    }
    free(old);
}

ct_slot *ct_add(count_table *t, uint64_t key, uint32_t pos)
{
    ct_slot *s = probe(t, key);
    if (s->gen == t->gen) {
        s->count++;
        return s;
    }
    if ((t->n + 1) * CT_LOAD_FACTOR > t->mask + 1) {
        grow(t);
        s = probe(t, key);
    }
    t->n++;
    s->key = key;
    s->count = 1;
    s->first = pos;
    s->gen = t->gen;
    return s;
}

ct_slot *ct_find(const count_table *t, uint64_t key)
{
    ct_slot *s = probe(t, key);
    return s->gen == t->gen ? s : NULL;
}

void ct_free(count_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}
