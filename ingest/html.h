/* html.h - HTML payload (any charset) to clean text: the entry point of
 * ingest's HTML handling. Charset -> UTF-8 (charset.h), one SAX walk
 * (html_walk.h), then either all visible text (EXTRACT_FULL) or the main
 * content (EXTRACT_MAIN, extract.h), plus title, <html lang> and metadata. */
#ifndef WINNOW_HTML_H
#define WINNOW_HTML_H

#include <stddef.h>

#include "core/buf.h"
#include "ingest/charset.h"

typedef enum { EXTRACT_MAIN, EXTRACT_FULL } extract_mode;

typedef struct {
    wbuf text;   /* valid UTF-8, NFC, one line per block, blank line between paragraphs */
    wbuf title;  /* may be empty */
    wbuf lang;   /* <html lang>, may be empty */
    wbuf meta;   /* extra metadata members ("author":..,"published":..,"description":..) as in doc.h meta_* */
    charset_info charset;
} html_result;

/* Turns an HTML payload in any charset into text. http_charset may be NULL.
 * Returns 0 (r filled; text may be empty), never crashes on any input. */
int html_extract(const char *html, size_t n, const char *http_charset, extract_mode mode, html_result *r);

/* Empties r, keeping memory. */
void html_result_clear(html_result *r);

/* Frees r's memory. */
void html_result_free(html_result *r);

/* Parses "main" or "full" into *mode; returns 0, or -1 for anything else. */
int extract_mode_parse(const char *s, extract_mode *mode);

#endif
