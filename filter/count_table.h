/* count_table.h - an open-addressing table from 64-bit hashes to counts,
 * reused from document to document: each use clears only as many slots as
 * it needs (twice the keys it expects). Rules count lines, paragraphs and
 * n-grams in it by their hashes. */
#ifndef WINNOW_FILTER_COUNT_TABLE_H
#define WINNOW_FILTER_COUNT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;
    uint32_t count; /* 0: empty slot */
    uint32_t first; /* caller's position of the first insertion */
} ct_slot;

typedef struct {
    ct_slot *slots;
    size_t cap;  /* slots allocated */
    size_t mask; /* slots in use - 1 */
    size_t n;    /* keys */
} count_table;

/* Empties t and makes room for up to expected keys: slots stay where they
 * are until more keys than that are added (then the table grows). */
void ct_reset(count_table *t, size_t expected);

/* Counts key once; returns its slot (count 1 and first = pos when new). */
ct_slot *ct_add(count_table *t, uint64_t key, uint32_t pos);

/* The slot of key, or NULL. */
ct_slot *ct_find(const count_table *t, uint64_t key);

/* Frees t's memory. */
void ct_free(count_table *t);

#endif
