/* id_ring.c - room for token ids taken and given back in order (see id_ring.h). */
#include "tokenize/id_ring.h"

void id_ring_init(id_ring *r, uint32_t *mem, size_t cap)
{
    r->mem = mem;
    r->cap = cap;
    r->head = r->tail = 0;
}

uint32_t *id_ring_take(id_ring *r, size_t n, uint64_t *end)
{
    if (!n || n > r->cap) return NULL;
    if (r->head == r->tail) r->head = r->tail = (r->head + r->cap - 1) / r->cap * r->cap; /* empty: start afresh */
    size_t at = (size_t)(r->head % r->cap);
    size_t skip = at + n > r->cap ? r->cap - at : 0; /* a run never wraps: the buffer's end is left unused */
    if (r->head + skip + n - r->tail > r->cap) return NULL;
    r->head += skip + n;
    *end = r->head;
    return r->mem + (skip ? 0 : at);
}

void id_ring_give_back(id_ring *r, uint64_t end)
{
    if (end > r->tail) r->tail = end;
}

uint64_t id_ring_given_back(const id_ring *r) { return r->tail; }
