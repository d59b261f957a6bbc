/* blocklist.h - URL block lists and word block lists, read from files and
 * matched with hash lookups, so thousands of entries cost no more per
 * document than a handful. */
#ifndef WINNOW_FILTER_BLOCKLIST_H
#define WINNOW_FILTER_BLOCKLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

typedef struct url_blocklist url_blocklist;
typedef struct word_blocklist word_blocklist;

/* Reads a URL block list: one entry a line, '#' comments. An entry without
 * '/' is a domain and blocks it and its subdomains; an entry with a path
 * blocks that exact URL (scheme, "www." and a final '/' ignored).
 * Exits with status 1 naming the file when it cannot be read. */
url_blocklist *url_blocklist_load(const char *path);

/* True when url is blocked. scratch is the caller's per-thread buffer. */
bool url_blocklist_match(const url_blocklist *b, const char *url, size_t len, wbuf *scratch);

/* Number of entries. */
size_t url_blocklist_size(const url_blocklist *b);

void url_blocklist_free(url_blocklist *b);

/* Reads a word block list: one word or phrase a line (like the LDNOOBW
 * lists C4 uses); matching is case-insensitive and, like C4's, only where
 * the entry is flanked by non-word characters or the text's ends. */
word_blocklist *word_blocklist_load(const char *path);

/* True when text contains an entry. scratch is the caller's per-thread buffer. */
bool word_blocklist_match(const word_blocklist *b, const char *text, size_t n, wbuf *scratch);

/* Number of entries. */
size_t word_blocklist_size(const word_blocklist *b);

void word_blocklist_free(word_blocklist *b);

/* Appends the lower-cased text (utf8proc's simple lower case mapping). */
void lowercase_utf8(const char *s, size_t n, wbuf *out);

#endif
