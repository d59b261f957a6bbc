/* hf_bpe.c - HF tokenizers' BPE model: merges ranked by their place in
 * model.merges, applied to a word by a priority queue (lowest rank, then
 * leftmost; a queued merge is dropped when its pair no longer makes the
 * same token), as HF's Word::merge_all. ignore_merges looks the whole word
 * up first; characters missing from the vocab become their "<0xXX>" byte
 * tokens (byte_fallback) or the unknown token (fused with fuse_unk), or are
 * dropped when there is neither. Byte-level models work on bytes (their
 * token strings are decoded from GPT-2's byte alphabet), others on UTF-8
 * characters. continuing_subword_prefix goes before each character of a
 * word but the first and end_of_word_suffix after its last, and a merge
 * makes its left part joined to its right part less the prefix's length
 * (HF's build, whether or not the right part starts with the prefix).
 * dropout is refused. Each thread remembers the ids of recent words. A word of a
 * model that is not byte-level is split and cut, before merging, where no
 * merge of the file can join its two sides (next_part, cut_word). */
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/rank_scan.h"

#define LOOKUP_BATCH 16 /* merge lookups started together when a word is set up */
#define BYTE_PAIRS (1u << 16)
#define LOAD_BATCH 16 /* tokens or merges whose vocabulary lookups are started together when loading */
#define CHAR_PAIR_BITS 8       /* filter bits per non-ASCII character pair that merges join */
#define CHAR_PAIR_MIN_WORDS 64 /* its smallest size, in 64-bit words */
#define PART_BATCH 16 /* parts of a long word whose remembered words are loaded together */
#define SPACE_MARK "\xE2\x96\x81" /* U+2581, SentencePiece's space */
#define SPACE_MARK_CP 0x2581
#define SCAN_MAX 24 /* words of up to this many symbols merge by scanning for the lowest rank */
#define SCAN_VECTORS ((SCAN_MAX - 1 + RANK_LANES - 1) / RANK_LANES) /* groups of RANK_LANES that hold its pairs' ranks */
#define NO_CHAR UINT32_MAX
#define PAIR_FILTER_BITS_PER_MERGE 8 /* a pair without a merge passes the filter about 1 time in 8 (16 and 32 bits, 4 bits were slower on Gemma) */
#define BYTE_TOKEN_LEN 6 /* "<0xHH>" */
#define PACKED_MUL 0x9E3779B97F4A7C15ull /* odd: the packed table's hash is one to one */
#define PACKED_PROBE_BITS 6              /* bits of a packed slot's distance from its pair's first probe (plus one) */
#define PACKED_PROBES (1u << PACKED_PROBE_BITS)

/* The bytes a token string stands for: decoded from GPT-2's alphabet
 * (byte_level) or itself. */
static bool token_bytes(bool byte_level, const char *s, size_t n, wbuf *out)
{
    buf_clear(out);
    if (!byte_level) {
        buf_append(out, s, n);
        return n > 0;
    }
    return hf_bytes_of_chars(s, n, out) && out->len > 0;
}

/* The byte a vocab string "<0xXX>" names (HF writes format!("<{:#04X}>")), or -1. */
static int byte_token_value(const char *key)
{
    static const char digits[] = "0123456789ABCDEF";
    if (strlen(key) != 6 || memcmp(key, "<0x", 3) || key[5] != '>' || !key[3] || !key[4]) return -1;
    const char *hi = strchr(digits, key[3]), *lo = strchr(digits, key[4]);
    return hi && lo ? (int)((hi - digits) << 4 | (lo - digits)) : -1;
}

/* Whether s[0..BYTE_TOKEN_LEN) reads "<0xHH>" (H an upper-case hex digit). */
static bool byte_token_string(const char *s)
{
    char key[BYTE_TOKEN_LEN + 1];
    memcpy(key, s, BYTE_TOKEN_LEN);
    key[BYTE_TOKEN_LEN] = 0;
    return byte_token_value(key) >= 0;
}

/* The character that ends at s[end) (end > 0), and where it starts; an invalid byte is itself. */
static uint32_t char_ending_at(const char *s, size_t end, size_t *start)
{
    size_t k = end - 1;
    while (k > 0 && end - k < 4 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    size_t len;
    if (utf8_valid_seq((const unsigned char *)s + k, end - k) != end - k) {
        *start = end - 1;
        return 0x100000u | (unsigned char)s[end - 1]; /* no character's code */
    }
    *start = k;
    return utf8_decode((const unsigned char *)s + k, end - k, &len);
}

/* How many bits hold the values 0..v (at least 1). */
static int bits_for(uint32_t v)
{
    int bits = 1;
    while (bits < 32 && v >> bits) bits++;
    return bits;
}

static uint64_t merge_key(uint32_t a, uint32_t b) { return ((uint64_t)a << 32 | b) + 1; }

static uint32_t merge_slot_of(uint64_t key, uint32_t mask)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & mask;
}

/* The packed table's hash of pair (a, b): its id_bits-wide ids side by side
 * times an odd constant. Its low 2 id_bits bits are a one-to-one map of the
 * pair: their high bits pick the slot it starts at, and their low rem_bits
 * with that slot name the pair; its top bits pick its pair-filter bit. */
static inline uint64_t packed_hash(const hf_bpe *m, uint32_t a, uint32_t b)
{
    return ((uint64_t)a << m->id_bits | b) * PACKED_MUL;
}

/* What a lookup of pair (a, b) starts from, computed once for its prefetch
 * and its find: the packed hash, or the 16-byte table's key. */
static inline uint64_t pair_probe(const hf_bpe *m, uint32_t a, uint32_t b)
{
    return m->packed ? packed_hash(m, a, b) : merge_key(a, b);
}

/* The slot where the lookup of this probe starts. */
static inline uint32_t probe_slot(const hf_bpe *m, uint64_t probe)
{
    return m->packed ? (uint32_t)((probe & m->pair_mask) >> m->rem_bits) : merge_slot_of(probe, m->merges_mask);
}

/* The bit of the pair filter that the pair of this probe sets. */
static inline uint64_t filter_bit(const hf_bpe *m, uint64_t probe)
{
    return (m->packed ? probe : probe * 0xA0761D6478BD642Full) >> m->pair_filter_shift;
}

/* Starts loading the merge table's first slot for this probe, and its filter word. */
static inline __attribute__((always_inline)) void probe_prefetch(const hf_bpe *m, uint64_t probe)
{
    uint32_t i = probe_slot(m, probe);
    __builtin_prefetch(m->packed ? (const void *)&m->packed[i] : (const void *)&m->merges[i]);
    __builtin_prefetch(&m->pair_filter[filter_bit(m, probe) / 64]);
}

/* The merge of the pair of this probe: true with its rank and new id. In
 * the packed table, the slot whose tag is the pair's low hash bits above
 * its distance from the first slot plus one. */
static inline __attribute__((always_inline)) bool probe_find(const hf_bpe *m, uint64_t probe, uint32_t *rank,
                                                             uint32_t *new_id)
{
    uint64_t bit = filter_bit(m, probe);
    if (!(m->pair_filter[bit / 64] >> (bit % 64) & 1)) return false;
    if (m->packed) {
        uint64_t tag = (probe & m->rem_mask) << PACKED_PROBE_BITS | 1;
        for (uint32_t i = probe_slot(m, probe);; i = (i + 1) & m->merges_mask) {
            uint64_t v = m->packed[i];
            if (v >> m->tag_shift == tag) {
                *rank = (uint32_t)(v >> m->id_bits & m->rank_mask);
                *new_id = (uint32_t)(v & m->id_mask);
                return true;
            }
            if (!v || (++tag & (PACKED_PROBES - 1)) == PACKED_PROBES - 1) return false; /* no pair lies so far */
        }
    }
    for (uint32_t i = probe_slot(m, probe);; i = (i + 1) & m->merges_mask) {
        const hf_merge_slot *sl = &m->merges[i];
        if (sl->key == probe) {
            *rank = (uint32_t)(sl->value >> 32);
            *new_id = (uint32_t)sl->value;
            return true;
        }
        if (!sl->key) return false;
    }
}

/* The merge of pair (a, b): true with its rank and new id. */
static inline __attribute__((always_inline)) bool merge_find(const hf_bpe *m, uint32_t a, uint32_t b, uint32_t *rank,
                                                             uint32_t *new_id)
{
    return probe_find(m, pair_probe(m, a, b), rank, new_id);
}

/* Starts loading what merge_find of pair (a, b) reads. */
static inline __attribute__((always_inline)) void slot_prefetch(const hf_bpe *m, uint32_t a, uint32_t b)
{
    probe_prefetch(m, pair_probe(m, a, b));
}

/* The id of the character s[0..len) (len 2..4, avail >= len bytes readable
 * from s) through the thread's recent lookups. */
static inline uint32_t char_id(const tok_vocab *vocab, hf_scratch *h, const uint8_t *s, size_t len, size_t avail)
{
    uint32_t bytes = 0;
    if (avail >= sizeof bytes) { /* one load, not len byte stores read back at once (a stalled forward) */
        memcpy(&bytes, s, sizeof bytes);
        bytes &= UINT32_MAX >> (32 - 8 * len);
    } else {
        memcpy(&bytes, s, len);
    }
    hf_char_entry *e = &h->chars[(bytes * 0x9E3779B1u) >> (32 - HF_CHAR_BITS)];
    if (e->bytes != bytes) *e = (hf_char_entry){bytes, vocab_find(vocab, s, len)};
    return e->id;
}

/* Puts merge (a, b) -> new_id of this rank into the 16-byte table; a
 * repeated pair takes the later rank, as HF. */
static void merge_put_wide(hf_bpe *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t new_id)
{
    uint64_t key = merge_key(a, b);
    uint32_t i = merge_slot_of(key, m->merges_mask);
    while (m->merges[i].key && m->merges[i].key != key) i = (i + 1) & m->merges_mask;
    m->merges[i] = (hf_merge_slot){key, (uint64_t)rank << 32 | new_id};
}

/* The same in the packed table; false when the pair would lie
 * PACKED_PROBES - 1 or more slots from its first probe. */
static bool merge_put_packed(hf_bpe *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t new_id)
{
    uint64_t x = packed_hash(m, a, b);
    uint64_t tag = (x & m->rem_mask) << PACKED_PROBE_BITS | 1;
    uint32_t i = probe_slot(m, x);
    for (; m->packed[i] && m->packed[i] >> m->tag_shift != tag; i = (i + 1) & m->merges_mask)
        if ((++tag & (PACKED_PROBES - 1)) == PACKED_PROBES - 1) return false;
    m->packed[i] = tag << m->tag_shift | (uint64_t)rank << m->id_bits | new_id;
    return true;
}

/* Sets the pair filter's bit for pair (a, b) (after the table's layout is settled). */
static void filter_put(hf_bpe *m, uint32_t a, uint32_t b)
{
    uint64_t bit = filter_bit(m, pair_probe(m, a, b));
    m->pair_filter[bit / 64] |= 1ull << (bit % 64);
}

/* Moves the packed table's merges into a 16-byte table of as many slots,
 * and their pair-filter bits to where that table's hash puts them. */
static void unpack_merges(hf_bpe *m)
{
    uint64_t inverse = PACKED_MUL; /* of PACKED_MUL modulo 2^64, by Newton's iteration */
    for (int k = 0; k < 6; k++) inverse *= 2 - PACKED_MUL * inverse;
    uint64_t *packed = m->packed;
    m->packed = NULL;
    m->merges = xcalloc_huge((size_t)m->merges_mask + 1, sizeof *m->merges);
    memset(m->pair_filter, 0, ((size_t)1 << (64 - m->pair_filter_shift)) / 8);
    for (uint32_t i = 0; i <= m->merges_mask; i++) {
        uint64_t v = packed[i];
        if (!v) continue;
        uint64_t tag = v >> m->tag_shift;
        uint32_t first = (i - (uint32_t)((tag & (PACKED_PROBES - 1)) - 1)) & m->merges_mask;
        uint64_t x = (uint64_t)first << m->rem_bits | tag >> PACKED_PROBE_BITS;
        uint64_t pair = (x * inverse) & m->pair_mask;
        uint32_t a = (uint32_t)(pair >> m->id_bits), b = (uint32_t)(pair & m->id_mask);
        merge_put_wide(m, a, b, (uint32_t)(v >> m->id_bits & m->rank_mask), (uint32_t)(v & m->id_mask));
        filter_put(m, a, b);
    }
    free(packed);
}

/* Puts merge (a, b) -> new_id of this rank into the merge table and its bit into the pair filter. */
static void merge_put(hf_bpe *m, uint32_t a, uint32_t b, uint32_t rank, uint32_t new_id)
{
    if (!m->packed || !merge_put_packed(m, a, b, rank, new_id)) {
        if (m->packed) unpack_merges(m); /* a cluster too long for the tags (never seen in a real file) */
        merge_put_wide(m, a, b, rank, new_id);
    }
    filter_put(m, a, b);
}

/* Reads the token string of a merge part: "a b" or ["a", "b"]. */
static bool merge_parts(const hj_node *mg, const char **a, size_t *alen, const char **b, size_t *blen)
{
    if (mg->type == HJ_ARRAY && mg->len == 2 && mg->items[0].type == HJ_STRING && mg->items[1].type == HJ_STRING) {
        *a = mg->items[0].str, *alen = mg->items[0].len;
        *b = mg->items[1].str, *blen = mg->items[1].len;
        return true;
    }
    if (mg->type != HJ_STRING) return false;
    const char *sp = memchr(mg->str, ' ', mg->len);
    if (!sp || memchr(sp + 1, ' ', mg->len - (size_t)(sp + 1 - mg->str))) return false;
    *a = mg->str, *alen = (size_t)(sp - mg->str);
    *b = sp + 1, *blen = mg->len - *alen - 1;
    return true;
}

/* The two bits of filter word a pair key (a << 16 | b) sets, and the word's index (in *word). */
static inline uint64_t char_pair_bits(const hf_bpe *m, uint32_t key, uint32_t *word)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    *word = (uint32_t)(h >> 32) & m->char_pairs_mask;
    return 1ull << (h & 63) | 1ull << (h >> 6 & 63);
}

/* Whether a merge may join a symbol that ends with character a (flags fa)
 * to one that starts with b (fb), both known characters below HF_CUT_CHARS:
 * false proves none does; true for a pair of non-ASCII characters may be
 * the filter's error (which only leaves a cut or split unmade). */
static inline bool may_join(const hf_bpe *m, uint32_t a, uint8_t fa, uint32_t b, uint8_t fb)
{
    if (!(fa & HF_CHAR_NEXT) || !(fb & HF_CHAR_PREV)) return false;
    if ((a | b) < 0x80) return m->ascii_pairs[2 * a + b / 64] >> (b % 64) & 1;
    uint32_t word;
    uint64_t bits = char_pair_bits(m, a << 16 | b, &word);
    return (m->char_pairs[word] & bits) == bits;
}

/* The flags cut_word reads for a character (HF_CUT_CHARS: invalid UTF-8, above the BMP or none). */
static inline uint8_t cut_flags(const hf_bpe *m, uint32_t cp)
{
    if (cp >= HF_CUT_CHARS) return 0;
    uint8_t flags = m->char_flags[cp];
    return !(flags & HF_CHAR_KNOWN) && m->cut_beside_bytes ? flags | HF_CHAR_BYTES : flags;
}

/* Whether cut_word cuts between character a and the next one, b (cut_flags fa, fb). */
static inline bool cut_between(const hf_bpe *m, uint32_t a, uint8_t fa, uint32_t b, uint8_t fb)
{
    if (fa & fb & HF_CHAR_KNOWN) return !may_join(m, a, fa, b, fb);
    return (fa | fb) & HF_CHAR_BYTES && (fa & (HF_CHAR_KNOWN | HF_CHAR_BYTES)) && (fb & (HF_CHAR_KNOWN | HF_CHAR_BYTES));
}

/* The first character of s[0..n), or NO_CHAR when it is not valid UTF-8. */
static uint32_t first_char(const uint8_t *s, size_t n)
{
    size_t len;
    return utf8_valid_seq(s, n) ? utf8_decode(s, n, &len) : NO_CHAR;
}

/* Reads which characters are tokens (from the vocab strings, keys) and
 * which pairs of characters a merge joins (the last of its left part, the
 * first of its right part) for cutting words (cut_words): a merge across
 * the place where a and b meet makes a token of a symbol that ends with a
 * and one that starts with b, so where no merge has that pair, none ever
 * crosses. Leaves cut_words false when a merge part is not valid UTF-8.
 * U+0000 never counts as known. Pairs of ASCII characters go into a
 * bitmap, the others into a filter of CHAR_PAIR_BITS bits a pair, two set
 * for each, in one 64-bit word (32 KB for Gemma 3's 30 k pairs, where the
 * exact set was 256 KB and its misses stalled cut_word): about 5% of the
 * pairs no merge joins pass it, and are not cut, which is exact too. */
static void load_char_pairs(hf_bpe *m, char *const *keys, size_t nkeys, const hj_node *merges)
{
    m->char_flags = xcalloc(HF_CUT_CHARS, 1);
    m->ascii_pairs = xcalloc(2 * 128, sizeof *m->ascii_pairs);
    for (size_t t = 0; t < nkeys; t++) {
        size_t klen = strlen(keys[t]);
        uint32_t cp = first_char((const uint8_t *)keys[t], klen);
        if (cp != NO_CHAR && cp && cp < HF_CUT_CHARS && utf8_valid_seq((const uint8_t *)keys[t], klen) == klen)
            m->char_flags[cp] |= HF_CHAR_KNOWN;
    }
    uint32_t *pairs = xmalloc((merges->len + 1) * sizeof *pairs);
    size_t npairs = 0;
    bool byte_edge = false; /* a merge part starts or ends with a byte token's string */
    for (size_t i = 0; i < merges->len; i++) {
        const char *a, *b;
        size_t alen, blen, start;
        if (!merge_parts(&merges->items[i], &a, &alen, &b, &blen) || !alen || !blen) goto out; /* refused later */
        uint32_t last = char_ending_at(a, alen, &start), next = first_char((const uint8_t *)b, blen);
        if (utf8_valid_seq((const uint8_t *)a + start, alen - start) != alen - start || next == NO_CHAR) goto out;
        byte_edge |= (alen >= BYTE_TOKEN_LEN && byte_token_string(a + alen - BYTE_TOKEN_LEN)) ||
                     (blen >= BYTE_TOKEN_LEN && byte_token_string(b));
        if (last >= HF_CUT_CHARS || next >= HF_CUT_CHARS) continue; /* never known: never cut beside */
        m->char_flags[last] |= HF_CHAR_NEXT;
        m->char_flags[next] |= HF_CHAR_PREV;
        if ((last | next) < 0x80) m->ascii_pairs[2 * last + next / 64] |= 1ull << (next % 64);
        else pairs[npairs++] = last << 16 | next;
    }
    uint32_t words = CHAR_PAIR_MIN_WORDS;
    while (words * 64 < CHAR_PAIR_BITS * npairs) words *= 2;
    m->char_pairs = xcalloc(words, sizeof *m->char_pairs);
    m->char_pairs_mask = words - 1;
    for (size_t i = 0; i < npairs; i++) {
        uint32_t word;
        uint64_t bits = char_pair_bits(m, pairs[i], &word);
        m->char_pairs[word] |= bits;
    }
    m->cut_words = true;
    bool bytes = m->byte_fallback; /* every byte is a token itself or has a byte token: nothing becomes unk */
    for (int b = 0; b < 256 && bytes; b++)
        bytes = m->byte_token[b] != VOCAB_NO_TOKEN || (b > 0 && b < 0x80 && m->char_flags[b] & HF_CHAR_KNOWN);
    m->cut_beside_bytes = bytes && !byte_edge;
    for (uint32_t a = 0; a < 0x80; a++)
        for (uint32_t b = 0; b < 0x80; b++)
            if (cut_between(m, a, cut_flags(m, a), b, cut_flags(m, b))) m->ascii_cuts[2 * a + b / 64] |= 1ull << (b % 64);
out:
    free(pairs);
}

/* Whether a U+2581 never joins what comes before it when that is a
 * character that is no token: nothing is ever dropped (there is an unknown
 * token, or byte_fallback with all 256 byte tokens), and no merge's right
 * part that starts with U+2581 has a left part that ends with a byte
 * token's string or the unknown token's. */
static bool unknown_never_joins_mark(const hf_bpe *m, const hj_node *merges, const char *unk)
{
    bool all_bytes = m->byte_fallback;
    for (int b = 0; b < 256 && all_bytes; b++) all_bytes = m->byte_token[b] != VOCAB_NO_TOKEN;
    if (!all_bytes && m->unk == VOCAB_NO_TOKEN) return false;
    size_t unk_len = unk ? strlen(unk) : 0;
    for (size_t i = 0; i < merges->len; i++) {
        const char *a, *b;
        size_t alen, blen;
        if (!merge_parts(&merges->items[i], &a, &alen, &b, &blen)) return false; /* refused later */
        if (blen < 3 || memcmp(b, SPACE_MARK, 3)) continue;
        if ((alen >= BYTE_TOKEN_LEN && byte_token_string(a + alen - BYTE_TOKEN_LEN)) ||
            (unk_len && alen >= unk_len && !memcmp(a + alen - unk_len, unk, unk_len)))
            return false;
    }
    return true;
}

/* Reads the affix member key of model (null or a string) into *out,
 * *out_len as bytes (decoded when byte-level); *json_len: its length as
 * written (0 when null). 0, or -1 with a message. */
static int read_affix(const hf_bpe *m, const hj_node *model, const char *key, char **out, size_t *out_len,
                      size_t *json_len, wbuf *err)
{
    const hj_node *v = hj_get(model, key);
    *json_len = 0;
    if (!v || v->type == HJ_NULL) return 0;
    if (v->type != HJ_STRING) {
        buf_printf(err, "model.%s: not a string", key);
        return -1;
    }
    wbuf b = WBUF_INIT;
    if (v->len && !token_bytes(m->byte_level, v->str, v->len, &b)) {
        buf_printf(err, "model.%s: a character outside the byte-level alphabet", key);
        buf_free(&b);
        return -1;
    }
    *json_len = v->len;
    *out_len = b.len;
    *out = xmalloc(b.len + 1);
    if (b.len) memcpy(*out, b.data, b.len);
    (*out)[b.len] = 0;
    buf_free(&b);
    return 0;
}

/* Reads continuing_subword_prefix and end_of_word_suffix (HF: each null
 * or a string); *prefix_cut is the prefix's length as written. */
static int read_affixes(hf_bpe *m, const hj_node *model, size_t *prefix_cut, wbuf *err)
{
    size_t suffix_json;
    if (read_affix(m, model, "continuing_subword_prefix", &m->prefix, &m->prefix_len, prefix_cut, err) ||
        read_affix(m, model, "end_of_word_suffix", &m->suffix, &m->suffix_len, &suffix_json, err))
        return -1;
    m->affixes = m->prefix_len || m->suffix_len;
    if (m->affixes && m->byte_level && m->byte_fallback) { /* HF's byte tokens of the affixed characters */
        buf_printf(err, "model.byte_fallback: not supported with a prefix or suffix in a byte-level model");
        return -1;
    }
    return 0;
}

int hf_bpe_load(hf_bpe *m, const hj_node *model, bool byte_level, tok_vocab *vocab, wbuf *err)
{
    memset(m, 0, sizeof *m);
    m->unk = VOCAB_NO_TOKEN;
    for (int b = 0; b < 256; b++) m->byte_token[b] = VOCAB_NO_TOKEN;
    m->byte_level = byte_level;
    const hj_node *dropout = hj_get(model, "dropout");
    if (dropout && dropout->type != HJ_NULL && !(dropout->type == HJ_NUMBER && dropout->number == 0)) {
        buf_printf(err, "model.dropout: must be null or 0 (dropout makes encoding random)");
        return -1;
    }
    const hj_node *v;
    m->byte_fallback = (v = hj_get(model, "byte_fallback")) && v->type == HJ_BOOL && v->boolean;
    size_t prefix_cut; /* HF's prefix_len: the bytes of the prefix string cut from a merge's right part */
    if (read_affixes(m, model, &prefix_cut, err)) return -1;
    m->fuse_unk = (v = hj_get(model, "fuse_unk")) && v->type == HJ_BOOL && v->boolean;
    m->ignore_merges = (v = hj_get(model, "ignore_merges")) && v->type == HJ_BOOL && v->boolean;
    const hj_node *voc = hj_get(model, "vocab"), *merges = hj_get(model, "merges");
    if (!voc || voc->type != HJ_OBJECT) {
        buf_printf(err, "model.vocab: not an object");
        return -1;
    }
    if (!merges || merges->type != HJ_ARRAY) {
        buf_printf(err, "model.merges: not an array");
        return -1;
    }
    size_t nbytes = 0;
    for (size_t i = 0; i < voc->len; i++) nbytes += strlen(voc->keys[i]);
    m->vocab_size = (uint32_t)voc->len;
    vocab_init(&m->odd_keys);
    vocab_reserve(vocab, voc->len, nbytes);
    wbuf tb = WBUF_INIT, tb2 = WBUF_INIT;
    int rc = -1;
    for (size_t base = 0; base < voc->len; base += LOAD_BATCH) {
        /* a batch of tokens: their bytes and hashes, their slots loading together, then their entries */
        size_t end = base + LOAD_BATCH < voc->len ? base + LOAD_BATCH : voc->len;
        size_t off[LOAD_BATCH], len[LOAD_BATCH];
        uint64_t hash[LOAD_BATCH];
        bool plain[LOAD_BATCH];
        buf_clear(&tb);
        for (size_t i = base; i < end; i++) {
            const hj_node *idn = &voc->items[i];
            if (idn->type != HJ_NUMBER || idn->number < 0 || idn->number > VOCAB_MAX_ID ||
                idn->number != (uint32_t)idn->number) {
                buf_printf(err, "model.vocab[\"%.64s\"]: not a token id (0..%u)", voc->keys[i], VOCAB_MAX_ID);
                goto out;
            }
            const char *key = voc->keys[i];
            /* a string outside the byte alphabet can never be made from text; an added token may name it */
            plain[i - base] = token_bytes(byte_level, key, strlen(key), &tb2);
            if (!plain[i - base]) {
                if (key[0]) vocab_add(&m->odd_keys, key, strlen(key), (uint32_t)idn->number, (uint32_t)idn->number);
                hf_id_strings_put(&m->odd_names, (uint32_t)idn->number, key, strlen(key)); /* HF decodes it as it is */
                continue;
            }
            off[i - base] = tb.len, len[i - base] = tb2.len;
            buf_append(&tb, tb2.data, tb2.len);
            hash[i - base] = vocab_hash((const uint8_t *)tb2.data, tb2.len);
            vocab_prefetch_add(vocab, hash[i - base]);
        }
        for (size_t i = base; i < end; i++) {
            if (!plain[i - base]) continue;
            uint32_t id = (uint32_t)voc->items[i].number;
            const uint8_t *bytes = (const uint8_t *)tb.data + off[i - base];
            if (!vocab_add_hashed(vocab, bytes, len[i - base], hash[i - base], id, id) &&
                vocab_find_hashed(vocab, bytes, len[i - base], hash[i - base]) != id) {
                buf_printf(err, "model.vocab[\"%.64s\"]: id %u is given to another token too", voc->keys[i], id);
                goto out;
            }
            int byte = byte_token_value(voc->keys[i]);
            if (m->byte_fallback && byte >= 0) m->byte_token[byte] = id;
        }
    }
    const char *unk = hj_get_str(model, "unk_token");
    if (unk) {
        token_bytes(byte_level, unk, strlen(unk), &tb);
        m->unk = tb.len ? vocab_find(vocab, (const uint8_t *)tb.data, tb.len) : VOCAB_NO_TOKEN;
        if (m->unk == VOCAB_NO_TOKEN) {
            buf_printf(err, "model.unk_token: \"%.64s\" is not in the vocab", unk);
            goto out;
        }
    }
    if (!byte_level && !m->ignore_merges && !m->affixes) {
        load_char_pairs(m, voc->keys, voc->len, merges);
        m->split_at_space = m->cut_words && m->char_flags[SPACE_MARK_CP] & HF_CHAR_KNOWN;
        m->unknown_before_mark = m->split_at_space && unknown_never_joins_mark(m, merges, unk);
        uint8_t mark = m->char_flags[SPACE_MARK_CP];
        for (uint32_t c = 0; c < 0x80 && m->split_at_space; c++)
            if (m->char_flags[c] & HF_CHAR_KNOWN && !may_join(m, c, m->char_flags[c], SPACE_MARK_CP, mark))
                m->ascii_before_mark[c / 64] |= 1ull << (c % 64);
        m->mark_before_mark = m->split_at_space && !may_join(m, SPACE_MARK_CP, mark, SPACE_MARK_CP, mark);
    }
    if (byte_level && !m->affixes) {
        m->byte_pairs = xmalloc(BYTE_PAIRS * sizeof *m->byte_pairs);
        for (size_t i = 0; i < BYTE_PAIRS; i++) m->byte_pairs[i] = (hf_merge_value){UINT32_MAX, 0};
    }
    uint32_t slots = 16;
    while (slots < merges->len + merges->len / 3 + 16) slots *= 2; /* at most 3/4 full */
    m->merges_mask = slots - 1;
    int log2_bits = 6;
    while ((1ull << log2_bits) < (uint64_t)PAIR_FILTER_BITS_PER_MERGE * merges->len) log2_bits++;
    m->pair_filter = xcalloc((size_t)1 << (log2_bits - 6), sizeof *m->pair_filter);
    m->pair_filter_shift = (uint16_t)(64 - log2_bits);
    uint32_t max_id = 0;
    for (size_t i = 0; i < voc->len; i++)
        if ((uint32_t)voc->items[i].number > max_id) max_id = (uint32_t)voc->items[i].number;
    m->id_bits = (uint16_t)bits_for(max_id), m->rank_bits = (uint16_t)bits_for(merges->len ? (uint32_t)merges->len - 1 : 0);
    int slot_bits = bits_for(slots - 1);
    m->rem_bits = (uint16_t)(2 * m->id_bits > slot_bits ? 2 * m->id_bits - slot_bits : 0);
    m->pair_mask = ((uint64_t)1 << 2 * m->id_bits) - 1;
    m->id_mask = ((uint64_t)1 << m->id_bits) - 1, m->rank_mask = ((uint64_t)1 << m->rank_bits) - 1;
    m->rem_mask = ((uint64_t)1 << m->rem_bits) - 1;
    m->tag_shift = (uint16_t)(m->id_bits + m->rank_bits);
    /* byte-level models keep the 16-byte table: the GPU path reads it (gpu/bpe.cu) */
    if (!byte_level && m->tag_shift + m->rem_bits + PACKED_PROBE_BITS <= 64) m->packed = xcalloc_huge(slots, sizeof *m->packed);
    else m->merges = xcalloc_huge(slots, sizeof *m->merges);
    for (size_t base = 0; base < merges->len; base += LOAD_BATCH) {
        /* the merges of a batch: their strings' bytes, then their lookups with
         * the hash slots loaded together, then their entries */
        size_t end = base + LOAD_BATCH < merges->len ? base + LOAD_BATCH : merges->len, k = end - base;
        size_t off[LOAD_BATCH][3], len[LOAD_BATCH][3]; /* a, b, a + b in tb */
        uint64_t hash[LOAD_BATCH][3];
        bool decodable[LOAD_BATCH];
        buf_clear(&tb);
        for (size_t j = 0; j < k; j++) {
            const char *a, *b;
            size_t alen, blen;
            if (!merge_parts(&merges->items[base + j], &a, &alen, &b, &blen)) {
                buf_printf(err, "model.merges[%zu]: not \"A B\" nor [\"A\", \"B\"]", base + j);
                goto out;
            }
            decodable[j] = token_bytes(byte_level, a, alen, &tb2);
            off[j][0] = tb.len, len[j][0] = tb2.len;
            buf_append(&tb, tb2.data, tb2.len);
            decodable[j] &= token_bytes(byte_level, b, blen, &tb2);
            off[j][1] = tb.len, len[j][1] = tb2.len;
            buf_append(&tb, tb2.data, tb2.len);
            off[j][2] = off[j][0], len[j][2] = len[j][0] + len[j][1]; /* a and b lie back to back */
            if (prefix_cut) { /* HF's merged token: a, then b without its first prefix_cut bytes as written */
                if (blen < prefix_cut) {
                    buf_printf(err, "model.merges[%zu]: its right part is shorter than continuing_subword_prefix",
                               base + j);
                    goto out;
                }
                off[j][2] = tb.len;
                token_bytes(byte_level, a, alen, &tb2);
                buf_append(&tb, tb2.data, tb2.len);
                /* a cut inside a character: no vocab string is that (HF fails to build) */
                decodable[j] &= blen == prefix_cut || (utf8_valid(b + prefix_cut, blen - prefix_cut) &&
                                                       token_bytes(byte_level, b + prefix_cut, blen - prefix_cut, &tb2));
                if (blen > prefix_cut) buf_append(&tb, tb2.data, tb2.len);
                len[j][2] = tb.len - off[j][2];
            }
        }
        for (size_t j = 0; j < k; j++)
            for (int q = 0; q < 3 && decodable[j]; q++) {
                hash[j][q] = vocab_hash((const uint8_t *)tb.data + off[j][q], len[j][q]);
                __builtin_prefetch(&vocab->slots[(uint32_t)hash[j][q] & vocab->mask]);
            }
        uint32_t ids[LOAD_BATCH][3];
        for (size_t j = 0; j < k; j++) {
            for (int q = 0; q < 3; q++)
                ids[j][q] = decodable[j] ? vocab_find_hashed(vocab, (const uint8_t *)tb.data + off[j][q], len[j][q],
                                                             hash[j][q])
                                         : VOCAB_NO_TOKEN;
            if (ids[j][0] == VOCAB_NO_TOKEN || ids[j][1] == VOCAB_NO_TOKEN || ids[j][2] == VOCAB_NO_TOKEN) {
                buf_printf(err, "model.merges[%zu]: a part or the merged token is not in model.vocab", base + j);
                goto out;
            }
            slot_prefetch(m, ids[j][0], ids[j][1]);
        }
        for (size_t j = 0; j < k; j++) {
            uint32_t rank = (uint32_t)(base + j);
            merge_put(m, ids[j][0], ids[j][1], rank, ids[j][2]);
            if (m->byte_pairs && len[j][2] == 2) { /* two single bytes */
                const uint8_t *ab = (const uint8_t *)tb.data + off[j][2];
                m->byte_pairs[ab[0] << 8 | ab[1]] = (hf_merge_value){rank, ids[j][2]};
            }
        }
    }
    hf_id_strings_finish(&m->odd_names);
    rc = 0;
out:
    buf_free(&tb);
    buf_free(&tb2);
    return rc;
}

uint32_t hf_bpe_token_to_id(const hf_bpe *m, const tok_vocab *vocab, const char *s, size_t n)
{
    wbuf tb = WBUF_INIT;
    uint32_t id = token_bytes(m->byte_level, s, n, &tb)
                      ? vocab_find(vocab, (const uint8_t *)tb.data, tb.len)
                      : vocab_find(&m->odd_keys, (const uint8_t *)s, n);
    buf_free(&tb);
    return id;
}

void hf_bpe_free(hf_bpe *m)
{
    vocab_free(&m->odd_keys);
    hf_id_strings_free(&m->odd_names);
    free(m->wp_prefix);
    free(m->ug_score);
    free(m->ug_lengths);
    free(m->char_flags);
    free(m->ascii_pairs);
    free(m->char_pairs);
    free(m->byte_pairs);
    free(m->prefix);
    free(m->suffix);
    free(m->merges);
    free(m->packed);
    free(m->pair_filter);
    memset(m, 0, sizeof *m);
}

/* ---- the queue: a binary min-heap on (rank, pos) ---- */

static bool item_less(const hf_merge_item *a, const hf_merge_item *b)
{
    return a->rank != b->rank ? a->rank < b->rank : a->pos < b->pos;
}

static void heap_push(hf_scratch *h, size_t *n, hf_merge_item it)
{
    if (*n == h->heap_cap) {
        h->heap_cap = h->heap_cap ? 2 * h->heap_cap : 256;
        h->heap = xrealloc(h->heap, h->heap_cap * sizeof *h->heap);
    }
    size_t i = (*n)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!item_less(&it, &h->heap[parent])) break;
        h->heap[i] = h->heap[parent];
        i = parent;
    }
    h->heap[i] = it;
}

static hf_merge_item heap_pop(hf_scratch *h, size_t *n)
{
    hf_merge_item top = h->heap[0], last = h->heap[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && item_less(&h->heap[c + 1], &h->heap[c])) c++;
        if (!item_less(&h->heap[c], &last)) break;
        h->heap[i] = h->heap[c];
        i = c;
    }
    if (*n) h->heap[i] = last;
    return top;
}

/* ---- one word ---- */

/* Makes room for the symbols of a word of n bytes: at most n (each covers a byte or more). */
static void reserve_symbols(hf_scratch *h, size_t n)
{
    if (n <= h->sym_cap) return;
    while (h->sym_cap < n) h->sym_cap = h->sym_cap ? 2 * h->sym_cap : 256;
    h->sym = xrealloc(h->sym, h->sym_cap * sizeof *h->sym);
}

/* Appends a symbol (room made by reserve_symbols). */
static inline void add_symbol(hf_scratch *h, size_t *n, uint32_t id, uint32_t len)
{
    h->sym[*n] = (hf_symbol){id, (int32_t)*n - 1, (int32_t)*n + 1, len};
    (*n)++;
}

/* The merges of a word of ns symbols by HF's queue. */
static void merge_queue(const hf_bpe *m, size_t ns, hf_scratch *h)
{
    size_t nq = 0;
    for (size_t b = 0; b + 1 < ns; b += LOOKUP_BATCH) { /* the pairs' loads overlap */
        size_t e = b + LOOKUP_BATCH < ns - 1 ? b + LOOKUP_BATCH : ns - 1;
        for (size_t i = b; i < e; i++) slot_prefetch(m, h->sym[i].id, h->sym[i + 1].id);
        for (size_t i = b; i < e; i++) {
            uint32_t rank, new_id;
            if (merge_find(m, h->sym[i].id, h->sym[i + 1].id, &rank, &new_id))
                heap_push(h, &nq, (hf_merge_item){rank, (uint32_t)i, new_id, h->sym[i].id, h->sym[i + 1].id});
        }
    }
    while (nq) {
        hf_merge_item top = heap_pop(h, &nq);
        hf_symbol *cur = &h->sym[top.pos];
        if (cur->len == 0 || cur->next < 0) continue;
        hf_symbol *right = &h->sym[cur->next];
        /* HF drops a queued merge whose pair no longer makes top.new_id; a
         * symbol only grows, so that is exactly when either id changed */
        if (cur->id != top.left || right->id != top.right) continue;
        uint32_t rank, new_id;
        cur->id = top.new_id;
        cur->len += right->len;
        cur->next = right->next;
        right->len = 0;
        if (cur->next >= 0) h->sym[cur->next].prev = (int32_t)top.pos;
        if (cur->prev >= 0) slot_prefetch(m, h->sym[cur->prev].id, cur->id);
        if (cur->next >= 0) slot_prefetch(m, cur->id, h->sym[cur->next].id);
        if (cur->prev >= 0 && merge_find(m, h->sym[cur->prev].id, cur->id, &rank, &new_id))
            heap_push(h, &nq, (hf_merge_item){rank, (uint32_t)cur->prev, new_id, h->sym[cur->prev].id, cur->id});
        if (cur->next >= 0 && merge_find(m, cur->id, h->sym[cur->next].id, &rank, &new_id))
            heap_push(h, &nq, (hf_merge_item){rank, top.pos, new_id, cur->id, h->sym[cur->next].id});
    }
}

/* The merges of the ns - 1 neighbouring symbol pairs of a word (ns <=
 * SCAN_MAX) into rank and new_id (rank UINT32_MAX: none), their loads
 * started together. */
static void lookup_pairs(const hf_bpe *m, hf_scratch *h, size_t ns, uint32_t *rank, uint32_t *new_id)
{
    uint64_t probe[SCAN_MAX];
    for (size_t i = 0; i + 1 < ns; i++) {
        probe[i] = pair_probe(m, h->sym[i].id, h->sym[i + 1].id);
        probe_prefetch(m, probe[i]);
    }
    for (size_t i = 0; i + 1 < ns; i++) {
        rank[i] = UINT32_MAX, new_id[i] = 0;
        probe_find(m, probe[i], &rank[i], &new_id[i]);
    }
}

/* The rank of the pair of this probe (UINT32_MAX: no merge), its new id in *new_id. */
static inline uint32_t probe_rank(const hf_bpe *m, uint64_t probe, uint32_t *new_id)
{
    uint32_t r = UINT32_MAX;
    *new_id = 0;
    probe_find(m, probe, &r, new_id);
    return r;
}

/* The symbol whose pair with the next has the lowest rank in
 * rank[0..vectors * RANK_LANES) (16-byte aligned; UINT32_MAX where no pair
 * merges or no symbol starts), the leftmost of equals; -1 when none merges.
 * With vectors a constant, straight-line code: no loop exit to mispredict. */
static inline __attribute__((always_inline)) int32_t lowest_pair(const uint32_t *rank, int vectors)
{
    __m128i low = _mm_set1_epi32(-1);
    for (int v = 0; v < vectors; v++) low = _mm_min_epu32(low, _mm_load_si128((const __m128i *)(rank + v * RANK_LANES)));
    low = _mm_min_epu32(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(1, 0, 3, 2)));
    low = _mm_min_epu32(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(2, 3, 0, 1)));
    uint32_t lanes = 0;
    for (int v = 0; v < vectors; v++) {
        __m128i eq = _mm_cmpeq_epi32(low, _mm_load_si128((const __m128i *)(rank + v * RANK_LANES)));
        lanes |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(eq)) << (v * RANK_LANES);
    }
    return (uint32_t)_mm_cvtsi128_si32(low) == UINT32_MAX ? -1 : __builtin_ctz(lanes);
}

/* Of the pairs at symbols a and b (a may be -1), the one to merge first. */
static inline int32_t lower_pair(const uint32_t *rank, int32_t a, int32_t b)
{
    if (a < 0) return b;
    return rank[b] < rank[a] || (rank[b] == rank[a] && b < a) ? b : a;
}

/* merge_scan for a word whose ranks fill at most vectors groups of RANK_LANES. */
static inline __attribute__((always_inline)) void merge_scan_in(const hf_bpe *m, const uint8_t *s, size_t n, size_t ns,
                                                                 hf_scratch *h, int vectors)
{
    uint32_t rank[SCAN_VECTORS * RANK_LANES] __attribute__((aligned(16))), new_id[SCAN_MAX];
    hf_symbol *sym = h->sym;
    for (int v = 0; v < vectors; v++) _mm_store_si128((__m128i *)(rank + v * RANK_LANES), _mm_set1_epi32(-1));
    if (m->byte_pairs && ns == n) /* symbol i is byte i */
        for (size_t i = 0; i + 1 < ns; i++) {
            hf_merge_value v = m->byte_pairs[s[i] << 8 | s[i + 1]];
            rank[i] = v.rank, new_id[i] = v.new_id;
        }
    else
        lookup_pairs(m, h, ns, rank, new_id);
    for (int32_t at = lowest_pair(rank, vectors); at >= 0;) {
        hf_symbol *cur = &sym[at], *right = &sym[cur->next];
        rank[cur->next] = UINT32_MAX;
        cur->id = new_id[at];
        cur->len += right->len;
        cur->next = right->next;
        right->len = 0;
        rank[at] = UINT32_MAX;
        int32_t after = cur->next, before = cur->prev;
        uint64_t probe_after = 0, probe_before = 0;
        if (after >= 0) {
            sym[after].prev = at;
            probe_after = pair_probe(m, cur->id, sym[after].id);
            probe_prefetch(m, probe_after);
        }
        if (before >= 0) {
            probe_before = pair_probe(m, sym[before].id, cur->id);
            probe_prefetch(m, probe_before);
            rank[before] = UINT32_MAX;
        }
        int32_t guess = lowest_pair(rank, vectors);
        if (after >= 0) rank[at] = probe_rank(m, probe_after, &new_id[at]);
        if (before >= 0) rank[before] = probe_rank(m, probe_before, &new_id[before]);
        int32_t low = rank[at] != UINT32_MAX ? lower_pair(rank, guess, at) : guess;
        at = before >= 0 && rank[before] != UINT32_MAX ? lower_pair(rank, low, before) : low;
    }
}

/* The same for a short word: repeatedly the lowest-ranked pair, the leftmost
 * of equals - what the queue does, since a queued merge is only dropped when
 * its pair changed. A byte-level word's first pairs come from byte_pairs.
 * Ranks stay indexed by symbol, so the search is a scan of an array, of as
 * many groups of RANK_LANES as the word needs (one copy of the loop for
 * each size class). */
static void merge_scan(const hf_bpe *m, const uint8_t *s, size_t n, size_t ns, hf_scratch *h)
{
    size_t pairs = ns - 1;
    if (pairs <= RANK_LANES) merge_scan_in(m, s, n, ns, h, 1);
    else if (pairs <= 2 * RANK_LANES) merge_scan_in(m, s, n, ns, h, 2);
    else if (pairs <= 4 * RANK_LANES) merge_scan_in(m, s, n, ns, h, 4);
    else merge_scan_in(m, s, n, ns, h, SCAN_VECTORS);
}

/* HF's merge_word: the word's symbols, then merge_all. */
static void merge_word(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, hf_scratch *h,
                       tok_ids *out)
{
    size_t ns = 0;
    uint32_t unk_len = 0; /* an unknown run not added yet (HF adds it at the next known character) */
    /* byte_fallback may give each affixed character a token per byte */
    reserve_symbols(h, n + (m->affixes && m->byte_fallback ? n * m->prefix_len + m->suffix_len : 0));
    for (size_t i = 0; i < n;) {
        size_t len = 1;
        if (!m->byte_level) {
            len = utf8_valid_seq(s + i, n - i);
            if (!len) len = 1;
        }
        /* the character's token string: with the affixes, those bytes */
        const uint8_t *cs = s + i;
        size_t clen = len;
        uint32_t id;
        if (m->affixes) {
            buf_clear(&h->affixed);
            if (i) buf_append(&h->affixed, m->prefix, m->prefix_len);
            buf_append(&h->affixed, s + i, len);
            if (i + len >= n) buf_append(&h->affixed, m->suffix, m->suffix_len);
            cs = (const uint8_t *)h->affixed.data, clen = h->affixed.len;
            id = vocab_find(vocab, cs, clen);
        } else {
            id = len == 1 ? vocab->byte_id[s[i]] : char_id(vocab, h, s + i, len, n - i);
        }
        if (id != VOCAB_NO_TOKEN) {
            if (unk_len) add_symbol(h, &ns, m->unk, unk_len);
            unk_len = 0;
            add_symbol(h, &ns, id, (uint32_t)len);
            i += len;
            continue;
        }
        bool all_bytes = m->byte_fallback;
        for (size_t k = 0; k < clen && all_bytes; k++) all_bytes = m->byte_token[cs[k]] != VOCAB_NO_TOKEN;
        if (all_bytes) { /* before a pending unknown run, as HF */
            for (size_t k = 0; k < clen; k++) add_symbol(h, &ns, m->byte_token[cs[k]], 1);
        } else if (m->unk != VOCAB_NO_TOKEN) {
            if (unk_len && !m->fuse_unk) add_symbol(h, &ns, m->unk, unk_len), unk_len = 0;
            unk_len += (uint32_t)len;
        }
        i += len;
    }
    if (unk_len) add_symbol(h, &ns, m->unk, unk_len);
    if (!ns) return;
    h->sym[ns - 1].next = -1;
    if (ns <= SCAN_MAX) merge_scan(m, s, n, ns, h);
    else merge_queue(m, ns, h);
    ids_reserve(out, ns);
    for (int32_t i = 0; i >= 0; i = h->sym[i].next) out->ids[out->n++] = h->sym[i].id;
}

/* A walk over the places where U+2581 starts in a word, 16 places at a
 * time: block is where the places of mask (bit i: one starts at block + i)
 * begin; the places before the lowest bit of mask are done. */
typedef struct {
    size_t block;
    unsigned mask;
} mark_walk;

#define MARK_BLOCK 16 /* places a mark_walk tests at once */

/* The marks that start in s[block..block + MARK_BLOCK) (within s[0..n)) as bits. */
static inline __attribute__((always_inline)) unsigned marks_at(const uint8_t *s, size_t n, size_t block)
{
    if (block + 2 + sizeof(__m128i) <= n) {
        const __m128i m0 = _mm_set1_epi8(SPACE_MARK[0]), m1 = _mm_set1_epi8(SPACE_MARK[1]),
                      m2 = _mm_set1_epi8(SPACE_MARK[2]);
        __m128i b0 = _mm_loadu_si128((const __m128i *)(s + block)), b1 = _mm_loadu_si128((const __m128i *)(s + block + 1)),
                b2 = _mm_loadu_si128((const __m128i *)(s + block + 2));
        __m128i hit = _mm_and_si128(_mm_cmpeq_epi8(b0, m0), _mm_and_si128(_mm_cmpeq_epi8(b1, m1), _mm_cmpeq_epi8(b2, m2)));
        return (unsigned)_mm_movemask_epi8(hit);
    }
    unsigned mask = 0;
    for (size_t i = block; i + 3 <= n && i < block + MARK_BLOCK; i++)
        if (s[i] == (uint8_t)SPACE_MARK[0] && s[i + 1] == (uint8_t)SPACE_MARK[1] && s[i + 2] == (uint8_t)SPACE_MARK[2])
            mask |= 1u << (i - block);
    return mask;
}

/* A walk over s[0..n) from place from. */
static inline mark_walk mark_walk_from(const uint8_t *s, size_t n, size_t from)
{
    return (mark_walk){from, marks_at(s, n, from)};
}

/* The next place of the walk in s[0..n) where a part starts, or n: a
 * U+2581 after a character that no merge joins to it (a token: may_join;
 * not one: its bytes, the unknown token or nothing, unknown_before_mark).
 * The walk starts past place 0. */
static inline __attribute__((always_inline)) size_t next_part(const hf_bpe *m, const uint8_t *s, size_t n,
                                                             mark_walk *walk)
{
    mark_walk w = *walk; /* in registers while it runs */
    uint8_t mark = m->char_flags[SPACE_MARK_CP];
    size_t here;
    for (;;) {
        while (!w.mask) {
            w.block += MARK_BLOCK;
            if (w.block + 3 > n) {
                here = n;
                goto done;
            }
            w.mask = marks_at(s, n, w.block);
        }
        here = w.block + (size_t)__builtin_ctz(w.mask);
        w.mask &= w.mask - 1;
        uint8_t last = s[here - 1];
        if (last < 0x80) { /* the commonest: an ASCII character before the mark */
            if (m->ascii_before_mark[last / 64] >> (last % 64) & 1) goto done;
            continue;
        }
        if (here >= 3 && !memcmp(s + here - 3, SPACE_MARK, 3)) { /* a run of spaces */
            if (m->mark_before_mark) goto done;
            continue;
        }
        size_t start;
        uint32_t cp = char_ending_at((const char *)s, here, &start);
        uint8_t flags = cp < HF_CUT_CHARS ? m->char_flags[cp] : 0;
        if (flags & HF_CHAR_KNOWN ? !may_join(m, cp, flags, SPACE_MARK_CP, mark) : m->unknown_before_mark) goto done;
    }
done:
    *walk = w;
    return here;
}

/* The remembered ids of word s[0..n) into out: true when they were there;
 * else *slot is where to remember them (NULL: too long to). */
static inline __attribute__((always_inline)) bool cache_find(hf_scratch *h, const uint8_t *s, size_t n, uint64_t hash,
                                                             void **slot, tok_ids *out)
{
    const uint32_t *ids;
    size_t nids;
    *slot = NULL;
    if (n <= HF_CACHE_BYTES) {
        hf_cache_entry *e = &h->cache[hash & (HF_CACHE_SLOTS - 1)];
        *slot = e;
        if (e->len != n || e->hash != (uint32_t)hash || memcmp(e->bytes, s, n)) return false;
        ids = e->ids, nids = e->nids;
    } else if (n <= HF_MID_BYTES) {
        hf_mid_entry *e = &h->mid[(hash >> 32) & (HF_MID_SLOTS - 1)];
        *slot = e;
        if (e->len != n || e->hash != (uint32_t)hash || memcmp(e->bytes, s, n)) return false;
        ids = e->ids, nids = e->nids;
    } else {
        return false;
    }
    /* all the entry's id places, a fixed size (one copy, no call), then count those that are the word's */
    ids_reserve(out, HF_MID_IDS);
    if (n <= HF_CACHE_BYTES) memcpy(out->ids + out->n, ids, HF_CACHE_IDS * sizeof(uint32_t));
    else memcpy(out->ids + out->n, ids, HF_MID_IDS * sizeof(uint32_t));
    out->n += nids;
    return true;
}

/* Remembers the ids of word s[0..n) in slot (from cache_find) when they fit. */
static void cache_put(void *slot, const uint8_t *s, size_t n, uint64_t hash, const uint32_t *ids, size_t nids)
{
    if (!slot) return;
    if (n <= HF_CACHE_BYTES && nids <= HF_CACHE_IDS) {
        hf_cache_entry *e = slot;
        e->hash = (uint32_t)hash, e->len = (uint8_t)n, e->nids = (uint8_t)nids;
        memcpy(e->bytes, s, n);
        if (nids) memcpy(e->ids, ids, nids * sizeof(uint32_t));
    } else if (n > HF_CACHE_BYTES && nids <= HF_MID_IDS) {
        hf_mid_entry *e = slot;
        e->hash = (uint32_t)hash, e->len = (uint8_t)n, e->nids = (uint8_t)nids;
        memcpy(e->bytes, s, n);
        if (nids) memcpy(e->ids, ids, nids * sizeof(uint32_t));
    }
}

/* Makes room for n cut places and their pieces' hashes in h. */
static void reserve_cuts(hf_scratch *h, size_t n)
{
    if (h->cuts_cap >= n) return;
    h->cuts_cap = n > 256 ? n : 256;
    h->cuts = xrealloc(h->cuts, h->cuts_cap * sizeof *h->cuts);
    h->cut_hash = xrealloc(h->cut_hash, h->cuts_cap * sizeof *h->cut_hash);
}

/* Where word s[0..n) may be cut (cut_words): before each character that
 * meets the one before it where no merge joins two such characters, both
 * tokens themselves, or where one of the two becomes byte tokens no merge
 * joins and the other is a token or does too (cut_beside_bytes). Nowhere
 * beside a character that becomes the unknown token or is dropped (or is
 * invalid UTF-8, or above the BMP): HF moves a pending unknown run past
 * byte tokens, and a dropped character lets its neighbours merge. Between
 * two ASCII characters the answer is read from ascii_cuts (cut_between's,
 * made at load). The pieces' ends go into cuts (room for n + 1); returns how
 * many pieces. */
static size_t cut_word(const hf_bpe *m, const uint8_t *s, size_t n, size_t *cuts)
{
    size_t k = 0;
    uint32_t prev = HF_CUT_CHARS; /* none yet: no cut before the first character */
    for (size_t i = 0; i < n;) {
        uint32_t cp = s[i];
        size_t len = 1;
        if (cp < 0x80 && prev < 0x80) {
            if (m->ascii_cuts[2 * prev + cp / 64] >> (cp % 64) & 1) cuts[k++] = i;
        } else {
            if (cp >= 0x80) cp = (len = utf8_valid_seq(s + i, n - i)) ? utf8_decode(s + i, n - i, &len) : HF_CUT_CHARS;
            if (!len) len = 1;
            if (cut_between(m, prev, cut_flags(m, prev), cp, cut_flags(m, cp))) cuts[k++] = i;
        }
        prev = cp;
        i += len;
    }
    cuts[k++] = n;
    return k;
}

/* A piece no merge leaves: its remembered ids, or merged and remembered. */
static void encode_piece(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, uint64_t hash,
                         hf_scratch *h, tok_ids *out)
{
    void *slot;
    if (cache_find(h, s, n, hash, &slot, out)) return;
    size_t first = out->n;
    merge_word(m, vocab, s, n, h, out);
    cache_put(slot, s, n, hash, out->ids + first, out->n - first);
}

/* Encodes word s[0..n) piece by piece when cut_word cuts it, a batch of
 * pieces at a time with their remembered words loading together; false
 * when it has no cut. */
static bool encode_cut(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, hf_scratch *h,
                       tok_ids *out)
{
    reserve_cuts(h, n + 1);
    size_t k = cut_word(m, s, n, h->cuts);
    if (k < 2) return false;
    uint64_t hash[PART_BATCH];
    for (size_t b = 0; b < k; b += PART_BATCH) {
        size_t e = b + PART_BATCH < k ? b + PART_BATCH : k;
        for (size_t i = b; i < e; i++) {
            size_t start = i ? h->cuts[i - 1] : 0;
            hash[i - b] = hf_word_hash_in(m, s + start, h->cuts[i] - start, s + n);
            hf_bpe_prefetch(h, hash[i - b], h->cuts[i] - start);
        }
        for (size_t i = b; i < e; i++) {
            size_t start = i ? h->cuts[i - 1] : 0;
            encode_piece(m, vocab, s + start, h->cuts[i] - start, hash[i - b], h, out);
        }
    }
    return true;
}

/* Whether word s[0..n) with this hash seems remembered: its slot holds a
 * word of its length and hash (cache_find says for sure). */
static inline bool seems_remembered(const hf_scratch *h, size_t n, uint64_t hash)
{
    if (n <= HF_CACHE_BYTES) {
        const hf_cache_entry *e = &h->cache[hash & (HF_CACHE_SLOTS - 1)];
        return e->len == n && e->hash == (uint32_t)hash;
    }
    if (n <= HF_MID_BYTES) {
        const hf_mid_entry *e = &h->mid[(hash >> 32) & (HF_MID_SLOTS - 1)];
        return e->len == n && e->hash == (uint32_t)hash;
    }
    return false;
}

/* A batch of parts of a word: their bounds and hashes, and the pieces of
 * those cut (at[i] their first cut in h->cuts, pieces[i] how many; 0: not cut). */
typedef struct {
    size_t bound[PART_BATCH + 1], pieces[PART_BATCH], at[PART_BATCH];
    uint64_t hash[PART_BATCH];
    int n;
} part_batch;

/* The next parts of word s[0..n) from from (a part start, or n: none; the
 * walk w has found it) into b, their remembered words starting to load;
 * first_end: where the first one ends when known (else 0). */
static void find_parts(const hf_bpe *m, const uint8_t *s, size_t n, size_t from, size_t first_end, mark_walk *w,
                       hf_scratch *h, part_batch *b)
{
    b->bound[0] = from;
    b->n = 0;
    while (b->n < PART_BATCH && b->bound[b->n] < n) {
        size_t start = b->bound[b->n];
        size_t end = b->bound[b->n + 1] = first_end && !b->n ? first_end : next_part(m, s, n, w);
        b->hash[b->n] = hf_word_hash_in(m, s + start, end - start, s + n);
        hf_bpe_prefetch(h, b->hash[b->n], end - start);
        b->n++;
    }
}

/* Cuts each part of b that seems not remembered (cut_word); its pieces'
 * remembered words start loading. */
static void cut_parts(const hf_bpe *m, const uint8_t *s, size_t n, hf_scratch *h, part_batch *b)
{
    reserve_cuts(h, b->bound[b->n] - b->bound[0] + (size_t)b->n);
    size_t used = 0;
    for (int i = 0; i < b->n; i++) {
        const uint8_t *part = s + b->bound[i];
        size_t len = b->bound[i + 1] - b->bound[i];
        b->at[i] = used, b->pieces[i] = 0;
        if (seems_remembered(h, len, b->hash[i])) continue;
        size_t *cuts = h->cuts + used, k = b->pieces[i] = cut_word(m, part, len, cuts);
        for (size_t c = 0; c < k && k > 1; c++) {
            size_t start = c ? cuts[c - 1] : 0;
            h->cut_hash[used + c] = hf_word_hash_in(m, part + start, cuts[c] - start, s + n);
            hf_bpe_prefetch(h, h->cut_hash[used + c], cuts[c] - start);
        }
        used += k;
    }
}

/* Encodes the parts of b in order: remembered, else piece by piece (or
 * whole when not cut, which cutting does not change), then remembered.
 * This is hf_bpe_encode's path for a part: split_at_space is set only for a
 * BPE model that cuts words and does not ignore merges, and a part has no
 * U+2581 boundary inside. */
static void encode_batch(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, const part_batch *b,
                         hf_scratch *h, tok_ids *out)
{
    for (int i = 0; i < b->n; i++) {
        const uint8_t *part = s + b->bound[i];
        size_t len = b->bound[i + 1] - b->bound[i], first = out->n;
        void *slot;
        if (cache_find(h, part, len, b->hash[i], &slot, out)) continue;
        if (b->pieces[i] < 2) {
            merge_word(m, vocab, part, len, h, out);
        } else {
            const size_t *cuts = h->cuts + b->at[i];
            for (size_t c = 0; c < b->pieces[i]; c++) {
                size_t start = c ? cuts[c - 1] : 0;
                encode_piece(m, vocab, part + start, cuts[c] - start, h->cut_hash[b->at[i] + c], h, out);
            }
        }
        cache_put(slot, part, len, b->hash[i], out->ids + first, out->n - first);
    }
}

/* Encodes a long word part by part when it splits at U+2581 (split_at_space);
 * false when it has no such boundary. Two batches of parts are under way:
 * while one is cut and encoded, the next one's remembered words load; the
 * pieces of a batch's cut parts load while the batch's other parts are cut. */
static bool encode_parts(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, hf_scratch *h,
                         tok_ids *out)
{
    mark_walk w = mark_walk_from(s, n, 1);
    size_t first_end = next_part(m, s, n, &w);
    if (first_end == n) return false;
    part_batch batch[2];
    find_parts(m, s, n, 0, first_end, &w, h, &batch[0]);
    for (int cur = 0; batch[cur].n; cur ^= 1) {
        part_batch *b = &batch[cur];
        find_parts(m, s, n, b->bound[b->n], 0, &w, h, &batch[cur ^ 1]);
        cut_parts(m, s, n, h, b);
        encode_batch(m, vocab, s, b, h, out);
    }
    return true;
}

void hf_bpe_encode(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, uint64_t hash, hf_scratch *h,
                   tok_ids *out)
{
    if (!h->cache) {
        h->cache = xcalloc_huge(HF_CACHE_SLOTS, sizeof *h->cache);
        h->mid = xcalloc_huge(HF_MID_SLOTS, sizeof *h->mid);
        h->chars = xcalloc(HF_CHAR_SLOTS, sizeof *h->chars);
    }
    void *slot;
    if (cache_find(h, s, n, hash, &slot, out)) return;
    if (n > HF_CACHE_BYTES && m->split_at_space && encode_parts(m, vocab, s, n, h, out)) return;
    size_t first = out->n;
    uint32_t id = m->ignore_merges ? vocab_find_hashed(vocab, s, n, hash) : VOCAB_NO_TOKEN;
    if (id != VOCAB_NO_TOKEN) ids_push(out, id);
    else if (m->wordlevel) ids_push(out, m->unk);
    else if (m->wordpiece) hf_wordpiece_word(m, vocab, s, n, &h->piece, out);
    else if (m->unigram) hf_unigram_word(m, vocab, s, n, h, out);
    else if (!m->cut_words || !encode_cut(m, vocab, s, n, h, out)) merge_word(m, vocab, s, n, h, out);
    cache_put(slot, s, n, hash, out->ids + first, out->n - first);
}
