/* html_charref.h - HTML character references (&amp; &#233; &#x4E2D;) to UTF-8. */
#ifndef WINNOW_HTML_CHARREF_H
#define WINNOW_HTML_CHARREF_H

#include <stddef.h>

#include "ingest/html_entities.h"

/* Longest UTF-8 a reference decodes to (a named one of two code points). */
#define CHARREF_MAX_UTF8 HTML_ENTITY_UTF8_MAX

/* Where a reference stands, which decides one rule (below). */
typedef enum { CHARREF_IN_TEXT, CHARREF_IN_ATTRIBUTE } charref_context;

/* Decodes the reference starting at s[0] == '&' in s[0..n) as the HTML
 * Living Standard's tokenizer does. Returns the bytes it spans and writes
 * its UTF-8 to out (*out_len bytes), or returns 0 when s does not start a
 * reference (the '&' is then plain text, and so is what follows it).
 * Named: the longest name of the standard's 2,231 that s continues with,
 * ';' part of the name or not (106 legacy names also stand without it, so
 * `&copyright` is "©right" and `&notit;` "¬it;"); in an attribute value a
 * match without its ';' followed by '=' or an ASCII letter or digit stays as
 * it is (`?a=1&copy=2`). Numeric: ';' optional, 0x80-0x9F read as
 * windows-1252, 0, surrogates and values past U+10FFFF become U+FFFD. */
size_t charref_decode(const char *s, size_t n, charref_context where, char out[CHARREF_MAX_UTF8], size_t *out_len);

#endif
