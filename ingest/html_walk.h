/* html_walk.h - one pass of the HTML parser (html_parse.h) over a UTF-8 page,
 * producing the page's visible text as a flat list of blocks (one per
 * paragraph, heading, list item, cell, line) and the tree of block-level
 * elements they sit in, with what main-content extraction needs to know about
 * each element (tag, class/id hints, link text). The walk is linear in the
 * page size and never recurses, whatever the nesting depth. */
#ifndef WINNOW_HTML_WALK_H
#define WINNOW_HTML_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "ingest/html_parse.h"

/* What a tag is to the walk (a tag can be several). */
enum {
    TAG_BLOCK = 1 << 0,    /* starts and ends a paragraph */
    TAG_LINE = 1 << 1,     /* starts and ends a line (li, td, br, ...) */
    TAG_SKIP = 1 << 2,     /* invisible: the whole subtree is dropped */
    TAG_HEADING = 1 << 3,  /* h1..h6 */
    TAG_ITEM = 1 << 4,     /* li, dt, dd */
    TAG_CELL = 1 << 5,     /* td, th */
    TAG_PRE = 1 << 6,      /* whitespace kept */
    TAG_LINK = 1 << 7,     /* a */
    TAG_HEAD = 1 << 8,     /* head: only the title counts */
    TAG_TITLE = 1 << 9,
    TAG_VOID = 1 << 10,    /* br, hr, img: no content */
    TAG_QUOTE = 1 << 11,   /* blockquote */
    TAG_PARA = 1 << 12,    /* p */
};

/* Hints an element carries, from its tag and its class/id/role/itemprop. */
enum {
    HINT_BOILER = 1 << 0,       /* nav, footer, aside, role=navigation/complementary/... */
    HINT_COMMENTS = 1 << 1,     /* comment sections */
    HINT_ARTICLE_BODY = 1 << 2, /* itemprop=articleBody, class article-body...: never boilerplate */
    HINT_BYLINE = 1 << 3,       /* author/date/byline lines */
    HINT_CAPTION = 1 << 4,      /* figure captions and photo credits */
    HINT_BOILER_NAME = 1 << 5,  /* a class/id word: "sidebar", "share", "widget"... */
    HINT_CONSENT = 1 << 6,      /* never content: cookie banners ("cookie", "consent", "gdpr"), role=dialog */
};

typedef struct {
    int32_t parent;     /* index of the parent node, -1 for the root */
    uint32_t tag;       /* TAG_* of the element */
    uint16_t tag_id;    /* index into the walk's tag table */
    uint8_t hints;      /* own HINT_* */
    uint32_t depth;
    uint32_t first_block, end_block; /* blocks [first, end) lie inside this node */
} walk_node;

enum { BLOCK_TEXT, BLOCK_HEADING, BLOCK_ITEM, BLOCK_CELL, BLOCK_PRE, BLOCK_QUOTE };

typedef struct {
    uint32_t off, len;    /* bytes of walk->text */
    uint32_t link_len;    /* of which inside <a> */
    uint32_t lead_link;   /* link bytes before the first non-link text (a linked headline) */
    int32_t node;         /* the innermost block-level element around it */
    uint8_t kind;         /* BLOCK_* */
    uint8_t brk;          /* before it: 1 = line break, 2 = paragraph break */
    uint8_t heading_level; /* 1..6 for headings */
} walk_block;

#define WALK_MAX_META 16

typedef struct {
    /* results */
    wbuf text;           /* all block texts, back to back */
    walk_block *blocks;
    size_t nblocks, cap_blocks;
    walk_node *nodes;
    size_t nnodes, cap_nodes;
    wbuf title;
    wbuf lang;
    wbuf jsonld;         /* contents of application/ld+json scripts, each followed by '\n' */
    wbuf meta_kv;        /* "key\0value\0" pairs of interesting <meta> tags */
    size_t noscript_text; /* bytes of text (not markup, not spaces) in the body's <noscript>s */
    /* set by the caller before html_walk_run (which passes it to the parser), kept:
     * read <noscript> as markup and show it, as a browser with scripting disabled does */
    int scripting_off;
    /* set by the caller before html_walk_run, kept: show elements that only a
     * class hides ("hidden", "d-none", ...: scripts often take it away) */
    int class_hiding_off;
    int hidden_by_class; /* the walk skipped an element that only a class hides */
    /* walk state, private */
    struct walk_frame *stack;
    size_t depth, cap_stack;
    size_t skip_depth;   /* > 0 while inside an invisible subtree */
    int in_title, in_jsonld, in_noscript, in_noscript_tag, title_done, link_depth, pre_depth, head_depth;
    int pending_space, pending_brk, title_space;
    uint32_t cur_start, cur_link, cur_lead;
    int32_t cur_node;
    html_parser parser;
    struct name_cache *name_cache; /* what class/id values met before say, kept from page to page */
} html_walk;

/* Empties w for reuse, keeping memory. */
void html_walk_reset(html_walk *w);

/* Frees w's memory. */
void html_walk_free(html_walk *w);

/* Walks html[0..n), which must be valid UTF-8 without NUL bytes, into w.
 * Never fails: broken HTML is parsed as browsers would, roughly. */
void html_walk_run(html_walk *w, const char *html, size_t n);

/* Name of a tag id (for debugging and tests). */
const char *html_tag_name(uint16_t tag_id);

#endif
