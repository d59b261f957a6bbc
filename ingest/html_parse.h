/* html_parse.h - HTML (UTF-8) to a balanced stream of start, end and text
 * events, for the walk. Tokenization follows the WHATWG HTML tokenizer (tags,
 * attributes, comments, raw text and RCDATA elements, character references);
 * tree building keeps the handful of rules that decide where an element ends
 * on real pages (void elements, a block closing an open <p>, li/dt/dd/td/tr
 * closing their siblings, end tags that do not close past a table cell, head
 * closing at body content). It builds no tree and allocates nothing per page
 * once its buffers have grown. docs/extract.md lists the rules and where they
 * differ from a browser. */
#ifndef WINNOW_HTML_PARSE_H
#define WINNOW_HTML_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* Elements the parser knows by name (the rest are inline), and the id it
 * gives every other element. */
#define HTML_PARSE_MAX_ELEMENTS 128
#define HTML_ELEMENT_UNKNOWN HTML_PARSE_MAX_ELEMENTS

/* What the parser reports. Names are lower-case and NUL-terminated, element
 * is html_element_id(name); atts is name, value, name, value, ..., NULL
 * with entities decoded, "" for an attribute without a value. Every start
 * is matched by one end (void elements get theirs at once; whatever is open
 * at the end of input is closed there). Text arrives in pieces, entities
 * decoded, in document order. */
typedef struct {
    void (*start)(void *ctx, const char *name, uint16_t element, const char *const *atts);
    void (*end)(void *ctx, const char *name, uint16_t element);
    void (*text)(void *ctx, const char *s, size_t n);
} html_events;

/* One open element: its id in the parser's table (or the unknown id) and,
 * for an unknown element, where its name sits in the name arena. */
typedef struct {
    uint16_t id;
    uint32_t name_off;
} html_open;

/* A parser's reusable memory (zero-initialise; html_parser_free releases it). */
typedef struct {
    html_open *open;
    size_t depth, cap;
    uint32_t open_count[HTML_PARSE_MAX_ELEMENTS]; /* per known element: how many are open */
    wbuf names;            /* unknown elements' names, a stack like open */
    wbuf atts;             /* the current tag's attribute names and values */
    const char **att_ptrs;
    size_t cap_att_ptrs;
    uint32_t *att_offs;
    int html_seen, head_seen, body_seen;
    int scripting_off; /* set by the caller, kept by html_parse: <noscript> holds markup, not
                          raw text, as for a browser with scripting disabled */
} html_parser;

/* Parses html[0..n) (any bytes; meant for UTF-8) and reports it through ev. */
void html_parse(html_parser *p, const char *html, size_t n, const html_events *ev, void *ctx);

/* The parser's id of a lower-case element name, HTML_ELEMENT_UNKNOWN for
 * one it does not know. */
uint16_t html_element_id(const char *name);

/* Index just past the comment that starts at s[i] ("<!--"), where HTML5's
 * comment states end it ("-->", "--!>", or at once "<!-->" and "<!--->"),
 * or 0 when it does not end in s[0..n). */
size_t html_comment_end(const char *s, size_t i, size_t n);

/* Releases p's memory. */
void html_parser_free(html_parser *p);

#endif
