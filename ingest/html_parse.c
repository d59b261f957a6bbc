/* html_parse.c - HTML tokenizer plus the few tree rules that decide where
 * elements end, reporting balanced events (html_parse.h). */
#include "ingest/html_parse.h"

#include <emmintrin.h>
#include <pthread.h>
#include <string.h>

#include "core/util.h"
#include "ingest/html_charref.h"

/* How far down the open elements a start or end tag looks for the element it
 * closes; an element opened further down than this is closed only by its
 * ancestors or the end of input (keeps nesting 100,000 deep linear). */
#define SCAN_LIMIT 256

/* What an element is to the parser. */
enum {
    EL_VOID = 1 << 0,      /* no content, no end tag */
    EL_RAWTEXT = 1 << 1,   /* content is text up to its end tag (script, style) */
    EL_RCDATA = 1 << 2,    /* the same, with character references (title, textarea) */
    EL_PLAINTEXT = 1 << 3, /* content is the rest of the input */
    EL_CLOSES_P = 1 << 4,  /* its start tag closes an open <p> */
    EL_IN_HEAD = 1 << 5,   /* may stand in <head> without ending it */
    EL_HEADING = 1 << 6,   /* h1..h6 */
    EL_SCRIPT_DATA = 1 << 7, /* raw text read by the script data states (script) */
    EL_NOSCRIPT = 1 << 8,    /* raw text only while scripting is on (html_parser.scripting_off) */
};

/* Ranks: an end tag closes elements of its rank or lower on its way to its
 * own, and stops (is ignored) at a higher one; so </span> never ends a <div>,
 * and </div> never ends a table cell it sits outside of. */
enum { RANK_INLINE, RANK_BLOCK, RANK_CELL, RANK_ROW, RANK_SECTION, RANK_TABLE, RANK_ROOT };

typedef struct {
    const char *name;
    uint16_t flags;
    uint8_t rank;
} element;

#define B (EL_CLOSES_P)
static const element elements[] = {
    /* ids used by the rules below come first, in this order */
    {"p", B, RANK_BLOCK}, {"li", B, RANK_BLOCK}, {"dd", B, RANK_BLOCK}, {"dt", B, RANK_BLOCK},
    {"td", 0, RANK_CELL}, {"th", 0, RANK_CELL}, {"tr", 0, RANK_ROW}, {"tbody", 0, RANK_SECTION},
    {"thead", 0, RANK_SECTION}, {"tfoot", 0, RANK_SECTION}, {"table", B, RANK_TABLE},
    {"option", 0, RANK_INLINE}, {"optgroup", 0, RANK_INLINE}, {"a", 0, RANK_INLINE},
    {"html", 0, RANK_ROOT}, {"head", 0, RANK_ROOT}, {"body", 0, RANK_ROOT}, {"br", EL_VOID, RANK_BLOCK},
    {"div", B, RANK_BLOCK}, {"address", B, RANK_BLOCK}, {"svg", 0, RANK_INLINE}, {"math", 0, RANK_INLINE},
    {"h1", B | EL_HEADING, RANK_BLOCK}, {"h2", B | EL_HEADING, RANK_BLOCK}, {"h3", B | EL_HEADING, RANK_BLOCK},
    {"h4", B | EL_HEADING, RANK_BLOCK}, {"h5", B | EL_HEADING, RANK_BLOCK}, {"h6", B | EL_HEADING, RANK_BLOCK},
    /* the others, any order */
    {"article", B, RANK_BLOCK}, {"aside", B, RANK_BLOCK},
    {"blockquote", B, RANK_BLOCK}, {"center", B, RANK_BLOCK}, {"details", B, RANK_BLOCK},
    {"dialog", B, RANK_BLOCK}, {"dir", B, RANK_BLOCK}, {"dl", B, RANK_BLOCK},
    {"fieldset", B, RANK_BLOCK}, {"figcaption", B, RANK_BLOCK}, {"figure", B, RANK_BLOCK},
    {"footer", B, RANK_BLOCK}, {"form", B, RANK_BLOCK}, {"header", B, RANK_BLOCK}, {"hgroup", B, RANK_BLOCK},
    {"main", B, RANK_BLOCK}, {"menu", B, RANK_BLOCK}, {"nav", B, RANK_BLOCK}, {"ol", B, RANK_BLOCK},
    {"ul", B, RANK_BLOCK}, {"pre", B, RANK_BLOCK}, {"listing", B, RANK_BLOCK}, {"section", B, RANK_BLOCK},
    {"summary", B, RANK_BLOCK}, {"search", B, RANK_BLOCK},
    {"hr", B | EL_VOID, RANK_BLOCK}, {"xmp", B | EL_RAWTEXT, RANK_BLOCK},
    {"plaintext", B | EL_PLAINTEXT, RANK_BLOCK},
    {"caption", 0, RANK_CELL}, {"colgroup", 0, RANK_BLOCK}, {"button", 0, RANK_BLOCK},
    {"select", 0, RANK_BLOCK}, {"frameset", 0, RANK_BLOCK}, {"applet", 0, RANK_CELL},
    {"object", 0, RANK_CELL}, {"marquee", 0, RANK_CELL}, {"template", EL_IN_HEAD, RANK_CELL},
    {"title", EL_RCDATA | EL_IN_HEAD, RANK_BLOCK}, {"textarea", EL_RCDATA, RANK_BLOCK},
    {"script", EL_RAWTEXT | EL_SCRIPT_DATA | EL_IN_HEAD, RANK_BLOCK}, {"style", EL_RAWTEXT | EL_IN_HEAD, RANK_BLOCK},
    {"noscript", EL_RAWTEXT | EL_IN_HEAD | EL_NOSCRIPT, RANK_BLOCK}, {"noframes", EL_RAWTEXT | EL_IN_HEAD, RANK_BLOCK},
    {"iframe", EL_RAWTEXT, RANK_BLOCK}, {"noembed", EL_RAWTEXT, RANK_BLOCK},
    {"area", EL_VOID, RANK_BLOCK}, {"base", EL_VOID | EL_IN_HEAD, RANK_BLOCK},
    {"basefont", EL_VOID | EL_IN_HEAD, RANK_BLOCK}, {"bgsound", EL_VOID | EL_IN_HEAD, RANK_BLOCK},
    {"col", EL_VOID, RANK_BLOCK}, {"embed", EL_VOID, RANK_BLOCK}, {"frame", EL_VOID, RANK_BLOCK},
    {"img", EL_VOID, RANK_BLOCK}, {"input", EL_VOID, RANK_BLOCK}, {"keygen", EL_VOID, RANK_BLOCK},
    {"link", EL_VOID | EL_IN_HEAD, RANK_BLOCK}, {"meta", EL_VOID | EL_IN_HEAD, RANK_BLOCK},
    {"param", EL_VOID, RANK_BLOCK}, {"source", EL_VOID, RANK_BLOCK}, {"track", EL_VOID, RANK_BLOCK},
    {"wbr", EL_VOID, RANK_BLOCK},
    /* inline elements the walk treats specially */
    {"audio", 0, RANK_INLINE}, {"video", 0, RANK_INLINE}, {"canvas", 0, RANK_INLINE}, {"map", 0, RANK_INLINE},
    {"meter", 0, RANK_INLINE}, {"progress", 0, RANK_INLINE}, {"output", 0, RANK_INLINE},
    {"datalist", 0, RANK_INLINE}, {"picture", 0, RANK_INLINE}, {"legend", 0, RANK_INLINE},
};
#undef B
enum { EL_P, EL_LI, EL_DD, EL_DT, EL_TD, EL_TH, EL_TR, EL_TBODY, EL_THEAD, EL_TFOOT, EL_TABLE, EL_OPTION,
       EL_OPTGROUP, EL_A, EL_HTML, EL_HEAD, EL_BODY, EL_BR, EL_DIV, EL_ADDRESS, EL_SVG, EL_MATH, EL_H1, EL_H2, EL_H3, EL_H4, EL_H5,
       EL_H6 };
enum { ELEMENT_COUNT = sizeof elements / sizeof elements[0], EL_UNKNOWN = HTML_ELEMENT_UNKNOWN };
_Static_assert(ELEMENT_COUNT <= HTML_PARSE_MAX_ELEMENTS, "open_count has a slot per element");

static const element unknown_element = {"", 0, RANK_INLINE};

/* Open-addressing hash of the names (slot holds id + 1, 0 when empty), with
 * each name's length. */
#define ELEMENT_SLOTS 512
static uint8_t element_slots[ELEMENT_SLOTS];
static uint8_t element_len[ELEMENT_COUNT];
static pthread_once_t element_once = PTHREAD_ONCE_INIT;

/* Hash of a name; read_tag_name computes the same while it reads. */
#define NAME_HASH_SEED 0x9E37u
#define NAME_HASH_STEP(h, c) ((h) * 33u + (unsigned char)(c))

static unsigned name_hash(const char *s, size_t n)
{
    unsigned h = NAME_HASH_SEED;
    for (size_t i = 0; i < n; i++) h = NAME_HASH_STEP(h, s[i]);
    return h;
}

static void build_element_slots(void)
{
    for (unsigned id = 0; id < ELEMENT_COUNT; id++) {
        size_t n = strlen(elements[id].name);
        element_len[id] = (uint8_t)n;
        unsigned h = name_hash(elements[id].name, n) % ELEMENT_SLOTS;
        while (element_slots[h]) h = (h + 1) % ELEMENT_SLOTS;
        element_slots[h] = (uint8_t)(id + 1);
    }
}

/* True when the n bytes at a and b are equal: tag names are a few bytes,
 * where a loop costs less than a call to memcmp (2-3% of ingest's CPU). */
static bool short_names_equal(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return false;
    return true;
}

/* Id of name s[0..n) whose name_hash() is hash. */
static uint16_t element_id(const char *s, size_t n, unsigned hash)
{
    for (unsigned h = hash % ELEMENT_SLOTS; element_slots[h]; h = (h + 1) % ELEMENT_SLOTS) {
        unsigned id = element_slots[h] - 1u;
        if (element_len[id] == n && short_names_equal(elements[id].name, s, n)) return (uint16_t)id;
    }
    return EL_UNKNOWN;
}

uint16_t html_element_id(const char *name)
{
    pthread_once(&element_once, build_element_slots);
    size_t n = strlen(name);
    return element_id(name, n, name_hash(name, n));
}

static const element *element_of(uint16_t id)
{
    return id < ELEMENT_COUNT ? &elements[id] : &unknown_element;
}

/* ---- characters ---- */

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Bytes that end a tag name (whitespace, '/', '>'), an attribute name (those
 * and '=') and an unquoted value (whitespace, '>'). */
enum { ENDS_TAG = 1, ENDS_NAME = 2, ENDS_UNQUOTED = 4, ENDS_ALL = ENDS_TAG | ENDS_NAME | ENDS_UNQUOTED };
static const uint8_t tag_byte[256] = {
    [' '] = ENDS_ALL, ['\t'] = ENDS_ALL, ['\n'] = ENDS_ALL, ['\r'] = ENDS_ALL, ['\f'] = ENDS_ALL, ['>'] = ENDS_ALL,
    ['/'] = ENDS_TAG | ENDS_NAME, ['='] = ENDS_NAME,
};

static int is_alpha(unsigned char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* Index of the first '<' or '&' in s[i..n), or n; sixteen bytes a step. */
static size_t find_markup(const char *s, size_t i, size_t n)
{
    const __m128i lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&');
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lt), _mm_cmpeq_epi8(x, amp)));
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    while (i < n && s[i] != '<' && s[i] != '&') i++;
    return i;
}

/* ---- the parse ---- */

typedef struct {
    html_parser *p;
    const html_events *ev;
    void *ctx;
    const char *s;
    size_t n;
    /* the tag being read */
    char name[64];
    size_t name_len;
    uint16_t id;
} parse;

static const char *open_name(const parse *ps, size_t k)
{
    const html_open *o = &ps->p->open[k];
    return o->id < ELEMENT_COUNT ? elements[o->id].name : ps->p->names.data + o->name_off;
}

static void push_open(parse *ps, uint16_t id, const char *name, size_t len)
{
    html_parser *p = ps->p;
    if (p->depth == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->open = xrealloc(p->open, p->cap * sizeof *p->open);
    }
    html_open *o = &p->open[p->depth++];
    o->id = id;
    o->name_off = (uint32_t)p->names.len;
    if (id < ELEMENT_COUNT) p->open_count[id]++;
    else {
        buf_append(&p->names, name, len);
        buf_putc(&p->names, 0);
    }
}

/* Closes the innermost open element. */
static void pop_open(parse *ps)
{
    html_parser *p = ps->p;
    size_t k = p->depth - 1;
    html_open *o = &p->open[k];
    ps->ev->end(ps->ctx, open_name(ps, k), o->id);
    if (o->id < ELEMENT_COUNT) p->open_count[o->id]--;
    else p->names.len = o->name_off;
    p->depth = k;
}

/* Closes open elements down to and including the one at depth k. */
static void pop_to(parse *ps, size_t k)
{
    while (ps->p->depth > k) pop_open(ps);
}

/* Depth of the innermost open element with an id in ids[0..nids) found
 * before one ranked above max_rank (or SCAN_LIMIT elements), or -1. */
static long find_open(const parse *ps, const uint16_t *ids, size_t nids, int max_rank)
{
    const html_parser *p = ps->p;
    size_t any = 0;
    for (size_t i = 0; i < nids; i++) any += p->open_count[ids[i]];
    if (!any) return -1;
    for (size_t k = p->depth, seen = 0; k-- > 0 && seen < SCAN_LIMIT; seen++) {
        uint16_t id = p->open[k].id;
        for (size_t i = 0; i < nids; i++)
            if (id == ids[i]) return (long)k;
        if (element_of(id)->rank > max_rank) return -1;
    }
    return -1;
}

#define FIND_OPEN(ps, max_rank, ...) \
    find_open(ps, (const uint16_t[]){__VA_ARGS__}, sizeof((const uint16_t[]){__VA_ARGS__}) / sizeof(uint16_t), max_rank)

static void close_found(parse *ps, long k)
{
    if (k >= 0) pop_to(ps, (size_t)k);
}

/* Innermost open <li> (or <dd>/<dt>) that a new one ends: found past inline
 * elements, <div>, <p> and <address>, as HTML5 says; -1 if none. */
static long find_open_item(const parse *ps, uint16_t a, uint16_t b)
{
    const html_parser *p = ps->p;
    if (!p->open_count[a] && !p->open_count[b]) return -1;
    for (size_t k = p->depth, seen = 0; k-- > 0 && seen < SCAN_LIMIT; seen++) {
        uint16_t id = p->open[k].id;
        if (id == a || id == b) return (long)k;
        const element *e = element_of(id);
        if (e->rank != RANK_INLINE && id != EL_P && id != EL_DIV && id != EL_ADDRESS) return -1;
    }
    return -1;
}

/* Ends an open <head> (at body content). */
static void close_head(parse *ps)
{
    if (ps->p->open_count[EL_HEAD]) close_found(ps, FIND_OPEN(ps, RANK_ROOT, EL_HEAD));
}

/* Reports text; non-blank text directly inside <head> ends it first. */
static void emit_text(parse *ps, const char *s, size_t n)
{
    if (!n) return;
    const html_parser *p = ps->p;
    if (p->depth && p->open[p->depth - 1].id == EL_HEAD) {
        size_t i = 0;
        while (i < n && is_ws((unsigned char)s[i])) i++;
        if (i < n) close_head(ps);
    }
    ps->ev->text(ps->ctx, s, n);
}

/* Passes s[from..to) to put in pieces, character references decoded as
 * where says (text of an RCDATA element, or an attribute value). */
static void decode_refs(parse *ps, size_t from, size_t to, charref_context where,
                        void (*put)(parse *ps, const char *s, size_t n))
{
    const char *s = ps->s;
    size_t i = from, text_start = from;
    while (i < to) {
        const char *amp = memchr(s + i, '&', to - i);
        if (!amp) break;
        size_t j = (size_t)(amp - s);
        char utf8[CHARREF_MAX_UTF8];
        size_t len, used = charref_decode(s + j, to - j, where, utf8, &len);
        if (used) {
            put(ps, s + text_start, j - text_start);
            put(ps, utf8, len);
            text_start = j + used;
        }
        i = used ? j + used : j + 1;
    }
    put(ps, s + text_start, to - text_start);
}

/* Appends to the current tag's attribute buffer. */
static void put_attribute_bytes(parse *ps, const char *s, size_t n)
{
    buf_append(&ps->p->atts, s, n);
}

/* Makes room for `need` attribute offsets and pointers. */
static void reserve_atts(html_parser *p, size_t need)
{
    if (need <= p->cap_att_ptrs) return;
    while (p->cap_att_ptrs < need) p->cap_att_ptrs = p->cap_att_ptrs ? p->cap_att_ptrs * 2 : 32;
    p->att_offs = xrealloc(p->att_offs, p->cap_att_ptrs * sizeof *p->att_offs);
    p->att_ptrs = xrealloc(p->att_ptrs, p->cap_att_ptrs * sizeof *p->att_ptrs);
}

static void add_att_off(html_parser *p, size_t *natt, uint32_t off)
{
    reserve_atts(p, *natt + 1);
    p->att_offs[(*natt)++] = off;
}

/* Reads a tag's attributes from s[i] up to its '>'. Returns the index after
 * the '>', or 0 when the input ends inside the tag (the tag is then dropped,
 * as HTML5 does). With keep, the attributes land in p->atts/att_offs and
 * *natt counts name and value offsets. */
static size_t read_attributes(parse *ps, size_t i, int keep, size_t *natt)
{
    const char *s = ps->s;
    size_t n = ps->n;
    html_parser *p = ps->p;
    for (;;) {
        while (i < n && (is_ws((unsigned char)s[i]) || s[i] == '/')) i++;
        if (i >= n) return 0;
        if (s[i] == '>') return i + 1;
        size_t name_start = i++; /* the first character may be '=' */
        while (i < n && !(tag_byte[(unsigned char)s[i]] & ENDS_NAME)) i++;
        size_t name_end = i;
        while (i < n && is_ws((unsigned char)s[i])) i++;
        size_t value_start = 0, value_end = 0;
        int has_value = 0;
        if (i < n && s[i] == '=') {
            i++;
            while (i < n && is_ws((unsigned char)s[i])) i++;
            if (i >= n) return 0;
            if (s[i] == '"' || s[i] == '\'') {
                const char *close = memchr(s + i + 1, s[i], n - i - 1);
                if (!close) return 0;
                value_start = i + 1;
                value_end = (size_t)(close - s);
                i = value_end + 1;
            } else {
                value_start = i;
                while (i < n && !(tag_byte[(unsigned char)s[i]] & ENDS_UNQUOTED)) i++;
                value_end = i;
            }
            has_value = 1;
        }
        if (!keep) continue;
        add_att_off(p, natt, (uint32_t)p->atts.len);
        buf_reserve(&p->atts, name_end - name_start + 1);
        char *name = p->atts.data + p->atts.len;
        for (size_t k = name_start; k < name_end; k++) *name++ = (char)ascii_lower((unsigned char)s[k]);
        *name++ = 0;
        p->atts.len = (size_t)(name - p->atts.data);
        add_att_off(p, natt, (uint32_t)p->atts.len);
        if (has_value) decode_refs(ps, value_start, value_end, CHARREF_IN_ATTRIBUTE, put_attribute_bytes);
        buf_putc(&p->atts, 0);
    }
}

/* Reads a tag name at s[i] into ps->name (lower-cased, cut at 63 bytes) and
 * ps->id; returns the index after it. */
static size_t read_tag_name(parse *ps, size_t i)
{
    const char *s = ps->s;
    size_t n = ps->n, len = 0;
    unsigned hash = NAME_HASH_SEED;
    while (i < n && !(tag_byte[(unsigned char)s[i]] & ENDS_TAG)) {
        if (len < sizeof ps->name - 1) {
            char c = (char)ascii_lower((unsigned char)s[i]);
            ps->name[len++] = c;
            hash = NAME_HASH_STEP(hash, c);
        }
        i++;
    }
    ps->name[len] = 0;
    ps->name_len = len;
    ps->id = element_id(ps->name, len, hash);
    return i;
}

/* The open elements a new element ends before it starts (HTML5's implied end tags, simplified). */
static void close_before_start(parse *ps, uint16_t id, uint8_t flags)
{
    html_parser *p = ps->p;
    if (!(flags & EL_IN_HEAD)) close_head(ps);
    switch (id) {
    case EL_LI: close_found(ps, find_open_item(ps, EL_LI, EL_LI)); break;
    case EL_DD:
    case EL_DT: close_found(ps, find_open_item(ps, EL_DD, EL_DT)); break;
    case EL_TD:
    case EL_TH: close_found(ps, FIND_OPEN(ps, RANK_CELL, EL_TD, EL_TH)); break;
    case EL_TR: close_found(ps, FIND_OPEN(ps, RANK_CELL, EL_TR)); break;
    case EL_TBODY:
    case EL_THEAD:
    case EL_TFOOT: close_found(ps, FIND_OPEN(ps, RANK_ROW, EL_TBODY, EL_THEAD, EL_TFOOT)); break;
    case EL_A: close_found(ps, FIND_OPEN(ps, RANK_INLINE, EL_A)); break;
    case EL_OPTION:
    case EL_OPTGROUP:
        if (p->depth && p->open[p->depth - 1].id == EL_OPTION) pop_open(ps);
        if (id == EL_OPTGROUP && p->depth && p->open[p->depth - 1].id == EL_OPTGROUP) pop_open(ps);
        break;
    default: break;
    }
    if (flags & EL_CLOSES_P) close_found(ps, FIND_OPEN(ps, RANK_BLOCK, EL_P));
    if ((flags & EL_HEADING) && p->depth && (element_of(p->open[p->depth - 1].id)->flags & EL_HEADING))
        pop_open(ps);
}

/* True when the '<' at s[j] starts "<name" (with end, "</name"), the name in
 * any case and followed by whitespace, '/' or '>', within s[0..n): a name
 * cut off by the end of input is text, as HTML5's end tag name states make it. */
static int is_tag_named(const char *s, size_t j, size_t n, int end, const char *name, size_t len)
{
    size_t at = j + 1 + (size_t)end, after = at + len;
    return after < n && (!end || s[j + 1] == '/') && !strncasecmp(s + at, name, len) &&
           (is_ws((unsigned char)s[after]) || s[after] == '/' || s[after] == '>');
}

/* Index just past the end tag "</name" that ends raw text starting at i, and
 * in *content_end where the text stops; n if none. */
static size_t find_raw_end(const parse *ps, size_t i, const char *name, size_t len, size_t *content_end)
{
    const char *s = ps->s;
    size_t n = ps->n;
    while (i < n) {
        const char *lt = memchr(s + i, '<', n - i);
        if (!lt) break;
        size_t j = (size_t)(lt - s);
        if (is_tag_named(s, j, n, 1, name, len)) {
            *content_end = j;
            return j + 2 + len;
        }
        i = j + 1;
    }
    *content_end = n;
    return n;
}

#define SCRIPT_NAME "script"
#define SCRIPT_LEN (sizeof SCRIPT_NAME - 1)

/* True when s[j..n) starts the end tag the script data states look for. */
static int is_script_end_tag(const char *s, size_t j, size_t n)
{
    return is_tag_named(s, j, n, 1, SCRIPT_NAME, SCRIPT_LEN);
}

/* True when s[j..n) starts "<script": the double escape start. */
static int is_script_start_tag(const char *s, size_t j, size_t n)
{
    return is_tag_named(s, j, n, 0, SCRIPT_NAME, SCRIPT_LEN);
}

/* Index of the first '-' or '<' in s[i..n), or n. */
static size_t find_dash_or_lt(const char *s, size_t i, size_t n)
{
    const __m128i lt = _mm_set1_epi8('<'), dash = _mm_set1_epi8('-');
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, lt), _mm_cmpeq_epi8(x, dash)));
        if (m) return i + (size_t)__builtin_ctz(m);
    }
    while (i < n && s[i] != '<' && s[i] != '-') i++;
    return i;
}

/* find_raw_end for <script>, through the WHATWG tokenizer's script data
 * states (13.2.5.4, 13.2.5.15-13.2.5.32): after "<!--" the text is
 * escaped until "-->", and inside escaped text a "<script" starts a
 * double-escaped stretch in which "</script" does not end the element (it
 * only ends the double escape), so in
 * <script><!-- document.write("<script></script>"); --></script> only the
 * last end tag ends the script. */
static size_t find_script_end(const parse *ps, size_t i, size_t *content_end)
{
    enum { DATA, ESCAPED, DOUBLE_ESCAPED } state = DATA;
    const char *s = ps->s;
    size_t n = ps->n;
    while (i < n) {
        if (state == DATA) {
            const char *lt = memchr(s + i, '<', n - i);
            if (!lt) break;
            size_t j = (size_t)(lt - s);
            if (is_script_end_tag(s, j, n)) {
                *content_end = j;
                return j + sizeof "</script" - 1;
            }
            i = j + 1;
            if (j + 3 < n && s[j + 1] == '!' && s[j + 2] == '-' && s[j + 3] == '-') {
                /* the escaped dash dash state: more dashes, then '>' goes back to data */
                size_t k = j + 4;
                while (k < n && s[k] == '-') k++;
                if (k < n && s[k] == '>') i = k + 1;
                else {
                    state = ESCAPED;
                    i = k;
                }
            }
            continue;
        }
        size_t j = find_dash_or_lt(s, i, n);
        if (j >= n) break;
        if (s[j] == '-') { /* "--" (or more) then '>' ends the escape */
            size_t k = j;
            while (k < n && s[k] == '-') k++;
            if (k - j >= 2 && k < n && s[k] == '>') state = DATA;
            i = k < n && s[k] == '>' ? k + 1 : k;
            continue;
        }
        if (state == ESCAPED && is_script_end_tag(s, j, n)) {
            *content_end = j;
            return j + sizeof "</script" - 1;
        }
        if (state == ESCAPED && is_script_start_tag(s, j, n)) {
            state = DOUBLE_ESCAPED;
            i = j + sizeof "<script";
        } else if (state == DOUBLE_ESCAPED && is_script_end_tag(s, j, n)) {
            state = ESCAPED;
            i = j + sizeof "</script";
        } else {
            i = j + 1;
        }
    }
    *content_end = n;
    return n;
}

/* A start tag whose name has been read; i is just after the name. */
static size_t start_tag(parse *ps, size_t i)
{
    html_parser *p = ps->p;
    size_t natt = 0;
    p->atts.len = 0;
    i = read_attributes(ps, i, 1, &natt);
    if (!i) return ps->n; /* cut off inside the tag */
    uint16_t id = ps->id;
    const element *e = element_of(id);
    if (id == EL_HTML) {
        if (p->html_seen) return i;
        p->html_seen = 1;
    } else if (id == EL_HEAD) {
        if (p->head_seen || p->body_seen) return i;
        p->head_seen = 1;
    } else if (id == EL_BODY) {
        if (p->body_seen) return i;
        p->body_seen = 1;
    }
    close_before_start(ps, id, e->flags);
    reserve_atts(p, natt + 1);
    for (size_t k = 0; k < natt; k++) p->att_ptrs[k] = p->atts.data + p->att_offs[k];
    p->att_ptrs[natt] = NULL;
    const char *name = id < ELEMENT_COUNT ? e->name : ps->name;
    ps->ev->start(ps->ctx, name, id, p->att_ptrs);
    if (e->flags & EL_VOID) {
        ps->ev->end(ps->ctx, name, id);
        return i;
    }
    push_open(ps, id, ps->name, ps->name_len);
    int markup_inside = (e->flags & EL_NOSCRIPT) && p->scripting_off;
    if ((e->flags & (EL_RAWTEXT | EL_RCDATA | EL_PLAINTEXT)) && !markup_inside) {
        size_t content_end, after = ps->n;
        if (e->flags & EL_PLAINTEXT) content_end = ps->n;
        else if (e->flags & EL_SCRIPT_DATA) after = find_script_end(ps, i, &content_end);
        else after = find_raw_end(ps, i, e->name, strlen(e->name), &content_end);
        if (e->flags & EL_RCDATA) decode_refs(ps, i, content_end, CHARREF_IN_TEXT, emit_text);
        else emit_text(ps, ps->s + i, content_end - i);
        pop_open(ps);
        size_t end = after < ps->n ? read_attributes(ps, after, 0, NULL) : 0;
        return end ? end : ps->n;
    }
    return i;
}

/* An end tag whose name has been read; i is just after the name. */
static size_t end_tag(parse *ps, size_t i)
{
    html_parser *p = ps->p;
    i = read_attributes(ps, i, 0, NULL);
    if (!i) return ps->n;
    uint16_t id = ps->id;
    const element *e = element_of(id);
    static const char *const no_atts[] = {NULL};
    switch (id) {
    case EL_HTML:
    case EL_BODY: return i; /* what follows still belongs to the body; all closes at the end */
    case EL_HEAD: close_head(ps); return i;
    case EL_BR: /* </br> is read as <br> */
        close_head(ps);
        ps->ev->start(ps->ctx, "br", EL_BR, no_atts);
        ps->ev->end(ps->ctx, "br", EL_BR);
        return i;
    default: break;
    }
    if (e->flags & EL_HEADING) {
        close_found(ps, FIND_OPEN(ps, RANK_BLOCK, EL_H1, EL_H2, EL_H3, EL_H4, EL_H5, EL_H6));
        return i;
    }
    long k = -1;
    if (id < ELEMENT_COUNT) {
        if (p->open_count[id]) k = find_open(ps, &id, 1, e->rank);
    } else {
        for (size_t d = p->depth, seen = 0; d-- > 0 && seen < SCAN_LIMIT; seen++) {
            if (p->open[d].id == EL_UNKNOWN && !strcmp(open_name(ps, d), ps->name)) {
                k = (long)d;
                break;
            }
            if (element_of(p->open[d].id)->rank > RANK_INLINE) break;
        }
    }
    if (k >= 0) pop_to(ps, (size_t)k);
    else if (id == EL_P) { /* </p> without <p>: an empty paragraph, as HTML5 makes */
        close_head(ps);
        ps->ev->start(ps->ctx, "p", EL_P, no_atts);
        ps->ev->end(ps->ctx, "p", EL_P);
    }
    return i;
}

size_t html_comment_end(const char *s, size_t i, size_t n)
{
    size_t j = i + 4;
    if (j < n && s[j] == '>') return j + 1;                        /* <!--> */
    if (j + 1 < n && s[j] == '-' && s[j + 1] == '>') return j + 2; /* <!---> */
    for (const char *dd; j + 2 < n && (dd = memmem(s + j, n - j, "--", 2)); j = (size_t)(dd - s) + 1) {
        size_t k = (size_t)(dd - s) + 2;
        if (k < n && s[k] == '>') return k + 1;
        if (k + 1 < n && s[k] == '!' && s[k + 1] == '>') return k + 2;
    }
    return 0;
}

/* Handles a comment, doctype, CDATA section or other "<!...>" / "<?...>" at
 * s[i] == '<' (only CDATA inside <svg> or <math> is text, as in HTML5);
 * returns the index after it. */
static size_t markup_declaration(parse *ps, size_t i)
{
    const char *s = ps->s;
    size_t n = ps->n;
    if (i + 3 < n && s[i + 1] == '!' && s[i + 2] == '-' && s[i + 3] == '-') {
        size_t end = html_comment_end(s, i, n);
        return end ? end : n; /* an unclosed comment runs to the end of input */
    }
    if ((ps->p->open_count[EL_SVG] || ps->p->open_count[EL_MATH]) && n - i >= 9 && !memcmp(s + i, "<![CDATA[", 9)) {
        const char *end = memmem(s + i + 9, n - i - 9, "]]>", 3);
        size_t content_end = end ? (size_t)(end - s) : n;
        emit_text(ps, s + i + 9, content_end - i - 9);
        return end ? content_end + 3 : n;
    }
    const char *gt = memchr(s + i + 1, '>', n - i - 1);
    return gt ? (size_t)(gt - s) + 1 : n;
}

void html_parse(html_parser *p, const char *html, size_t n, const html_events *ev, void *ctx)
{
    pthread_once(&element_once, build_element_slots);
    p->depth = 0;
    p->names.len = 0;
    memset(p->open_count, 0, sizeof p->open_count);
    p->html_seen = p->head_seen = p->body_seen = 0;
    parse ps = {.p = p, .ev = ev, .ctx = ctx, .s = html, .n = n};
    size_t i = 0, text_start = 0;
    while (i < n) {
        size_t j = find_markup(html, i, n);
        if (j >= n) break;
        if (html[j] == '&') {
            char utf8[CHARREF_MAX_UTF8];
            size_t len, used = charref_decode(html + j, n - j, CHARREF_IN_TEXT, utf8, &len);
            if (used) {
                emit_text(&ps, html + text_start, j - text_start);
                emit_text(&ps, utf8, len);
                text_start = j + used;
            }
            i = used ? j + used : j + 1;
            continue;
        }
        unsigned char c = j + 1 < n ? (unsigned char)html[j + 1] : 0;
        if (is_alpha(c) || (c == '/' && j + 2 < n && is_alpha((unsigned char)html[j + 2]))) {
            emit_text(&ps, html + text_start, j - text_start);
            if (c == '/') i = end_tag(&ps, read_tag_name(&ps, j + 2));
            else i = start_tag(&ps, read_tag_name(&ps, j + 1));
            text_start = i;
        } else if (c == '!' || c == '?' || c == '/') {
            emit_text(&ps, html + text_start, j - text_start);
            i = text_start = markup_declaration(&ps, j); /* also </> and </3...> */
        } else {
            i = j + 1; /* a '<' that starts nothing is text */
        }
    }
    if (text_start < n) emit_text(&ps, html + text_start, n - text_start);
    pop_to(&ps, 0);
}

void html_parser_free(html_parser *p)
{
    free(p->open);
    buf_free(&p->names);
    buf_free(&p->atts);
    free(p->att_ptrs);
    free(p->att_offs);
    memset(p, 0, sizeof *p);
}
