/* bpe_device.h - the per-thread work of the GPU tokenizer, compiled for the
 * device and for the host emulation (CUDA C++ only; included by gpu/bpe.cu).
 *
 * The scanners are a line-by-line twin of tokenize/pretokenize.c (same
 * functions, same names, same order of alternatives) reading the Unicode
 * class tables through a pointer; the merge is tokenize/bpe.c's scan merge
 * and the lookup tokenize/vocab.c's hash, over device copies of the flat
 * arrays of tok_vocab; for a tokenizer.json, joins look up the pair of ids
 * in a copy of hf_bpe.c's merge hash (HF's rule). tests/unit/gpu_bpe_exact.c
 * and gpu_bpe_hf.c hold them to the CPU path on every test corpus. */
#ifndef WINNOW_GPU_BPE_DEVICE_H
#define WINNOW_GPU_BPE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "tokenize/bpe.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/pretokenize.h"
#include "tokenize/unicode_class.h"
#include "tokenize/vocab.h"

#define HD __host__ __device__ __forceinline__

#define GB_NOT_A_CHAR 0xFFFFFFFFu
#define GB_CLASS_WORDY (UCLASS_L | UCLASS_N | UCLASS_WS)
#define GB_NO_RANK UINT32_MAX
#define GB_HASH_MUL1 0x9E3779B97F4A7C15ull
#define GB_HASH_MUL2 0xC2B2AE3D27D4EB4Full
/* Pieces up to this many bytes that are not one token are merged on the
 * device (gb_merge); longer ones on the host by tokenize/bpe.c. */
#define GB_MERGE_MAX 128

/* Everything a thread reads besides the text: device (or host) pointers. */
typedef struct {
    const uint16_t *stage1;   /* the uclass_table's (tiktoken's, or onig's for a tokenizer.json) */
    const uint8_t *stage2;    /* its stage2, UCLASS_BLOCK bytes per block */
    int nblocks;              /* stage2's blocks */
    const vocab_slot *slots;  /* the vocabulary hash */
    uint32_t mask;
    const uint8_t *bytes;     /* token bytes */
    const uint64_t *tok_off;  /* by id */
    const uint32_t *tok_rank; /* by id; NULL: rank == id */
    const uint32_t *pair_id;  /* by b0 | b1 << 8 */
    const uint32_t *byte_id;  /* by byte */
    int family;
    int max_digits;           /* \p{N}{1,max_digits}: 3, or 1 (Qwen's and Tekken's patterns) */
    bool contractions;        /* o200k shape: words take 's 't ... after them (not Tekken's) */
    bool invalid_barrier;     /* split as PCRE2 with MATCH_INVALID_UTF does (gb_pretok_next) */
    /* a tokenizer.json BPE (merges not NULL): parts join by the rank of
     * their pair of ids in model.merges (tokenize/hf_bpe.c), not by the rank
     * of the joined string; with ignore_merges a piece that is a token is
     * taken whole first */
    const hf_merge_slot *merges;
    uint32_t merges_mask;
    bool ignore_merges;
    const uint8_t *whole; /* without ignore_merges, by id: 1 when merging the token's bytes gives
                           * the token itself, so a piece that is this token is taken whole */
} gb_tables;

/* ---- characters (pretokenize.c) ---- */

static HD uint32_t gb_char_at(const uint8_t *s, size_t n, size_t i, size_t *len)
{
    uint8_t b = s[i];
    if (b < 0x80) {
        *len = 1;
        return b;
    }
    size_t need;
    uint32_t cp, min;
    if ((b & 0xE0) == 0xC0) need = 2, cp = b & 0x1F, min = 0x80;
    else if ((b & 0xF0) == 0xE0) need = 3, cp = b & 0x0F, min = 0x800;
    else if ((b & 0xF8) == 0xF0) need = 4, cp = b & 0x07, min = 0x10000;
    else {
        *len = 1;
        return GB_NOT_A_CHAR;
    }
    if (i + need > n) {
        *len = 1;
        return GB_NOT_A_CHAR;
    }
    for (size_t k = 1; k < need; k++) {
        if ((s[i + k] & 0xC0) != 0x80) {
            *len = 1;
            return GB_NOT_A_CHAR;
        }
        cp = cp << 6 | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > UCLASS_MAX_CP || (cp >= 0xD800 && cp <= 0xDFFF)) {
        *len = 1;
        return GB_NOT_A_CHAR;
    }
    *len = need;
    return cp;
}

static HD uint8_t gb_uclass_of(const gb_tables *t, uint32_t cp)
{
    if (cp > UCLASS_MAX_CP) return 0;
    return t->stage2[(size_t)t->stage1[cp / UCLASS_BLOCK] * UCLASS_BLOCK + cp % UCLASS_BLOCK];
}

static HD uint8_t gb_class_at(const gb_tables *t, const uint8_t *s, size_t n, size_t i, size_t *len)
{
    if (s[i] < 0x80) {
        *len = 1;
        return t->stage2[s[i]];
    }
    return gb_uclass_of(t, gb_char_at(s, n, i, len));
}

static HD bool gb_is_cr_or_lf(uint8_t b) { return b == '\r' || b == '\n'; }

static HD size_t gb_run_with(const gb_tables *t, const uint8_t *s, size_t n, size_t i, uint8_t mask)
{
    size_t len;
    while (i < n && (gb_class_at(t, s, n, i, &len) & mask)) i += len;
    return i;
}

static HD size_t gb_run_other(const gb_tables *t, const uint8_t *s, size_t n, size_t i)
{
    size_t len;
    while (i < n && !(gb_class_at(t, s, n, i, &len) & GB_CLASS_WORDY)) i += len;
    return i;
}

/* run_bytes for the two tails the patterns use: [\r\n]* and [\r\n/]*. */
static HD size_t gb_run_newlines(const uint8_t *s, size_t n, size_t i, bool slash)
{
    while (i < n && (gb_is_cr_or_lf(s[i]) || (slash && s[i] == '/'))) i++;
    return i;
}

static HD size_t gb_contraction_at(const uint8_t *s, size_t n, size_t i, bool ignore_case)
{
    if (i + 1 >= n || s[i] != '\'') return 0;
    uint8_t a = s[i + 1], b = i + 2 < n ? s[i + 2] : 0;
    if (ignore_case) {
        if (a == 0xC5 && b == 0xBF) return 3;
        a = (uint8_t)(a | (a >= 'A' && a <= 'Z' ? 0x20 : 0));
        b = (uint8_t)(b | (b >= 'A' && b <= 'Z' ? 0x20 : 0));
    }
    switch (a) {
    case 's': case 't': case 'm': case 'd': return 2;
    case 'r': case 'v': return b == 'e' ? 3 : 0;
    case 'l': return b == 'l' ? 3 : 0;
    default: return 0;
    }
}

static HD size_t gb_whitespace_piece(const gb_tables *t, const uint8_t *s, size_t n, size_t i, bool with_newline_run)
{
    size_t j = i, last = i, len;
    size_t after_newline = 0;
    while (j < n && (gb_class_at(t, s, n, j, &len) & UCLASS_WS)) {
        if (gb_is_cr_or_lf(s[j])) after_newline = j + 1;
        last = j;
        j += len;
    }
    if (with_newline_run && after_newline) return after_newline;
    if (j == n) return j;
    if (last > i) return last;
    return j;
}

/* ---- gpt2 ---- */

static HD size_t gb_next_gpt2(const gb_tables *t, const uint8_t *s, size_t n, size_t i)
{
    size_t k = gb_contraction_at(s, n, i, false);
    if (k) return i + k;
    size_t len, len1;
    uint8_t c = gb_class_at(t, s, n, i, &len);
    if (s[i] == ' ' && i + 1 < n) {
        uint8_t c1 = gb_class_at(t, s, n, i + 1, &len1);
        if (c1 & UCLASS_L) return gb_run_with(t, s, n, i + 1, UCLASS_L);
        if (c1 & UCLASS_N) return gb_run_with(t, s, n, i + 1, UCLASS_N);
        if (!(c1 & GB_CLASS_WORDY)) return gb_run_other(t, s, n, i + 1);
    }
    if (c & UCLASS_L) return gb_run_with(t, s, n, i, UCLASS_L);
    if (c & UCLASS_N) return gb_run_with(t, s, n, i, UCLASS_N);
    if (!(c & GB_CLASS_WORDY)) return gb_run_other(t, s, n, i);
    return gb_whitespace_piece(t, s, n, i, false);
}

/* ---- cl100k ---- */

static HD size_t gb_digit_run(const gb_tables *t, const uint8_t *s, size_t n, size_t i)
{
    size_t len;
    for (int d = 0; d < t->max_digits && i < n && (gb_class_at(t, s, n, i, &len) & UCLASS_N); d++) i += len;
    return i;
}

static HD size_t gb_punctuation_piece(const gb_tables *t, const uint8_t *s, size_t n, size_t i, bool slash)
{
    size_t st = i, len;
    if (s[i] == ' ') st = i + 1;
    if (st >= n || (gb_class_at(t, s, n, st, &len) & GB_CLASS_WORDY)) return 0;
    return gb_run_newlines(s, n, gb_run_other(t, s, n, st), slash);
}

static HD bool gb_is_letter_prefix(uint8_t c, uint8_t b) { return !(c & (UCLASS_L | UCLASS_N)) && !gb_is_cr_or_lf(b); }

static HD size_t gb_next_cl100k(const gb_tables *t, const uint8_t *s, size_t n, size_t i)
{
    size_t k = t->contractions ? gb_contraction_at(s, n, i, true) : 0;
    if (k) return i + k;
    size_t len, len1;
    uint8_t c = gb_class_at(t, s, n, i, &len);
    if (c & UCLASS_L) return gb_run_with(t, s, n, i, UCLASS_L);
    if (gb_is_letter_prefix(c, s[i]) && i + len < n && (gb_class_at(t, s, n, i + len, &len1) & UCLASS_L))
        return gb_run_with(t, s, n, i + len, UCLASS_L);
    if (c & UCLASS_N) return gb_digit_run(t, s, n, i);
    size_t e = gb_punctuation_piece(t, s, n, i, false);
    if (e) return e;
    return gb_whitespace_piece(t, s, n, i, true);
}

/* ---- o200k ---- */

static HD size_t gb_with_contraction(const gb_tables *t, const uint8_t *s, size_t n, size_t e)
{
    return t->contractions ? e + gb_contraction_at(s, n, e, true) : e;
}

static HD size_t gb_upper_then_lower(const gb_tables *t, const uint8_t *s, size_t n, size_t st)
{
    size_t j = st, len, after_last_lower = 0;
    uint8_t c = 0;
    while (j < n && ((c = gb_class_at(t, s, n, j, &len)) & UCLASS_UPPERISH)) {
        if (c & UCLASS_LOWERISH) after_last_lower = j + len;
        j += len;
    }
    if (j < n && (c & UCLASS_LOWERISH)) return gb_with_contraction(t, s, n, gb_run_with(t, s, n, j, UCLASS_LOWERISH));
    if (after_last_lower) return gb_with_contraction(t, s, n, after_last_lower);
    return 0;
}

static HD size_t gb_upper_run_then_lower(const gb_tables *t, const uint8_t *s, size_t n, size_t st)
{
    size_t j = gb_run_with(t, s, n, st, UCLASS_UPPERISH);
    if (j == st) return 0;
    return gb_with_contraction(t, s, n, gb_run_with(t, s, n, j, UCLASS_LOWERISH));
}

static HD size_t gb_next_o200k(const gb_tables *t, const uint8_t *s, size_t n, size_t i)
{
    size_t len, e;
    uint8_t c = gb_class_at(t, s, n, i, &len);
    bool prefix = gb_is_letter_prefix(c, s[i]) && i + len < n;
    if (prefix && (e = gb_upper_then_lower(t, s, n, i + len))) return e;
    if ((e = gb_upper_then_lower(t, s, n, i))) return e;
    if (prefix && (e = gb_upper_run_then_lower(t, s, n, i + len))) return e;
    if ((e = gb_upper_run_then_lower(t, s, n, i))) return e;
    if (c & UCLASS_N) return gb_digit_run(t, s, n, i);
    if ((e = gb_punctuation_piece(t, s, n, i, true))) return e;
    return gb_whitespace_piece(t, s, n, i, true);
}

/* The end of the run of bytes from i that belong to no valid character. */
static HD size_t gb_invalid_run(const uint8_t *s, size_t n, size_t i)
{
    size_t len;
    while (i < n && gb_char_at(s, n, i, &len) == GB_NOT_A_CHAR) i += len;
    return i;
}

/* The first byte in [i, stop) that belongs to no valid character, or stop. */
static HD size_t gb_valid_run(const uint8_t *s, size_t n, size_t i, size_t stop)
{
    size_t len;
    while (i < stop && gb_char_at(s, n, i, &len) != GB_NOT_A_CHAR) i += len;
    return i;
}

/* pretok_next(): end offset (> i) of the piece that starts at i.
 * With invalid_barrier (Qwen's and Tekken's patterns, which the CPU path
 * runs in PCRE2 with MATCH_INVALID_UTF: no match holds an invalid byte),
 * a run of bytes outside valid characters is a piece of its own and the
 * valid text around it is scanned as if it ended there. stop (<= n) is
 * where the caller's chunk ends, a safe cut that no piece crosses and that
 * no invalid run straddles; *barrier (0 at the chunk's start and at each
 * new document) remembers the next invalid byte before stop, so each byte
 * is checked once. */
static HD size_t gb_pretok_next(const gb_tables *t, const uint8_t *s, size_t n, size_t i, size_t stop,
                                size_t *barrier)
{
    if (t->invalid_barrier) {
        size_t len;
        if (*barrier <= i) {
            if (gb_char_at(s, n, i, &len) == GB_NOT_A_CHAR) return gb_invalid_run(s, n, i);
            *barrier = gb_valid_run(s, n, i, stop);
        }
        if (*barrier < stop) n = *barrier;
    }
    switch (t->family) {
    case PRETOK_CL100K: return gb_next_cl100k(t, s, n, i);
    case PRETOK_O200K: return gb_next_o200k(t, s, n, i);
    default: return gb_next_gpt2(t, s, n, i);
    }
}

/* ---- safe cut points ---- */

/* True when every family's scan, started anywhere before, ends a piece at
 * p, so that scanning from p gives the pieces a scan of the whole text
 * gives from there. c1 is the class of the character that ends at p, c2
 * that of the one at p (whose first byte is b2). Three cases:
 *  - a letter, then neither letter, mark nor apostrophe: every alternative
 *    that can hold a letter (letter runs, o200k's words with marks and a
 *    contraction after) stops there, and no other alternative holds one;
 *  - a digit (\p{N}), then no digit: digits occur only in the digit
 *    alternatives (\p{N}{1,3}, gpt2's " ?\p{N}+"), which stop there;
 *  - neither letter, digit nor white space, then a digit: that character
 *    is in a punctuation run (or o200k's marks of a word), which stops
 *    before a digit, and it can prefix letters only, not digits. */
static HD bool gb_is_safe_cut(uint8_t c1, uint8_t c2, uint8_t b2)
{
    const uint8_t wordish = UCLASS_L | UCLASS_UPPERISH | UCLASS_LOWERISH;
    if (c1 & UCLASS_L) return !(c2 & wordish) && b2 != '\'';
    if (c1 & UCLASS_N) return !(c2 & UCLASS_N);
    return !(c1 & GB_CLASS_WORDY) && (c2 & UCLASS_N);
}

/* The first safe cut p with from < p < to (to <= n), or 0 when none.
 * Decoding may start inside a character: continuation bytes are skipped
 * first, since every other byte starts a character for pretokenize.c's
 * decoder too. */
static HD size_t gb_find_cut(const gb_tables *t, const uint8_t *s, size_t n, size_t from, size_t to)
{
    size_t i = from, len1, len2;
    while (i < to && (s[i] & 0xC0) == 0x80) i++;
    if (i >= to) return 0;
    uint8_t c1 = gb_class_at(t, s, n, i, &len1);
    for (size_t p = i + len1; p < to; p += len2) {
        uint8_t c2 = gb_class_at(t, s, n, p, &len2);
        if (gb_is_safe_cut(c1, c2, s[p])) return p;
        c1 = c2;
    }
    return 0;
}

/* ---- vocabulary (vocab.c) ---- */

static HD uint64_t gb_load_le(const uint8_t *s, size_t len)
{
    uint64_t h = 0;
    for (size_t k = 0; k < len; k++) h |= (uint64_t)s[k] << (8 * k);
    return h;
}

static HD uint32_t gb_vocab_find(const gb_tables *t, const uint8_t *s, size_t len)
{
    if (len == 0) return VOCAB_NO_TOKEN;
    uint64_t head = gb_load_le(s, len < VOCAB_HEAD_BYTES ? len : VOCAB_HEAD_BYTES);
    uint64_t h = (head ^ len) * GB_HASH_MUL1;
    for (size_t i = VOCAB_HEAD_BYTES; i < len; i += VOCAB_HEAD_BYTES) {
        uint64_t w = gb_load_le(s + i, len - i < VOCAB_HEAD_BYTES ? len - i : VOCAB_HEAD_BYTES);
        h = (h ^ w) * GB_HASH_MUL2;
        h ^= h >> 29;
    }
    h ^= h >> 32;
    for (uint32_t i = (uint32_t)h & t->mask;; i = (i + 1) & t->mask) {
        const vocab_slot *sl = &t->slots[i];
        if (!sl->len) return VOCAB_NO_TOKEN;
        if (sl->len != len || sl->head != head) continue;
        if (len <= VOCAB_HEAD_BYTES) return sl->id;
        const uint8_t *tok = t->bytes + t->tok_off[sl->id];
        size_t k = VOCAB_HEAD_BYTES;
        while (k < len && tok[k] == s[k]) k++;
        if (k == len) return sl->id;
    }
}

static HD uint32_t gb_join_id(const gb_tables *t, const uint8_t *s, size_t len, uint32_t *rank)
{
    uint32_t id = len == 2 ? t->pair_id[s[0] | (unsigned)s[1] << 8] : gb_vocab_find(t, s, len);
    *rank = id == VOCAB_NO_TOKEN ? GB_NO_RANK : (t->tok_rank ? t->tok_rank[id] : id);
    return id;
}

/* The merge of the parts with ids left and right in a tokenizer.json's
 * model.merges (hf_bpe.c's merge_find: the same key, hash and probing):
 * the new id, with *rank its place in merges (GB_NO_RANK: none). */
static HD uint32_t gb_pair_merge(const gb_tables *t, uint32_t left, uint32_t right, uint32_t *rank)
{
    uint64_t key = ((uint64_t)left << 32 | right) + 1;
    for (uint32_t i = (uint32_t)((key * GB_HASH_MUL1) >> 32) & t->merges_mask;; i = (i + 1) & t->merges_mask) {
        const hf_merge_slot *sl = &t->merges[i];
        if (sl->key == key) {
            *rank = (uint32_t)(sl->value >> 32);
            return (uint32_t)sl->value;
        }
        if (!sl->key) {
            *rank = GB_NO_RANK;
            return VOCAB_NO_TOKEN;
        }
    }
}

/* The join of the neighbouring parts s[at, mid) (id left) and s[mid, end)
 * (id right): by pair rank (tokenizer.json) or by the rank of the joined
 * string (tiktoken). */
static HD uint32_t gb_join(const gb_tables *t, const uint8_t *s, uint32_t at, uint32_t end, uint32_t left,
                           uint32_t right, uint32_t *rank)
{
    if (t->merges) return gb_pair_merge(t, left, right, rank);
    return gb_join_id(t, s + at, end - at, rank);
}

/* bpe.c's merge_by_scan (parts as a linked list over byte positions, the
 * lowest rank joined first, the leftmost on ties; for a tokenizer.json the
 * rank of the pair, as hf_bpe.c's merge_scan) for a piece of
 * 2..GB_MERGE_MAX bytes; writes the ids to out and returns how many. */
static HD uint32_t gb_merge(const gb_tables *t, const uint8_t *s, uint32_t n, uint32_t *out)
{
    uint8_t next[GB_MERGE_MAX], prev[GB_MERGE_MAX]; /* n: none */
    uint32_t rank[GB_MERGE_MAX], join[GB_MERGE_MAX], id[GB_MERGE_MAX];
    for (uint32_t i = 0; i < n; i++) {
        next[i] = (uint8_t)(i + 1);
        prev[i] = (uint8_t)(i ? i - 1 : n);
        id[i] = t->byte_id[s[i]];
    }
    for (uint32_t i = 0; i + 1 < n; i++) join[i] = gb_join(t, s, i, i + 2, id[i], id[i + 1], &rank[i]);
    rank[n - 1] = GB_NO_RANK;
    for (;;) {
        uint32_t best = 0, best_rank = GB_NO_RANK;
        for (uint32_t p = 0; p + 1 < n; p++)
            if (rank[p] < best_rank) best_rank = rank[p], best = p;
        if (best_rank == GB_NO_RANK) break;
        uint32_t gone = next[best], before = prev[best];
        id[best] = join[best];
        rank[gone] = GB_NO_RANK;
        next[best] = next[gone];
        if (next[best] < n) {
            prev[next[best]] = (uint8_t)best;
            join[best] = gb_join(t, s, best, next[next[best]], id[best], id[next[best]], &rank[best]);
        } else {
            rank[best] = GB_NO_RANK;
        }
        if (before < n) join[before] = gb_join(t, s, before, next[best], id[before], id[best], &rank[before]);
    }
    uint32_t m = 0;
    for (uint32_t p = 0; p < n; p = next[p]) out[m++] = id[p];
    return m;
}

/* gb_merge's state for one warp, in shared memory. */
typedef struct {
    uint32_t rank[GB_MERGE_MAX], join[GB_MERGE_MAX], id[GB_MERGE_MAX];
    uint8_t next[GB_MERGE_MAX], prev[GB_MERGE_MAX];
} gb_warp_merge;

/* gb_merge done by a whole warp (every lane calls it with the same piece):
 * the lanes share the search for the lowest rank (leftmost on ties, as a
 * minimum of rank << 32 | position) and the two lookups after each join,
 * so a long piece costs O(n) steps of O(n / 32) each. Returns the number of
 * ids, in every lane. */
static __device__ uint32_t gb_merge_warp(const gb_tables *t, const uint8_t *s, uint32_t n, uint32_t *out,
                                         gb_warp_merge *w)
{
    const uint32_t lane = threadIdx.x % 32, all = 0xFFFFFFFFu;
    for (uint32_t i = lane; i < n; i += 32) {
        w->next[i] = (uint8_t)(i + 1);
        w->prev[i] = (uint8_t)(i ? i - 1 : n);
        w->id[i] = t->byte_id[s[i]];
        if (i + 1 < n) w->join[i] = gb_join(t, s, i, i + 2, t->byte_id[s[i]], t->byte_id[s[i + 1]], &w->rank[i]);
        else w->rank[i] = GB_NO_RANK;
    }
    __syncwarp();
    for (;;) {
        uint64_t best = UINT64_MAX;
        for (uint32_t i = lane; i + 1 < n; i += 32) {
            uint64_t key = (uint64_t)w->rank[i] << 32 | i;
            if (key < best) best = key;
        }
        for (int d = 16; d; d >>= 1) {
            uint64_t other = __shfl_xor_sync(all, best, d);
            if (other < best) best = other;
        }
        uint32_t at = (uint32_t)best;
        if ((uint32_t)(best >> 32) == GB_NO_RANK) break;
        if (lane == 0) {
            uint32_t gone = w->next[at];
            w->id[at] = w->join[at];
            w->rank[gone] = GB_NO_RANK;
            w->next[at] = w->next[gone];
            if (w->next[at] < n) w->prev[w->next[at]] = (uint8_t)at;
            else w->rank[at] = GB_NO_RANK;
        }
        __syncwarp();
        uint32_t after = w->next[at], before = w->prev[at];
        if (lane == 0 && after < n)
            w->join[at] = gb_join(t, s, at, w->next[after], w->id[at], w->id[after], &w->rank[at]);
        if (lane == 1 && before < n)
            w->join[before] = gb_join(t, s, before, after, w->id[before], w->id[at], &w->rank[before]);
        __syncwarp();
    }
    uint32_t m = 0;
    if (lane == 0)
        for (uint32_t p = 0; p < n; p = w->next[p]) out[m++] = w->id[p];
    return __shfl_sync(all, m, 0);
}

#endif
