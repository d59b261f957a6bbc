/* id_ring.h - room for token ids in one fixed buffer, taken in order and
 * given back in order: the GPU path's ids wait there, where the device
 * wrote them, until the writer has written them (tokenize_blocks.c), so
 * that the memory they need stays bounded by the buffer. */
#ifndef WINNOW_ID_RING_H
#define WINNOW_ID_RING_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t *mem;
    size_t cap;     /* ids */
    uint64_t head;  /* ids taken so far, ends of the buffer skipped to keep runs whole included */
    uint64_t tail;  /* ids given back so far */
} id_ring;

/* A ring over cap ids at mem (which stays the caller's). */
void id_ring_init(id_ring *r, uint32_t *mem, size_t cap);

/* Room for n (> 0) consecutive ids, or NULL when that much is not free now
 * (or ever: n > cap). *end is the mark to give back once they and every
 * run taken before them are no longer needed. */
uint32_t *id_ring_take(id_ring *r, size_t n, uint64_t *end);

/* Gives back every run taken up to mark end (a smaller mark than one given
 * back before changes nothing). */
void id_ring_give_back(id_ring *r, uint64_t end);

/* The mark given back so far: runs whose end is at most this are free. */
uint64_t id_ring_given_back(const id_ring *r);

#endif
