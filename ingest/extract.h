/* extract.h - main-content extraction over a walked page. */
#ifndef WINNOW_EXTRACT_H
#define WINNOW_EXTRACT_H

#include "core/buf.h"
#include "ingest/html_walk.h"

/* A page's main content with less text than this is not an article: the
 * selection widens, and html.c reads such a page again in other ways. */
#define EXTRACT_MIN_CONTENT_BYTES 150

/* Decides for each block of w whether it belongs to the page's main content:
 * keep[i] = 1 to keep block i. Linear in the number of blocks and nodes. */
void extract_main(const html_walk *w, unsigned char *keep);

/* Frees this thread's scratch memory (html.c calls it when a thread exits). */
void extract_thread_free(void);

/* Appends metadata members (author, published, description) found in the
 * page's <meta> tags and JSON-LD to meta, in doc.h's meta_* form. */
void extract_metadata(const html_walk *w, wbuf *meta);

#endif
