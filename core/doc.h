/* doc.h - building and rewriting document lines.
 *
 * A document line: {"id":..,"text":..,"url":..,"date":..,"source":..,"metadata":{..}}
 * Producers (ingest) fill a wdoc and call doc_write(). Stages that change a
 * document in passing (filter adds metadata.lang, C4 rewrites text) call
 * doc_rewrite(), which keeps every other field of the original line as is.
 * Inputs that hold the text in another member (--text-column) are brought
 * into this shape, line by line, by doc_normalize_line() before anything
 * else reads them. */
#ifndef WINNOW_DOC_H
#define WINNOW_DOC_H

#include "buf.h"
#include "json.h"

typedef struct {
    wbuf id, text, url, date, source;
    wbuf meta; /* metadata members, `"k":v,"k2":v2`, without braces; see meta_* */
} wdoc;

/* Empties every field of d, keeping memory for reuse. */
void doc_clear(wdoc *d);

/* Frees d's memory. */
void doc_free(wdoc *d);

/* Appends d as one JSON line ending in '\n'. Empty url/date/source and empty
 * metadata are left out; text is always written. */
void doc_write(const wdoc *d, wbuf *line);

/* Appends a string member to a metadata list. */
void meta_add_str(wbuf *meta, const char *key, const char *val, size_t len);

/* Appends an integer member to a metadata list. */
void meta_add_int(wbuf *meta, const char *key, long long val);

/* Appends a number member (printed with up to 6 significant digits). */
void meta_add_num(wbuf *meta, const char *key, double val);

/* Appends a member whose value is already JSON. */
void meta_add_raw(wbuf *meta, const char *key, const char *json, size_t len);

/* Appends to out a copy of the scanned line with, optionally, its text replaced
 * by new_text (NULL keeps it) and the members in extra_meta (NULL or empty
 * adds none) added to its metadata object (created when missing; a value
 * that is not an object, null aside, is kept in the new object as its
 * member "metadata"; a member of the same name already there is replaced: the object
 * is written again without it, the new members last, so that a line never
 * holds a name twice; otherwise the object's bytes stay as they were).
 * Ends with '\n'. */
void doc_rewrite(const char *line, size_t len, const jdoc *doc,
                 const char *new_text, size_t new_text_len,
                 const wbuf *extra_meta, wbuf *out);

/* Names the member (JSON Lines) and column (Parquet) inputs hold the text in
 * (--text-column; "text" by default; "" is a name too: JSON and Parquet allow
 * it). Returns false, changing nothing, for a name with a line break (the
 * dedup plan keeps it on a line). Set before any input is read. */
bool doc_set_text_name(const char *name);

/* The name set by doc_set_text_name(): "text" unless another was set. */
const char *doc_text_name(void);

/* True when inputs hold the text in a member other than "text": their lines
 * then go through doc_normalize_line() before anything else reads them. */
bool doc_text_renamed(void);

/* Appends to out the input line (without its line end) in winnow's shape,
 * ending with '\n': the member doc_text_name() renamed "text", and a member
 * that was called "text" moved into the line's metadata as "text" (the
 * metadata object made when missing); every other byte as it was. Returns
 * NULL, or why the line cannot be (out unchanged): "bad_json" (*err and
 * *err_pos tell what and where), "missing_text" (no such string member),
 * "text_clash" (a "text" member with no metadata object to move to, or one
 * that already has a "text"; or several "text" members). */
const char *doc_normalize_line(const char *line, size_t len, wbuf *out, const char **err, size_t *err_pos);

/* Writes to out (n bytes) what a line that failed with reason
 * "missing_text" or "text_clash" lacks, for a message. */
void doc_describe_failure(const char *reason, char *out, size_t n);

/* Appends a rejects-file line: the original document with
 * "reject":{"stage":..,"reason":..<,extra>} added as its first member (in
 * place of a reject member it has: a rejects line given again). */
void doc_reject_line(const char *line, size_t len, const char *stage, const char *reason,
                     const char *extra_members, wbuf *out);

#endif
