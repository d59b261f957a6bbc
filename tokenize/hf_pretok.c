/* hf_pretok.c - tokenizer.json pre-tokenizers: Split (literal or regex
 * pattern, every behavior, invert), ByteLevel (add_prefix_space,
 * use_regex), Metaspace (prepend_scheme, split), Digits, Punctuation,
 * Whitespace, WhitespaceSplit, BertPreTokenizer, CharDelimiterSplit, Sequence. A Split whose
 * regex is one of the three tiktoken patterns uses the hand-written scanner
 * (pretokenize.c, checked against the regex), as does one with \p{N} where
 * cl100k's or o200k's has \p{N}{1,3} (Qwen; its digit pieces split into
 * characters). Tekken's Split, DeepSeek V3's three Splits and Digits
 * before ByteLevel's regex (Command R+) use the scanners of pretok_hf.c,
 * which give PCRE2's pieces, invalid UTF-8 included. Any other regex runs
 * in PCRE2.
 *
 * Splitting follows HF's NormalizedString::split: the pattern's matches and
 * the gaps between them tile the piece, invert swaps the two, the behavior
 * decides what becomes a piece, and empty pieces are dropped.
 *
 * Members are read as HF's serde reads them (tokenizers 0.23): a file that
 * lacks one HF requires (ByteLevel's add_prefix_space and trim_offsets,
 * Split's invert, Digits' individual_digits, Metaspace's replacement), has a
 * flag that is not true or false, or a Metaspace add_prefix_space false with
 * a scheme other than "never" (the default "always" included) is refused,
 * as HF refuses it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/pretok_hf.h"
#include "tokenize/pretokenize.h"
#include "tokenize/unicode_class.h"

#define METASPACE_DEFAULT_SCHEME "always" /* HF's, when prepend_scheme is absent */
#define PIECE_BATCH 64            /* piece ends a scanner gives per call */
/* What of a piece from offset at on lies at original offset 0, when its first z bytes do. */
#define ALIGNED_FROM(z, at) ((z) > (at) ? (z) - (at) : 0)
#define RUST_WORD "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}" /* Rust regex's \w */

hf_pretok_step *hf_pretok_add_step(hf_pipeline *p, hf_pretok_kind kind)
{
    p->pre = xrealloc(p->pre, (size_t)(p->npre + 1) * sizeof *p->pre);
    hf_pretok_step *st = &p->pre[p->npre++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->behavior = HB_ISOLATED;
    return st;
}

/* How HF's serde reads a boolean member: one it requires, one with a
 * default when absent, or an Option<bool> (absent or null: the default). */
typedef enum { FLAG_REQUIRED, FLAG_DEFAULT, FLAG_OPTIONAL } flag_rule;

/* Reads the boolean member key of o into *out; refuses (as HF does) one
 * that rule requires and is absent, or one that is not true or false. */
static int read_flag(const hj_node *o, const char *key, flag_rule rule, bool dflt, const char *path, bool *out,
                     wbuf *err)
{
    const hj_node *v = hj_get(o, key);
    if (!v || (v->type == HJ_NULL && rule == FLAG_OPTIONAL)) {
        if (rule == FLAG_REQUIRED) {
            buf_printf(err, "%s.%s: missing", path, key);
            return -1;
        }
        *out = dflt;
        return 0;
    }
    if (v->type != HJ_BOOL) {
        buf_printf(err, "%s.%s: not true or false", path, key);
        return -1;
    }
    *out = v->boolean;
    return 0;
}

static int read_behavior(const hj_node *node, const char *path, hf_behavior *b, wbuf *err)
{
    static const char *names[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"};
    const char *s = hj_get_str(node, "behavior");
    if (!s) {
        buf_printf(err, "%s.behavior: missing", path);
        return -1;
    }
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *b = (hf_behavior)i;
            return 0;
        }
    buf_printf(err, "%s.behavior: unknown behavior %s", path, s);
    return -1;
}

/* The family whose pattern with \p{N}{1,3} written \p{N} is pat (-1: none;
 * *single set). Its pieces are the family's with each \p{N}{1,3} piece split
 * into characters: a family piece that starts with a \p{N} character is
 * exactly a \p{N}{1,3} match, since no other alternative can start with
 * one, and at such a place both patterns take that alternative. */
static int single_digit_family(const char *pat, bool *single)
{
    static const char wide[] = "\\p{N}{1,3}", narrow[] = "\\p{N}";
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        const char *fp = pretok_pattern_string((pretok_family)f), *at = strstr(fp, wide);
        if (f == PRETOK_GPT2 || !at || strstr(at + 1, wide)) continue;
        size_t head = (size_t)(at - fp);
        if (strlen(pat) == strlen(fp) - (sizeof wide - sizeof narrow) && !strncmp(pat, fp, head) &&
            !strncmp(pat + head, narrow, sizeof narrow - 1) &&
            !strcmp(pat + head + sizeof narrow - 1, at + sizeof wide - 1)) {
            *single = true;
            return f;
        }
    }
    return -1;
}

/* True when step st is a Split by regex pat whose pieces are its matches and what lies between them. */
static bool isolated_split(const hf_pretok_step *st, const char *pat)
{
    return st->kind == HP_SPLIT && st->match == HM_REGEX && st->behavior == HB_ISOLATED && !st->invert &&
           st->literal && !strcmp(st->literal, pat);
}

/* Frees the count steps from at and closes the gap. */
static void remove_steps(hf_pipeline *p, int at, int count)
{
    for (int i = at; i < at + count; i++) {
        free(p->pre[i].literal);
        if (p->pre[i].re) pcre2_code_free(p->pre[i].re);
        if (p->pre[i].re_fast) pcre2_code_free(p->pre[i].re_fast);
    }
    memmove(p->pre + at, p->pre + at + count, (size_t)(p->npre - at - count) * sizeof *p->pre);
    p->npre -= count;
}

/* Replaces the steps a Sequence loaded from step first on by a scanner of
 * pretok_hf.c when they are exactly the ones it stands for: DeepSeek V3's
 * three Splits, or Digits with individual_digits then ByteLevel with its
 * regex and no prefix space (that ByteLevel then only marks the model as
 * byte-level). */
static void use_scanner(hf_pipeline *p, int first)
{
    hf_pretok_step *st = p->pre + first;
    int n = p->npre - first;
    for (int i = 0; i + PRETOK_HF_DEEPSEEK_SPLITS <= n; i++) {
        bool all = true;
        for (int k = 0; k < PRETOK_HF_DEEPSEEK_SPLITS && all; k++)
            all = isolated_split(&st[i + k], pretok_hf_deepseek_patterns[k]);
        if (!all) continue;
        st[i].match = HM_SCANNER;
        st[i].scanner = PRETOK_HF_DEEPSEEK;
        remove_steps(p, first + i + 1, PRETOK_HF_DEEPSEEK_SPLITS - 1);
        return;
    }
    for (int i = 0; i + 1 < n; i++) {
        hf_pretok_step *d = &st[i], *bl = &st[i + 1];
        if (d->kind == HP_SPLIT && d->match == HM_DIGIT && d->behavior == HB_ISOLATED && bl->kind == HP_BYTE_LEVEL &&
            bl->use_regex && !bl->add_prefix_space) {
            d->match = HM_SCANNER;
            d->scanner = PRETOK_HF_DIGITS_BYTE_LEVEL;
            bl->use_regex = false;
            return;
        }
    }
}

/* Loads one pre-tokenizer node (not null) into p's steps; 0 or -1. */
static int load_step(hf_pipeline *p, const hj_node *node, const char *path, wbuf *err)
{
    const char *type = hj_get_str(node, "type");
    if (!type) {
        buf_printf(err, "%s.type: missing", path);
        return -1;
    }
    bool after_byte_level = false;
    for (int i = 0; i < p->npre; i++) after_byte_level |= p->pre[i].kind == HP_BYTE_LEVEL;
    if (after_byte_level && (!strcmp(type, "ByteLevel") || !strcmp(type, "Metaspace"))) {
        buf_printf(err, "%s: a %s after ByteLevel is not supported", path, type);
        return -1;
    }
    if (!strcmp(type, "Sequence")) {
        const hj_node *list = hj_get(node, "pretokenizers");
        if (!list || list->type != HJ_ARRAY) {
            buf_printf(err, "%s.pretokenizers: not an array", path);
            return -1;
        }
        int first = p->npre;
        for (size_t i = 0; i < list->len; i++) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s.pretokenizers[%zu]", path, i);
            if (load_step(p, &list->items[i], sub, err)) return -1;
        }
        use_scanner(p, first);
        return 0;
    }
    if (!strcmp(type, "Split")) {
        hf_pretok_step *st = hf_pretok_add_step(p, HP_SPLIT);
        const hj_node *pat = hj_get(node, "pattern");
        if (!pat || read_behavior(node, path, &st->behavior, err)) {
            if (!pat) buf_printf(err, "%s.pattern: missing", path);
            return -1;
        }
        if (read_flag(node, "invert", FLAG_REQUIRED, false, path, &st->invert, err)) return -1;
        if (hf_pattern_load(pat, path, &st->literal, &st->literal_len, &st->re, &st->re_fast, err)) return -1;
        st->match = st->re ? HM_REGEX : HM_STRING;
        if (st->match == HM_STRING && !st->literal_len) {
            buf_printf(err, "%s.pattern.String: empty", path);
            return -1;
        }
        /* a tiktoken pattern whose matches tile the text: the hand-written scanner */
        int family = st->re ? pretok_family_of_pattern(st->literal) : -1;
        if (st->re && family < 0) family = single_digit_family(st->literal, &st->single_digits);
        if (family >= 0 && ((st->behavior == HB_ISOLATED && !st->invert) || (st->behavior == HB_REMOVED && st->invert))) {
            st->match = HM_FAMILY;
            st->family = family;
            st->behavior = HB_ISOLATED;
            st->invert = false;
        } else if (isolated_split(st, PRETOK_HF_TEKKEN_PATTERN)) {
            st->match = HM_SCANNER;
            st->scanner = PRETOK_HF_TEKKEN;
        }
        return 0;
    }
    if (!strcmp(type, "ByteLevel")) {
        hf_pretok_step *st = hf_pretok_add_step(p, HP_BYTE_LEVEL);
        bool trim_offsets; /* moves offsets only, which winnow does not give; HF requires it */
        return read_flag(node, "add_prefix_space", FLAG_REQUIRED, false, path, &st->add_prefix_space, err) ||
                       read_flag(node, "trim_offsets", FLAG_REQUIRED, false, path, &trim_offsets, err) ||
                       read_flag(node, "use_regex", FLAG_DEFAULT, true, path, &st->use_regex, err)
                   ? -1
                   : 0;
    }
    if (!strcmp(type, "Metaspace")) {
        hf_pretok_step *st = hf_pretok_add_step(p, HP_METASPACE);
        const hj_node *r = hj_get(node, "replacement"), *sch = hj_get(node, "prepend_scheme");
        const char *rep = r && r->type == HJ_STRING ? r->str : "";
        size_t rlen = strlen(rep);
        if (rlen == 0 || rlen >= sizeof st->replacement || utf8_valid_seq((const unsigned char *)rep, rlen) != rlen) {
            buf_printf(err, "%s.replacement: must be one character", path);
            return -1;
        }
        memcpy(st->replacement, rep, rlen);
        st->replacement_len = rlen;
        bool add_prefix_space; /* the older setting: HF takes only false, and only with the scheme "never" */
        if (read_flag(node, "split", FLAG_OPTIONAL, true, path, &st->split, err) ||
            read_flag(node, "add_prefix_space", FLAG_OPTIONAL, true, path, &add_prefix_space, err))
            return -1;
        const char *scheme = !sch ? METASPACE_DEFAULT_SCHEME : sch->type == HJ_STRING ? sch->str : "(not a string)";
        if (!strcmp(scheme, "always")) st->prepend = HF_PREPEND_ALWAYS;
        else if (!strcmp(scheme, "first")) st->prepend = HF_PREPEND_FIRST;
        else if (!strcmp(scheme, "never")) st->prepend = HF_PREPEND_NEVER;
        else {
            buf_printf(err, "%s.prepend_scheme: unknown scheme %s", path, scheme);
            return -1;
        }
        if (!add_prefix_space && st->prepend != HF_PREPEND_NEVER) {
            buf_printf(err, "%s.add_prefix_space: false does not match prepend_scheme %s", path, scheme);
            return -1;
        }
        return 0;
    }
    if (!strcmp(type, "Digits")) {
        hf_pretok_step *st = hf_pretok_add_step(p, HP_SPLIT);
        st->match = HM_DIGIT;
        bool individual;
        if (read_flag(node, "individual_digits", FLAG_REQUIRED, false, path, &individual, err)) return -1;
        st->behavior = individual ? HB_ISOLATED : HB_CONTIGUOUS;
        return 0;
    }
    if (!strcmp(type, "Punctuation")) {
        hf_pretok_step *st = hf_pretok_add_step(p, HP_SPLIT);
        st->match = HM_PUNCT;
        return hj_get(node, "behavior") ? read_behavior(node, path, &st->behavior, err) : 0;
    }
    if (!strcmp(type, "WhitespaceSplit") || !strcmp(type, "BertPreTokenizer")) {
        hf_pretok_step *st = hf_pretok_add_step(p, HP_SPLIT);
        st->match = HM_WHITESPACE;
        st->behavior = HB_REMOVED;
        if (!strcmp(type, "BertPreTokenizer")) hf_pretok_add_step(p, HP_SPLIT)->match = HM_PUNCT;
        return 0;
    }
    if (!strcmp(type, "CharDelimiterSplit")) { /* HF: a split on the one character, Removed */
        const hj_node *d = hj_get(node, "delimiter");
        size_t len = d && d->type == HJ_STRING ? d->len : 0;
        if (!len || utf8_valid_seq((const unsigned char *)d->str, len) != len) {
            buf_printf(err, "%s.delimiter: must be one character", path);
            return -1;
        }
        hf_pretok_step *st = hf_pretok_add_step(p, HP_SPLIT);
        st->match = HM_STRING;
        st->behavior = HB_REMOVED;
        st->literal = xmalloc(len + 1);
        memcpy(st->literal, d->str, len);
        st->literal[len] = 0;
        st->literal_len = len;
        return 0;
    }
    if (!strcmp(type, "Whitespace")) {
        /* HF runs \w+|[^\w\s]+ in Rust's regex crate, not onig: its \w is
         * UTS #18's (Alphabetic, marks, decimal digits, connectors, Join_Control),
         * its \s White_Space; spelled out so that onig's \w does not apply */
        static const char pattern[] = "[" RUST_WORD "]+|[^" RUST_WORD "\\p{White_Space}]+";
        hf_pretok_step *st = hf_pretok_add_step(p, HP_SPLIT);
        st->re = hf_regex_compile(pattern, strlen(pattern), &st->re_fast, err);
        if (!st->re) return -1;
        st->match = HM_REGEX;
        st->behavior = HB_REMOVED;
        st->invert = true;
        return 0;
    }
    buf_printf(err, "%s.type: the pre-tokenizer %s is not supported", path, type);
    return -1;
}

int hf_pretok_load(hf_pipeline *p, const hj_node *node, const char *path, wbuf *err)
{
    if (!node || node->type == HJ_NULL) return 0;
    if (load_step(p, node, path, err)) return -1;
    bool after_byte_level = false; /* HF's ByteLevel rewrites the pieces: later steps split its characters */
    for (int i = 0; i < p->npre; i++) {
        p->pre[i].byte_chars = after_byte_level;
        after_byte_level |= p->pre[i].kind == HP_BYTE_LEVEL;
    }
    return 0;
}

/* The code point ByteLevel writes byte b as (GPT-2's bytes_to_unicode): a
 * printable byte as itself, the others as 256 + their rank among them
 * (0x00-0x20, then 0x7F-0xA0, then 0xAD). */
static uint32_t byte_char(uint8_t b)
{
    if (b <= 0x20) return 256u + b;
    if (b >= 0x7F && b <= 0xA0) return 256u + 0x21 + (b - 0x7Fu);
    if (b == 0xAD) return 256u + 0x21 + 0x22;
    return b;
}

int hf_byte_of_char(uint32_t cp)
{
    if (cp < 256) return (cp >= '!' && cp <= '~') || (cp >= 0xA1 && cp <= 0xAC) || cp >= 0xAE ? (int)cp : -1;
    uint32_t k = cp - 256; /* the rank among the bytes that are not printable */
    if (k <= 0x20) return (int)k;
    if (k < 0x21 + 0x22) return (int)(0x7F + k - 0x21);
    return k == 0x21 + 0x22 ? 0xAD : -1;
}

bool hf_bytes_of_chars(const char *s, size_t n, wbuf *out)
{
    for (size_t i = 0; i < n;) {
        size_t len;
        int b = hf_byte_of_char(utf8_decode((const unsigned char *)s + i, n - i, &len));
        if (b < 0) return false;
        buf_putc(out, (char)b);
        i += len;
    }
    return true;
}

void hf_byte_chars(const uint8_t *s, size_t n, wbuf *out)
{
    buf_clear(out);
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = byte_char(s[i]);
        if (cp < 0x80) buf_putc(out, (char)cp);
        else buf_putc(out, (char)(0xC0 | (cp >> 6))), buf_putc(out, (char)(0x80 | (cp & 0x3F)));
    }
}

/* ---- splitting ---- */

static void push_span(hf_pieces *w, size_t start, size_t end, bool match)
{
    if (w->nspans == w->spans_cap) {
        w->spans_cap = w->spans_cap ? 2 * w->spans_cap : 64;
        w->spans = xrealloc(w->spans, w->spans_cap * sizeof *w->spans);
    }
    w->spans[w->nspans++] = (hf_span){start, end, match};
}

/* Adds the piece s[0..n), whose first z bytes lie at the document's original offset 0. */
static void push_piece(hf_pieces *out, const char *s, size_t n, size_t z)
{
    if (!n) return;
    if (out->n == out->cap) {
        out->cap = out->cap ? 2 * out->cap : 64;
        out->off = xrealloc(out->off, out->cap * sizeof *out->off);
        out->len = xrealloc(out->len, out->cap * sizeof *out->len);
        out->aligned = xrealloc(out->aligned, out->cap * sizeof *out->aligned);
    }
    out->len[out->n] = n;
    out->aligned[out->n] = z < n ? z : n;
    if (out->base) { /* s is inside the pre-tokenized text: no copy */
        out->off[out->n++] = (size_t)(s - out->base);
        return;
    }
    out->off[out->n++] = out->text.len;
    buf_append(&out->text, s, n);
}

/* Adds the match [ms, me) and the gap before it (from *prev). */
static void add_match(hf_pieces *w, size_t *prev, size_t ms, size_t me)
{
    if (ms > *prev) push_span(w, *prev, ms, false);
    push_span(w, ms, me, true);
    *prev = me;
}

static bool char_matches(hf_match_kind kind, uint32_t cp, bool valid)
{
    if (!valid) return false;
    if (kind == HM_WHITESPACE)
        return (cp >= 9 && cp <= 13) || cp == ' ' || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
               (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
               cp == 0x3000;
    if (kind == HM_PUNCT) return hf_is_punctuation(cp);
    return uclass_of(&uclass_onig, cp) & UCLASS_NUMERIC; /* HM_DIGIT: Rust's char::is_numeric */
}

/* True when s[0..n) starts with a \p{N} character (the scanner's classes). */
static bool starts_with_digit(const uint8_t *s, size_t n)
{
    if (s[0] < 0x80) return s[0] >= '0' && s[0] <= '9';
    size_t len = utf8_valid_seq(s, n);
    return len && (uclass_of(&uclass_onig, utf8_decode(s, n, &len)) & UCLASS_N);
}

/* Fills w->spans with the tiling of s[0..n) into matches of st and gaps. */
static void find_spans(const hf_pretok_step *st, const char *s, size_t n, hf_scratch *h, hf_pieces *w)
{
    w->nspans = 0;
    size_t prev = 0;
    switch (st->match) {
    case HM_REGEX: { /* onig's find_iter: an empty match where the last match ended is skipped */
        size_t pos = 0, last_end = SIZE_MAX;
        const pcre2_code *re = hf_regex_for(st->re, st->re_fast, s, n);
        while (pos <= n && hf_match(re, s, n, pos, h) >= 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(h->md);
            size_t ms = ov[0], me = ov[1];
            if (ms == me && me == last_end) {
                size_t len = pos < n ? utf8_valid_seq((const unsigned char *)s + pos, n - pos) : 1;
                pos += len ? len : 1;
                continue;
            }
            add_match(w, &prev, ms, me);
            pos = last_end = me;
        }
        break;
    }
    case HM_STRING: {
        size_t pos = 0;
        const char *hit;
        while (pos < n && (hit = memmem(s + pos, n - pos, st->literal, st->literal_len))) {
            size_t ms = (size_t)(hit - s);
            add_match(w, &prev, ms, ms + st->literal_len);
            pos = ms + st->literal_len;
        }
        break;
    }
    default:
        for (size_t i = 0; i < n;) {
            size_t len = 1;
            uint32_t cp = (unsigned char)s[i];
            if (cp >= 0x80) {
                len = utf8_valid_seq((const unsigned char *)s + i, n - i);
                cp = len ? utf8_decode((const unsigned char *)s + i, n - i, &len) : 0;
                if (!len) len = 1;
            }
            if (char_matches(st->match, cp, cp || s[i] == 0)) add_match(w, &prev, i, i + len);
            i += len;
        }
    }
    if (prev < n) push_span(w, prev, n, false);
}

/* Splits s[0..n) into out by a scanner (HM_SCANNER or HM_FAMILY), whose
 * pieces tile the text. */
static void split_tiling(const hf_pretok_step *st, const char *s, size_t n, size_t z, hf_pieces *out)
{
    const uint8_t *u = (const uint8_t *)s;
    size_t ends[PIECE_BATCH], pos = 0;
    pretok_hf_state state = {0};
    int k;
    if (st->match == HM_SCANNER) {
        while ((k = pretok_hf_split((pretok_hf_scanner)st->scanner, u, n, pos, ends, PIECE_BATCH, &state)) > 0)
            for (int i = 0; i < k; i++) push_piece(out, s + pos, ends[i] - pos, ALIGNED_FROM(z, pos)), pos = ends[i];
        return;
    }
    while ((k = pretok_split((pretok_family)st->family, &uclass_onig, u, n, pos, ends, PIECE_BATCH)) > 0)
        for (int i = 0; i < k; i++) {
            if (st->single_digits && starts_with_digit(u + pos, ends[i] - pos))
                while (pos < ends[i]) { /* one character each (every one is \p{N}: valid UTF-8) */
                    size_t len = utf8_valid_seq(u + pos, ends[i] - pos);
                    if (!len) len = 1;
                    push_piece(out, s + pos, len, ALIGNED_FROM(z, pos));
                    pos += len;
                }
            else
                push_piece(out, s + pos, ends[i] - pos, ALIGNED_FROM(z, pos)), pos = ends[i];
        }
}

/* Splits s[0..n), whose first z bytes lie at original offset 0, by st into
 * out (HF's split with st's behavior). */
static void split_piece(const hf_pretok_step *st, const char *s, size_t n, size_t z, hf_scratch *h, hf_pieces *out)
{
    if (st->match == HM_SCANNER || st->match == HM_FAMILY) { /* Isolated, not inverted (the loader sees to it) */
        split_tiling(st, s, n, z, out);
        return;
    }
    find_spans(st, s, n, h, out);
    hf_span *sp = out->spans;
    size_t k = out->nspans, m = 0;
    if (st->invert)
        for (size_t i = 0; i < k; i++) sp[i].match = !sp[i].match;
    bool previous = false;
    switch (st->behavior) {
    case HB_ISOLATED: m = k; break;
    case HB_REMOVED:
        for (size_t i = 0; i < k; i++)
            if (!sp[i].match) sp[m++] = sp[i];
        break;
    case HB_MERGED_PREVIOUS:
        for (size_t i = 0; i < k; i++) {
            bool is_match = sp[i].match;
            if (is_match && !previous && m) sp[m - 1].end = sp[i].end;
            else sp[m++] = sp[i];
            previous = is_match;
        }
        break;
    case HB_MERGED_NEXT: /* the same from the end */
        for (size_t i = k; i-- > 0;) {
            bool is_match = sp[i].match;
            if (is_match && !previous && m) sp[k - m].start = sp[i].start;
            else sp[k - 1 - m++] = sp[i];
            previous = is_match;
        }
        memmove(sp, sp + k - m, m * sizeof *sp);
        break;
    case HB_CONTIGUOUS:
        for (size_t i = 0; i < k; i++) {
            bool is_match = sp[i].match;
            if (is_match == previous && m) sp[m - 1].end = sp[i].end;
            else sp[m++] = sp[i];
            previous = is_match;
        }
        break;
    }
    for (size_t i = 0; i < m; i++)
        push_piece(out, s + sp[i].start, sp[i].end - sp[i].start, ALIGNED_FROM(z, sp[i].start));
}

/* Splits s[0..n) (z as in split_piece) by st, a step after a ByteLevel, as
 * HF does: st splits the piece written in the byte-level alphabet, one
 * character per byte, and each of its pieces is the same stretch of s. */
static void split_byte_chars(const hf_pretok_step *st, const char *s, size_t n, size_t z, hf_scratch *h,
                             hf_pieces *out)
{
    hf_byte_chars((const uint8_t *)s, n, &h->byte_chars);
    hf_pieces *bp = &h->byte_pieces;
    bp->n = 0;
    bp->base = h->byte_chars.data ? h->byte_chars.data : "";
    split_piece(st, bp->base, h->byte_chars.len, 0, h, bp);
    size_t at = 0, raw = 0; /* a place in byte_chars and the byte of s it stands for (pieces come in order) */
    for (size_t i = 0; i < bp->n; i++) {
        size_t start, end = bp->off[i] + bp->len[i];
        for (; at < bp->off[i]; at++) raw += (bp->base[at] & 0xC0) != 0x80;
        start = raw;
        for (; at < end; at++) raw += (bp->base[at] & 0xC0) != 0x80;
        push_piece(out, s + start, raw - start, ALIGNED_FROM(z, start));
    }
}

/* ByteLevel's regex: GPT-2's pattern, its matches as pieces. */
static const hf_pretok_step GPT2_SPLIT = {.kind = HP_SPLIT, .match = HM_FAMILY, .family = PRETOK_GPT2, .behavior = HB_ISOLATED};

/* Applies one step to the piece s[0..n), whose first z bytes lie at the
 * document's original offset 0 (HF's alignments: a piece that starts there
 * has offsets_original().0 == 0, which Metaspace's "first" scheme asks;
 * inserted text shares the offset of the character it is put before). */
static void apply(const hf_pretok_step *st, const char *s, size_t n, size_t z, hf_scratch *h, hf_pieces *out,
                  wbuf *tmp)
{
    if (st->kind == HP_SPLIT) {
        if (st->byte_chars) split_byte_chars(st, s, n, z, h, out);
        else split_piece(st, s, n, z, h, out);
        return;
    }
    if (st->kind == HP_BYTE_LEVEL && st->use_regex && (!st->add_prefix_space || (n && s[0] == ' '))) {
        split_piece(&GPT2_SPLIT, s, n, z, h, out); /* no space to add: the piece as it is */
        return;
    }
    buf_clear(tmp);
    if (st->kind == HP_BYTE_LEVEL) {
        bool add = st->add_prefix_space && (n == 0 || s[0] != ' ');
        if (add) buf_putc(tmp, ' ');
        buf_append(tmp, s, n);
        size_t tz = z && add ? z + 1 : z;
        if (st->use_regex) split_piece(&GPT2_SPLIT, tmp->data, tmp->len, tz, h, out);
        else push_piece(out, tmp->data, tmp->len, tz);
        return;
    }
    /* HP_METASPACE: a replacement character takes its space's offset */
    size_t tz = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ' ') buf_append(tmp, st->replacement, st->replacement_len);
        else buf_putc(tmp, s[i]);
        if (i < z) tz = tmp->len;
    }
    bool starts = tmp->len >= st->replacement_len && !memcmp(tmp->data, st->replacement, st->replacement_len);
    if (!starts && (st->prepend == HF_PREPEND_ALWAYS || (st->prepend == HF_PREPEND_FIRST && z))) {
        wbuf pre = WBUF_INIT;
        buf_append(&pre, st->replacement, st->replacement_len);
        buf_append(&pre, tmp->data, tmp->len);
        buf_free(tmp);
        *tmp = pre;
        if (tz) tz += st->replacement_len;
    }
    if (!st->split) {
        push_piece(out, tmp->data, tmp->len, tz);
        return;
    }
    hf_pretok_step at_space = {.kind = HP_SPLIT, .match = HM_STRING, .behavior = HB_MERGED_NEXT,
                               .literal = (char *)st->replacement, .literal_len = st->replacement_len};
    wbuf copy = *tmp; /* split_piece reads tmp while writing out */
    split_piece(&at_space, copy.data ? copy.data : "", copy.len, tz, h, out);
}

static void pieces_clear(hf_pieces *p)
{
    p->n = 0;
    buf_clear(&p->text);
}

/* True when every step that changes something only splits (Split, Digits,
 * ..., ByteLevel's regex without a space to add): the pieces are then
 * stretches of the text itself. */
static bool only_splits(const hf_pipeline *p)
{
    for (int k = 0; k < p->npre; k++) {
        const hf_pretok_step *st = &p->pre[k];
        if (st->kind == HP_METASPACE || (st->kind == HP_BYTE_LEVEL && st->add_prefix_space)) return false;
    }
    return true;
}

/* Whether no byte c can be left in the normalized text: a step replaces the
 * literal c by a content without it, and every later one only strips or
 * adds a content without c (a Replace or Prepend: their output bytes are
 * input bytes or their content's). */
static bool normalized_lacks_byte(const hf_pipeline *p, char c)
{
    bool gone = false;
    for (int i = 0; i < p->nnorm; i++) {
        const hf_norm_step *st = &p->norm[i];
        bool adds_c = st->content_len && memchr(st->content, c, st->content_len);
        if (st->kind == HN_REPLACE && !st->re && st->pattern_len == 1 && st->pattern[0] == c && !adds_c) gone = true;
        else if (!(st->kind == HN_STRIP || ((st->kind == HN_REPLACE || st->kind == HN_PREPEND) && !adds_c))) gone = false;
    }
    return gone;
}

void hf_pretok_skip_unmatchable(hf_pipeline *p)
{
    for (int k = 0; k < p->npre; k++) {
        hf_pretok_step *st = &p->pre[k];
        if (st->kind != HP_SPLIT) return; /* the steps after it may see bytes it made */
        if (st->match == HM_STRING && st->literal_len == 1 && !st->invert && normalized_lacks_byte(p, st->literal[0]))
            st->never_matches = true;
    }
}

void hf_pretokenize(const hf_pipeline *p, const char *s, size_t n, size_t z, hf_scratch *h, hf_pieces *out,
                    hf_pieces *tmp)
{
    pieces_clear(out);
    out->base = tmp->base = only_splits(p) ? (s ? s : "") : NULL;
    bool started = false;
    for (int k = 0; k < p->npre && !h->regex_error; k++) { /* after a regex error the pieces are not used */
        const hf_pretok_step *st = &p->pre[k];
        if (st->kind == HP_BYTE_LEVEL && !st->add_prefix_space && !st->use_regex) continue; /* bytes stay bytes */
        if (st->never_matches) continue;
        if (!started) { /* the first step reads the text itself */
            apply(st, s, n, z, h, out, &h->piece);
            started = true;
            continue;
        }
        pieces_clear(tmp);
        for (size_t i = 0; i < out->n && !h->regex_error; i++)
            apply(st, hf_piece_text(out) + out->off[i], out->len[i], out->aligned[i], h, tmp, &h->piece);
        hf_pieces swap = *out;
        *out = *tmp;
        *tmp = swap;
    }
    if (!started) push_piece(out, s, n, z);
}
