/* json_edit.h - test helper: edits a JSON text in place of parsing it,
 * for tests that build tokenizer.json variants (tests/data/hf/variants.tsv,
 * tests/data/hf/spm/variants.tsv): PATH=JSON replaces or adds the member at
 * a dotted path of objects, +PATH=JSON appends to the array there, -PATH
 * removes the member. */
#ifndef WINNOW_TESTS_JSON_EDIT_H
#define WINNOW_TESTS_JSON_EDIT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of the JSON value that starts at p (after white space). */
static inline const char *value_end(const char *p)
{
    int depth = 0;
    do {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1]) p++;
            p++;
        } else if (*p == '{' || *p == '[') {
            depth++, p++;
        } else if (*p == '}' || *p == ']') {
            depth--, p++;
        } else if (*p == ',' || *p == ':') {
            p++;
        } else {
            while (*p && !strchr(",]} \t\r\n", *p)) p++;
        }
    } while (depth > 0 && *p);
    return p;
}

/* In the object at obj ('{'), the value of member key: its start, or NULL. */
static inline const char *member(const char *obj, const char *key)
{
    const char *p = obj + 1;
    size_t klen = strlen(key);
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ',') p++;
        if (*p != '"') return NULL;
        const char *kend = value_end(p);
        bool match = (size_t)(kend - p) == klen + 2 && !memcmp(p + 1, key, klen);
        p = kend;
        while (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t' || *p == '\r') p++;
        if (match) return p;
        p = value_end(p);
    }
}

/* text with [a, b) replaced by ins. */
static inline char *splice(const char *text, const char *a, const char *b, const char *ins)
{
    size_t n = strlen(text), k = strlen(ins), head = (size_t)(a - text);
    char *out = malloc(n - (size_t)(b - a) + k + 1);
    memcpy(out, text, head);
    memcpy(out + head, ins, k);
    strcpy(out + head + k, b);
    return out;
}

/* json without member key of the object at obj (and the comma that
 * separated it from the next member, or else from the one before). */
static inline char *remove_member(const char *json, const char *obj, const char *key)
{
    const char *p = obj + 1, *prev_end = NULL; /* prev_end: where the member before ends */
    size_t klen = strlen(key);
    for (;;) {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ',') p++;
        if (*p != '"') return strdup(json);
        const char *start = p, *kend = value_end(p);
        bool match = (size_t)(kend - p) == klen + 2 && !memcmp(p + 1, key, klen);
        p = kend;
        while (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t' || *p == '\r') p++;
        const char *end = value_end(p), *after = end;
        if (match) {
            while (*after == ' ' || *after == '\n' || *after == '\r' || *after == '\t') after++;
            if (*after == ',') return splice(json, start, after + 1, "");
            return splice(json, prev_end ? prev_end : start, end, "");
        }
        p = prev_end = end;
    }
}

/* Applies one edit PATH=JSON, +PATH=JSON or -PATH (removes the member) to
 * json (freed; returns the new text). */
static inline char *apply_edit(char *json, const char *edit)
{
    bool append = edit[0] == '+', remove = edit[0] == '-';
    if (append || remove) edit++;
    const char *eq = remove ? edit + strlen(edit) : strchr(edit, '=');
    char path[256];
    snprintf(path, sizeof path, "%.*s", (int)(eq - edit), edit);
    const char *obj = json;
    while (*obj != '{') obj++;
    char *dot, *key = path;
    while ((dot = strchr(key, '.'))) {
        *dot = 0;
        obj = member(obj, key);
        key = dot + 1;
    }
    if (remove) {
        char *out = remove_member(json, obj, key);
        free(json);
        return out;
    }
    const char *at = member(obj, key);
    char *ins = malloc(strlen(eq) + strlen(key) + 8), *out;
    if (!at) { /* a new member, first in its object */
        sprintf(ins, "\"%s\":%s,", key, eq + 1);
        out = splice(json, obj + 1, obj + 1, ins);
    } else if (append) {
        const char *end = value_end(at) - 1; /* the array's ']' */
        const char *last = end - 1;
        while (*last == ' ' || *last == '\n') last--;
        sprintf(ins, "%s%s", *last == '[' ? "" : ",", eq + 1);
        out = splice(json, end, end, ins);
    } else {
        out = splice(json, at, value_end(at), eq + 1);
    }
    free(ins);
    free(json);
    return out;
}

#endif
