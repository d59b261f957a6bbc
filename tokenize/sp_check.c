/* sp_check.c - what SentencePiece 0.1.97 trusts in a .model without
 * checking: the normalizer's precompiled_charsmap (see sp_check.h).
 *
 * The blob is <u32 LE trie size><darts-clone double array, u32 units><pool
 * of NUL-terminated replacement strings>. SentencePiece's normalizer runs
 * Darts' commonPrefixSearch from every position of the text: it reads
 * unit[base ^ byte] for any byte, so every node the search can reach must
 * have its whole block of 256 units inside the array; a leaf's value is an
 * offset into the pool, read as a C string; and it stores at most
 * SP_MAX_TRIE_RESULTS matches of one search in a stack array but counts
 * them all, so no path may hold more leaves (nor loop). The check walks
 * every reachable node once, with an explicit stack (paths can be long). */
#include "tokenize/sp_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define SP_MAX_TRIE_RESULTS 32 /* Normalizer::kMaxTrieResultsSize */
#define BYTE_VALUES 256
#define TRIE_SIZE_BYTES 4
#define UNIT_BYTES 4

/* protobuf wire types and the fields that hold a charsmap */
enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_BYTES = 2, WT_FIXED32 = 5 };
#define MODEL_NORMALIZER_SPEC 3   /* ModelProto.normalizer_spec */
#define MODEL_DENORMALIZER_SPEC 5 /* ModelProto.denormalizer_spec */
#define SPEC_PRECOMPILED_CHARSMAP 2 /* NormalizerSpec.precompiled_charsmap */
#define VARINT_MORE 0x80
#define VARINT_BITS 7
#define VARINT_MAX_SHIFT 63

/* darts-clone's unit fields (DoubleArrayUnit) */
static bool unit_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static uint32_t unit_value(uint32_t u) { return u & ((1u << 31) - 1); }
static uint32_t unit_label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
static uint32_t unit_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

typedef struct {
    const uint8_t *units; /* n of them, little-endian */
    size_t n;
    const char *pool;
    size_t pool_len;
} trie;

static uint32_t unit_at(const trie *t, size_t i)
{
    uint32_t u;
    memcpy(&u, t->units + i * UNIT_BYTES, UNIT_BYTES);
    return u;
}

enum { NODE_NEW, NODE_OPEN, NODE_DONE };

/* The walk's state by node base (every base is < n once admitted). */
typedef struct {
    uint8_t *state;
    uint8_t *leaves;  /* NODE_DONE: the most leaves on a path from the node */
    uint16_t *next;   /* NODE_OPEN: the next byte to try */
    size_t *stack;    /* open nodes, root first */
    uint8_t *via_leaf; /* by stack depth: whether the edge into that node has a leaf */
    size_t depth;
} walk;

/* Admits base as a node: its block of units must be in the array. */
static bool node_fits(const trie *t, size_t base)
{
    return (base | (BYTE_VALUES - 1)) < t->n;
}

/* Checks the leaf value stored at unit[pos]; NULL or what is wrong. */
static const char *leaf_problem(const trie *t, size_t pos)
{
    if (pos >= t->n) return "a leaf's value lies outside the trie";
    size_t v = unit_value(unit_at(t, pos));
    if (v >= t->pool_len || !memchr(t->pool + v, 0, t->pool_len - v))
        return "a replacement string lies outside the string pool or has no NUL";
    return NULL;
}

/* Walks the trie from its root; NULL or what is wrong. */
static const char *walk_trie(const trie *t, walk *w)
{
    size_t root = unit_offset(unit_at(t, 0));
    if (!node_fits(t, root)) return "the root's children lie outside the trie";
    w->stack[0] = root, w->via_leaf[0] = 0, w->depth = 1;
    w->state[root] = NODE_OPEN;
    while (w->depth) {
        size_t base = w->stack[w->depth - 1];
        if (w->next[base] == BYTE_VALUES) { /* every child seen: close it, pass its count up */
            w->state[base] = NODE_DONE;
            unsigned count = w->leaves[base] + w->via_leaf[--w->depth];
            if (count > SP_MAX_TRIE_RESULTS) return "a path holds more than 32 rules (SentencePiece's limit)";
            if (w->depth) {
                size_t parent = w->stack[w->depth - 1];
                if (count > w->leaves[parent]) w->leaves[parent] = (uint8_t)count;
            }
            continue;
        }
        unsigned byte = w->next[base]++;
        size_t pos = base ^ byte;
        uint32_t u = unit_at(t, pos);
        if (unit_label(u) != byte) continue;
        size_t child = pos ^ unit_offset(u);
        if (unit_has_leaf(u)) {
            const char *why = leaf_problem(t, child);
            if (why) return why;
        }
        if (!node_fits(t, child)) return "a node's children lie outside the trie";
        if (w->state[child] == NODE_OPEN) return "the trie has a loop";
        if (w->state[child] == NODE_DONE) {
            unsigned count = w->leaves[child] + unit_has_leaf(u);
            if (count > SP_MAX_TRIE_RESULTS) return "a path holds more than 32 rules (SentencePiece's limit)";
            if (count > w->leaves[base]) w->leaves[base] = (uint8_t)count;
            continue;
        }
        w->state[child] = NODE_OPEN;
        w->stack[w->depth] = child, w->via_leaf[w->depth] = unit_has_leaf(u), w->depth++;
    }
    return NULL;
}

const char *sp_charsmap_problem(const uint8_t *blob, size_t len)
{
    if (!len) return NULL; /* none: no normalization rules */
    uint32_t trie_bytes;
    if (len < TRIE_SIZE_BYTES) return "shorter than its 4-byte trie size";
    memcpy(&trie_bytes, blob, TRIE_SIZE_BYTES);
    if (trie_bytes > len - TRIE_SIZE_BYTES) return "its trie size runs past the field";
    trie t = {blob + TRIE_SIZE_BYTES, trie_bytes / UNIT_BYTES, (const char *)blob + TRIE_SIZE_BYTES + trie_bytes,
              len - TRIE_SIZE_BYTES - trie_bytes};
    if (!t.n) return "the trie is empty";
    walk w = {xcalloc(t.n, 1), xcalloc(t.n, 1), xcalloc(t.n, sizeof *w.next), xcalloc(t.n, sizeof *w.stack),
              xcalloc(t.n, 1), 0};
    const char *why = walk_trie(&t, &w);
    free(w.state);
    free(w.leaves);
    free(w.next);
    free(w.stack);
    free(w.via_leaf);
    return why;
}

/* Reads a varint at *pos; false when it is cut off or too long. */
static bool read_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; *pos < n && shift <= VARINT_MAX_SHIFT; shift += VARINT_BITS) {
        uint8_t b = p[(*pos)++];
        *v |= (uint64_t)(b & ~VARINT_MORE) << shift;
        if (!(b & VARINT_MORE)) return true;
    }
    return false;
}

/* One field of a message: its number, wire type and, for WT_BYTES, its bytes. */
typedef struct {
    uint64_t number;
    unsigned wire_type;
    size_t start, len;
} pb_field;

/* Reads the field at *pos; NULL or what is wrong with it. */
static const char *next_field(const uint8_t *p, size_t n, size_t *pos, pb_field *f)
{
    uint64_t key, v;
    if (!read_varint(p, n, pos, &key)) return "a field key is cut off";
    f->number = key >> 3, f->wire_type = key & 7;
    switch (f->wire_type) {
    case WT_VARINT: return read_varint(p, n, pos, &v) ? NULL : "a varint is cut off";
    case WT_FIXED64: return n - *pos >= 8 ? (*pos += 8, NULL) : "a fixed64 is cut off";
    case WT_FIXED32: return n - *pos >= 4 ? (*pos += 4, NULL) : "a fixed32 is cut off";
    case WT_BYTES:
        if (!read_varint(p, n, pos, &v) || v > n - *pos) return "a length-delimited field runs past its message";
        f->start = *pos, f->len = (size_t)v;
        *pos += (size_t)v;
        return NULL;
    default: return "a group or unknown wire type (not in any SentencePiece model)";
    }
}

/* Checks every precompiled_charsmap of the NormalizerSpec in p[0..n). */
static int check_spec(const uint8_t *p, size_t n, size_t base, const char *name, wbuf *err)
{
    for (size_t pos = 0; pos < n;) {
        pb_field f = {0};
        size_t at = pos;
        const char *why = next_field(p, n, &pos, &f);
        if (!why && f.number == SPEC_PRECOMPILED_CHARSMAP && f.wire_type == WT_BYTES)
            why = sp_charsmap_problem(p + f.start, f.len);
        if (why) {
            buf_printf(err, "%s%s (byte %zu): %s", name,
                       f.number == SPEC_PRECOMPILED_CHARSMAP ? ".precompiled_charsmap" : "", base + at, why);
            return -1;
        }
    }
    return 0;
}

int sp_model_check(const char *data, size_t n, wbuf *err)
{
    const uint8_t *p = (const uint8_t *)data;
    for (size_t pos = 0; pos < n;) {
        pb_field f = {0};
        size_t at = pos;
        const char *why = next_field(p, n, &pos, &f);
        if (why) {
            buf_printf(err, "the ModelProto is damaged at byte %zu: %s", at, why);
            return -1;
        }
        if (f.wire_type != WT_BYTES) continue;
        if (f.number == MODEL_NORMALIZER_SPEC && check_spec(p + f.start, f.len, f.start, "normalizer_spec", err))
            return -1;
        if (f.number == MODEL_DENORMALIZER_SPEC && check_spec(p + f.start, f.len, f.start, "denormalizer_spec", err))
            return -1;
    }
    return 0;
}
