/* html_charref.c - character references to UTF-8: named ones from libxml2's
 * HTML 4 table (hashed here once, as libxml2 looks names up one by one),
 * numeric ones by the HTML5 rules. */
#include "ingest/html_charref.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <libxml/HTMLparser.h>

#include "core/utf8.h"

/* Longest entity name in the table ("thetasym") and a bound past it. */
#define ENTITY_NAME_MAX 8
/* libxml2's table is read by asking for each code point in the two ranges
 * that hold all of HTML 4's entities (Latin-1, Latin Extended, spacing
 * modifiers and Greek; then punctuation, letterlike symbols, arrows, math,
 * technical, shapes, up to &diams; U+2666). tests/unit/html_parse.c checks
 * names at both ends of each range. */
static const unsigned entity_ranges[][2] = {{1, 0x400}, {0x2000, 0x2700}};
#define ENTITY_SLOTS 1024

typedef struct {
    const char *name; /* NULL when empty */
    uint8_t len;
    uint16_t value;
} entity_slot;

static entity_slot entity_slots[ENTITY_SLOTS];
static pthread_once_t entity_once = PTHREAD_ONCE_INIT;

static unsigned entity_hash(const char *s, size_t n)
{
    unsigned h = (unsigned)n;
    for (size_t i = 0; i < n; i++) h = h * 31u + (unsigned char)s[i];
    return h % ENTITY_SLOTS;
}

static void build_entity_slots(void)
{
    for (size_t r = 0; r < sizeof entity_ranges / sizeof entity_ranges[0]; r++)
        for (unsigned v = entity_ranges[r][0]; v < entity_ranges[r][1]; v++) {
            const htmlEntityDesc *e = htmlEntityValueLookup(v);
            if (!e || e->value != v) continue;
            size_t n = strlen(e->name);
            if (n > ENTITY_NAME_MAX) continue;
            unsigned h = entity_hash(e->name, n);
            while (entity_slots[h].name) h = (h + 1) % ENTITY_SLOTS;
            entity_slots[h] = (entity_slot){e->name, (uint8_t)n, (uint16_t)v};
        }
}

/* Code point of entity name s[0..n), or 0. */
static uint32_t entity_value(const char *s, size_t n)
{
    pthread_once(&entity_once, build_entity_slots);
    for (unsigned h = entity_hash(s, n); entity_slots[h].name; h = (h + 1) % ENTITY_SLOTS)
        if (entity_slots[h].len == n && !memcmp(entity_slots[h].name, s, n)) return entity_slots[h].value;
    return 0;
}

/* What HTML5 reads &#128;..&#159; as: windows-1252's characters there (0 where
 * that code page has none and the value stays as it is). */
static const uint16_t windows1252_c1[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

static int is_ascii_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

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

size_t charref_decode(const char *s, size_t n, char out[CHARREF_MAX_UTF8], size_t *out_len)
{
    uint32_t cp = 0;
    size_t len;
    if (n > 2 && s[1] == '#') {
        len = numeric_ref(s, n, &cp);
    } else {
        size_t i = 1;
        while (i < n && i <= ENTITY_NAME_MAX + 1 && is_ascii_alnum((unsigned char)s[i])) i++;
        if (i == 1 || i >= n || s[i] != ';' || !(cp = entity_value(s + 1, i - 1))) return 0;
        len = i + 1;
    }
    if (!len) return 0;
    *out_len = (size_t)(utf8_put(out, cp) - out);
    return len;
}
