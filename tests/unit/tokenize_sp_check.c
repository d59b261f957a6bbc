/* tokenize_sp_check.c - sp_model_check (tokenize/sp_check.h) on hand-built
 * ModelProtos whose precompiled_charsmap is a darts-clone trie laid out as
 * SentencePiece's Darts::DoubleArray reads it: a chain of nodes for "AAA...",
 * each step a rule (a leaf) mapping to "a". The well-formed ones pass; each
 * fault SentencePiece 0.1.97 would read out of bounds on (or overflow its
 * 32-result stack array with) is refused with a message naming the field.
 * The real charsmaps (nmt_nfkc, nmt_nfkc_cf) pass in tests/e2e/tokenize_sp.sh. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "tests/tap.h"
#include "tokenize/sp_check.h"

#define BLOCK 256
#define LEAF_BIT (1u << 8)
#define VALUE_BIT (1u << 31)
#define OFFSET_SHIFT 10
#define STEP_BYTE 0x41 /* 'A' */
#define MAX_CHAIN 40

/* A charsmap under construction: units, then the string pool. */
typedef struct {
    uint32_t units[BLOCK * (MAX_CHAIN + 3)]; /* and a block more (add_block) */
    size_t nunits;
    char pool[16];
    size_t pool_len;
} charsmap;

static uint32_t offset_field(uint32_t offset)
{
    return offset << OFFSET_SHIFT; /* offsets below 2^21 need no shift bit */
}

/* Node k's base: block k + 1 (block 0 holds the root unit only). */
static uint32_t base_of(int k)
{
    return (uint32_t)BLOCK * (uint32_t)(k + 1);
}

/* A chain of len rules: "A" -> "a", "AA" -> "a", ...; every unit that is
 * no transition carries a label no byte matches. */
static void build_chain(charsmap *c, int len)
{
    memset(c, 0, sizeof *c);
    c->nunits = (size_t)BLOCK * (size_t)(len + 2);
    for (size_t i = 0; i < c->nunits; i++) c->units[i] = ((i % BLOCK) ^ 1) & 0xFF;
    c->units[0] = offset_field(base_of(0));
    for (int k = 0; k <= len; k++) c->units[base_of(k)] = VALUE_BIT; /* value 0: pool offset 0 ("a") */
    c->units[base_of(0)] = ((0 ^ 1) & 0xFF); /* the root has no rule for the empty string */
    for (int k = 0; k < len; k++) {
        uint32_t pos = base_of(k) ^ STEP_BYTE;
        c->units[pos] = offset_field(pos ^ base_of(k + 1)) | LEAF_BIT | STEP_BYTE;
    }
    memcpy(c->pool, "a", 2);
    c->pool_len = 2;
}

/* Appends a block of units no byte matches; returns its base. */
static uint32_t add_block(charsmap *c)
{
    uint32_t base = (uint32_t)c->nunits;
    for (size_t i = c->nunits; i < c->nunits + BLOCK; i++) c->units[i] = ((i % BLOCK) ^ 1) & 0xFF;
    c->nunits += BLOCK;
    return base;
}

/* Makes unit pos of a node at base a transition on byte to the node at child. */
static void set_transition(charsmap *c, uint32_t base, uint8_t byte, uint32_t child, bool leaf)
{
    uint32_t pos = base ^ byte;
    c->units[pos] = offset_field(pos ^ child) | (leaf ? LEAF_BIT : 0) | byte;
}

/* Appends a varint. */
static void put_varint(wbuf *b, uint64_t v)
{
    while (v >= 0x80) {
        buf_putc(b, (char)(v | 0x80));
        v >>= 7;
    }
    buf_putc(b, (char)v);
}

/* Appends field number with length-delimited bytes. */
static void put_bytes(wbuf *b, unsigned number, const void *p, size_t n)
{
    put_varint(b, (uint64_t)number << 3 | 2);
    put_varint(b, n);
    buf_append(b, p, n);
}

/* A ModelProto with a piece, then c as the precompiled_charsmap of field
 * spec_field (3: normalizer_spec, 5: denormalizer_spec). */
static void model_with(const charsmap *c, unsigned spec_field, wbuf *model)
{
    wbuf blob = WBUF_INIT, spec = WBUF_INIT;
    uint32_t trie_bytes = (uint32_t)(c->nunits * sizeof *c->units);
    buf_append(&blob, &trie_bytes, sizeof trie_bytes);
    buf_append(&blob, c->units, trie_bytes);
    buf_append(&blob, c->pool, c->pool_len);
    put_bytes(&spec, 1, "nmt_nfkc", 8);
    put_bytes(&spec, 2, blob.data, blob.len);
    buf_clear(model);
    put_bytes(model, 1, "\x0a\x01x", 3); /* pieces { piece: "x" } */
    put_bytes(model, spec_field, spec.data, spec.len);
    buf_free(&blob);
    buf_free(&spec);
}

/* sp_model_check of c (in spec_field); *msg gets the message ("" when it passes). */
static int check(const charsmap *c, unsigned spec_field, wbuf *msg)
{
    wbuf model = WBUF_INIT;
    model_with(c, spec_field, &model);
    buf_clear(msg);
    int rc = sp_model_check(model.data, model.len, msg);
    buf_free(&model);
    return rc;
}

static int says(const wbuf *msg, const char *what)
{
    return msg->data && strstr(msg->data, what) != NULL;
}

int main(void)
{
    static charsmap c;
    wbuf msg = WBUF_INIT;
    int rc;

    build_chain(&c, 1);
    is_int(check(&c, 3, &msg), 0, "one rule A -> a passes");
    build_chain(&c, 32);
    is_int(check(&c, 3, &msg), 0, "32 rules on one path (SentencePiece's limit) pass");
    is_int(check(&c, 5, &msg), 0, "... in denormalizer_spec too");

    build_chain(&c, 33);
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "normalizer_spec.precompiled_charsmap") && says(&msg, "more than 32"),
       "33 rules on one path are refused: %s", msg.data);
    rc = check(&c, 5, &msg);
    ok(rc < 0 && says(&msg, "denormalizer_spec.precompiled_charsmap"),
       "... in denormalizer_spec, named so: %s", msg.data);

    build_chain(&c, 2);
    c.units[0] = offset_field((uint32_t)c.nunits); /* the root's block past the array */
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "root's children"), "a root outside the trie: %s", msg.data);

    build_chain(&c, 2);
    c.units[base_of(1) ^ STEP_BYTE] = offset_field((base_of(1) ^ STEP_BYTE) ^ (uint32_t)c.nunits) | STEP_BYTE;
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "node's children"), "a child outside the trie: %s", msg.data);

    build_chain(&c, 2);
    c.units[base_of(1) ^ STEP_BYTE] = offset_field((base_of(1) ^ STEP_BYTE) ^ base_of(0)) | STEP_BYTE;
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "loop"), "a transition back to the root: %s", msg.data);

    build_chain(&c, 2);
    c.units[base_of(2)] = VALUE_BIT | 7; /* past the 2-byte pool */
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "replacement string"), "a value past the pool: %s", msg.data);

    build_chain(&c, 2);
    c.pool_len = 1; /* "a" without its NUL */
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "replacement string"), "a string without its NUL: %s", msg.data);

    build_chain(&c, 2);
    c.nunits--; /* the last node's block one unit short: a search for "AA\xff" reads past the array */
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "node's children"), "the last node's block one unit short: %s", msg.data);

    /* darts-clone shares nodes between paths (its DAWG): a node already walked
     * is met again; the leaves on the new path count as well. The chain "A"*33
     * with its first rule ("A" -> a) dropped: 32 rules on a path, passes. */
    build_chain(&c, 33);
    set_transition(&c, base_of(0), STEP_BYTE, base_of(1), false);
    is_int(check(&c, 3, &msg), 0, "33 rules, 32 on a path (the first dropped) pass");
    set_transition(&c, base_of(0), STEP_BYTE + 1, base_of(1), true); /* "B" -> a, then the same node as "A" */
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "more than 32"), "a rule into a node met before adds to its 32: %s", msg.data);
    build_chain(&c, 33);
    set_transition(&c, base_of(0), STEP_BYTE, base_of(1), false);
    uint32_t between = add_block(&c);
    c.units[between] = VALUE_BIT; /* "B" -> a */
    set_transition(&c, base_of(0), STEP_BYTE + 1, between, true);
    set_transition(&c, between, STEP_BYTE, base_of(1), false); /* "BA..." joins the chain without a rule */
    rc = check(&c, 3, &msg);
    ok(rc < 0 && says(&msg, "more than 32"), "a rule two steps before a node met before adds to its 32: %s",
       msg.data);
    build_chain(&c, 33);
    set_transition(&c, base_of(0), STEP_BYTE, base_of(1), false);
    between = add_block(&c);
    set_transition(&c, base_of(0), STEP_BYTE + 1, between, false);
    set_transition(&c, between, STEP_BYTE, base_of(1), false);
    is_int(check(&c, 3, &msg), 0, "... without that rule, 32 on every path: passes");

    build_chain(&c, 2);
    c.nunits = 1; /* the root alone: its children's block is not there */
    rc = check(&c, 3, &msg);
    ok(rc < 0, "a one-unit trie: %s", msg.data);

    /* the blob's own header, and the wire format around it */
    wbuf model = WBUF_INIT;
    build_chain(&c, 1);
    model_with(&c, 3, &model);
    int refused = 0, cuts = 0;
    for (size_t cut = 6; cut < model.len; cut += 97, cuts++) { /* inside normalizer_spec (it starts at byte 5) */
        buf_clear(&msg);
        refused += sp_model_check(model.data, cut, &msg) < 0 && says(&msg, "byte");
    }
    is_int(refused, cuts, "a ModelProto cut inside its normalizer_spec is refused naming a byte (%d cuts)", cuts);
    static const char trie_too_big[] = "\x1a\x08\x12\x06\xff\xff\x00\x00" "ab";
    buf_clear(&msg);
    ok(sp_model_check(trie_too_big, sizeof trie_too_big - 1, &msg) < 0 && says(&msg, "trie size"),
       "a trie size past the blob: %s", msg.data);
    static const char group[] = "\x0b\x0c";
    buf_clear(&msg);
    ok(sp_model_check(group, sizeof group - 1, &msg) < 0 && says(&msg, "group"), "a group field: %s", msg.data);
    buf_clear(&msg);
    is_int(sp_model_check("\x1a\x00", 2, &msg), 0, "an empty normalizer_spec passes");
    buf_free(&model);
    buf_free(&msg);
    return done_testing();
}
