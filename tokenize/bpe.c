/* bpe.c - byte-pair merging of one piece (see bpe.h). */
#include "tokenize/bpe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/rank_scan.h"

#define NO_RANK UINT32_MAX

#define IDS_INITIAL 256

void ids_grow_to(tok_ids *t, size_t need)
{
    size_t cap = t->cap ? t->cap * 2 : IDS_INITIAL;
    t->cap = cap > need ? cap : need;
    t->ids = xrealloc(t->ids, t->cap * sizeof *t->ids);
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

/* The rank of token id, NO_RANK for VOCAB_NO_TOKEN. */
static inline uint32_t rank_of(const tok_vocab *v, uint32_t id)
{
    return id == VOCAB_NO_TOKEN ? NO_RANK : vocab_rank(v, id);
}

/* A join about to be looked up: the byte string and its hash-table parts. */
typedef struct {
    const uint8_t *s;
    size_t len;
    uint64_t head, tail, hash;
} join_key;

/* Prepares the lookup of s[0..len) (len >= 3, 16 bytes readable at s) and
 * starts loading what it will read, so two joins' loads overlap. */
static inline void join_start(const tok_vocab *v, const bpe_scratch *scratch, const uint8_t *s, size_t len,
                              join_key *k)
{
    k->s = s;
    k->len = len;
    k->head = vocab_head_wide(s, len);
    k->tail = len > VOCAB_HEAD_BYTES ? vocab_tail(s, len, true) : 0;
    k->hash = vocab_hash_parts(s, len, k->head, k->tail);
    bpe_prefetch_token(scratch, k->hash);
    vocab_prefetch(v, k->hash, len);
}

/* The id of a prepared join (VOCAB_NO_TOKEN: none); its rank in *rank. */
static inline uint32_t join_finish(const tok_vocab *v, bpe_scratch *scratch, const join_key *k, uint32_t *rank)
{
    uint32_t id = bpe_find_token(v, scratch, k->s, k->len, k->head, k->tail, k->hash);
    *rank = rank_of(v, id);
    return id;
}

/* Of the joins at parts a and b, the one of lower rank (the leftmost on ties). */
static inline size_t lower_join(const uint32_t *rank, size_t a, size_t b)
{
    return rank[b] < rank[a] || (rank[b] == rank[a] && b < a) ? b : a;
}

/* Starts loading what the lookups after joining part p (which has a next
 * part) to its next would read: the new part joined with the part after it
 * and with the one before. */
static inline void prefetch_joins_after(const tok_vocab *v, const bpe_scratch *scratch, const uint8_t *s, size_t n,
                                        const uint8_t *next, const uint8_t *prev, size_t p)
{
    size_t end = next[next[p]];
    join_key unused;
    if (end < n) join_start(v, scratch, s + p, next[end] - p, &unused);
    if (prev[p] < n) join_start(v, scratch, s + prev[p], end - prev[p], &unused);
}

/* tiktoken's method: each part knows the rank (and id) of joining it to the
 * next; find the lowest rank (leftmost on ties), join, update the two
 * neighbouring joins. Parts are a doubly linked list over byte positions and
 * rank[] stays indexed by position (NO_RANK where no part starts or no join
 * exists), so a join moves nothing and the search is a plain array scan. */
static void merge_by_scan(const tok_vocab *v, bpe_scratch *scratch, const uint8_t *piece, size_t n, tok_ids *out)
{
    uint8_t s[BPE_CPU_SCAN_MAX + 2 * VOCAB_HEAD_BYTES]; /* a copy with room for 16-byte loads */
    memcpy(s, piece, n);
    memset(s + n, 0, 2 * VOCAB_HEAD_BYTES);
    uint8_t next[BPE_CPU_SCAN_MAX + 1], prev[BPE_CPU_SCAN_MAX]; /* n: none */
    uint32_t rank[BPE_CPU_SCAN_MAX + RANK_LANES] __attribute__((aligned(16))), join[BPE_CPU_SCAN_MAX], id[BPE_CPU_SCAN_MAX];
    for (size_t i = 0; i < n; i++) {
        next[i] = (uint8_t)(i + 1);
        prev[i] = (uint8_t)(i ? i - 1 : n);
        id[i] = v->byte_id[s[i]];
    }
    for (size_t i = 0; i + 1 < n; i++) rank[i] = rank_of(v, join[i] = vocab_find_pair(v, s + i));
    for (size_t i = n - 1; i < n + RANK_LANES; i++) rank[i] = NO_RANK;
    size_t words = (n + RANK_LANES - 1) / RANK_LANES * RANK_LANES;
    for (size_t best = lowest_rank(rank, words); rank[best] != NO_RANK;) {
        size_t gone = next[best], before = prev[best];
        id[best] = join[best];
        rank[gone] = NO_RANK;
        next[best] = next[gone];
        bool has_after = next[best] < n, has_before = before < n;
        join_key after_key, before_key; /* the joins with the next part and with the one before */
        if (has_after) {
            prev[next[best]] = (uint8_t)best;
            join_start(v, scratch, s + best, next[next[best]] - best, &after_key);
        }
        if (has_before) join_start(v, scratch, s + before, next[best] - before, &before_key);
        /* while they load, the lowest rank of the other joins, which did not
         * change; its join is likely next, so its lookups start loading too */
        rank[best] = NO_RANK;
        if (has_before) rank[before] = NO_RANK;
        size_t guess = lowest_rank(rank, words);
        if (rank[guess] != NO_RANK) prefetch_joins_after(v, scratch, s, n, next, prev, guess);
        if (has_after) join[best] = join_finish(v, scratch, &after_key, &rank[best]);
        if (has_before) join[before] = join_finish(v, scratch, &before_key, &rank[before]);
        /* the next join: the lowest of the guess and the two new ranks */
        size_t low = lower_join(rank, guess, best);
        best = has_before ? lower_join(rank, low, before) : low;
    }
    for (size_t p = 0; p < n; p = next[p]) ids_push(out, id[p]);
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
    if (n <= BPE_CPU_SCAN_MAX) merge_by_scan(v, scratch, s, n, out);
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

void bpe_scratch_ready(const tok_vocab *v, bpe_scratch *scratch)
{
    if (scratch->cache_vocab == v) return;
    if (!scratch->hot) scratch->hot = xcalloc_huge(BPE_HOT_SLOTS, sizeof *scratch->hot);
    else memset(scratch->hot, 0, BPE_HOT_SLOTS * sizeof *scratch->hot);
    if (!scratch->cache) scratch->cache = xcalloc_huge(BPE_CACHE_SLOTS, sizeof *scratch->cache);
    else memset(scratch->cache, 0, BPE_CACHE_SLOTS * sizeof *scratch->cache);
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
    bpe_scratch_ready(v, scratch);
    if (n > BPE_CACHE_BYTES) {
        merge_long(v, s, n, hash, scratch, out);
        return;
    }
    bpe_cache_entry *e = &scratch->cache[(hash >> 32) & (BPE_CACHE_SLOTS - 1)];
    if (e->hash == (uint32_t)hash && e->len == n && !memcmp(e->bytes, s, n)) {
        ids_reserve(out, e->nids);
        memcpy(out->ids + out->n, e->ids, e->nids * sizeof *e->ids);
        out->n += e->nids;
        return;
    }
    size_t first = out->n;
    merge_by_scan(v, scratch, s, n, out);
    if (out->n - first > BPE_CACHE_IDS) return;
    e->hash = (uint32_t)hash;
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
    free(scratch->hot);
    free(scratch->cache);
    if (scratch->long_cache)
        for (int i = 0; i < BPE_LONG_CACHE_SLOTS; i++) free(scratch->long_cache[i].mem);
    free(scratch->long_cache);
    if (scratch->hf) hf_scratch_free(scratch->hf);
    free(scratch->hf);
    memset(scratch, 0, sizeof *scratch);
}
