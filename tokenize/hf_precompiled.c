/* hf_precompiled.c - HF tokenizers' Precompiled and Nmt normalizers.
 *
 * Precompiled carries a SentencePiece precompiled_charsmap (base64): a
 * u32 LE trie size, a darts-clone double array of u32 units, then a pool
 * of NUL-terminated replacement strings. HF does not apply it the way
 * SentencePiece does (longest match at each byte): it walks the text by
 * extended grapheme clusters (the unicode-segmentation crate); a cluster
 * shorter than 6 bytes is looked up whole and, when some key of the trie
 * is a prefix of it, the WHOLE cluster becomes the string of the first
 * (shortest) such key; otherwise each character of the cluster is looked
 * up alone the same way and stays as it is without a match.
 *
 * Clusters are the unicode-segmentation crate's (hf_grapheme.c). */
#include "tokenize/hf_precompiled.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_grapheme.h"
#include "tokenize/sp_check.h"

#define WHOLE_CLUSTER_BELOW 6 /* HF: grapheme.len() < 6 is looked up whole */
#define TRIE_SIZE_BYTES 4
#define UNIT_BYTES 4
#define BYTE_VALUES 256
#define ASCII 128
#define NO_MATCH (-1)

struct hf_charsmap {
    uint32_t *units;
    size_t nunits;
    char *pool; /* NUL-terminated strings */
    size_t pool_len;
    int32_t ascii[ASCII]; /* the match of each one-byte key (NO_MATCH: none) */
};

/* darts-clone's unit fields */
static bool unit_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static uint32_t unit_value(uint32_t u) { return u & ((1u << 31) - 1); }
static uint32_t unit_label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
static uint32_t unit_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

/* The pool offset of the shortest key that is a prefix of k[0..n) (the
 * search stops at a NUL byte, as HF's does), or NO_MATCH. */
static int32_t first_match(const hf_charsmap *m, const uint8_t *k, size_t n)
{
    size_t pos = unit_offset(m->units[0]);
    for (size_t i = 0; i < n && k[i]; i++) {
        pos ^= k[i];
        uint32_t u = m->units[pos];
        if (unit_label(u) != k[i]) return NO_MATCH;
        pos ^= unit_offset(u);
        if (unit_has_leaf(u)) return (int32_t)unit_value(m->units[pos]);
    }
    return NO_MATCH;
}

/* ---- loading ---- */

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Standard base64 with padding, strict as Rust's base64 STANDARD engine
 * (no white space, padding only at the end, unused bits zero); the
 * decoded bytes (malloc'd, *len of them) or NULL. */
static uint8_t *b64_decode(const char *s, size_t n, size_t *len)
{
    if (n % 4) return NULL;
    size_t pad = n && s[n - 1] == '=' ? (n > 1 && s[n - 2] == '=' ? 2 : 1) : 0;
    uint8_t *out = xmalloc(n / 4 * 3 + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        uint32_t v = 0;
        for (int k = 0; k < 4; k++) {
            int d = last && k >= 4 - (int)pad ? 0 : b64_value(s[i + k]);
            if (d < 0) {
                free(out);
                return NULL;
            }
            v = v << 6 | (uint32_t)d;
        }
        if (last && ((pad == 1 && (v & 0xFF)) || (pad == 2 && (v & 0xFFFF)))) { /* nonzero unused bits */
            free(out);
            return NULL;
        }
        out[o++] = (uint8_t)(v >> 16);
        if (!last || pad < 2) out[o++] = (uint8_t)(v >> 8);
        if (!last || pad < 1) out[o++] = (uint8_t)v;
    }
    *len = o;
    return out;
}

/* Every leaf a search can reach must point at the start of a character of
 * the pool (HF slices the pool there and would panic). The trie has passed
 * sp_charsmap_problem: every node's block is inside and there is no loop. */
static const char *leaves_problem(const hf_charsmap *m)
{
    uint8_t *seen = xcalloc(m->nunits, 1);
    size_t *stack = xmalloc(m->nunits * sizeof *stack), depth = 0;
    const char *why = NULL;
    stack[depth++] = unit_offset(m->units[0]);
    while (depth && !why) {
        size_t base = stack[--depth];
        for (unsigned b = 1; b < BYTE_VALUES; b++) {
            size_t pos = base ^ b;
            uint32_t u = m->units[pos];
            if (unit_label(u) != b) continue;
            size_t child = pos ^ unit_offset(u);
            if (unit_has_leaf(u) && ((unsigned char)m->pool[unit_value(m->units[child])] & 0xC0) == 0x80) {
                why = "a replacement string starts inside a character";
                break;
            }
            if (!seen[child]) {
                seen[child] = 1;
                stack[depth++] = child;
            }
        }
    }
    free(seen);
    free(stack);
    return why;
}

hf_charsmap *hf_charsmap_load(const hj_node *node, const char *path, wbuf *err)
{
    const hj_node *b64 = hj_get(node, "precompiled_charsmap");
    if (!b64 || b64->type != HJ_STRING) {
        buf_printf(err, "%s.precompiled_charsmap: not a string", path);
        return NULL;
    }
    size_t len;
    uint8_t *blob = b64_decode(b64->str, b64->len, &len);
    if (!blob) {
        buf_printf(err, "%s.precompiled_charsmap: not standard base64", path);
        return NULL;
    }
    const char *why = NULL;
    uint32_t trie_bytes = 0;
    if (len < TRIE_SIZE_BYTES) why = "shorter than its 4-byte trie size";
    else memcpy(&trie_bytes, blob, TRIE_SIZE_BYTES);
    if (!why && trie_bytes % UNIT_BYTES) why = "its trie size is not a whole number of units";
    if (!why) why = sp_charsmap_problem(blob, len);
    const char *pool = (const char *)blob + TRIE_SIZE_BYTES + trie_bytes;
    size_t pool_len = why ? 0 : len - TRIE_SIZE_BYTES - trie_bytes;
    if (!why && !utf8_valid(pool, pool_len)) why = "its string pool is not UTF-8 (HF refuses it)";
    hf_charsmap *m = NULL;
    if (!why) {
        m = xcalloc(1, sizeof *m);
        m->nunits = trie_bytes / UNIT_BYTES;
        m->units = xmalloc(m->nunits * sizeof *m->units);
        for (size_t i = 0; i < m->nunits; i++) /* little-endian units */
            m->units[i] = get_le32((const uint8_t *)blob + TRIE_SIZE_BYTES + 4 * i);
        m->pool = xmalloc(pool_len + 1);
        memcpy(m->pool, pool, pool_len);
        m->pool[pool_len] = 0;
        m->pool_len = pool_len;
        why = leaves_problem(m);
        for (int c = 0; c < ASCII; c++) {
            uint8_t b = (uint8_t)c;
            m->ascii[c] = first_match(m, &b, 1);
        }
    }
    free(blob);
    if (why) {
        buf_printf(err, "%s.precompiled_charsmap: %s", path, why);
        hf_charsmap_free(m);
        return NULL;
    }
    return m;
}

void hf_charsmap_free(hf_charsmap *m)
{
    if (!m) return;
    free(m->units);
    free(m->pool);
    free(m);
}

/* ---- applying ---- */

/* Appends the match's string, or k[0..n) itself when there is none; true when something matched. */
static bool put(const hf_charsmap *m, int32_t match, const char *k, size_t n, wbuf *out)
{
    if (match == NO_MATCH) {
        buf_append(out, k, n);
        return false;
    }
    buf_append(out, m->pool + match, strlen(m->pool + match));
    return true;
}

size_t hf_charsmap_apply(const hf_charsmap *m, const char *s, size_t n, size_t z, wbuf *out)
{
    const uint8_t *u = (const uint8_t *)s;
    size_t z_out = 0;
    for (size_t i = 0; i < n;) {
        size_t before = out->len, end;
        if (u[i] < ASCII && u[i] != '\r' && (i + 1 == n || u[i + 1] < ASCII)) { /* a one-character cluster */
            end = i + 1;
            put(m, m->ascii[u[i]], s + i, 1, out);
        } else {
            end = hf_grapheme_end(u, n, i);
            if (end - i >= WHOLE_CLUSTER_BELOW || !put(m, first_match(m, u + i, end - i), s + i, end - i, out)) {
                out->len = before;
                for (size_t k = i, len; k < end; k += len) {
                    len = utf8_valid_seq(u + k, end - k);
                    if (!len) len = 1;
                    put(m, len == 1 && u[k] < ASCII ? m->ascii[u[k]] : first_match(m, u + k, len), s + k, len, out);
                }
            }
        }
        if (i < z) z_out = out->len; /* what a cluster at offset 0 became shares that offset */
        i = end;
    }
    if (out->data) out->data[out->len] = 0;
    /* HF records a removed cluster as a change of the character written
     * before it; with none before, the removal is lost and the first
     * character written takes the place of the text's first: the text
     * still starts at offset 0 (Metaspace's "first") */
    if (z && !z_out && out->len) {
        size_t first = utf8_valid_seq((const uint8_t *)out->data, out->len);
        z_out = first ? first : 1;
    }
    return z_out;
}

size_t hf_nmt_apply(const char *s, size_t n, size_t z, wbuf *out)
{
    const uint8_t *u = (const uint8_t *)s;
    size_t z_out = 0;
    bool first_kept = true;
    for (size_t i = 0, len; i < n; i += len) {
        uint32_t c = utf8_decode(u + i, n - i, &len);
        if (!utf8_valid_seq(u + i, n - i)) c = 0; /* not UTF-8: kept as it is */
        bool removed = (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F || c == 0x8F ||
                       c == 0x9F;
        bool space = c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 || (c >= 0x200B && c <= 0x200F) ||
                     c == 0x2028 || c == 0x2029 || c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
        if (space) buf_putc(out, ' ');
        else if (!removed) buf_append(out, s + i, len);
        if (i == 0) first_kept = !removed;
        if (i < z) z_out = out->len; /* each character keeps its alignment */
    }
    if (out->data) out->data[out->len] = 0;
    /* a removed first character takes offset 0 with it: what follows keeps its own */
    return first_kept ? z_out : 0;
}
