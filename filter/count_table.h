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

/* Frees t's memory. */
void ct_free(count_table *t);

#endif
