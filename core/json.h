/* json.h - the JSON scanner and writer behind the document stream.
 *
 * A document line is one JSON object. json_scan_doc() validates the whole
 * line (its UTF-8 with vector code, then its structure in one pass) and
 * records where the top-level values of the fields winnow cares about sit in
 * it (names compared after decoding their escapes: "te\u0078t" is "text"),
 * without copying anything; json_unescape() then decodes a string value
 * when a stage needs its text. Writers use json_put_string(), which always
 * produces valid UTF-8 JSON. */
#ifndef WINNOW_JSON_H
#define WINNOW_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "buf.h"

typedef enum { JSON_MISSING = 0, JSON_STRING, JSON_NUMBER, JSON_OBJECT, JSON_ARRAY, JSON_LITERAL } json_kind;

/* Where one value sits in the line: for strings, the bytes between the quotes;
 * for anything else, the whole raw value. */
typedef struct {
    const char *p;
    size_t len;
    json_kind kind;
    bool has_escapes; /* string contains a backslash: needs json_unescape() */
} jvalue;

/* The top-level fields of a document line that stages read. */
typedef struct {
    jvalue id, text, url, date, source, metadata;
    size_t close_brace; /* offset of the object's final '}' in the line */
} jdoc;

/* Scans one JSON line (without the newline). Returns 0 when the line is one
 * well-formed JSON object (strings valid UTF-8) and fills *doc; otherwise -1,
 * with a short reason in *err and its byte offset in *err_pos. Nesting
 * deeper than 512 levels is refused (a limit RFC 8259 section 9 allows). */
int json_scan_doc(const char *line, size_t len, jdoc *doc, const char **err, size_t *err_pos);

/* json_scan_doc(), and in the same pass the decoded value of the top-level
 * "text" member (when it is a string; the last one when there are several) is
 * written to text_out and its length to *text_len: no json_unescape_into()
 * pass after. text_out has room for len bytes, any of which it may overwrite
 * (decoding never lengthens a string; whole vectors are stored). */
int json_scan_doc_text(const char *line, size_t len, jdoc *doc, char *text_out, size_t *text_len, const char **err,
                       size_t *err_pos);

/* Where json_scan_doc_named() found the text's member name, and a top-level
 * member literally named "text" (its name and value, the last when there are
 * several; kind JSON_MISSING when there is none) and how many there are.
 * Names are told as string values are: the bytes between the quotes. */
typedef struct {
    jvalue name, plain_name, plain;
    int plains;
} jnamed;

/* json_scan_doc(), with the top-level member text_name (compared after
 * decoding escapes; the last one when there are several) read as doc->text
 * instead of "text"; a member named "text" is then told in *where, not in doc. */
int json_scan_doc_named(const char *line, size_t len, const char *text_name, jdoc *doc, jnamed *where,
                        const char **err, size_t *err_pos);

/* Appends the decoded string value v to out. Surrogate escapes that do not pair
 * up become U+FFFD, so the result is always valid UTF-8. */
void json_unescape(const jvalue *v, wbuf *out);

/* Writes the decoded string value v at out, which has room for v->len bytes
 * (decoding never lengthens a string); returns its length. No terminator. */
size_t json_unescape_into(const jvalue *v, char *out);

/* Decodes one escape of a scanned string value: *s is just past its
 * backslash, end the value's end. Returns the code point it stands for
 * (U+FFFD for a surrogate escape that does not pair up, as json_unescape()
 * writes it) and moves *s past the escape (past both halves of a pair). */
uint32_t json_escape_codepoint(const char **s, const char *end);

/* Returns the decoded string value: v's own bytes when it has no escapes,
 * else the decoded copy in scratch. Sets *len. */
const char *json_string(const jvalue *v, wbuf *scratch, size_t *len);

/* Appends s as a quoted JSON string; invalid UTF-8 becomes U+FFFD, one per maximal subpart (as utf8_repair()). */
void json_put_string(wbuf *out, const char *s, size_t n);

/* The number of bytes json_put_string(out, s, n) appends. */
size_t json_string_size(const char *s, size_t n);

/* Appends `"key":` (key must be plain ASCII needing no escapes). */
void json_put_key(wbuf *out, const char *key);

/* True for the blanks JSON allows between tokens (space, tab, LF, CR). */
static inline bool json_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* True when v is the literal null. */
static inline bool json_is_null(const jvalue *v)
{
    return v->kind == JSON_LITERAL && v->len == 4 && memcmp(v->p, "null", 4) == 0;
}

/* False when text[0, n) cannot hold a member named name[0, len): neither the
 * name's bytes nor a \u escape (how a name's letters are escaped) are in
 * it, so a walk of its members can be skipped (the common case). */
bool json_may_hold_name(const char *text, size_t n, const char *name, size_t len);

/* One member of an object: offsets into the text of its members. */
typedef struct {
    jvalue key;        /* the name: a JSON_STRING (bytes between its quotes) */
    size_t from;       /* where the member starts (the name's opening quote) */
    size_t value_from; /* where its value starts */
    size_t to;         /* where its value ends */
} jmember;

/* The next member in members[0, n), the text between a valid JSON object's
 * braces (as the scanner checked it), from *pos (0 at first): fills *m and
 * returns true, or returns false after the last member. */
bool json_next_member(const char *members, size_t n, size_t *pos, jmember *m);

/* True when member m's name, decoded, is name[0, len). */
bool json_member_is(const jmember *m, const char *name, size_t len);

/* True when members[0, n) (as json_next_member reads) has a member named
 * name[0, len), decoded. */
bool json_has_member(const char *members, size_t n, const char *name, size_t len);

/* Appends the members of members[0, n) but those named name[0, len),
 * comma-separated, each as it was (a comma before the first too with
 * comma_first). */
void json_put_members_except(wbuf *out, const char *members, size_t n, const char *name, size_t len,
                             bool comma_first);

#endif
