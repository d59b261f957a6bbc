/* filter.h - the per-document decision of `winnow filter`, usable without
 * the CLI: a filter is built once from a config and shared by threads; each
 * thread owns a filter_worker (its scratch memory).
 *
 * Order (FineWeb's pipeline): URL block list, language ID (and --lang /
 * --min-lang-score), word block list, Gopher repetition, Gopher quality, C4
 * (may rewrite the text), FineWeb (on C4's text), model classifiers and
 * their keep rules (on that text), then PII replacement.
 * Language ID sees the original text; when it only annotates (no --lang,
 * no --min-lang-score) it runs after the rules, on kept documents only. */
#ifndef WINNOW_FILTER_FILTER_H
#define WINNOW_FILTER_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/json.h"
#include "filter/config.h"

typedef struct filter filter;
typedef struct filter_worker filter_worker;

typedef struct {
    const char *reason;     /* static drop reason, NULL when kept */
    bool text_changed;      /* C4 removed lines or PII was replaced */
    const char *text;       /* the new text when text_changed (owned by the worker) */
    size_t text_len;
    bool has_lang;          /* set for kept documents (and for all when language filters) */
    const char *lang;       /* CLD2 code, static */
    double lang_score;
    size_t pii_replaced;
    size_t c4_lines_removed; /* non-empty lines C4's line rules removed */
    const char *scores;      /* the classifiers' metadata.scores object (owned by the worker), or NULL */
    size_t scores_len;
} filter_result;

/* Builds a filter from c (copied); reads the block lists. Exits with status
 * 1 and a message on a bad setting or an unreadable list. */
filter *filter_create(const filter_config *c);
void filter_destroy(filter *f);

/* The filter's effective config. */
const filter_config *filter_get_config(const filter *f);

filter_worker *filter_worker_create(const filter *f);
void filter_worker_destroy(filter_worker *w);

/* Decides on one document: text (valid UTF-8 or not), url (may be NULL). */
void filter_document(const filter *f, filter_worker *w, const char *text, size_t n, const char *url,
                     size_t url_len, filter_result *r);

/* True when the filter reads URLs (it has a URL block list). */
bool filter_wants_url(const filter *f);

/* Appends the metadata members a kept document gains (lang, lang_score,
 * scores, c4_lines_removed, pii_replaced); appends nothing when the document is kept
 * as it is (no language annotation, text unchanged). */
void filter_result_meta(const filter_result *r, wbuf *meta);

/* Decides on one document line of the stream (scanned into d, with a text
 * string), as `winnow filter` does: returns the drop reason, or NULL when
 * kept; then *rewritten says whether out got the new line (ending in '\n')
 * or the line goes on byte for byte. */
const char *filter_json_line(const filter *f, filter_worker *w, const char *line, size_t len, const jdoc *d,
                             wbuf *out, bool *rewritten);

/* filter_json_line() with the line's "text" already decoded (text, text_len:
 * what json_scan_doc_text() wrote), so the text is not decoded again. */
const char *filter_json_line_text(const filter *f, filter_worker *w, const char *line, size_t len, const jdoc *d,
                                  const char *text, size_t text_len, wbuf *out, bool *rewritten);

#endif
