/* normalize.h - text normalisation and word units for dedup.
 *
 * The normal form follows datatrove's simplify_text: lowercase; Unicode NFD
 * with nonspacing marks (Mn) removed; each run of decimal digits (Nd) becomes
 * "0"; punctuation (P*), symbols (S*) and control characters (Cc) become
 * spaces; format characters (Cf: soft hyphen, zero-width joiners) vanish;
 * whitespace runs collapse to one space, none at either end.
 *
 * The normal form is cut into units, the tokens shingles are made of: a run
 * of characters between spaces is one unit (a word), except that each
 * character of a script written without spaces between words (Han, Hiragana,
 * Katakana, Thai, Lao, Khmer, Myanmar, Tibetan) is a unit of its own. */
#ifndef WINNOW_DEDUP_NORMALIZE_H
#define WINNOW_DEDUP_NORMALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/json.h"

/* A normalised text and where its units are: unit i is the bytes
 * [start[i], end[i]) of text. */
typedef struct {
    wbuf text;
    uint32_t *start, *end;
    size_t nunits, cap;
} dedup_text;

/* Replaces t's contents with the normal form of the n bytes at s (UTF-8;
 * invalid bytes are kept as U+FFFD) and its units. */
void dedup_normalize(const char *s, size_t n, dedup_text *t);

/* The same as dedup_normalize() on the decoded text of the scanned JSON
 * string value v (json_string()), without decoding it first: escapes are
 * read where they stand. */
void dedup_normalize_json(const jvalue *v, dedup_text *t);

/* Frees t's memory; t is empty and reusable afterwards. */
void dedup_text_free(dedup_text *t);

/* True when code point cp belongs to a script written without spaces
 * between words, so it is shingled by characters. */
int dedup_is_char_script(uint32_t cp);

#endif
