/* meta_json.h - a small visitor over arbitrary JSON text (JSON-LD blocks,
 * benchmark files): calls back for every scalar with the keys leading to it.
 * Nesting deeper than JSON_VISIT_MAX_DEPTH is skipped, not recursed into. */
#ifndef WINNOW_META_JSON_H
#define WINNOW_META_JSON_H

#include <stddef.h>

#include "core/json.h"

#define JSON_VISIT_MAX_DEPTH 32

/* keys[i] is the object key at depth i (kind JSON_MISSING inside arrays);
 * depth is the number of containers around value. */
typedef void (*json_visit_fn)(void *ctx, const jvalue *keys, int depth, const jvalue *value);

/* Visits every scalar of the JSON value(s) in s[0..n) (several top-level
 * values may follow each other). Returns 0, or -1 when the text is not JSON
 * (values seen before the error have been visited). */
int json_visit(const char *s, size_t n, json_visit_fn fn, void *ctx);

/* True when v is a string equal to the ASCII text lit (no escapes). */
int json_is(const jvalue *v, const char *lit);

#endif
