/* count_table.c - linear probing over a power-of-two table. */
#include "filter/count_table.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

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

void ct_grow(count_table *t)
{
    size_t old_slots = t->mask + 1;
    uint32_t old_gen = t->gen;
    ct_slot *old = xmalloc(old_slots * sizeof *old);
    memcpy(old, t->slots, old_slots * sizeof *old);
    make_room(t, old_slots * 2);
    for (size_t i = 0; i < old_slots; i++) {
        if (old[i].gen != old_gen) continue;
        ct_slot *s = ct_probe(t, old[i].key);
        *s = old[i];
        s->gen = t->gen;
    }
    free(old);
}

void ct_free(count_table *t)
{
    free(t->slots);
    memset(t, 0, sizeof *t);
}
