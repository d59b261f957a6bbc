/* keyset.c - bucketed cuckoo hashing of hash keys (see keyset.h). */
#include "dedup/keyset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/util.h"

#define SLOTS 8                 /* slots per bucket: 8 one-word keys fill one cache line */
#define MAX_KICKS 2000          /* cuckoo displacements before growing */
#define TARGET_LOAD 0.95        /* presizing aims at this fill (8-slot cuckoo buckets reach ~99%) */
/* The set grows before an insert would fill it past this: near 99% the
 * cuckoo walks get long (thousands of kicks per insert, most of a run's time
 * when the set grew only on a failed insert), at 97% they stay short. */
#define MAX_LOAD 0.97
#define GROW_PREFETCH_SLOTS 16  /* how far ahead a growth asks for the new buckets of old keys */
#define MIN_BUCKETS 64
#define SECOND_BUCKET_MIX UINT64_C(0x9E3779B97F4A7C15)
#define HUGE_PAGE ((size_t)2 << 20)

/* Zeroed table memory; big tables ask for transparent huge pages, since
 * every lookup lands on a random page (a TLB miss per lookup otherwise). */
static void *table_alloc(size_t bytes)
{
    void *p = NULL;
    size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
    if (posix_memalign(&p, align, bytes ? bytes : 1) != 0) dief(EXIT_FATAL, "out of memory (asked for %zu bytes)", bytes);
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

/* Maps a 64-bit hash onto [0, n) without division. */
static size_t range_of(uint64_t h, size_t n)
{
    return (size_t)(((unsigned __int128)h * n) >> 64);
}

/* A 64-bit finaliser, so keys that are not uniform still spread. */
static uint64_t mix(uint64_t h)
{
    h = (h ^ (h >> 31)) * SECOND_BUCKET_MIX;
    h = (h ^ (h >> 29)) * UINT64_C(0xBF58476D1CE4E5B9);
    return h ^ (h >> 32);
}

static uint64_t first_hash(const keyset *s, const uint64_t *key)
{
    return mix(key[0] ^ (s->words == 2 ? key[1] * SECOND_BUCKET_MIX : 0));
}

static size_t bucket1(const keyset *s, const uint64_t *key) { return range_of(first_hash(s, key), s->nbuckets); }
static size_t bucket2(const keyset *s, const uint64_t *key) { return range_of(mix(first_hash(s, key) ^ SECOND_BUCKET_MIX), s->nbuckets); }

static uint64_t *slot_key(const keyset *s, size_t slot) { return s->keys + slot * (size_t)s->words; }

/* The all-zero key marks an empty slot (so a probe reads only keys). */
static bool slot_used(const keyset *s, size_t slot)
{
    const uint64_t *k = slot_key(s, slot);
    return k[0] || (s->words == 2 && k[1]);
}

static bool is_zero_key(const keyset *s, const uint64_t *key)
{
    return !key[0] && (s->words == 1 || !key[1]);
}

static void copy_key(const keyset *s, uint64_t *to, const uint64_t *from)
{
    to[0] = from[0];
    if (s->words == 2) to[1] = from[1];
}

static bool same_key(const keyset *s, size_t slot, const uint64_t *key)
{
    const uint64_t *k = slot_key(s, slot);
    return k[0] == key[0] && (s->words == 1 || k[1] == key[1]);
}

static void alloc_table(keyset *s, size_t nbuckets)
{
    s->nbuckets = nbuckets;
    s->count = 0;
    s->keys = table_alloc(nbuckets * SLOTS * (size_t)s->words * sizeof *s->keys);
    s->values = s->has_value ? table_alloc(nbuckets * SLOTS * sizeof *s->values) : NULL;
}

void keyset_init(keyset *s, int words, bool has_value, uint64_t expected)
{
    memset(s, 0, sizeof *s);
    s->words = words;
    s->has_value = has_value;
    s->rng = SECOND_BUCKET_MIX;
    size_t nb = (size_t)((double)expected / (SLOTS * TARGET_LOAD)) + 1;
    alloc_table(s, nb < MIN_BUCKETS ? MIN_BUCKETS : nb);
}

void keyset_free(keyset *s)
{
    free(s->keys);
    free(s->values);
    s->keys = NULL;
    s->values = NULL;
}

static long find_slot(const keyset *s, const uint64_t *key)
{
    size_t b[2] = {bucket1(s, key), bucket2(s, key)};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < SLOTS; j++) {
            size_t slot = b[i] * SLOTS + (size_t)j;
            if (slot_used(s, slot) && same_key(s, slot, key)) return (long)slot;
        }
    return -1;
}

bool keyset_find(const keyset *s, const uint64_t *key, uint32_t *value)
{
    if (is_zero_key(s, key)) {
        if (s->has_zero_key && value && s->has_value) *value = s->zero_value;
        return s->has_zero_key;
    }
    long slot = find_slot(s, key);
    if (slot < 0) return false;
    if (value && s->has_value) *value = s->values[slot];
    return true;
}

/* Puts key into a free slot of bucket b; false when it is full. */
static bool place(keyset *s, size_t b, const uint64_t *key, uint32_t value)
{
    for (int j = 0; j < SLOTS; j++) {
        size_t slot = b * SLOTS + (size_t)j;
        if (slot_used(s, slot)) continue;
        copy_key(s, slot_key(s, slot), key);
        if (s->has_value) s->values[slot] = value;
        s->count++;
        return true;
    }
    return false;
}

static bool insert_new(keyset *s, uint64_t *key, uint32_t *value);

/* xorshift64: picks which slot the cuckoo walk evicts. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Rebuilds the set half as big again. Every key lands on a random bucket
 * of the new table, so the buckets of keys a little further on are asked
 * for ahead (a growth is otherwise a cache miss per key, in turn). */
static void grow(keyset *s)
{
    keyset old = *s;
    alloc_table(s, old.nbuckets + old.nbuckets / 2);
    size_t nslots = old.nbuckets * SLOTS;
    for (size_t slot = 0; slot < nslots; slot++) {
        size_t ahead = slot + GROW_PREFETCH_SLOTS;
        if (ahead < nslots && slot_used(&old, ahead)) {
            size_t b = bucket1(s, slot_key(&old, ahead));
            __builtin_prefetch(slot_key(s, b * SLOTS), 1);
            if (s->has_value) __builtin_prefetch(&s->values[b * SLOTS], 1);
        }
        if (!slot_used(&old, slot)) continue;
        uint64_t key[2];
        uint32_t value = old.has_value ? old.values[slot] : 0;
        copy_key(&old, key, slot_key(&old, slot));
        while (!insert_new(s, key, &value)) grow(s);
    }
    keyset_free(&old);
}

/* Frees a slot of full bucket b1 or b2 by moving one of their keys to its
 * other bucket, where that has room; returns the freed slot, or -1. The
 * other buckets of all their keys are asked for at once: their cache misses
 * overlap, where a cuckoo walk takes them one after another. */
static long move_one_out(keyset *s, size_t b1, size_t b2)
{
    size_t other[2 * SLOTS];
    for (int i = 0; i < 2 * SLOTS; i++) {
        size_t b = i < SLOTS ? b1 : b2, slot = b * SLOTS + (size_t)(i % SLOTS);
        const uint64_t *k = slot_key(s, slot);
        size_t first = bucket1(s, k);
        other[i] = first == b ? bucket2(s, k) : first;
        __builtin_prefetch(slot_key(s, other[i] * SLOTS), 1);
        if (s->has_value) __builtin_prefetch(&s->values[other[i] * SLOTS], 1);
    }
    for (int i = 0; i < 2 * SLOTS; i++) {
        size_t slot = (i < SLOTS ? b1 : b2) * SLOTS + (size_t)(i % SLOTS);
        if (other[i] == slot / SLOTS || !place(s, other[i], slot_key(s, slot), s->has_value ? s->values[slot] : 0)) continue;
        memset(slot_key(s, slot), 0, (size_t)s->words * sizeof *s->keys);
        s->count--;
        return (long)slot;
    }
    return -1;
}

/* Inserts a key known to be absent. On failure the key (and value) left
 * homeless by the cuckoo walk is handed back in key/value. */
static bool insert_new(keyset *s, uint64_t *key, uint32_t *value)
{
    size_t b1 = bucket1(s, key), b2 = bucket2(s, key);
    if (place(s, b1, key, *value) || place(s, b2, key, *value)) return true;
    long freed = move_one_out(s, b1, b2);
    if (freed >= 0) {
        copy_key(s, slot_key(s, (size_t)freed), key);
        if (s->has_value) s->values[freed] = *value;
        s->count++;
        return true;
    }
    size_t b = b1;
    for (int kick = 0; kick < MAX_KICKS; kick++) {
        int j = (int)(next_random(&s->rng) % SLOTS);
        size_t slot = b * SLOTS + (size_t)j;
        uint64_t victim[2] = {0, 0};
        uint32_t victim_value = s->has_value ? s->values[slot] : 0;
        copy_key(s, victim, slot_key(s, slot));
        copy_key(s, slot_key(s, slot), key);
        if (s->has_value) s->values[slot] = *value;
        copy_key(s, key, victim);
        *value = victim_value;
        size_t b1 = bucket1(s, key), b2 = bucket2(s, key);
        b = b == b1 ? b2 : b1;
        if (place(s, b, key, *value)) return true;
    }
    return false;
}

/* Inserts a key known to be absent, growing the set first when it is full. */
static void insert_absent(keyset *s, const uint64_t *key, uint32_t value)
{
    if ((double)(s->count + 1) > MAX_LOAD * (double)(s->nbuckets * SLOTS)) grow(s);
    uint64_t k[2] = {key[0], s->words == 2 ? key[1] : 0};
    while (!insert_new(s, k, &value)) grow(s);
}

bool keyset_add(keyset *s, const uint64_t *key, uint32_t value)
{
    if (is_zero_key(s, key)) {
        bool added = !s->has_zero_key;
        if (added) s->zero_value = value;
        s->has_zero_key = true;
        return added;
    }
    if (find_slot(s, key) >= 0) return false;
    insert_absent(s, key, value);
    return true;
}

bool keyset_find_or_add(keyset *s, const uint64_t *key, uint32_t value, uint32_t *found)
{
    if (is_zero_key(s, key)) {
        bool present = s->has_zero_key;
        if (present && found) *found = s->zero_value;
        if (!present) s->zero_value = value;
        s->has_zero_key = true;
        return present;
    }
    long slot = find_slot(s, key);
    if (slot >= 0) {
        if (found && s->has_value) *found = s->values[slot];
        return true;
    }
    insert_absent(s, key, value);
    return false;
}

void keyset_prefetch(const keyset *s, const uint64_t *key)
{
    if (is_zero_key(s, key)) return;
    size_t b[2] = {bucket1(s, key), bucket2(s, key)};
    for (int i = 0; i < 2; i++) {
        __builtin_prefetch(slot_key(s, b[i] * SLOTS));
        /* a value is read on a hit and written on an insert (every key of a new document) */
        if (s->has_value) __builtin_prefetch(&s->values[b[i] * SLOTS], 1);
    }
}

size_t keyset_bytes(const keyset *s)
{
    size_t slots = s->nbuckets * SLOTS;
    return slots * (size_t)s->words * sizeof *s->keys + (s->has_value ? slots * sizeof *s->values : 0);
}
