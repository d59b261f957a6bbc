/* html_walk.c - the SAX walk: visible text into blocks, block elements into nodes. */
#include "ingest/html_walk.h"

#include <ctype.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ingest/html_parse.h"

/* Longest class/id/role value that is searched for hints. */
#define HINT_ATTR_MAX 200
/* Largest JSON-LD kept per page, and longest <meta> value. */
#define JSONLD_MAX (1 << 20)
#define META_VALUE_MAX 2000

struct walk_frame {
    uint32_t tag;
    uint16_t tag_id;
    int32_t node;     /* the innermost block node in effect here */
    uint8_t own_node; /* this element created node */
    uint8_t skip_root; /* this element started an invisible subtree */
    uint8_t jsonld;
    uint8_t breaks;   /* break strength at its start and end: 0 inline, 1 line, 2 paragraph */
};

/* What the walk does specially with a few tags besides their flags. */
enum { SPECIAL_NONE, SPECIAL_HTML, SPECIAL_BODY, SPECIAL_META, SPECIAL_SCRIPT, SPECIAL_DIALOG, SPECIAL_NOSCRIPT };

typedef struct {
    const char *name;
    uint32_t flags;
    uint8_t hints;   /* HINT_* the tag itself gives */
    uint8_t special; /* SPECIAL_* */
} tag_info;

#define T(name, flags) {name, flags, 0, SPECIAL_NONE}
#define TH(name, flags, hints) {name, flags, hints, SPECIAL_NONE}
#define TS(name, flags, special) {name, flags, 0, special}
/* Sorted by name; a tag's id is its index. Tags not listed are inline. Block and
 * preformatted as in the HTML standard's rendering section (listing, plaintext,
 * pre and xmp have white-space: pre; a dialog without open is display: none). */
static const tag_info tag_table[] = {
    T("a", TAG_LINK), T("address", TAG_BLOCK), T("applet", TAG_SKIP), T("area", TAG_VOID), T("article", TAG_BLOCK),
    TH("aside", TAG_BLOCK, HINT_BOILER), T("audio", TAG_SKIP), T("base", TAG_VOID),
    T("blockquote", TAG_BLOCK | TAG_QUOTE),
    TS("body", TAG_BLOCK, SPECIAL_BODY), T("br", TAG_LINE | TAG_VOID), T("button", TAG_SKIP), T("canvas", TAG_SKIP),
    T("caption", TAG_LINE), T("center", TAG_BLOCK), T("col", TAG_VOID), T("colgroup", TAG_SKIP),
    T("datalist", TAG_SKIP), T("dd", TAG_LINE | TAG_ITEM), T("details", TAG_BLOCK), TS("dialog", TAG_BLOCK, SPECIAL_DIALOG),
    T("dir", TAG_BLOCK), T("div", TAG_BLOCK), T("dl", TAG_BLOCK),
    T("dt", TAG_LINE | TAG_ITEM), T("embed", TAG_SKIP), T("fieldset", TAG_BLOCK),
    TH("figcaption", TAG_BLOCK, HINT_CAPTION), T("figure", TAG_BLOCK), TH("footer", TAG_BLOCK, HINT_BOILER),
    T("form", TAG_BLOCK), T("frame", TAG_SKIP), T("frameset", TAG_BLOCK), T("h1", TAG_BLOCK | TAG_HEADING),
    T("h2", TAG_BLOCK | TAG_HEADING), T("h3", TAG_BLOCK | TAG_HEADING), T("h4", TAG_BLOCK | TAG_HEADING),
    T("h5", TAG_BLOCK | TAG_HEADING), T("h6", TAG_BLOCK | TAG_HEADING), T("head", TAG_HEAD), T("header", TAG_BLOCK),
    T("hgroup", TAG_BLOCK), T("hr", TAG_BLOCK | TAG_VOID), TS("html", TAG_BLOCK, SPECIAL_HTML), T("iframe", TAG_SKIP),
    T("img", TAG_VOID), T("input", TAG_VOID), T("legend", TAG_LINE), T("li", TAG_LINE | TAG_ITEM), T("link", TAG_VOID),
    T("listing", TAG_BLOCK | TAG_PRE),
    T("main", TAG_BLOCK), T("map", TAG_SKIP), T("menu", TAG_BLOCK), TS("meta", TAG_VOID, SPECIAL_META),
    T("meter", TAG_SKIP), TH("nav", TAG_BLOCK, HINT_BOILER), T("noembed", TAG_SKIP), T("noframes", TAG_SKIP),
    TS("noscript", TAG_SKIP, SPECIAL_NOSCRIPT), T("object", TAG_SKIP), T("ol", TAG_BLOCK), T("optgroup", TAG_SKIP),
    T("option", TAG_SKIP), T("output", TAG_SKIP), T("p", TAG_BLOCK | TAG_PARA), T("param", TAG_VOID),
    T("picture", TAG_VOID), T("plaintext", TAG_BLOCK | TAG_PRE), T("pre", TAG_BLOCK | TAG_PRE), T("progress", TAG_SKIP),
    TS("script", TAG_SKIP, SPECIAL_SCRIPT), T("search", TAG_BLOCK),
    T("section", TAG_BLOCK), T("select", TAG_SKIP), T("source", TAG_VOID), T("style", TAG_SKIP),
    T("summary", TAG_BLOCK), T("svg", TAG_SKIP), T("table", TAG_BLOCK), T("tbody", TAG_BLOCK),
    T("td", TAG_LINE | TAG_CELL), T("template", TAG_SKIP), T("textarea", TAG_SKIP), T("tfoot", TAG_BLOCK),
    T("th", TAG_LINE | TAG_CELL), T("thead", TAG_BLOCK), T("title", TAG_TITLE), T("tr", TAG_LINE),
    T("track", TAG_VOID), T("ul", TAG_BLOCK), T("video", TAG_SKIP), T("wbr", TAG_VOID),
    T("xmp", TAG_BLOCK | TAG_PRE),
};
#undef T
#undef TH
#undef TS
enum { TAG_COUNT = sizeof tag_table / sizeof tag_table[0], TAG_ID_INLINE = TAG_COUNT };
_Static_assert(TAG_ID_INLINE <= UINT8_MAX, "walk tag ids fit a byte");

/* The walk's tag id of each parser element (TAG_ID_INLINE for the rest),
 * built once: a start tag costs one array read. */
static uint8_t tag_of_element[HTML_PARSE_MAX_ELEMENTS];

static void build_tag_of_element(void)
{
    memset(tag_of_element, TAG_ID_INLINE, sizeof tag_of_element);
    for (unsigned id = 0; id < TAG_COUNT; id++) {
        uint16_t e = html_element_id(tag_table[id].name);
        if (e == HTML_ELEMENT_UNKNOWN) abort(); /* the parser must know every tag the walk does */
        tag_of_element[e] = (uint8_t)id;
    }
}

static const tag_info *tag_of(uint16_t id)
{
    static const tag_info inline_tag = {"inline", 0, 0, SPECIAL_NONE};
    return id < TAG_COUNT ? &tag_table[id] : &inline_tag;
}

const char *html_tag_name(uint16_t tag_id)
{
    return tag_of(tag_id)->name;
}

/* ---- hints from class, id and role ---- */

/* Words in class/id values that mark boilerplate (a substring match, as
 * class names are compounds like "site-footer" or "shareButtons"). */
static const char *const boiler_words[] = {
    "nav", "menu", "footer", "sidebar", "side-bar", "widget", "share", "sharing", "social", "related",
    "recommend", "breadcrumb", "banner", "advert", "promo", "sponsor", "newsletter", "subscribe",
    "signup", "popup", "modal", "masthead", "toolbar", "pagination", "pager", "skip-link", "skiplink",
    "trending", "most-popular", "mostpopular", "disclaimer", "copyright", "login", "search",
};
/* Words no content wrapper is named by: cookie and consent banners. */
static const char *const consent_words[] = {"cookie", "consent", "gdpr"};
static const char *const comment_words[] = {"comment", "respond", "replies"};
/* Compound names (dashes and underscores removed) that mark the article body itself. */
static const char *const body_words[] = {
    "articlebody", "articlecontent", "articletext", "postcontent", "postbody", "entrycontent", "storybody",
    "storycontent", "bodytext", "articlecopy", "storytext", "posttext", "entrybody",
};
static const char *const caption_words[] = {"caption", "credit"};
static const char *const byline_words[] = {"byline", "author", "dateline", "timestamp",
                                           "date", "publish", "posted", "entry-meta", "post-meta"};

/* What finding a word of each list means (a value can contain several). */
enum { WORDS_BODY = 1, WORDS_COMMENT = 2, WORDS_BOILER = 4, WORDS_CAPTION = 8, WORDS_BYLINE = 16, WORDS_CONSENT = 32 };

/* The hint words indexed by their first two bytes, so that a value is scanned
 * once for all of them: a position whose two bytes start no word costs two
 * table look-ups. Found anywhere in the value, as a substring. */
#define WORD_CHAR_CLASSES 32 /* 0: a byte that starts no word; others numbered as met */
#define MAX_HINT_WORDS 96
typedef struct {
    const char *word[MAX_HINT_WORDS];
    uint8_t len[MAX_HINT_WORDS], bits[MAX_HINT_WORDS];
    uint8_t first[WORD_CHAR_CLASSES * WORD_CHAR_CLASSES + 1]; /* bigram k's words: [first[k], first[k + 1]) */
    size_t count;
} word_index;

static word_index body_index, other_index;
static uint8_t word_char[256];
static unsigned word_char_classes = 1;

static unsigned word_char_class(unsigned char c)
{
    if (!word_char[c]) {
        if (word_char_classes == WORD_CHAR_CLASSES) abort(); /* the word lists outgrew the index */
        word_char[c] = (uint8_t)word_char_classes++;
    }
    return word_char[c];
}

static unsigned bigram(const char *w)
{
    return word_char_class((unsigned char)w[0]) * WORD_CHAR_CLASSES + word_char_class((unsigned char)w[1]);
}

/* Adds a list's words (each at least two bytes) to ix, marked with bits. */
static void index_words(word_index *ix, const char *const *words, size_t n, uint8_t bits)
{
    for (size_t i = 0; i < n; i++) {
        if (ix->count == MAX_HINT_WORDS || strlen(words[i]) < 2) abort();
        ix->word[ix->count] = words[i];
        ix->len[ix->count] = (uint8_t)strlen(words[i]);
        ix->bits[ix->count++] = bits;
    }
}
#define INDEX_WORDS(ix, list, bits) index_words(ix, list, sizeof list / sizeof list[0], bits)

/* Orders ix's words by bigram (a counting sort) and fills first[]. */
static void sort_index(word_index *ix)
{
    enum { K = WORD_CHAR_CLASSES * WORD_CHAR_CLASSES };
    unsigned count[K + 1] = {0};
    for (size_t i = 0; i < ix->count; i++) count[bigram(ix->word[i]) + 1]++;
    for (unsigned k = 0; k < K; k++) count[k + 1] += count[k];
    word_index sorted = *ix;
    unsigned at[K];
    memcpy(at, count, sizeof at);
    for (size_t i = 0; i < ix->count; i++) {
        unsigned j = at[bigram(ix->word[i])]++;
        sorted.word[j] = ix->word[i];
        sorted.len[j] = ix->len[i];
        sorted.bits[j] = ix->bits[i];
    }
    for (unsigned k = 0; k <= K; k++) sorted.first[k] = (uint8_t)count[k];
    *ix = sorted;
}

static void build_word_index(void)
{
    INDEX_WORDS(&body_index, body_words, WORDS_BODY);
    INDEX_WORDS(&other_index, comment_words, WORDS_COMMENT);
    INDEX_WORDS(&other_index, boiler_words, WORDS_BOILER);
    INDEX_WORDS(&other_index, consent_words, WORDS_CONSENT);
    INDEX_WORDS(&other_index, caption_words, WORDS_CAPTION);
    INDEX_WORDS(&other_index, byline_words, WORDS_BYLINE);
    sort_index(&body_index);
    sort_index(&other_index);
}

/* The bits of every word of ix that occurs in s[0..n). */
static unsigned find_words(const word_index *ix, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned found = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        unsigned a = word_char[u[i]], b;
        if (!a || !(b = word_char[u[i + 1]])) continue;
        unsigned k = a * WORD_CHAR_CLASSES + b;
        for (unsigned j = ix->first[k]; j < ix->first[k + 1]; j++)
            if (ix->len[j] <= n - i && !memcmp(s + i + 2, ix->word[j] + 2, ix->len[j] - 2u)) found |= ix->bits[j];
    }
    return found;
}

/* Hints from one class/id value. */
static uint8_t hints_from_names(const char *value)
{
    char low[HINT_ATTR_MAX + 1], squeezed[HINT_ATTR_MAX + 1];
    size_t n = 0, m = 0;
    for (; value[n] && n < HINT_ATTR_MAX; n++) {
        char c = (char)ascii_lower((unsigned char)value[n]);
        low[n] = c;
        if (c != '-' && c != '_') squeezed[m++] = c;
    }
    if (find_words(&body_index, squeezed, m)) return HINT_ARTICLE_BODY;
    unsigned found = find_words(&other_index, low, n);
    uint8_t h = 0;
    if (found & WORDS_COMMENT) h |= HINT_COMMENTS;
    if (found & WORDS_BOILER) h |= HINT_BOILER_NAME;
    if (found & WORDS_CONSENT) h |= HINT_CONSENT;
    if (found & WORDS_CAPTION) return h | HINT_CAPTION;
    if (found & WORDS_BYLINE) return h | HINT_BYLINE;
    return h;
}

static uint8_t hints_from_role(const char *role)
{
    if (!strcmp(role, "navigation") || !strcmp(role, "contentinfo") || !strcmp(role, "complementary") ||
        !strcmp(role, "menu") || !strcmp(role, "menubar") || !strcmp(role, "search"))
        return HINT_BOILER;
    if (!strcmp(role, "dialog") || !strcmp(role, "alertdialog"))
        return HINT_CONSENT;
    return 0;
}

/* ---- buffers ---- */

static walk_node *new_node(html_walk *w)
{
    if (w->nnodes == w->cap_nodes) {
        w->cap_nodes = w->cap_nodes ? w->cap_nodes * 2 : 256;
        w->nodes = xrealloc(w->nodes, w->cap_nodes * sizeof *w->nodes);
    }
    return &w->nodes[w->nnodes++];
}

static struct walk_frame *push_frame(html_walk *w)
{
    if (w->depth == w->cap_stack) {
        w->cap_stack = w->cap_stack ? w->cap_stack * 2 : 64;
        w->stack = xrealloc(w->stack, w->cap_stack * sizeof *w->stack);
    }
    struct walk_frame *f = &w->stack[w->depth++];
    memset(f, 0, sizeof *f);
    return f;
}

static int32_t current_node(const html_walk *w)
{
    return w->depth ? w->stack[w->depth - 1].node : -1;
}

/* Ends the current block (if it has text) and asks for a break of strength brk before the next. */
static void flush_block(html_walk *w, int brk)
{
    uint32_t end = (uint32_t)w->text.len;
    if (end > w->cur_start) {
        if (w->nblocks == w->cap_blocks) {
            w->cap_blocks = w->cap_blocks ? w->cap_blocks * 2 : 128;
            w->blocks = xrealloc(w->blocks, w->cap_blocks * sizeof *w->blocks);
        }
        walk_block *b = &w->blocks[w->nblocks++];
        memset(b, 0, sizeof *b);
        b->off = w->cur_start;
        b->len = end - w->cur_start;
        b->link_len = w->cur_link < b->len ? w->cur_link : b->len;
        b->lead_link = w->cur_lead < b->link_len ? w->cur_lead : b->link_len;
        b->node = w->cur_node;
        b->brk = (uint8_t)(w->pending_brk ? w->pending_brk : 2);
        b->kind = BLOCK_TEXT;
        if (w->cur_node >= 0) {
            const walk_node *n = &w->nodes[w->cur_node];
            const char *name = html_tag_name(n->tag_id);
            if (n->tag & TAG_HEADING) {
                b->kind = BLOCK_HEADING;
                b->heading_level = (uint8_t)(name[1] - '0');
            } else if (n->tag & TAG_ITEM) b->kind = BLOCK_ITEM;
            else if (n->tag & TAG_CELL) b->kind = BLOCK_CELL;
            else if (n->tag & TAG_PRE) b->kind = BLOCK_PRE;
            else if (n->tag & TAG_QUOTE) b->kind = BLOCK_QUOTE;
        }
        w->pending_brk = 0;
    }
    w->cur_start = (uint32_t)w->text.len;
    w->cur_link = w->cur_lead = 0;
    w->pending_space = 0;
    if (brk > w->pending_brk) w->pending_brk = brk;
}

/* ---- text ---- */

/* What each byte is to append_text: whitespace, or ordinary (copied as it
 * is: not whitespace or a control character, and not the lead byte of a
 * no-break space, C1 control, zero-width space or BOM). Filled once. */
enum { BYTE_SPACE = 1, BYTE_ORDINARY = 2 };
static uint8_t text_byte[256];

static void build_text_bytes(void)
{
    for (unsigned c = 0x21; c < 256; c++)
        if (c != 0x7F && c != 0xC2 && c != 0xE2 && c != 0xEF) text_byte[c] = BYTE_ORDINARY;
    static const char spaces[] = " \t\n\r\f\v";
    for (const char *p = spaces; *p; p++) text_byte[(unsigned char)*p] = BYTE_SPACE;
}

static inline int is_space_byte(unsigned char c)
{
    return text_byte[c] & BYTE_SPACE;
}

static inline int ordinary_byte(unsigned char c)
{
    return text_byte[c] & BYTE_ORDINARY;
}

/* Length of the run of ordinary bytes at the start of s[0..n), sixteen bytes a step (SSE2). */
static size_t ordinary_run(const unsigned char *s, size_t n)
{
    const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F), c2 = _mm_set1_epi8((char)0xC2),
                  e2 = _mm_set1_epi8((char)0xE2), ef = _mm_set1_epi8((char)0xEF);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i special = _mm_cmpeq_epi8(_mm_max_epu8(x, space), space); /* x <= 0x20 */
        special = _mm_or_si128(special, _mm_cmpeq_epi8(x, del));
        special = _mm_or_si128(special, _mm_or_si128(_mm_cmpeq_epi8(x, c2), _mm_cmpeq_epi8(x, e2)));
        special = _mm_or_si128(special, _mm_cmpeq_epi8(x, ef));
        unsigned mask = (unsigned)_mm_movemask_epi8(special);
        if (mask) return i + (size_t)__builtin_ctz(mask);
    }
    while (i < n && ordinary_byte(s[i])) i++;
    return i;
}

/* Appends visible text to dst, collapsing whitespace (unless pre) and
 * dropping control characters; *pending_space carries a space between calls.
 * Returns the bytes appended. */
static size_t append_text(wbuf *dst, size_t block_start, const unsigned char *s, size_t n, int pre,
                          int *pending_space)
{
    size_t before = dst->len;
    buf_reserve(dst, n + 1);
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (ordinary_byte(c)) {
            size_t j = i + 1 + ordinary_run(s + i + 1, n - i - 1);
            if (*pending_space && dst->len > block_start) dst->data[dst->len++] = ' ';
            *pending_space = 0;
            memcpy(dst->data + dst->len, s + i, j - i);
            dst->len += j - i;
            i = j;
            continue;
        }
        if (!pre && is_space_byte(c)) { /* a run of whitespace (indentation between tags, mostly) */
            *pending_space = 1;
            do i++;
            while (i < n && is_space_byte(s[i]));
            continue;
        }
        if (c == 0xC2 && i + 1 < n && s[i + 1] == 0xA0) { /* no-break space */
            c = ' ';
            i++;
        } else if (c == 0xC2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] < 0xA0) { /* C1 control */
            i += 2;
            continue;
        } else if (c == 0xEF && i + 2 < n && s[i + 1] == 0xBB && s[i + 2] == 0xBF) { /* BOM */
            i += 3;
            continue;
        } else if (c == 0xE2 && i + 2 < n && s[i + 1] == 0x80 && s[i + 2] == 0x8B) { /* zero-width space */
            *pending_space = 1;
            i += 3;
            continue;
        } else if (c == 0xC2 || c == 0xE2 || c == 0xEF) {
            if (*pending_space && dst->len > block_start) dst->data[dst->len++] = ' ';
            *pending_space = 0;
            dst->data[dst->len++] = (char)c;
            i++;
            continue;
        }
        i++;
        if (pre && c == '\r') { /* CR LF and a lone CR are one line break (the HTML standard's newline normalization) */
            if (i < n && s[i] == '\n') continue;
            c = '\n';
        }
        if (pre && (c == '\n' || c == ' ' || c == '\t')) {
            if (dst->len > block_start) dst->data[dst->len++] = (char)c;
        } else if (is_space_byte(c) || c == ' ') {
            *pending_space = 1;
        } /* other control characters are dropped */
    }
    dst->data[dst->len] = 0;
    return dst->len - before;
}

/* Adds to w->noscript_text the bytes of s[0..n), the raw content of a
 * <noscript> (scripting on), that are neither markup nor spaces. */
static void count_noscript_text(html_walk *w, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '<') w->in_noscript_tag = 1;
        else if (s[i] == '>') w->in_noscript_tag = 0;
        else if (!w->in_noscript_tag && !is_space_byte(s[i])) w->noscript_text++;
    }
}

static void on_characters(void *ctx, const char *text, size_t len)
{
    html_walk *w = ctx;
    const unsigned char *ch = (const unsigned char *)text;
    if (!len) return;
    if (w->in_jsonld) {
        if (w->jsonld.len + len < JSONLD_MAX) buf_append(&w->jsonld, ch, len);
        return;
    }
    if (w->in_noscript) {
        count_noscript_text(w, ch, len);
        return;
    }
    if (w->skip_depth) return;
    if (w->in_title) {
        if (!w->title_done) append_text(&w->title, 0, ch, (size_t)len, 0, &w->title_space);
        return;
    }
    if (w->head_depth) return;
    if (w->text.len == w->cur_start) w->cur_node = current_node(w);
    size_t before = w->text.len - w->cur_start;
    size_t added = append_text(&w->text, w->cur_start, ch, len, w->pre_depth > 0, &w->pending_space);
    if (w->link_depth) {
        w->cur_link += (uint32_t)added;
        if (w->cur_lead == before) w->cur_lead += (uint32_t)added;
    }
}

/* ---- elements ---- */

/* The attributes the walk reads. */
enum { ATT_CLASS, ATT_ID, ATT_ROLE, ATT_STYLE, ATT_HIDDEN, ATT_ITEMPROP, ATT_NAME, ATT_PROPERTY, ATT_CONTENT,
       ATT_LANG, ATT_XML_LANG, ATT_TYPE, ATT_OPEN, ATT_COUNT };

/* An element's values of the attributes the walk reads: NULL when absent,
 * "" for an attribute without a value; the first wins when one repeats. */
typedef struct {
    const char *v[ATT_COUNT];
} att_values;

/* ATT_* of attribute name s (the parser gives names lower-cased), or -1. */
static int att_kind(const char *s)
{
    switch (s[0]) {
    case 'c': return !strcmp(s, "class") ? ATT_CLASS : !strcmp(s, "content") ? ATT_CONTENT : -1;
    case 'h': return !strcmp(s, "hidden") ? ATT_HIDDEN : -1;
    case 'i': return !strcmp(s, "id") ? ATT_ID : !strcmp(s, "itemprop") ? ATT_ITEMPROP : -1;
    case 'l': return !strcmp(s, "lang") ? ATT_LANG : -1;
    case 'n': return !strcmp(s, "name") ? ATT_NAME : -1;
    case 'o': return !strcmp(s, "open") ? ATT_OPEN : -1;
    case 'p': return !strcmp(s, "property") ? ATT_PROPERTY : -1;
    case 'r': return !strcmp(s, "role") ? ATT_ROLE : -1;
    case 's': return !strcmp(s, "style") ? ATT_STYLE : -1;
    case 't': return !strcmp(s, "type") ? ATT_TYPE : -1;
    case 'x': return !strcmp(s, "xml:lang") ? ATT_XML_LANG : -1;
    default: return -1;
    }
}

/* Reads atts (name, value pairs, NULL-terminated) into a, in one pass. */
static void read_atts(const char *const *atts, att_values *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; atts[i]; i += 2) {
        int k = att_kind(atts[i]);
        if (k >= 0 && !a->v[k]) a->v[k] = atts[i + 1];
    }
}

/* Class names that CSS frameworks use to hide an element (Bootstrap, Tailwind,
 * WordPress, Drupal, screen-reader-only text). */
#define HIDDEN_CLASS(s) {s, sizeof s - 1}
static const struct {
    const char *name;
    size_t len;
} hidden_classes[] = {HIDDEN_CLASS("d-none"), HIDDEN_CLASS("hidden"), HIDDEN_CLASS("hide"),
                      HIDDEN_CLASS("is-hidden"), HIDDEN_CLASS("sr-only"), HIDDEN_CLASS("visually-hidden"),
                      HIDDEN_CLASS("screen-reader-text"), HIDDEN_CLASS("invisible"),
                      HIDDEN_CLASS("element-invisible"), HIDDEN_CLASS("visuallyhidden")};
#undef HIDDEN_CLASS

/* Whether a class token (its first HINT_ATTR_MAX bytes) names a display
 * ("block", "flex", "inline", "grid", "table") that shows an element on
 * screen, i.e. without "print" in it: one pass over the token. */
static int shows_on_screen(const char *t, size_t n)
{
    if (n > HINT_ATTR_MAX) n = HINT_ATTR_MAX;
    int shows = 0;
    for (size_t i = 0; i < n; i++) {
        const char *w;
        switch (t[i]) {
        case 'p': w = "print"; break;
        case 'b': w = "block"; break;
        case 'f': w = "flex"; break;
        case 'i': w = "inline"; break;
        case 'g': w = "grid"; break;
        case 't': w = "table"; break;
        default: continue;
        }
        size_t k = strlen(w);
        if (k > n - i || memcmp(t + i, w, k)) continue;
        if (t[i] == 'p') return 0;
        shows = 1;
    }
    return shows;
}

/* True when class value v hides the element: a hiding class and no
 * responsive class that shows it again on screen ("d-none d-md-block",
 * "hidden md:flex"; "d-print-block" is for paper and does not count). */
static int hidden_by_class(const char *v)
{
    int hides = 0;
    while (*v) {
        while (*v && is_space_byte((unsigned char)*v)) v++;
        const char *t = v;
        while (*v && !is_space_byte((unsigned char)*v)) v++;
        size_t n = (size_t)(v - t);
        if (!n) break;
        for (size_t i = 0; i < sizeof hidden_classes / sizeof hidden_classes[0]; i++)
            if (hidden_classes[i].len == n && !memcmp(t, hidden_classes[i].name, n)) hides = 1;
        if (shows_on_screen(t, n)) return 0;
    }
    return hides;
}

/* What a class or id value says, worked out once per distinct value: a
 * site's pages repeat the same few on many elements. */
typedef struct {
    uint8_t hints;  /* hints_from_names() */
    uint8_t hidden; /* hidden_by_class(), meaningful for class values */
} name_facts;

/* Direct-mapped, one per walk (so per thread), kept from page to page;
 * values longer than NAME_CACHE_VALUE_MAX are worked out every time. */
#define NAME_CACHE_SLOTS 256
#define NAME_CACHE_VALUE_MAX 40
typedef struct {
    uint8_t len; /* 0: empty */
    name_facts facts;
    char value[NAME_CACHE_VALUE_MAX];
} name_slot;
struct name_cache {
    name_slot slot[NAME_CACHE_SLOTS];
};

static name_facts facts_of(const char *value)
{
    return (name_facts){hints_from_names(value), (uint8_t)hidden_by_class(value)};
}

static name_facts cached_facts(html_walk *w, const char *value)
{
    unsigned h = 0;
    size_t n = 0;
    for (; value[n] && n <= NAME_CACHE_VALUE_MAX; n++) h = h * 31u + (unsigned char)value[n];
    if (!n || n > NAME_CACHE_VALUE_MAX) return facts_of(value);
    if (!w->name_cache) w->name_cache = xcalloc(1, sizeof *w->name_cache);
    name_slot *slot = &w->name_cache->slot[(h ^ (h >> 8)) % NAME_CACHE_SLOTS];
    if (slot->len != n || memcmp(slot->value, value, n)) {
        slot->facts = facts_of(value);
        slot->len = (uint8_t)n;
        memcpy(slot->value, value, n);
    }
    return slot->facts;
}

/* Whether id names a segment of a streamed React page ("S:" and the segment's
 * number in hex): React renders each streamed part into <div hidden id="S:N">
 * at the end of the body, and a script moves it into the page in place of its
 * placeholder, so it is the page's content (often all of it), not hidden. */
static int is_streamed_segment(const char *id)
{
    if (!id || id[0] != 'S' || id[1] != ':' || !id[2]) return 0;
    for (id += 2; *id; id++)
        if (!isdigit((unsigned char)*id) && !(*id >= 'a' && *id <= 'f')) return 0;
    return 1;
}

/* Whether the element is hidden: the hidden attribute (but on a streamed
 * React segment), a hiding class (class_hides, from its class value), or an
 * inline style that hides it. */
static int is_hidden(const att_values *a, int class_hides)
{
    if ((a->v[ATT_HIDDEN] && !is_streamed_segment(a->v[ATT_ID])) || class_hides) return 1;
    const char *style = a->v[ATT_STYLE];
    if (style) {
        char low[HINT_ATTR_MAX + 1];
        size_t n = 0, m = 0;
        for (; style[n] && n < HINT_ATTR_MAX; n++)
            if (!is_space_byte((unsigned char)style[n])) low[m++] = (char)tolower((unsigned char)style[n]);
        low[m] = 0;
        if (strstr(low, "display:none") || strstr(low, "visibility:hidden")) return 1;
    }
    return 0;
}

static void keep_meta(html_walk *w, const att_values *a)
{
    const char *key = a->v[ATT_NAME];
    if (!key) key = a->v[ATT_PROPERTY];
    if (!key) key = a->v[ATT_ITEMPROP];
    const char *content = a->v[ATT_CONTENT];
    if (!key || !content || !*content) return;
    char low[64];
    size_t n = 0;
    for (; key[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)key[n]);
    low[n] = 0;
    if (!strstr(low, "author") && !strstr(low, "date") && !strstr(low, "description") &&
        !strstr(low, "published") && !strstr(low, "creator") && !strstr(low, "title"))
        return;
    size_t clen = strnlen(content, META_VALUE_MAX);
    if (w->meta_kv.len > WALK_MAX_META * (META_VALUE_MAX + 64)) return;
    buf_append(&w->meta_kv, low, n + 1);
    buf_append(&w->meta_kv, content, clen);
    buf_putc(&w->meta_kv, 0);
}

static void on_start(void *ctx, const char *name, uint16_t element, const char *const *atts)
{
    html_walk *w = ctx;
    (void)name;
    uint16_t id = element < HTML_PARSE_MAX_ELEMENTS ? tag_of_element[element] : TAG_ID_INLINE;
    const tag_info *tag = tag_of(id);
    uint32_t flags = tag->flags;
    if (tag->special == SPECIAL_NOSCRIPT && w->scripting_off) flags = TAG_BLOCK;
    int32_t parent_node = current_node(w);
    struct walk_frame *f = push_frame(w);
    f->tag = flags;
    f->tag_id = id;
    f->node = parent_node;
    if (w->skip_depth) {
        w->skip_depth++;
        return;
    }
    if (flags & TAG_HEAD) w->head_depth++;
    if (flags & TAG_TITLE) {
        w->in_title++;
        return;
    }
    att_values a;
    read_atts(atts, &a);
    if (tag->special == SPECIAL_META) {
        keep_meta(w, &a);
        return;
    }
    if (tag->special == SPECIAL_HTML) {
        const char *lang = a.v[ATT_LANG];
        if (!lang) lang = a.v[ATT_XML_LANG];
        if (lang && !w->lang.len) {
            int sp = 0;
            append_text(&w->lang, 0, (const unsigned char *)lang, strnlen(lang, 64), 0, &sp);
        }
    }
    if (flags & TAG_SKIP) {
        const char *type = tag->special == SPECIAL_SCRIPT ? a.v[ATT_TYPE] : NULL;
        if (type && strstr(type, "ld+json")) {
            f->jsonld = 1;
            w->in_jsonld = 1;
        }
        if (tag->special == SPECIAL_NOSCRIPT && !w->head_depth) w->in_noscript = 1;
        w->skip_depth = 1;
        f->skip_root = 1;
        return;
    }
    if (w->head_depth) return;
    name_facts class_facts = a.v[ATT_CLASS] ? cached_facts(w, a.v[ATT_CLASS]) : (name_facts){0, 0};
    int class_hides = class_facts.hidden && !w->class_hiding_off;
    if (is_hidden(&a, class_hides) || (tag->special == SPECIAL_DIALOG && !a.v[ATT_OPEN])) {
        if (class_hides && !is_hidden(&a, 0)) w->hidden_by_class = 1;
        w->skip_depth = 1;
        f->skip_root = 1;
        return;
    }
    if (flags & TAG_LINK) w->link_depth++;
    if (flags & TAG_PRE) w->pre_depth++;
    uint8_t h = 0;
    if (tag->special != SPECIAL_BODY && tag->special != SPECIAL_HTML && !(flags & TAG_VOID)) {
        h = tag->hints;
        const char *v;
        h |= class_facts.hints;
        if ((v = a.v[ATT_ID])) h |= cached_facts(w, v).hints;
        if ((v = a.v[ATT_ROLE])) h |= hints_from_role(v);
        if ((v = a.v[ATT_ITEMPROP]) && (!strcmp(v, "articleBody") || !strcmp(v, "text")))
            h |= HINT_ARTICLE_BODY;
    }
    /* an inline caption or byline becomes a line of its own */
    int block_level = (flags & (TAG_BLOCK | TAG_LINE)) != 0;
    if (!block_level && (h & (HINT_BYLINE | HINT_CAPTION))) f->breaks = 1;
    else if (block_level) f->breaks = (flags & TAG_BLOCK) ? 2 : 1;
    if (f->breaks) flush_block(w, f->breaks);
    if (f->breaks && !(flags & TAG_VOID)) {
        walk_node *n = new_node(w);
        n->parent = parent_node;
        n->tag = flags;
        n->tag_id = id;
        n->depth = parent_node >= 0 ? w->nodes[parent_node].depth + 1 : 0;
        n->first_block = n->end_block = (uint32_t)w->nblocks;
        n->hints = h;
        f->node = (int32_t)(w->nnodes - 1);
        f->own_node = 1;
    }
}

static void on_end(void *ctx, const char *name, uint16_t element)
{
    html_walk *w = ctx;
    (void)name;
    (void)element;
    if (!w->depth) return;
    struct walk_frame f = w->stack[--w->depth];
    if (w->skip_depth) {
        if (f.skip_root) {
            w->skip_depth = 0;
            w->in_noscript = w->in_noscript_tag = 0;
            if (f.jsonld) {
                w->in_jsonld = 0;
                buf_putc(&w->jsonld, '\n');
            }
        } else {
            w->skip_depth--;
        }
        if (f.tag & TAG_HEAD) w->head_depth--;
        return;
    }
    if (f.tag & TAG_TITLE) {
        if (w->in_title) w->in_title--;
        if (w->title.len) w->title_done = 1;
        return;
    }
    if (f.tag & TAG_HEAD) {
        w->head_depth--;
        return;
    }
    if (w->head_depth) return;
    if ((f.tag & TAG_LINK) && w->link_depth) w->link_depth--;
    if ((f.tag & TAG_PRE) && w->pre_depth) w->pre_depth--;
    if (f.breaks) flush_block(w, f.breaks);
    if (f.own_node) w->nodes[f.node].end_block = (uint32_t)w->nblocks;
}

/* ---- driver ---- */

static pthread_once_t walk_once = PTHREAD_ONCE_INIT;
static void walk_init(void)
{
    build_tag_of_element();
    build_word_index();
    build_text_bytes();
}

void html_walk_reset(html_walk *w)
{
    buf_clear(&w->text);
    buf_clear(&w->title);
    buf_clear(&w->lang);
    buf_clear(&w->jsonld);
    buf_clear(&w->meta_kv);
    w->nblocks = w->nnodes = w->depth = 0;
    w->skip_depth = 0;
    w->noscript_text = 0;
    w->hidden_by_class = 0;
    w->in_title = w->in_jsonld = w->in_noscript = w->in_noscript_tag = w->title_done = w->link_depth = w->pre_depth = w->head_depth = 0;
    w->pending_space = w->pending_brk = w->title_space = 0;
    w->cur_start = w->cur_link = w->cur_lead = 0;
    w->cur_node = -1;
}

void html_walk_free(html_walk *w)
{
    buf_free(&w->text);
    buf_free(&w->title);
    buf_free(&w->lang);
    buf_free(&w->jsonld);
    buf_free(&w->meta_kv);
    free(w->blocks);
    free(w->nodes);
    free(w->stack);
    free(w->name_cache);
    html_parser_free(&w->parser);
    memset(w, 0, sizeof *w);
}

void html_walk_run(html_walk *w, const char *html, size_t n)
{
    pthread_once(&walk_once, walk_init);
    html_walk_reset(w);
    if (n > INT32_MAX) n = INT32_MAX; /* text and block offsets are 32-bit; the text is never longer than the page */
    static const html_events events = {on_start, on_end, on_characters};
    w->parser.scripting_off = w->scripting_off; /* the parser reads <noscript> as the walk shows it */
    html_parse(&w->parser, html, n, &events, w);
    flush_block(w, 2);
    /* title: drop a trailing collapsed space */
    while (w->title.len && w->title.data[w->title.len - 1] == ' ') w->title.data[--w->title.len] = 0;
}
