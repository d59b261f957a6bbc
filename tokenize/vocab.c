/* vocab.c - the token table and its byte-string hash (see vocab.h). */
#include "tokenize/vocab.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define INITIAL_SLOTS 1024
#define MAX_LOAD_PERCENT 50
#define NO_OFFSET UINT64_MAX
#define HUGE_TABLE_BYTES ((size_t)1 << 20) /* hash tables this big go in huge pages */

void vocab_init(tok_vocab *v)
{
    memset(v, 0, sizeof *v);
    v->mask = INITIAL_SLOTS - 1;
    v->slots = xcalloc(INITIAL_SLOTS, sizeof *v->slots);
}

void vocab_free(tok_vocab *v)
{
    free(v->bytes);
    free(v->tok_off);
    free(v->tok_len);
    free(v->tok_rank);
    free(v->slots);
    free(v->pair_id);
    free(v->slot_tail);
    for (int i = 0; i < v->nspecials; i++) free(v->specials[i].name);
    free(v->specials);
    memset(v, 0, sizeof *v);
}

uint32_t vocab_find(const tok_vocab *v, const uint8_t *s, size_t len)
{
    return len ? vocab_find_hashed(v, s, len, vocab_hash(s, len)) : VOCAB_NO_TOKEN;
}

static void insert_slot(vocab_slot *slots, uint32_t mask, const uint8_t *s, size_t len, uint32_t id)
{
    uint32_t i = (uint32_t)vocab_hash(s, len) & mask;
    while (slots[i].len) i = (i + 1) & mask;
    slots[i] = (vocab_slot){vocab_head(s, len), (uint32_t)len, id};
}

/* True when nslots slots are too few for ntokens tokens. */
static bool too_few_slots(uint64_t nslots, uint64_t ntokens)
{
    return ntokens * 100 > nslots * MAX_LOAD_PERCENT;
}

/* Rehashes the table into nslots slots (a power of two); a big table goes
 * in huge pages, since the encoder reads it at random. */
static void resize_slots(tok_vocab *v, uint32_t nslots)
{
    size_t bytes = (size_t)nslots * sizeof(vocab_slot);
    vocab_slot *slots = bytes >= HUGE_TABLE_BYTES ? xcalloc_huge(nslots, sizeof *slots) : xcalloc(nslots, sizeof *slots);
    for (uint32_t i = 0; i <= v->mask; i++) {
        const vocab_slot *sl = &v->slots[i];
        if (sl->len) insert_slot(slots, nslots - 1, v->bytes + v->tok_off[sl->id], sl->len, sl->id);
    }
    free(v->slots);
    v->slots = slots;
    v->mask = nslots - 1;
}

/* Makes room for ids below cap in the by-id arrays. */
static void grow_ids(tok_vocab *v, uint32_t cap)
{
    v->ids_cap = cap;
    v->tok_off = xrealloc(v->tok_off, v->ids_cap * sizeof *v->tok_off);
    v->tok_len = xrealloc(v->tok_len, v->ids_cap * sizeof *v->tok_len);
    if (v->tok_rank) v->tok_rank = xrealloc(v->tok_rank, v->ids_cap * sizeof *v->tok_rank);
}

/* Makes room for nbytes more token bytes. */
static void grow_bytes(tok_vocab *v, size_t nbytes)
{
    v->bytes_cap = (v->nbytes + nbytes) * 2 + 4096;
    v->bytes = xrealloc(v->bytes, v->bytes_cap);
}

void vocab_reserve(tok_vocab *v, size_t ntokens, size_t nbytes)
{
    uint64_t nslots = (uint64_t)v->mask + 1;
    while (too_few_slots(nslots, ntokens) && nslots <= UINT32_MAX / 2) nslots *= 2;
    if (nslots > (uint64_t)v->mask + 1) resize_slots(v, (uint32_t)nslots);
    if (ntokens > v->ids_cap && ntokens <= (size_t)VOCAB_MAX_ID + 1) grow_ids(v, (uint32_t)ntokens);
    if (v->nbytes + nbytes > v->bytes_cap) grow_bytes(v, nbytes);
}

/* Makes ids up to id addressable (arrays grow by doubling). */
static void reserve_id(tok_vocab *v, uint32_t id)
{
    if (id < v->nids) return;
    uint32_t n = id + 1, old = v->nids;
    if (n > v->ids_cap) grow_ids(v, n > 2 * v->ids_cap ? n : 2 * v->ids_cap);
    for (uint32_t i = old; i < n; i++) {
        v->tok_off[i] = NO_OFFSET;
        v->tok_len[i] = 0;
        if (v->tok_rank) v->tok_rank[i] = i;
    }
    v->nids = n;
}

static uint64_t store_bytes(tok_vocab *v, const void *bytes, size_t len)
{
    if (v->nbytes + len > v->bytes_cap) grow_bytes(v, len);
    memcpy(v->bytes + v->nbytes, bytes, len);
    v->nbytes += len;
    return v->nbytes - len;
}

void vocab_prefetch_add(const tok_vocab *v, uint64_t hash)
{
    __builtin_prefetch(&v->slots[(uint32_t)hash & v->mask]);
}

bool vocab_add(tok_vocab *v, const void *bytes, size_t len, uint32_t id, uint32_t rank)
{
    return len && vocab_add_hashed(v, bytes, len, vocab_hash(bytes, len), id, rank);
}

bool vocab_add_hashed(tok_vocab *v, const void *bytes, size_t len, uint64_t hash, uint32_t id, uint32_t rank)
{
    if (id == VOCAB_NO_TOKEN) return false;
    if (id < v->nids && v->tok_off[id] != NO_OFFSET) return false;
    if (too_few_slots((uint64_t)v->mask + 1, (uint64_t)v->ntokens + 1)) resize_slots(v, (v->mask + 1) * 2);
    /* one probe finds both a token with these bytes and the free slot for this one */
    uint64_t head = vocab_head(bytes, len);
    uint32_t i = (uint32_t)hash & v->mask;
    for (; v->slots[i].len; i = (i + 1) & v->mask) {
        const vocab_slot *sl = &v->slots[i];
        if (sl->len == len && sl->head == head && !memcmp(v->bytes + v->tok_off[sl->id], bytes, len)) return false;
    }
    reserve_id(v, id);
    if (rank != id && !v->tok_rank) {
        v->tok_rank = xmalloc(v->ids_cap * sizeof *v->tok_rank);
        for (uint32_t i = 0; i < v->nids; i++) v->tok_rank[i] = i;
    }
    if (v->tok_rank) v->tok_rank[id] = rank;
    v->tok_off[id] = store_bytes(v, bytes, len);
    v->tok_len[id] = (uint32_t)len;
    v->slots[i] = (vocab_slot){head, (uint32_t)len, id};
    v->ntokens++;
    return true;
}

#define NPAIRS 65536

void vocab_finish(tok_vocab *v)
{
    /* from the tokens of one and two bytes (no two tokens have the same bytes) */
    for (int b = 0; b < 256; b++) v->byte_id[b] = VOCAB_NO_TOKEN;
    if (!v->pair_id) v->pair_id = xmalloc(NPAIRS * sizeof *v->pair_id);
    for (unsigned p = 0; p < NPAIRS; p++) v->pair_id[p] = VOCAB_NO_TOKEN;
    for (uint32_t id = 0; id < v->nids; id++) {
        if (v->tok_off[id] == NO_OFFSET || v->tok_len[id] > 2) continue;
        const uint8_t *b = v->bytes + v->tok_off[id];
        if (v->tok_len[id] == 1) v->byte_id[b[0]] = id;
        else v->pair_id[b[0] | (unsigned)b[1] << 8] = id;
    }
    size_t nslots = (size_t)v->mask + 1;
    free(v->slot_tail);
    v->slot_tail = xcalloc_huge(nslots, sizeof *v->slot_tail);
    for (uint32_t i = 0; i <= v->mask; i++) {
        const vocab_slot *sl = &v->slots[i];
        if (sl->len > VOCAB_HEAD_BYTES) v->slot_tail[i] = vocab_tail(v->bytes + v->tok_off[sl->id], sl->len, false);
    }
}

void vocab_add_special(tok_vocab *v, const char *name, uint32_t id)
{
    reserve_id(v, id);
    v->specials = xrealloc(v->specials, (v->nspecials + 1) * sizeof *v->specials);
    v->specials[v->nspecials++] = (vocab_special){xstrdup(name), id};
}

uint32_t vocab_special_id(const tok_vocab *v, const char *name)
{
    for (int i = 0; i < v->nspecials; i++)
        if (!strcmp(v->specials[i].name, name)) return v->specials[i].id;
    return VOCAB_NO_TOKEN;
}

const uint8_t *vocab_token_bytes(const tok_vocab *v, uint32_t id, size_t *len)
{
    if (id < v->nids && v->tok_off[id] != NO_OFFSET) {
        *len = v->tok_len[id];
        return v->bytes + v->tok_off[id];
    }
    for (int i = 0; i < v->nspecials; i++)
        if (v->specials[i].id == id) {
            *len = strlen(v->specials[i].name);
            return (const uint8_t *)v->specials[i].name;
        }
    *len = 0;
    return NULL;
}

const char *vocab_check_complete(const tok_vocab *v)
{
    for (int b = 0; b < 256; b++)
        if (v->byte_id[b] == VOCAB_NO_TOKEN) return "not every single byte is a token";
    return NULL;
}
