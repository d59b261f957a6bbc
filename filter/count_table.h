/* count_table.h - an open-addressing table from 64-bit hashes to counts,
 * reused from document to document without clearing (an epoch number marks
 * which slots belong to the current use). Rules count lines, paragraphs and
 * n-grams in it by their hashes. */
#ifndef WINNOW_FILTER_COUNT_TABLE_H
#define WINNOW_FILTER_COUNT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t key;
    uint32_t count;
    uint32_t first; /* caller's position of the first insertion */
    uint32_t epoch;
} ct_slot;

typedef struct {
    ct_slot *slots;
    size_t mask;
    uint32_t epoch;
} count_table;

/* Empties t and makes room for up to expected keys. */
void ct_reset(count_table *t, size_t expected);

/* Counts key once; returns its slot (count 1 and first = pos when new). */
ct_slot *ct_add(count_table *t, uint64_t key, uint32_t pos);

/* The slot of key, or NULL. */
ct_slot *ct_find(const count_table *t, uint64_t key);

/* Frees t's memory. */
void ct_free(count_table *t);

#endif
