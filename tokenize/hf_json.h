/* hf_json.h - a small JSON tree for tokenizer.json: every value becomes a
 * node, strings decoded to UTF-8. Parsing is recursive with a depth limit,
 * never prints or exits, and reports the byte offset of the first error.
 * A document's nodes and strings live in a few large blocks it owns (a
 * tokenizer.json holds millions of small strings and arrays). */
#ifndef WINNOW_TOKENIZE_HF_JSON_H
#define WINNOW_TOKENIZE_HF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

typedef enum { HJ_NULL, HJ_BOOL, HJ_NUMBER, HJ_STRING, HJ_ARRAY, HJ_OBJECT } hj_type;

/* One value (32 bytes: Gemma 3's file has 1.8 M of them); read only the
 * field of its type. */
typedef struct hj_node {
    hj_type type;
    bool boolean;               /* HJ_BOOL */
    size_t len;                 /* HJ_STRING: bytes; HJ_ARRAY/HJ_OBJECT: members */
    union {
        double number;          /* HJ_NUMBER */
        char *str;              /* HJ_STRING: decoded, NUL-terminated (may hold NULs; see len) */
        struct hj_node *items;  /* HJ_ARRAY/HJ_OBJECT: the values */
    };
    char **keys;                /* HJ_OBJECT: the keys, by member */
} hj_node;

/* A parsed document: its root value and the memory all its nodes use. */
typedef struct {
    hj_node root;
    char *strings;        /* every string and key, NUL-terminated, back to back */
    struct hj_block *blocks; /* the nodes and key arrays */
} hj_doc;

/* Parses text[0..n) into *doc. Returns 0, or -1 with "byte N: what" in err. */
int hj_parse(const char *text, size_t n, hj_doc *doc, wbuf *err);

/* Frees what a parse allocated for doc. */
void hj_free(hj_doc *doc);

/* The member called key of object o, or NULL (also when o is not an object). */
const hj_node *hj_get(const hj_node *o, const char *key);

/* The string value of member key, or NULL when it is absent or not a string. */
const char *hj_get_str(const hj_node *o, const char *key);

/* True when member key is absent or JSON null. */
bool hj_is_null(const hj_node *o, const char *key);

#endif
