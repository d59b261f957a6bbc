/* parquet_nested.c - a nested Parquet field's leaves back into JSON values. */
#include "core/parquet_nested.h"

#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/parquet_cell.h"
#include "core/util.h"

void pq_nested_init(pq_nested *n, const pq_file *f, int field, const pq_values *leaves)
{
    memset(n, 0, sizeof *n);
    n->f = f;
    n->field = field;
    n->leaves = leaves;
    size_t k = (size_t)pq_node_at(f, field)->ncolumns;
    n->level_at = xcalloc(k ? k : 1, sizeof *n->level_at);
    n->value_at = xcalloc(k ? k : 1, sizeof *n->value_at);
}

void pq_nested_free(pq_nested *n)
{
    free(n->level_at);
    free(n->value_at);
    buf_free(&n->key);
    memset(n, 0, sizeof *n);
}

static const pq_node *node_of(const pq_nested *n, int i) { return pq_node_at(n->f, i); }

/* The first leaf under node i, as an index into n->leaves. */
static int lead_leaf(const pq_nested *n, int i)
{
    return node_of(n, i)->first_column - node_of(n, n->field)->first_column;
}

/* The definition and repetition levels of the next entry under node i (its
 * leaves agree on what is defined above them); an entry past the end reads
 * as repetition 0, the start of another row. */
static int def_level(const pq_nested *n, int i)
{
    int k = lead_leaf(n, i);
    return n->level_at[k] < n->leaves[k].nlevels ? n->leaves[k].defs[n->level_at[k]] : 0;
}

static int rep_level(const pq_nested *n, int i)
{
    int k = lead_leaf(n, i);
    return n->level_at[k] < n->leaves[k].nlevels ? n->leaves[k].reps[n->level_at[k]] : 0;
}

/* Moves past node i where it is null or an empty list: one entry in each leaf under it. */
static void skip(pq_nested *n, int i)
{
    int k = lead_leaf(n, i);
    for (int c = 0; c < node_of(n, i)->ncolumns; c++) n->level_at[k + c]++;
}

static void put_node(pq_nested *n, int i, wbuf *out);
static void put_present(pq_nested *n, int i, wbuf *out);

/* The instances of repeated node r as an array, each written as node
 * element is (put_node), or as r itself (put_present) when element is r. */
static void put_array(pq_nested *n, int r, int element, wbuf *out)
{
    buf_putc(out, '[');
    if (def_level(n, r) < node_of(n, r)->def_level) { /* no instance: an empty list */
        skip(n, r);
        buf_putc(out, ']');
        return;
    }
    for (;;) {
        if (element == r) put_present(n, r, out);
        else put_node(n, element, out);
        if (rep_level(n, r) < node_of(n, r)->rep_level) break; /* 0 past the end */
        buf_putc(out, ',');
    }
    buf_putc(out, ']');
}

/* A LIST group's element node (parquet-format LogicalTypes.md, with its
 * backward-compatibility rules): the one child of its one repeated child,
 * or that repeated child itself when it is a leaf, a group of several
 * fields, or named "array" or NAME_tuple; -1 when the group is not shaped
 * as a list. *repeated gets the repeated child. */
static int list_element(const pq_nested *n, int i, int *repeated)
{
    const pq_node *g = node_of(n, i);
    if (g->num_children != 1) return -1;
    int r = g->first_child;
    const pq_node *rn = node_of(n, r);
    if (rn->repetition != PQ_REPEATED) return -1;
    *repeated = r;
    if (rn->column >= 0 || rn->num_children != 1 || strcmp(rn->name, "array") == 0) return r;
    size_t len = strlen(g->name);
    if (strncmp(rn->name, g->name, len) == 0 && strcmp(rn->name + len, "_tuple") == 0) return r;
    return rn->first_child;
}

/* A MAP group's repeated key-value group, or -1 when it is not shaped as one. */
static int map_entries(const pq_nested *n, int i)
{
    const pq_node *g = node_of(n, i);
    if (g->num_children != 1) return -1;
    const pq_node *r = node_of(n, g->first_child);
    return r->repetition == PQ_REPEATED && r->column < 0 && r->num_children == 2 ? g->first_child : -1;
}

/* A map's entries as an object: each key as a string (its JSON text when
 * it is not a string), then its value. */
static void put_map(pq_nested *n, int r, wbuf *out)
{
    int key = node_of(n, r)->first_child, value = node_of(n, key)->next_sibling;
    buf_putc(out, '{');
    if (def_level(n, r) < node_of(n, r)->def_level) {
        skip(n, r);
        buf_putc(out, '}');
        return;
    }
    for (;;) {
        buf_clear(&n->key);
        put_node(n, key, &n->key);
        if (n->key.len && n->key.data[0] == '"') buf_append(out, n->key.data, n->key.len);
        else json_put_string(out, n->key.data ? n->key.data : "", n->key.len);
        buf_putc(out, ':');
        put_node(n, value, out);
        if (rep_level(n, r) < node_of(n, r)->rep_level) break;
        buf_putc(out, ',');
    }
    buf_putc(out, '}');
}

/* Node i where it is defined (its own repetition aside): a leaf's value,
 * a list, a map or an object of its children. */
static void put_present(pq_nested *n, int i, wbuf *out)
{
    const pq_node *nd = node_of(n, i);
    if (nd->column >= 0) {
        int k = lead_leaf(n, i);
        const pq_values *v = &n->leaves[k];
        if (n->level_at[k] >= v->nlevels || v->defs[n->level_at[k]] != nd->def_level || n->value_at[k] >= v->n) {
            n->damaged = true; /* levels that do not fit the schema: no value here */
            buf_puts(out, "null");
        } else {
            pq_put_cell(out, pq_column_at(n->f, nd->column), v, n->value_at[k]++);
        }
        n->level_at[k]++;
        return;
    }
    int repeated, element, entries;
    if (nd->group_kind == PQ_GROUP_LIST && (element = list_element(n, i, &repeated)) >= 0) {
        put_array(n, repeated, element, out);
        return;
    }
    if (nd->group_kind == PQ_GROUP_MAP && (entries = map_entries(n, i)) >= 0) {
        put_map(n, entries, out);
        return;
    }
    buf_putc(out, '{');
    for (int c = nd->first_child; c >= 0; c = node_of(n, c)->next_sibling) {
        if (c != nd->first_child) buf_putc(out, ',');
        json_put_string(out, node_of(n, c)->name, strlen(node_of(n, c)->name));
        buf_putc(out, ':');
        put_node(n, c, out);
    }
    buf_putc(out, '}');
}

/* Node i in its parent's instance: an array when repeated, null when not defined. */
static void put_node(pq_nested *n, int i, wbuf *out)
{
    const pq_node *nd = node_of(n, i);
    if (nd->repetition == PQ_REPEATED) {
        put_array(n, i, i, out);
    } else if (def_level(n, i) < nd->def_level) {
        skip(n, i);
        buf_puts(out, "null");
    } else {
        put_present(n, i, out);
    }
}

bool pq_nested_damaged(const pq_nested *n)
{
    const pq_node *nd = node_of(n, n->field);
    for (int k = 0; k < nd->ncolumns; k++) /* every level and value used, none twice */
        if (n->level_at[k] != n->leaves[k].nlevels || n->value_at[k] != n->leaves[k].n) return true;
    return n->damaged;
}

bool pq_nested_put_row(pq_nested *n, wbuf *out)
{
    const pq_node *nd = node_of(n, n->field);
    for (int k = 0; k < nd->ncolumns; k++) /* every leaf at the start of this row */
        if (n->level_at[k] >= n->leaves[k].nlevels || n->leaves[k].reps[n->level_at[k]] != 0) n->damaged = true;
    if (nd->repetition != PQ_REPEATED && def_level(n, n->field) < nd->def_level) {
        skip(n, n->field);
        return false;
    }
    put_node(n, n->field, out);
    return true;
}
