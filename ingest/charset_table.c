/* charset_table.c - legacy charsets to UTF-8 through tables filled from iconv. */
#include "ingest/charset_table.h"

#include <errno.h>
#include <iconv.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"

/* Charsets whose glibc converter maps each byte sequence on its own: no
 * shift state, no composition (so not CP1255, CP1258, BIG5-HKSCS, ISO-2022-*);
 * not CP949 either, whose glibc converter consumes some sequences it rejects. */
static const char *const table_charsets[] = {
    "WINDOWS-1250", "WINDOWS-1251", "WINDOWS-1252", "WINDOWS-1253", "WINDOWS-1254", "WINDOWS-1256",
    "WINDOWS-1257", "CP1250",       "CP1251",       "CP1252",       "CP1253",       "CP1254",
    "CP1256",       "CP1257",       "WINDOWS-874",  "CP874",        "ISO-8859-2",   "ISO-8859-3",
    "ISO-8859-4",   "ISO-8859-5",   "ISO-8859-6",   "ISO-8859-7",   "ISO-8859-8",   "ISO-8859-10",
    "ISO-8859-13",  "ISO-8859-14",  "ISO-8859-15",  "ISO-8859-16",  "KOI8-R",       "KOI8-U",
    "IBM866",       "CP866",        "EUC-JP",       "CP932",        "GB18030",
};

/* Longest byte sequence of one character (GB18030 has four-byte ones). */
#define MAX_SEQ 4
/* Tables kept per thread (pages of a crawl use a handful of charsets). */
#define CACHED_TABLES 4
/* Most trie nodes (1 KB each) a table grows to; past that (GB18030's
 * four-byte space, explored by junk) the charset goes back to iconv. */
#define MAX_NODES 4096

/* A table is a trie over bytes: each node has an entry per next byte, filled
 * the first time the sequence is met. An entry is a kind in its low 2 bits
 * and a code point or child node above them. */
enum { ENTRY_UNKNOWN = 0, ENTRY_INVALID = 1, ENTRY_CHAR = 2, ENTRY_MORE = 3 };
#define ENTRY(kind, value) (((uint32_t)(value) << 2) | (kind))

typedef struct {
    uint32_t next[256];
} trie_node;

typedef struct {
    char name[40];
    iconv_t cd;
    bool broken;      /* iconv answered something a table cannot hold: use iconv */
    bool ascii_same;  /* bytes below 0x80 are themselves */
    trie_node *nodes; /* nodes[0] is the root */
    size_t nnodes, cap_nodes;
} charset_table;

static _Thread_local charset_table *tl_tables[CACHED_TABLES];
static _Thread_local unsigned tl_next_evict;

static bool is_table_charset(const char *name)
{
    for (size_t i = 0; i < sizeof table_charsets / sizeof table_charsets[0]; i++)
        if (!strcmp(name, table_charsets[i])) return true;
    return false;
}

const char *charset_table_name(size_t i)
{
    return i < sizeof table_charsets / sizeof table_charsets[0] ? table_charsets[i] : NULL;
}

static void table_free(charset_table *t)
{
    if (!t) return;
    if (t->cd != (iconv_t)-1) iconv_close(t->cd);
    free(t->nodes);
    free(t);
}

static uint32_t new_node(charset_table *t)
{
    if (t->nnodes == t->cap_nodes) {
        t->cap_nodes = t->cap_nodes ? 2 * t->cap_nodes : 16;
        t->nodes = xrealloc(t->nodes, t->cap_nodes * sizeof *t->nodes);
    }
    memset(&t->nodes[t->nnodes], 0, sizeof *t->nodes);
    return (uint32_t)t->nnodes++;
}

static uint32_t lookup(charset_table *t, uint32_t node, const unsigned char *u, size_t k);

/* The calling thread's table for name, made when first asked; NULL when name is not a table charset. */
static charset_table *get_table(const char *name)
{
    if (!is_table_charset(name)) return NULL;
    for (unsigned i = 0; i < CACHED_TABLES; i++)
        if (tl_tables[i] && !strcmp(tl_tables[i]->name, name)) return tl_tables[i];
    charset_table *t = xcalloc(1, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->cd = iconv_open("UTF-8", name);
    t->broken = t->cd == (iconv_t)-1;
    new_node(t);
    t->ascii_same = !t->broken;
    for (unsigned c = 0; c < 0x80 && t->ascii_same; c++) {
        unsigned char b = (unsigned char)c;
        t->ascii_same = lookup(t, 0, &b, 1) == ENTRY(ENTRY_CHAR, c);
    }
    unsigned slot = tl_next_evict++ % CACHED_TABLES;
    table_free(tl_tables[slot]);
    tl_tables[slot] = t;
    return t;
}

/* Asks iconv what seq[0..k) is on its own: a character (ENTRY_CHAR), not
 * valid (ENTRY_INVALID), the start of a longer one (ENTRY_MORE), or
 * ENTRY_UNKNOWN when the answer does not fit a table. */
static uint32_t ask_iconv(iconv_t cd, const unsigned char *seq, size_t k)
{
    char out[16];
    char *ip = (char *)seq, *op = out;
    size_t il = k, ol = sizeof out;
    iconv(cd, NULL, NULL, NULL, NULL);
    size_t r = iconv(cd, &ip, &il, &op, &ol);
    if (r == (size_t)-1) {
        if (il != k || op != out) return ENTRY_UNKNOWN; /* part converted: not one sequence */
        if (errno == EILSEQ) return ENTRY_INVALID;
        if (errno == EINVAL) return ENTRY(ENTRY_MORE, 0);
        return ENTRY_UNKNOWN;
    }
    if (il || iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1) return ENTRY_UNKNOWN;
    size_t len = (size_t)(op - out);
    /* one code point, and at most k + 2 bytes of it (the output bound of charset_table_convert) */
    if (!len || len > k + 2 || utf8_valid_seq((const unsigned char *)out, len) != len) return ENTRY_UNKNOWN;
    size_t dlen;
    return ENTRY(ENTRY_CHAR, utf8_decode((const unsigned char *)out, len, &dlen));
}

/* The entry for the sequence u[0..k) reached through node; fills it from iconv when new. */
static uint32_t lookup(charset_table *t, uint32_t node, const unsigned char *u, size_t k)
{
    uint32_t e = t->nodes[node].next[u[k - 1]];
    if (e != ENTRY_UNKNOWN) return e;
    e = ask_iconv(t->cd, u, k);
    if ((e & 3) == ENTRY_MORE) {
        if (k == MAX_SEQ || t->nnodes == MAX_NODES) return ENTRY_UNKNOWN;
        e = ENTRY(ENTRY_MORE, new_node(t));
    }
    if (e != ENTRY_UNKNOWN) t->nodes[node].next[u[k - 1]] = e;
    return e;
}

static const char REPLACEMENT_UTF8[] = "\xEF\xBF\xBD";

ssize_t charset_table_convert(const char *name, const char *p, size_t n, wbuf *out)
{
    charset_table *t = get_table(name);
    if (!t || t->broken) return -1;
    /* a character of k bytes gives at most k + 2 bytes of UTF-8 (a rejected byte 3, as U+FFFD) */
    buf_reserve(out, 3 * n + 8);
    const unsigned char *u = (const unsigned char *)p;
    size_t start = out->len, replaced = 0, i = 0;
    char *d = out->data + out->len;
    while (i < n) {
        uint64_t word;
        if (t->ascii_same && i + 8 <= n && (memcpy(&word, u + i, 8), !(word & 0x8080808080808080ull))) {
            memcpy(d, &word, 8);
            d += 8;
            i += 8;
            continue;
        }
        uint32_t node = 0, e;
        size_t k = 1;
        for (;;) {
            e = lookup(t, node, u + i, k);
            if ((e & 3) != ENTRY_MORE) break;
            if (i + k == n) { /* cut off by the end: iconv stops here too */
                e = ENTRY_INVALID;
                break;
            }
            node = e >> 2;
            k++;
        }
        if (e == ENTRY_UNKNOWN) {
            t->broken = true;
            out->len = start;
            out->data[start] = 0;
            return -1;
        }
        if ((e & 3) == ENTRY_CHAR) {
            d = utf8_put(d, e >> 2);
            i += k;
        } else {
            memcpy(d, REPLACEMENT_UTF8, 3);
            d += 3;
            replaced++;
            i++;
        }
    }
    out->len = (size_t)(d - out->data);
    out->data[out->len] = 0;
    return (ssize_t)replaced;
}

void charset_table_thread_free(void)
{
    for (unsigned i = 0; i < CACHED_TABLES; i++) {
        table_free(tl_tables[i]);
        tl_tables[i] = NULL;
    }
}
