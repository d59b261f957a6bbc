/* bpe.c - byte-pair merging of one piece (see bpe.h). */
#include "tokenize/bpe.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define NO_RANK UINT32_MAX

void ids_push(tok_ids *t, uint32_t id)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 256;
        t->ids = xrealloc(t->ids, t->cap * sizeof *t->ids);
    }
    t->ids[t->n++] = id;
}

void ids_free(tok_ids *t)
{
    free(t->ids);
    t->ids = NULL;
    t->n = t->cap = 0;
}

/* The id of the token s[0..len) (len >= 2) and its rank in *rank (NO_RANK
 * when there is no such token). */
static inline uint32_t join_id(const tok_vocab *v, const uint8_t *s, size_t len, uint32_t *rank)
{
    uint32_t id = len == 2 ? vocab_find_pair(v, s) : vocab_find(v, s, len);
    *rank = id == VOCAB_NO_TOKEN ? NO_RANK : vocab_rank(v, id);
    return id;
}

/* join_id when at least 8 bytes are readable at s. */
static inline uint32_t join_id_wide(const tok_vocab *v, const uint8_t *s, size_t len, uint32_t *rank)
{
    uint32_t id = len == 2 ? vocab_find_pair(v, s) : vocab_find_wide(v, s, len);
    *rank = id == VOCAB_NO_TOKEN ? NO_RANK : vocab_rank(v, id);
    return id;
}

/* tiktoken's method: parts in an array, each with the rank (and id) of
 * joining it to the next; find the lowest rank (leftmost on ties), join,
 * update the two neighbouring joins. */
static void merge_by_scan(const tok_vocab *v, const uint8_t *piece, size_t n, tok_ids *out)
{
    uint8_t s[BPE_SCAN_MAX + VOCAB_HEAD_BYTES] = {0}; /* a copy with room for 8-byte loads */
    memcpy(s, piece, n);
    uint32_t start[BPE_SCAN_MAX + 1], rank[BPE_SCAN_MAX], join[BPE_SCAN_MAX], id[BPE_SCAN_MAX];
    size_t nparts = n;
    for (size_t i = 0; i <= n; i++) start[i] = (uint32_t)i;
    for (size_t i = 0; i < n; i++) id[i] = v->byte_id[s[i]];
    for (size_t i = 0; i + 1 < n; i++) join[i] = join_id_wide(v, s + i, 2, &rank[i]);
    while (nparts > 1) {
        size_t best = 0;
        uint32_t best_rank = NO_RANK;
        for (size_t i = 0; i + 1 < nparts; i++)
            if (rank[i] < best_rank) best_rank = rank[i], best = i;
        if (best_rank == NO_RANK) break;
        /* join parts best and best+1 */
        id[best] = join[best];
        for (size_t i = best + 1; i < nparts; i++) start[i] = start[i + 1];
        for (size_t i = best + 1; i + 1 < nparts; i++) id[i] = id[i + 1];
        for (size_t i = best + 1; i + 2 < nparts; i++) rank[i] = rank[i + 1], join[i] = join[i + 1];
        nparts--;
        if (best + 1 < nparts)
            join[best] = join_id_wide(v, s + start[best], start[best + 2] - start[best], &rank[best]);
        if (best > 0)
            join[best - 1] = join_id_wide(v, s + start[best - 1], start[best + 1] - start[best - 1], &rank[best - 1]);
    }
    for (size_t k = 0; k < nparts; k++) ids_push(out, id[k]);
}

/* ---- the heap merge for long pieces ---- */

/* A candidate join of the part starting at byte pos with the next part. Stale
 * entries (the part changed since) are skipped when popped: version differs. */
typedef struct {
    uint32_t rank, pos, version, id;
} candidate;

typedef struct {
    uint32_t next, prev, version, id; /* parts as a linked list over byte positions */
} part;

static inline int cand_before(const candidate *a, const candidate *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_push(candidate *h, size_t *n, candidate c)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!cand_before(&c, &h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = c;
}

static candidate heap_pop(candidate *h, size_t *n)
{
    candidate top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= *n) break;
        if (child + 1 < *n && cand_before(&h[child + 1], &h[child])) child++;
        if (!cand_before(&h[child], &last)) break;
        h[i] = h[child];
        i = child;
    }
    h[i] = last;
    return top;
}

/* Pushes the join of part p with its successor, if that is a token. */
static void push_join(const tok_vocab *v, const uint8_t *s, size_t n, part *parts, candidate *h, size_t *nh,
                      uint32_t p)
{
    uint32_t q = parts[p].next;
    if (q >= n) return;
    uint32_t end = parts[q].next, r;
    uint32_t id = join_id(v, s + p, end - p, &r);
    if (r != NO_RANK) heap_push(h, nh, (candidate){r, p, parts[p].version, id});
}

void bpe_encode_piece_heap(const tok_vocab *v, const uint8_t *s, size_t n, bpe_scratch *scratch, tok_ids *out)
{
    /* at most n-1 live joins plus two pushes per merge */
    size_t need = (n + 1) * sizeof(part) + 3 * n * sizeof(candidate);
    if (scratch->cap < need) {
        free(scratch->mem);
        scratch->mem = xmalloc(need);
        scratch->cap = need;
    }
    part *parts = scratch->mem;
    candidate *heap = (candidate *)(parts + n + 1);
    size_t nh = 0;
    for (uint32_t i = 0; i <= n; i++) parts[i] = (part){i + 1, i - 1, 0, i < n ? v->byte_id[s[i]] : 0};
    for (uint32_t i = 0; i + 1 < n; i++) push_join(v, s, n, parts, heap, &nh, i);
    while (nh > 0) {
        candidate c = heap_pop(heap, &nh);
        uint32_t p = c.pos;
        if (parts[p].version != c.version) continue; /* p changed or was absorbed */
        uint32_t q = parts[p].next, after = parts[q].next;
        parts[p].next = after;
        parts[p].id = c.id;
        parts[p].version++;
        parts[q].version++; /* q is gone: its entries are stale */
        if (after <= n) parts[after].prev = p;
        push_join(v, s, n, parts, heap, &nh, p);
        if (p > 0) {
            uint32_t before = parts[p].prev;
            parts[before].version++;
            push_join(v, s, n, parts, heap, &nh, before);
        }
    }
    for (uint32_t p = 0; p < n; p = parts[p].next) ids_push(out, parts[p].id);
}

/* Merges a piece longer than BPE_CACHE_BYTES, through the long-piece cache. */
static void merge_long(const tok_vocab *v, const uint8_t *s, size_t n, uint64_t hash, bpe_scratch *scratch,
                       tok_ids *out)
{
    bpe_long_entry *e = NULL;
    if (n <= BPE_LONG_CACHE_MAX) {
        if (!scratch->long_cache) scratch->long_cache = xcalloc(BPE_LONG_CACHE_SLOTS, sizeof *scratch->long_cache);
        e = &scratch->long_cache[(hash >> 32) & (BPE_LONG_CACHE_SLOTS - 1)];
        if (e->mem && e->hash == hash && e->len == n && !memcmp(e->mem, s, n)) {
            const uint8_t *ids = e->mem + n;
            for (uint32_t k = 0; k < e->nids; k++) {
                uint32_t id;
                memcpy(&id, ids + 4 * k, sizeof id);
                ids_push(out, id);
            }
            return;
        }
    }
    size_t first = out->n;
    if (n <= BPE_SCAN_MAX) merge_by_scan(v, s, n, out);
    else bpe_encode_piece_heap(v, s, n, scratch, out);
    if (!e) return;
    free(e->mem);
    e->hash = hash;
    e->len = (uint32_t)n;
    e->nids = (uint32_t)(out->n - first);
    e->mem = xmalloc(n + e->nids * sizeof(uint32_t));
    memcpy(e->mem, s, n);
    memcpy(e->mem + n, out->ids + first, e->nids * sizeof(uint32_t));
}

/* Empties the caches when they hold another vocabulary's results. */
static void caches_for(const tok_vocab *v, bpe_scratch *scratch)
{
    if (scratch->cache_vocab == v) return;
    if (scratch->cache) memset(scratch->cache, 0, BPE_CACHE_SLOTS * sizeof *scratch->cache);
    if (scratch->long_cache)
        for (int i = 0; i < BPE_LONG_CACHE_SLOTS; i++) {
            free(scratch->long_cache[i].mem);
            scratch->long_cache[i].mem = NULL;
        }
    scratch->cache_vocab = v;
}

void bpe_merge_piece(const tok_vocab *v, const uint8_t *s, size_t n, uint64_t hash, bpe_scratch *scratch,
                     tok_ids *out)
{
    caches_for(v, scratch);
    if (n > BPE_CACHE_BYTES) {
        merge_long(v, s, n, hash, scratch, out);
        return;
    }
    if (!scratch->cache) scratch->cache = xcalloc(BPE_CACHE_SLOTS, sizeof *scratch->cache);
    bpe_cache_entry *e = &scratch->cache[(hash >> 32) & (BPE_CACHE_SLOTS - 1)];
    if (e->hash == hash && e->len == n && !memcmp(e->bytes, s, n)) {
        for (int k = 0; k < e->nids; k++) ids_push(out, e->ids[k]);
        return;
    }
    size_t first = out->n;
    merge_by_scan(v, s, n, out);
    e->hash = hash;
    e->len = (uint8_t)n;
    e->nids = (uint8_t)(out->n - first);
    memcpy(e->bytes, s, n);
    memcpy(e->ids, out->ids + first, e->nids * sizeof *e->ids);
}

void bpe_encode_piece(const tok_vocab *v, const uint8_t *s, size_t n, bpe_scratch *scratch, tok_ids *out)
{
    uint64_t hash = vocab_hash(s, n);
    uint32_t id = vocab_find_hashed(v, s, n, hash);
    if (id != VOCAB_NO_TOKEN) ids_push(out, id);
    else bpe_merge_piece(v, s, n, hash, scratch, out);
}

void bpe_scratch_free(bpe_scratch *scratch)
{
    free(scratch->mem);
    free(scratch->cache);
    if (scratch->long_cache)
        for (int i = 0; i < BPE_LONG_CACHE_SLOTS; i++) free(scratch->long_cache[i].mem);
    free(scratch->long_cache);
    memset(scratch, 0, sizeof *scratch);
}
