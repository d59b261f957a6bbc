/* json_array.c - a JSON array of documents read as JSON Lines. */
#include "json_array.h"

#include <stdlib.h>

#include "util.h"

typedef enum { BEFORE, INSIDE, AFTER, STOPPED } jarray_state;

struct jarray {
    char *name;
    jarray_state state;
    uint64_t depth;     /* brackets open inside the outer array (0: between elements) */
    bool in_string, escape;
    bool element_open;  /* bytes of the current element were given out */
    bool comma;         /* a ',' ended the last element: another must follow */
    uint64_t element;   /* number of the current (or last) element, from 1 */
    uint64_t offset;    /* decoded bytes taken so far (the offset of the next) */
    int bad;
    bool damaged;
};

jarray *jarray_new(const char *name)
{
    jarray *a = xcalloc(1, sizeof *a);
    a->name = xstrdup(name);
    return a;
}

static bool json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* An empty element (the current one), reported and counted. */
static void bad(jarray *a, const char *what)
{
    warnf("%s: element %llu at offset %llu: %s", a->name, (unsigned long long)a->element,
          (unsigned long long)a->offset, what);
    a->bad++;
}

/* A byte between elements (depth 0 inside the array) that is not a string's. */
static void between(jarray *a, char c, char *out, size_t *k)
{
    if (c == ',' || c == ']') {
        if (!a->element_open && (c == ',' || a->comma)) { /* an empty line keeps line N element N */
            a->element++;
            bad(a, c == ',' ? "empty element (',' where an element should be)"
                            : "empty element (',' before the closing ']')");
            out[(*k)++] = '\n';
        } else if (a->element_open) {
            out[(*k)++] = '\n';
        }
        a->element_open = false;
        a->comma = c == ',';
        if (c == ']') a->state = AFTER;
        return;
    }
    if (!a->element_open) {
        a->element++;
        a->element_open = true;
    }
    if (c == '{' || c == '[') a->depth++;
    if (c == '"') a->in_string = true;
    out[(*k)++] = c;
}

size_t jarray_step(jarray *a, char *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++, a->offset++) {
        char c = p[i];
        if (a->in_string) { /* string bytes go out as they are */
            p[k++] = c;
            if (a->escape) a->escape = false;
            else if (c == '\\') a->escape = true;
            else if (c == '"') a->in_string = false;
            continue;
        }
        if (json_space(c) || a->state == STOPPED) continue;
        switch (a->state) {
        case BEFORE: /* the opening '[' (jarray_starts found it) */
            a->state = INSIDE;
            break;
        case INSIDE:
            if (!a->depth) {
                between(a, c, p, &k);
                break;
            }
            if (c == '{' || c == '[') a->depth++;
            else if (c == '}' || c == ']') a->depth--;
            else if (c == '"') a->in_string = true;
            p[k++] = c;
            break;
        case AFTER:
            warnf("%s: offset %llu: data after the JSON array's closing ']' (not read)", a->name,
                  (unsigned long long)a->offset);
            a->bad++;
            a->damaged = true;
            a->state = STOPPED;
            break;
        case STOPPED: break;
        }
    }
    return k;
}

size_t jarray_end(jarray *a, char *tail)
{
    if (a->state == AFTER || a->state == STOPPED) return 0;
    a->damaged = true;
    if (a->element_open) { /* its line fails as bad JSON: counted there */
        warnf("%s: element %llu at offset %llu: the array is cut short inside this element (no closing ']')",
              a->name, (unsigned long long)a->element, (unsigned long long)a->offset);
        a->element_open = false;
        a->state = STOPPED;
        *tail = '\n';
        return 1;
    }
    warnf("%s: offset %llu: the JSON array is cut short after element %llu (no closing ']')", a->name,
          (unsigned long long)a->offset, (unsigned long long)a->element);
    a->bad++;
    a->state = STOPPED;
    return 0;
}

int jarray_bad_elements(const jarray *a) { return a->bad; }
bool jarray_damaged(const jarray *a) { return a->damaged; }

bool jarray_starts(const char *p, size_t n, bool objects_only, size_t *need)
{
    size_t i = 0;
    while (i < n && json_space(p[i])) i++;
    *need = 0;
    if (i < n && p[i] != '[') return false;
    if (i < n && !objects_only) return true;
    size_t j = i + 1;
    while (j < n && json_space(p[j])) j++;
    if (j < n) return p[j] == '{';
    *need = n ? 2 * n : 1; /* only whitespace so far: look further */
    return false;
}

void jarray_free(jarray *a)
{
    if (!a) return;
    free(a->name);
    free(a);
}
