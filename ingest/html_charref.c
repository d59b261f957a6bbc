/* html_charref.c - character references to UTF-8, as the HTML Living
 * Standard's tokenizer reads them: named ones from its table
 * (ingest/html_entities.c, hashed here once), numeric ones with its fixes. */
#include "ingest/html_charref.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/utf8.h"

/* Open-addressing hash of the names: a slot holds an index into
 * html_entities plus one, 0 when empty; about a quarter of the slots used. */
#define ENTITY_SLOT_BITS 13
#define ENTITY_SLOTS (1u << ENTITY_SLOT_BITS)
_Static_assert(ENTITY_SLOTS >= 2 * HTML_ENTITY_COUNT, "slots to spare");
static uint16_t entity_slots[ENTITY_SLOTS];
/* Per first byte of a name, bit L set when a name of length L starts with
 * it: for names with their ';' and for legacy names. Most '&' in real pages
 * (URLs' &utm_source=, JSON's &q;) skip the hash with these. */
#define ASCII_BYTES 128
static uint64_t name_lengths[ASCII_BYTES], legacy_lengths[ASCII_BYTES];
static pthread_once_t entity_once = PTHREAD_ONCE_INIT;

/* The hash of a name, computed a byte at a time as the name is read. */
#define NAME_HASH_SEED 5381u
#define NAME_HASH_STEP(h, c) ((h) * 33u + (unsigned char)(c))
/* 2^32 divided by the golden ratio: multiplying by it spreads short names'
 * hashes over the top bits, which pick the slot (Knuth's multiplicative hash). */
#define GOLDEN_MULTIPLIER 2654435761u

static unsigned slot_of(uint32_t hash)
{
    return (unsigned)((hash * GOLDEN_MULTIPLIER) >> (32 - ENTITY_SLOT_BITS));
}

static void build_entity_slots(void)
{
    for (unsigned i = 0; i < HTML_ENTITY_COUNT; i++) {
        const char *name = html_entity_names + html_entities[i].name_off;
        uint32_t h = NAME_HASH_SEED;
        for (unsigned k = 0; k < html_entities[i].name_len; k++) h = NAME_HASH_STEP(h, name[k]);
        unsigned char first = (unsigned char)name[0];
        if (name[html_entities[i].name_len - 1] == ';') name_lengths[first] |= 1ull << html_entities[i].name_len;
        else legacy_lengths[first] |= 1ull << html_entities[i].name_len;
        unsigned slot = slot_of(h);
        while (entity_slots[slot]) slot = (slot + 1) & (ENTITY_SLOTS - 1);
        entity_slots[slot] = (uint16_t)(i + 1);
    }
}

/* The entity named s[0..n) whose name hashes to hash, or NULL. */
static const html_entity *entity_named(const char *s, size_t n, uint32_t hash)
{
    for (unsigned slot = slot_of(hash); entity_slots[slot]; slot = (slot + 1) & (ENTITY_SLOTS - 1)) {
        const html_entity *e = &html_entities[entity_slots[slot] - 1];
        if (e->name_len == n && !memcmp(html_entity_names + e->name_off, s, n)) return e;
    }
    return NULL;
}

static int is_ascii_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* The entity whose name is the longest prefix of s[0..n) (what follows the
 * '&'), or NULL. Names are letters and digits, then ';' or (the legacy ones,
 * at most HTML_ENTITY_LEGACY_MAX long) nothing; so the longest match is the
 * whole run of letters and digits with the ';' after it, or else the
 * longest legacy name the run starts with. */
static const html_entity *longest_entity(const char *s, size_t n)
{
    pthread_once(&entity_once, build_entity_slots);
    if (!n || (unsigned char)s[0] >= ASCII_BYTES) return NULL;
    uint64_t with_semicolon = name_lengths[(unsigned char)s[0]], legacy = legacy_lengths[(unsigned char)s[0]];
    uint32_t prefix_hash[HTML_ENTITY_LEGACY_MAX + 1];
    uint32_t h = NAME_HASH_SEED;
    size_t run = 0;
    while (run < n && run < HTML_ENTITY_NAME_MAX && is_ascii_alnum((unsigned char)s[run])) {
        h = NAME_HASH_STEP(h, s[run]);
        if (++run <= HTML_ENTITY_LEGACY_MAX) prefix_hash[run] = h;
    }
    if (run < n && run < HTML_ENTITY_NAME_MAX && s[run] == ';' && (with_semicolon >> (run + 1) & 1)) {
        const html_entity *e = entity_named(s, run + 1, NAME_HASH_STEP(h, ';'));
        if (e) return e;
    }
    for (size_t k = run < HTML_ENTITY_LEGACY_MAX ? run : HTML_ENTITY_LEGACY_MAX; k > 0; k--) {
        if (!(legacy >> k & 1)) continue;
        const html_entity *e = entity_named(s, k, prefix_hash[k]);
        if (e) return e;
    }
    return NULL;
}

/* What HTML5 reads &#128;..&#159; as: windows-1252's characters there (0 where
 * that code page has none and the value stays as it is). */
static const uint16_t windows1252_c1[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* &#...; at s[0..n): returns its length and the code point (HTML5's fixes
 * applied) in *cp, or 0 without digits. */
static size_t numeric_ref(const char *s, size_t n, uint32_t *cp)
{
    size_t i = 2;
    int hex = i < n && (s[i] | 0x20) == 'x';
    if (hex) i++;
    size_t digits_start = i;
    uint32_t v = 0;
    for (; i < n; i++) {
        int d = hex ? hex_digit((unsigned char)s[i]) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
        if (d < 0) break;
        if (v <= 0x10FFFF) v = v * (hex ? 16u : 10u) + (uint32_t)d;
    }
    if (i == digits_start) return 0;
    if (i < n && s[i] == ';') i++;
    if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) v = 0xFFFD;
    else if (v >= 0x80 && v <= 0x9F && windows1252_c1[v - 0x80]) v = windows1252_c1[v - 0x80];
    *cp = v;
    return i;
}

size_t charref_decode(const char *s, size_t n, charref_context where, char out[CHARREF_MAX_UTF8], size_t *out_len)
{
    if (n > 2 && s[1] == '#') {
        uint32_t cp = 0;
        size_t len = numeric_ref(s, n, &cp);
        if (len) *out_len = (size_t)(utf8_put(out, cp) - out);
        return len;
    }
    const html_entity *e = longest_entity(s + 1, n - 1);
    if (!e) return 0;
    size_t len = 1 + e->name_len;
    bool has_semicolon = html_entity_names[e->name_off + e->name_len - 1] == ';';
    if (where == CHARREF_IN_ATTRIBUTE && !has_semicolon && len < n &&
        (s[len] == '=' || is_ascii_alnum((unsigned char)s[len])))
        return 0; /* the standard's "historical reasons": ?a=1&copy=2 in a URL */
    memcpy(out, e->utf8, e->utf8_len);
    *out_len = e->utf8_len;
    return len;
}
