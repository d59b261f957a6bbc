/* html_walk.c - the SAX walk: visible text into blocks, block elements into nodes. */
#include "ingest/html_walk.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "core/util.h"

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

typedef struct {
    const char *name;
    uint32_t flags;
} tag_info;

/* Sorted by name (binary search). Tags not listed are inline. */
static const tag_info tag_table[] = {
    {"a", TAG_LINK}, {"address", TAG_BLOCK}, {"applet", TAG_SKIP}, {"area", TAG_VOID}, {"article", TAG_BLOCK},
    {"aside", TAG_BLOCK}, {"audio", TAG_SKIP}, {"base", TAG_VOID}, {"blockquote", TAG_BLOCK | TAG_QUOTE},
    {"body", TAG_BLOCK}, {"br", TAG_LINE | TAG_VOID}, {"button", TAG_SKIP}, {"canvas", TAG_SKIP},
    {"caption", TAG_LINE}, {"center", TAG_BLOCK}, {"col", TAG_VOID}, {"colgroup", TAG_SKIP},
    {"datalist", TAG_SKIP}, {"dd", TAG_LINE | TAG_ITEM}, {"details", TAG_BLOCK}, {"dialog", TAG_BLOCK},
    {"dir", TAG_BLOCK}, {"div", TAG_BLOCK}, {"dl", TAG_BLOCK},
    {"dt", TAG_LINE | TAG_ITEM}, {"embed", TAG_SKIP}, {"fieldset", TAG_BLOCK},
    {"figcaption", TAG_BLOCK}, {"figure", TAG_BLOCK}, {"footer", TAG_BLOCK}, {"form", TAG_BLOCK},
    {"frame", TAG_SKIP}, {"frameset", TAG_BLOCK}, {"h1", TAG_BLOCK | TAG_HEADING}, {"h2", TAG_BLOCK | TAG_HEADING},
    {"h3", TAG_BLOCK | TAG_HEADING}, {"h4", TAG_BLOCK | TAG_HEADING}, {"h5", TAG_BLOCK | TAG_HEADING},
    {"h6", TAG_BLOCK | TAG_HEADING}, {"head", TAG_HEAD}, {"header", TAG_BLOCK}, {"hgroup", TAG_BLOCK},
    {"hr", TAG_BLOCK | TAG_VOID}, {"html", TAG_BLOCK}, {"iframe", TAG_SKIP}, {"img", TAG_VOID},
    {"input", TAG_VOID}, {"legend", TAG_LINE}, {"li", TAG_LINE | TAG_ITEM}, {"link", TAG_VOID},
    {"main", TAG_BLOCK}, {"map", TAG_SKIP}, {"menu", TAG_BLOCK}, {"meta", TAG_VOID},
    {"meter", TAG_SKIP}, {"nav", TAG_BLOCK}, {"noembed", TAG_SKIP}, {"noframes", TAG_SKIP},
    {"noscript", TAG_SKIP}, {"object", TAG_SKIP}, {"ol", TAG_BLOCK}, {"optgroup", TAG_SKIP},
    {"option", TAG_SKIP}, {"output", TAG_SKIP}, {"p", TAG_BLOCK | TAG_PARA}, {"param", TAG_VOID},
    {"picture", TAG_VOID}, {"pre", TAG_BLOCK | TAG_PRE}, {"progress", TAG_SKIP}, {"script", TAG_SKIP},
    {"section", TAG_BLOCK}, {"select", TAG_SKIP}, {"source", TAG_VOID}, {"style", TAG_SKIP},
    {"summary", TAG_BLOCK}, {"svg", TAG_SKIP}, {"table", TAG_BLOCK}, {"tbody", TAG_BLOCK},
    {"td", TAG_LINE | TAG_CELL}, {"template", TAG_SKIP}, {"textarea", TAG_SKIP}, {"tfoot", TAG_BLOCK},
    {"th", TAG_LINE | TAG_CELL}, {"thead", TAG_BLOCK}, {"title", TAG_TITLE}, {"tr", TAG_LINE},
    {"track", TAG_VOID}, {"ul", TAG_BLOCK}, {"video", TAG_SKIP}, {"wbr", TAG_VOID},
    {"xmp", TAG_BLOCK | TAG_PRE},
};
enum { TAG_COUNT = sizeof tag_table / sizeof tag_table[0], TAG_ID_INLINE = TAG_COUNT };

const char *html_tag_name(uint16_t tag_id)
{
    return tag_id < TAG_COUNT ? tag_table[tag_id].name : "inline";
}

static uint16_t tag_lookup(const char *name)
{
    int lo = 0, hi = TAG_COUNT - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(name, tag_table[mid].name);
        if (!c) return (uint16_t)mid;
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return TAG_ID_INLINE; /* unknown and custom elements are inline */
}

static uint32_t tag_flags(uint16_t id)
{
    return id < TAG_COUNT ? tag_table[id].flags : 0;
}

/* ---- hints from class, id and role ---- */

/* Words in class/id values that mark boilerplate (a substring match, as
 * class names are compounds like "site-footer" or "shareButtons"). */
static const char *const boiler_words[] = {
    "nav", "menu", "footer", "sidebar", "side-bar", "widget", "share", "sharing", "social", "cookie",
    "consent", "gdpr", "related", "recommend", "breadcrumb", "banner", "advert", "promo", "sponsor",
    "newsletter", "subscribe", "signup", "popup", "modal", "masthead", "toolbar", "pagination", "pager",
    "skip-link", "skiplink", "trending", "most-popular", "mostpopular", "disclaimer",
    "copyright", "login", "search",
};
static const char *const comment_words[] = {"comment", "respond", "replies"};
/* Compound names (dashes and underscores removed) that mark the article body itself. */
static const char *const body_words[] = {
    "articlebody", "articlecontent", "articletext", "postcontent", "postbody", "entrycontent", "storybody",
    "storycontent", "bodytext", "articlecopy", "storytext", "posttext", "entrybody",
};
static const char *const caption_words[] = {"caption", "credit"};
static const char *const byline_words[] = {"byline", "author", "dateline", "timestamp",
                                           "date", "publish", "posted", "entry-meta", "post-meta"};

static int has_any(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(s, words[i])) return 1;
    return 0;
}
#define HAS_ANY(s, list) has_any(s, list, sizeof list / sizeof list[0])

/* Hints from one class/id value. */
static uint8_t hints_from_names(const char *value)
{
    char low[HINT_ATTR_MAX + 1], squeezed[HINT_ATTR_MAX + 1];
    size_t n = 0, m = 0;
    for (; value[n] && n < HINT_ATTR_MAX; n++) {
        char c = (char)tolower((unsigned char)value[n]);
        low[n] = c;
        if (c != '-' && c != '_') squeezed[m++] = c;
    }
    low[n] = 0;
    squeezed[m] = 0;
    uint8_t h = 0;
    if (HAS_ANY(squeezed, body_words)) return HINT_ARTICLE_BODY;
    if (HAS_ANY(low, comment_words)) h |= HINT_COMMENTS;
    if (HAS_ANY(low, boiler_words)) h |= HINT_BOILER;
    if (HAS_ANY(low, caption_words)) return h | HINT_CAPTION;
    if (HAS_ANY(low, byline_words)) return h | HINT_BYLINE;
    return h;
}

static uint8_t hints_from_tag(uint16_t id)
{
    const char *name = html_tag_name(id);
    if (!strcmp(name, "nav") || !strcmp(name, "footer") || !strcmp(name, "aside")) return HINT_BOILER;
    if (!strcmp(name, "figcaption")) return HINT_CAPTION;
    return 0;
}

static uint8_t hints_from_role(const char *role)
{
    if (!strcmp(role, "navigation") || !strcmp(role, "contentinfo") || !strcmp(role, "complementary") ||
        !strcmp(role, "menu") || !strcmp(role, "menubar") || !strcmp(role, "search"))
        return HINT_BOILER;
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

static int is_space_byte(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
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
        if (c >= 0x21 && c != 0x7F && c != 0xC2 && c != 0xE2 && c != 0xEF) {
            /* a run of ordinary bytes */
            size_t j = i + 1;
            while (j < n && s[j] >= 0x21 && s[j] != 0x7F && s[j] != 0xC2 && s[j] != 0xE2 && s[j] != 0xEF) j++;
            if (*pending_space && dst->len > block_start) dst->data[dst->len++] = ' ';
            *pending_space = 0;
            memcpy(dst->data + dst->len, s + i, j - i);
            dst->len += j - i;
            i = j;
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
        if (pre && (c == '\n' || c == ' ' || c == '\t')) {
            if (dst->len > block_start) dst->data[dst->len++] = (char)c;
        } else if (is_space_byte(c) || c == ' ') {
            *pending_space = 1;
        } /* other control characters are dropped */
    }
    dst->data[dst->len] = 0;
    return dst->len - before;
}

static void on_characters(void *ctx, const xmlChar *ch, int len)
{
    html_walk *w = ctx;
    if (len <= 0) return;
    if (w->in_jsonld) {
        if (w->jsonld.len + (size_t)len < JSONLD_MAX) buf_append(&w->jsonld, ch, (size_t)len);
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
    size_t added = append_text(&w->text, w->cur_start, ch, (size_t)len, w->pre_depth > 0, &w->pending_space);
    if (w->link_depth) {
        w->cur_link += (uint32_t)added;
        if (w->cur_lead == before) w->cur_lead += (uint32_t)added;
    }
}

/* ---- elements ---- */

static const char *attr(const xmlChar **atts, const char *name)
{
    if (!atts) return NULL;
    for (int i = 0; atts[i]; i += 2)
        if (!strcmp((const char *)atts[i], name)) return atts[i + 1] ? (const char *)atts[i + 1] : "";
    return NULL;
}

/* Class names that CSS frameworks use to hide an element (Bootstrap, Tailwind,
 * WordPress, Drupal, screen-reader-only text). */
static const char *const hidden_classes[] = {"d-none", "hidden", "hide", "is-hidden", "sr-only",
                                             "visually-hidden", "screen-reader-text", "invisible",
                                             "element-invisible", "visuallyhidden"};

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
            if (strlen(hidden_classes[i]) == n && !memcmp(t, hidden_classes[i], n)) hides = 1;
        char tok[HINT_ATTR_MAX + 1];
        size_t m = n < HINT_ATTR_MAX ? n : HINT_ATTR_MAX;
        memcpy(tok, t, m);
        tok[m] = 0;
        if (!strstr(tok, "print") && (strstr(tok, "block") || strstr(tok, "flex") || strstr(tok, "inline") ||
                                      strstr(tok, "grid") || strstr(tok, "table")))
            return 0;
    }
    return hides;
}

static int is_hidden(const xmlChar **atts)
{
    if (!atts) return 0;
    if (attr(atts, "hidden")) return 1;
    const char *cls = attr(atts, "class");
    if (cls && hidden_by_class(cls)) return 1;
    const char *style = attr(atts, "style");
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

static void keep_meta(html_walk *w, const xmlChar **atts)
{
    const char *key = attr(atts, "name");
    if (!key) key = attr(atts, "property");
    if (!key) key = attr(atts, "itemprop");
    const char *content = attr(atts, "content");
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

static void on_start(void *ctx, const xmlChar *xname, const xmlChar **atts)
{
    html_walk *w = ctx;
    const char *name = (const char *)xname;
    uint16_t id = tag_lookup(name);
    uint32_t flags = tag_flags(id);
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
    if (!strcmp(name, "meta")) {
        keep_meta(w, atts);
        return;
    }
    if (!strcmp(name, "html")) {
        const char *lang = attr(atts, "lang");
        if (!lang) lang = attr(atts, "xml:lang");
        if (lang && !w->lang.len) {
            int sp = 0;
            append_text(&w->lang, 0, (const unsigned char *)lang, strnlen(lang, 64), 0, &sp);
        }
    }
    if (flags & TAG_SKIP) {
        const char *type = !strcmp(name, "script") ? attr(atts, "type") : NULL;
        if (type && strstr(type, "ld+json")) {
            f->jsonld = 1;
            w->in_jsonld = 1;
        }
        w->skip_depth = 1;
        f->skip_root = 1;
        return;
    }
    if (w->head_depth) return;
    if (is_hidden(atts)) {
        w->skip_depth = 1;
        f->skip_root = 1;
        return;
    }
    if (flags & TAG_LINK) w->link_depth++;
    if (flags & TAG_PRE) w->pre_depth++;
    uint8_t h = 0;
    if (strcmp(name, "body") && strcmp(name, "html") && !(flags & TAG_VOID)) {
        h = hints_from_tag(id);
        const char *v;
        if ((v = attr(atts, "class"))) h |= hints_from_names(v);
        if ((v = attr(atts, "id"))) h |= hints_from_names(v);
        if ((v = attr(atts, "role"))) h |= hints_from_role(v);
        if ((v = attr(atts, "itemprop")) && (!strcmp(v, "articleBody") || !strcmp(v, "text")))
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

static void on_end(void *ctx, const xmlChar *name)
{
    html_walk *w = ctx;
    (void)name;
    if (!w->depth) return;
    struct walk_frame f = w->stack[--w->depth];
    if (w->skip_depth) {
        if (f.skip_root) {
            w->skip_depth = 0;
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

static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;
static void libxml_init(void)
{
    xmlInitParser();
}

static void ignore_error(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
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
    w->in_title = w->in_jsonld = w->title_done = w->link_depth = w->pre_depth = w->head_depth = 0;
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
    memset(w, 0, sizeof *w);
}

void html_walk_run(html_walk *w, const char *html, size_t n)
{
    pthread_once(&libxml_once, libxml_init);
    html_walk_reset(w);
    if (n > INT32_MAX) n = INT32_MAX;
    htmlParserCtxtPtr ctxt = htmlCreateMemoryParserCtxt(html, (int)n);
    if (!ctxt) return;
    xmlSAXHandler *sax = ctxt->sax;
    memset(sax, 0, sizeof *sax);
    sax->startElement = on_start;
    sax->endElement = on_end;
    sax->characters = on_characters;
    sax->cdataBlock = on_characters;
    sax->ignorableWhitespace = on_characters;
    sax->warning = ignore_error;
    sax->error = ignore_error;
    ctxt->userData = w;
    htmlCtxtUseOptions(ctxt, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                 HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_NOIMPLIED);
    xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8);
    htmlParseDocument(ctxt);
    htmlFreeParserCtxt(ctxt);
    while (w->depth) on_end(w, NULL);
    flush_block(w, 2);
    /* title: drop a trailing collapsed space */
    while (w->title.len && w->title.data[w->title.len - 1] == ' ') w->title.data[--w->title.len] = 0;
}
