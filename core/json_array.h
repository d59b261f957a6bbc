/* json_array.h - a JSON array of documents read as JSON Lines.
 *
 * Many datasets ship a `.json` file that is one JSON array of objects
 * (`[{"text": ...}, {...}]`, often pretty-printed), which Hugging Face
 * `datasets`' json loader reads as documents. This turns such a stream, as it
 * is decoded, into one line per element: the outer brackets are dropped,
 * whitespace outside strings (insignificant in JSON) is dropped, and each
 * element ends with '\n'. So an array of the objects of a JSON Lines file
 * written compactly gives that file's bytes, and line N is element N.
 *
 * Elements are not checked here beyond their brackets and strings: an
 * element that is not an object becomes a line that the document reader
 * fails (`bad_json`, "not a JSON object"). What only the structure shows is
 * reported here, with the file, element number and byte offset in the
 * decoded file, and counted in jarray_bad_elements(): an empty element (two
 * commas, a comma before ']'), data after the closing ']' (not read), and
 * an array cut short (no closing ']'; an element cut short also ends with
 * '\n', so its line fails as bad JSON). */
#ifndef WINNOW_JSON_ARRAY_H
#define WINNOW_JSON_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct jarray jarray;

/* A transform for the stream named name (for messages), which starts,
 * after optional whitespace, with '['. */
jarray *jarray_new(const char *name);

/* Rewrites the next n decoded bytes at p in place; returns how many bytes
 * of output they gave (never more than n). */
size_t jarray_step(jarray *a, char *p, size_t n);

/* The stream ended: reports an array cut short. Returns the bytes to append
 * (0, or 1 when *tail is set to the '\n' that ends an element cut short). */
size_t jarray_end(jarray *a, char *tail);

/* Problems of the array's structure met so far (each reported once); each
 * is one failed document (`bad_json`) for readers to count. */
int jarray_bad_elements(const jarray *a);

/* True when the stream's structure was damaged in a way that means the file
 * was not read whole (cut short, or data after its closing ']'). */
bool jarray_damaged(const jarray *a);

/* True when the first non-whitespace byte of p[0, n) is '[' and, with
 * objects_only, the first non-whitespace byte after it is '{'. *need is set
 * to 0 when that is decided from these bytes, else to more bytes wanted. */
bool jarray_starts(const char *p, size_t n, bool objects_only, size_t *need);

void jarray_free(jarray *a);

#endif
