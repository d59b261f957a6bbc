/* count_table.c - linear probing over a power-of-two table with epochs. */
#include "filter/count_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Keeps the table at most half full. */
#define CT_LOAD_FACTOR 2
#define CT_MIN_SLOTS 1024

void ct_reset(count_table *t, size_t expected)
{
    size_t want = CT_MIN_SLOTS;
    while (want < expected * CT_LOAD_FACTOR) want *= 2;
    if (!t->slots || t->mask + 1 < want) {
        free(t->slots);
        t->slots = xcalloc(want, sizeof *t->slots);
        t->mask = want - 1;
        t->epoch = 0;
    }
    if (++t->epoch == 0) { /* wrapped: really clear once */
        memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
        t->epoch = 1;
    }
}

/* Spreads the bits of a hash that may be a plain combination. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

ct_slot *ct_add(count_table *t, uint64_t key, uint32_t pos)
{
    for (size_t i = mix64(key) & t->mask;; i = (i + 1) & t->mask) {
        ct_slot *s = &t->slots[i];
        if (s->epoch != t->epoch) {
            s->epoch = t->epoch;
            s->key = key;
            s->count = 1;
            s->first = pos;
            return s;
        }
        if (s->key == key) {
            s->count++;
            return s;
        }
    }
}

ct_slot *ct_find(const count_table *t, uint64_t key)
{
    for (size_t i = mix64(key) & t->mask;; i = (i + 1) & t->mask) {
        ct_slot *s = &t->slots[i];
        if (s->epoch != t->epoch) return NULL;
        if (s->key == key) return s;
    }
}

void ct_free(count_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}
