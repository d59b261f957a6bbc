/* index.c - the streaming dedup index, partitioned by key (see index.h). */
#include "dedup/index.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Partitions per worker thread: more than one, so a worker mostly finds
 * partitions that no other thread is stepping. */
#define PARTS_PER_THREAD 4
#define MAX_PARTS 1024
/* A partition expected to hold fewer keys than this is not worth its own
 * tables (presizing small tables per partition would cost memory). */
#define MIN_KEYS_PER_PART 65536
/* Hash constant that makes a key's partition independent of its bucket. */
#define PART_SALT UINT64_C(0xD6E8FEB86659FD93)
/* Key lookups started ahead of the one being made (cache misses overlap). */
#define PREFETCH_KEYS_AHEAD 8
/* holder[] of a band key or exact hash not seen before this document. */
#define NO_DOC UINT32_MAX
#define CACHE_LINE 64

/* A partition's queue holds the batches queued and not yet through it, in
 * input order (linked by next_in_part[p], changed under queue_lock): as the
 * partition takes batches in order, the one it needs next is the queue's
 * head when it has been queued, and the head is read without the lock. */
struct dedup_part {
    _Alignas(CACHE_LINE) atomic_uint_fast64_t next; /* number of the first document of the batch it takes next */
    atomic_flag busy;                               /* held by the thread stepping batches through it */
    _Atomic(batch_lookup *) head;                   /* the queue's first batch */
    batch_lookup *tail;                             /* its last (batches mostly arrive in order) */
    pthread_mutex_t queue_lock;
    _Alignas(CACHE_LINE) keyset exact, bands;       /* touched only by the thread holding busy */
    int64_t first_empty;                            /* first document with an empty normal form, or -1 */
};

void dedup_index_init(dedup_index *ix, const minhash_params *p, uint64_t expected, int threads, bool keep_ids, double verify)
{
    memset(ix, 0, sizeof *ix);
    ix->nbands = p->bands;
    ix->k = p->k;
    ix->keep_ids = keep_ids;
    ix->verify = verify;
    int nparts = threads <= 1 ? 1 : PARTS_PER_THREAD * threads;
    if (nparts > MAX_PARTS) nparts = MAX_PARTS;
    uint64_t keys = expected * (uint64_t)(p->bands + 1);
    if (expected && keys / MIN_KEYS_PER_PART < (uint64_t)nparts) nparts = (int)(keys / MIN_KEYS_PER_PART);
    if (nparts < 1) nparts = 1;
    ix->nparts = nparts;
    void *mem = NULL;
    if (posix_memalign(&mem, CACHE_LINE, (size_t)nparts * sizeof *ix->parts) != 0) dief(EXIT_FATAL, "out of memory");
    ix->parts = mem;
    uint64_t bytes = 0;
    for (int i = 0; i < nparts; i++) {
        dedup_part *part = &ix->parts[i];
        memset(part, 0, sizeof *part);
        atomic_init(&part->next, 0);
        atomic_flag_clear(&part->busy);
        atomic_init(&part->head, NULL);
        pthread_mutex_init(&part->queue_lock, NULL);
        keyset_init(&part->exact, 2, false, expected / (uint64_t)nparts);
        keyset_init(&part->bands, 1, true, expected * (uint64_t)p->bands / (uint64_t)nparts);
        part->first_empty = -1;
        bytes += keyset_bytes(&part->exact) + keyset_bytes(&part->bands);
    }
    atomic_init(&ix->table_bytes, bytes);
    pthread_mutex_init(&ix->lock, NULL);
    pthread_cond_init(&ix->completed, NULL);
}

void dedup_index_free(dedup_index *ix)
{
    for (int i = 0; i < ix->nparts; i++) {
        keyset_free(&ix->parts[i].exact);
        keyset_free(&ix->parts[i].bands);
        pthread_mutex_destroy(&ix->parts[i].queue_lock);
    }
    free(ix->parts);
    pthread_mutex_destroy(&ix->lock);
    pthread_cond_destroy(&ix->completed);
    buf_free(&ix->ids);
    free(ix->id_end);
    free(ix->sigs);
}

/* The partition of a key (1 or 2 words), independent of its bucket. */
static int part_of_key(const dedup_index *ix, const uint64_t *key, int words)
{
    uint64_t h = key[0] ^ PART_SALT;
    if (words == 2) h ^= key[1] * PART_SALT;
    h = (h ^ (h >> 33)) * UINT64_C(0xFF51AFD7ED558CCD);
    h ^= h >> 33;
    return (int)(((unsigned __int128)h * (unsigned)ix->nparts) >> 64);
}

/* Key number e = doc * (bands + 1) + j: band key j, or the exact hash when j == bands. */
static const uint64_t *key_of(const dedup_index *ix, const batch_prints *bp, uint32_t e, bool *exact)
{
    uint32_t slots = (uint32_t)ix->nbands + 1, i = e / slots, j = e % slots;
    *exact = j == (uint32_t)ix->nbands;
    return *exact ? bp->fp[i].exact : bp->keys + (size_t)i * ix->nbands + j;
}

/* Sorts the batch's key numbers by partition, document order kept. */
static void route_keys(const dedup_index *ix, const stage_batch *b, const batch_prints *bp, batch_lookup *bl)
{
    uint32_t slots = (uint32_t)ix->nbands + 1;
    uint32_t *count = xcalloc((size_t)ix->nparts + 1, sizeof *count);
    for (int i = 0; i < b->n; i++) {
        if (b->docs[i].verdict == DOC_FAIL) continue;
        uint32_t e = (uint32_t)i * slots;
        int nbands = bp->fp[i].nshingles ? ix->nbands : 0;
        for (int j = 0; j < nbands; j++) count[bl->part_of[e + j] = (uint16_t)part_of_key(ix, bp->keys + (size_t)i * ix->nbands + j, 1)]++;
        count[bl->part_of[e + ix->nbands] = (uint16_t)part_of_key(ix, bp->fp[i].exact, 2)]++;
    }
    uint32_t at = 0;
    for (int p = 0; p < ix->nparts; p++) {
        bl->route_start[p] = at;
        at += count[p];
        count[p] = bl->route_start[p];
    }
    bl->route_start[ix->nparts] = at;
    for (int i = 0; i < b->n; i++) {
        if (b->docs[i].verdict == DOC_FAIL) continue;
        uint32_t e = (uint32_t)i * slots;
        int nbands = bp->fp[i].nshingles ? ix->nbands : 0;
        for (int j = 0; j < nbands; j++) bl->route[count[bl->part_of[e + j]]++] = e + (uint32_t)j;
        bl->route[count[bl->part_of[e + ix->nbands]]++] = e + (uint32_t)ix->nbands;
    }
    free(count);
}

/* The batch's keys of partition p, in document order, once every batch
 * before it has been through p: each key's first document, adding the new ones. The
 * exact hash's holder[] is NO_DOC when new, else the first document with an
 * empty normal form (for an empty one) or the document itself (the earliest
 * holder is then found through its band keys). */
static void lookup_part(dedup_index *ix, int p, const batch_prints *bp, batch_lookup *bl)
{
    dedup_part *part = &ix->parts[p];
    uint64_t before = keyset_bytes(&part->exact) + keyset_bytes(&part->bands);
    uint32_t slots = (uint32_t)ix->nbands + 1;
    uint32_t from = bl->route_start[p], to = bl->route_start[p + 1];
    for (uint32_t r = from; r < to; r++) {
        bool exact;
        if (r + PREFETCH_KEYS_AHEAD < to) {
            const uint64_t *ahead = key_of(ix, bp, bl->route[r + PREFETCH_KEYS_AHEAD], &exact);
            keyset_prefetch(exact ? &part->exact : &part->bands, ahead);
        }
        uint32_t e = bl->route[r], i = e / slots;
        uint32_t doc = (uint32_t)(bl->first + i);
        const uint64_t *key = key_of(ix, bp, e, &exact);
        if (!exact) {
            uint32_t holder;
            bl->holder[e] = keyset_find_or_add(&part->bands, key, doc, &holder) ? holder : doc;
        } else if (!keyset_find_or_add(&part->exact, key, 0, NULL)) {
            bl->holder[e] = NO_DOC;
            if (!bp->fp[i].nshingles) part->first_empty = doc;
        } else {
            bl->holder[e] = bp->fp[i].nshingles ? doc : (uint32_t)part->first_empty;
        }
    }
    uint64_t after = keyset_bytes(&part->exact) + keyset_bytes(&part->bands);
    if (after != before) atomic_fetch_add(&ix->table_bytes, after - before);
}

/* Queues bl in every partition, keeping each queue in input order. */
static void add_pending(dedup_index *ix, batch_lookup *bl)
{
    for (int p = 0; p < ix->nparts; p++) {
        dedup_part *part = &ix->parts[p];
        pthread_mutex_lock(&part->queue_lock);
        batch_lookup *head = atomic_load(&part->head);
        if (!head || head->first > bl->first) {
            bl->next_in_part[p] = head;
            atomic_store(&part->head, bl);
            if (!head) part->tail = bl;
        } else if (part->tail->first < bl->first) {
            bl->next_in_part[p] = NULL;
            part->tail->next_in_part[p] = bl;
            part->tail = bl;
        } else {
            batch_lookup *at = head;
            while (at->next_in_part[p] && at->next_in_part[p]->first < bl->first) at = at->next_in_part[p];
            bl->next_in_part[p] = at->next_in_part[p];
            at->next_in_part[p] = bl;
        }
        pthread_mutex_unlock(&part->queue_lock);
    }
}

/* The batch partition p takes next when it has been queued, else NULL.
 * Called by the thread holding p's busy flag (the head then stays queued),
 * or just after it let go: then the head read may already have been taken
 * by a thread that holds busy since, and even reused for a later batch
 * (hence turn, atomic); that thread then looks again before it lets go. */
static batch_lookup *next_batch(dedup_part *part)
{
    batch_lookup *head = atomic_load(&part->head);
    return head && atomic_load(&head->turn) == atomic_load(&part->next) ? head : NULL;
}

/* bl has been through its last partition: tell the reduce step. */
static void complete(dedup_index *ix, batch_lookup *bl)
{
    pthread_mutex_lock(&ix->lock);
    bl->complete = true;
    pthread_cond_broadcast(&ix->completed);
    pthread_mutex_unlock(&ix->lock);
}

/* Steps partition p through the queued batches whose turn it is, unless
 * another thread is stepping it. Before letting go, a thread looks for a
 * batch queued meanwhile (whose worker found p busy and left it to it):
 * the queue's head is stored and busy set by the queuing worker, busy
 * cleared and the head loaded here, all sequentially consistent, so one of
 * the two sees the other. */
static void step_part(dedup_index *ix, int p)
{
    dedup_part *part = &ix->parts[p];
    for (;;) {
        if (atomic_flag_test_and_set(&part->busy)) return;
        batch_lookup *bl;
        while ((bl = next_batch(part))) {
            lookup_part(ix, p, bl->prints, bl);
            pthread_mutex_lock(&part->queue_lock);
            atomic_store(&part->head, bl->next_in_part[p]);
            if (part->tail == bl) part->tail = NULL;
            pthread_mutex_unlock(&part->queue_lock);
            atomic_store(&part->next, bl->first + (uint64_t)bl->n);
            if (atomic_fetch_sub(&bl->parts_left, 1) == 1) complete(ix, bl);
        }
        atomic_flag_clear(&part->busy);
        if (!next_batch(part)) return;
    }
}

/* Makes room in bl for the batch's keys. */
static void reserve_lookup(const dedup_index *ix, batch_lookup *bl, size_t nkeys)
{
    if (!bl->route_start) bl->route_start = xmalloc(((size_t)ix->nparts + 1) * sizeof *bl->route_start);
    if (!bl->next_in_part) bl->next_in_part = xmalloc((size_t)ix->nparts * sizeof *bl->next_in_part);
    if (nkeys + 1 <= bl->cap_keys) return;
    bl->cap_keys = nkeys + 1 + nkeys / 2;
    bl->holder = xrealloc(bl->holder, bl->cap_keys * sizeof *bl->holder);
    bl->route = xrealloc(bl->route, bl->cap_keys * sizeof *bl->route);
    bl->part_of = xrealloc(bl->part_of, bl->cap_keys * sizeof *bl->part_of);
}

void dedup_index_lookup(dedup_index *ix, const stage_batch *b, const batch_prints *bp, batch_lookup *bl)
{
    bl->n = b->n;
    bl->complete = !b->n; /* a batch without documents takes no turn: the next one starts at the same number */
    if (!b->n) return;
    bl->first = b->docs[0].ordinal;
    if (bl->first + (uint64_t)b->n >= NO_DOC)
        dief(EXIT_FATAL, "more than %u documents: use the staged mode (winnow dedup signatures)", NO_DOC - 1);
    atomic_store(&bl->turn, bl->first);
    bl->prints = bp;
    reserve_lookup(ix, bl, (size_t)b->n * ((size_t)ix->nbands + 1));
    route_keys(ix, b, bp, bl);
    atomic_store(&bl->parts_left, ix->nparts);
    add_pending(ix, bl);
    for (int p = 0; p < ix->nparts; p++) step_part(ix, p);
}

void dedup_index_wait(dedup_index *ix, batch_lookup *bl)
{
    pthread_mutex_lock(&ix->lock);
    while (!bl->complete) pthread_cond_wait(&ix->completed, &ix->lock);
    pthread_mutex_unlock(&ix->lock);
}

void batch_lookup_free(batch_lookup *bl)
{
    free(bl->holder);
    free(bl->route);
    free(bl->route_start);
    free(bl->part_of);
    free(bl->next_in_part);
    memset(bl, 0, sizeof *bl);
}

void dedup_index_remember(dedup_index *ix, uint64_t doc, const uint64_t *sig, const char *id, size_t id_len)
{
    if (doc != ix->ndocs) dief(EXIT_FATAL, "dedup index: document %llu remembered out of order", (unsigned long long)doc);
    if (!ix->keep_ids && !ix->verify) {
        ix->ndocs++;
        return;
    }
    if (ix->ndocs == ix->cap_docs) {
        ix->cap_docs = ix->cap_docs ? ix->cap_docs * 2 : 1024;
        if (ix->keep_ids) ix->id_end = xrealloc(ix->id_end, ix->cap_docs * sizeof *ix->id_end);
        if (ix->verify) ix->sigs = xrealloc(ix->sigs, ix->cap_docs * (size_t)ix->k * sizeof *ix->sigs);
    }
    if (ix->keep_ids) {
        buf_append(&ix->ids, id, id_len);
        ix->id_end[ix->ndocs] = ix->ids.len;
    }
    if (ix->verify && sig) memcpy(ix->sigs + (size_t)ix->ndocs * ix->k, sig, (size_t)ix->k * sizeof *sig);
    ix->ndocs++;
}

dup_kind dedup_index_decide(const dedup_index *ix, const batch_prints *bp, const batch_lookup *bl, int i, uint32_t *first)
{
    uint32_t doc = (uint32_t)(bl->first + (uint64_t)i);
    const uint32_t *holders = bl->holder + (size_t)i * ((size_t)ix->nbands + 1);
    const uint64_t *sig = bp->sigs + (size_t)i * ix->k;
    dup_kind kind = DUP_NONE;
    uint32_t earliest = UINT32_MAX;
    if (holders[ix->nbands] != NO_DOC) {
        kind = DUP_EXACT;
        if (!bp->fp[i].nshingles) earliest = holders[ix->nbands];
    }
    for (int j = 0; j < ix->nbands && bp->fp[i].nshingles; j++) {
        uint32_t holder = holders[j];
        if (holder == doc) continue; /* new, or two of its own bands share a key */
        if (kind != DUP_EXACT && ix->verify &&
            minhash_similarity(sig, ix->sigs + (size_t)holder * ix->k, ix->k) < ix->verify)
            continue;
        if (kind == DUP_NONE) kind = DUP_NEAR;
        if (holder < earliest) earliest = holder;
    }
    *first = earliest;
    return kind;
}

const char *dedup_index_id(const dedup_index *ix, uint32_t doc, size_t *len)
{
    if (!ix->keep_ids || doc >= ix->ndocs) {
        *len = 0;
        return "";
    }
    uint64_t from = doc ? ix->id_end[doc - 1] : 0;
    *len = ix->id_end[doc] - from;
    return ix->ids.data ? ix->ids.data + from : "";
}

uint64_t dedup_index_table_bytes(dedup_index *ix)
{
    return atomic_load(&ix->table_bytes);
}

uint64_t dedup_index_side_bytes(const dedup_index *ix)
{
    return ix->ids.cap + ix->cap_docs * ((ix->keep_ids ? sizeof *ix->id_end : 0) + (ix->verify ? (size_t)ix->k * 8 : 0));
}
