/* hf_normalize.c - tokenizer.json normalizers: NFC, NFD, NFKC, NFKD
 * (utf8proc), Lowercase, Strip, StripAccents, Replace (literal or regex),
 * Prepend, BertNormalizer, Precompiled and Nmt (hf_precompiled.c), and
 * Sequence of those (an empty one too). Others are refused. */
#include <stdio.h>
#include <string.h>
#include <immintrin.h>
#include <utf8proc.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/hf_precompiled.h"

#define DOTTED_CAPITAL_I 0x130 /* its lowercase is two characters: i + U+0307 */

/* The capitals of Unicode 16.0 and 17.0: HF's Lowercase is Rust's
 * char::to_lowercase, whose tables in tokenizers 0.23.2 are Unicode 17's;
 * Debian 12's utf8proc knows Unicode 15 and leaves these as they are. */
static const struct {
    uint32_t first, last, lower_first;
} newer_capitals[] = {
    {0x1C89, 0x1C89, 0x1C8A},   {0xA7CB, 0xA7CB, 0x0264},   {0xA7CC, 0xA7CC, 0xA7CD}, {0xA7CE, 0xA7CE, 0xA7CF},
    {0xA7D2, 0xA7D2, 0xA7D3},   {0xA7D4, 0xA7D4, 0xA7D5},   {0xA7DA, 0xA7DA, 0xA7DB}, {0xA7DC, 0xA7DC, 0x019B},
    {0x10D50, 0x10D65, 0x10D70}, {0x16EA0, 0x16EB8, 0x16EBB},
};

/* cp's one-character lowercase as Rust's char::to_lowercase gives it (U+0130 is the caller's). */
static uint32_t lowercase_char(uint32_t cp)
{
    for (size_t i = 0; i < sizeof newer_capitals / sizeof *newer_capitals; i++)
        if (cp >= newer_capitals[i].first && cp <= newer_capitals[i].last)
            return newer_capitals[i].lower_first + (cp - newer_capitals[i].first);
    return (uint32_t)utf8proc_tolower((utf8proc_int32_t)cp);
}

static hf_norm_step *add_step(hf_pipeline *p, hf_norm_kind kind)
{
    p->norm = xrealloc(p->norm, (size_t)(p->nnorm + 1) * sizeof *p->norm);
    hf_norm_step *st = &p->norm[p->nnorm++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    return st;
}

static char *dup_bytes(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* Reads a {"String": s} or {"Regex": r} pattern into st; 0 or -1. */
int hf_pattern_load(const hj_node *pat, const char *path, char **literal, size_t *literal_len, pcre2_code **re,
                    pcre2_code **re_fast, wbuf *err)
{
    const hj_node *str = hj_get(pat, "String"), *rx = hj_get(pat, "Regex");
    if (str && str->type == HJ_STRING) {
        *literal = dup_bytes(str->str, str->len);
        *literal_len = str->len;
        return 0;
    }
    if (rx && rx->type == HJ_STRING) {
        wbuf why = WBUF_INIT;
        *re = hf_regex_compile(rx->str, rx->len, re_fast, &why);
        if (!*re) {
            buf_printf(err, "%s.pattern.Regex: %s", path, why.data);
            buf_free(&why);
            return -1;
        }
        *literal = dup_bytes(rx->str, rx->len);
        *literal_len = rx->len;
        return 0;
    }
    buf_printf(err, "%s.pattern: neither a String nor a Regex", path);
    return -1;
}

int hf_normalizer_load(hf_pipeline *p, const hj_node *node, const char *path, wbuf *err)
{
    if (!node || node->type == HJ_NULL) return 0;
    const char *type = hj_get_str(node, "type");
    if (!type) {
        buf_printf(err, "%s.type: missing", path);
        return -1;
    }
    if (!strcmp(type, "Sequence")) {
        const hj_node *list = hj_get(node, "normalizers");
        if (!list || list->type != HJ_ARRAY) {
            buf_printf(err, "%s.normalizers: not an array", path);
            return -1;
        }
        for (size_t i = 0; i < list->len; i++) {
            char sub[256];
            snprintf(sub, sizeof sub, "%s.normalizers[%zu]", path, i);
            if (hf_normalizer_load(p, &list->items[i], sub, err)) return -1;
        }
        return 0;
    }
    static const struct {
        const char *name;
        hf_norm_kind kind;
    } simple[] = {{"NFC", HN_NFC},          {"NFD", HN_NFD}, {"NFKC", HN_NFKC}, {"NFKD", HN_NFKD},
                  {"Lowercase", HN_LOWERCASE}, {"StripAccents", HN_STRIP_ACCENTS}};
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (!strcmp(type, simple[i].name)) {
            add_step(p, simple[i].kind);
            return 0;
        }
    if (!strcmp(type, "BertNormalizer")) { /* as the steps HF's BertNormalizer::normalize runs */
        const hj_node *clean = hj_get(node, "clean_text"), *chinese = hj_get(node, "handle_chinese_chars"),
                      *strip = hj_get(node, "strip_accents"), *lower = hj_get(node, "lowercase");
        bool lowercase = !lower || lower->type != HJ_BOOL || lower->boolean; /* HF's defaults: all on */
        hf_norm_step *st = add_step(p, HN_BERT_CLEAN);
        st->left = !clean || clean->type != HJ_BOOL || clean->boolean;
        st->right = !chinese || chinese->type != HJ_BOOL || chinese->boolean;
        if (strip && strip->type == HJ_BOOL ? strip->boolean : lowercase) {
            add_step(p, HN_NFD);
            add_step(p, HN_STRIP_NONSPACING);
        }
        if (lowercase) add_step(p, HN_LOWERCASE);
        return 0;
    }
    if (!strcmp(type, "Strip")) {
        hf_norm_step *st = add_step(p, HN_STRIP);
        const hj_node *l = hj_get(node, "strip_left"), *r = hj_get(node, "strip_right");
        st->left = l && l->type == HJ_BOOL && l->boolean;
        st->right = r && r->type == HJ_BOOL && r->boolean;
        return 0;
    }
    if (!strcmp(type, "Prepend")) {
        const hj_node *c = hj_get(node, "prepend");
        if (!c || c->type != HJ_STRING) {
            buf_printf(err, "%s.prepend: not a string", path);
            return -1;
        }
        hf_norm_step *st = add_step(p, HN_PREPEND);
        st->content = dup_bytes(c->str, c->len);
        st->content_len = c->len;
        return 0;
    }
    if (!strcmp(type, "Replace")) {
        const hj_node *c = hj_get(node, "content"), *pat = hj_get(node, "pattern");
        if (!c || c->type != HJ_STRING || !pat) {
            buf_printf(err, "%s: Replace needs a pattern and a content string", path);
            return -1;
        }
        hf_norm_step *st = add_step(p, HN_REPLACE);
        st->content = dup_bytes(c->str, c->len);
        st->content_len = c->len;
        return hf_pattern_load(pat, path, &st->pattern, &st->pattern_len, &st->re, &st->re_fast, err);
    }
    if (!strcmp(type, "Precompiled")) {
        hf_norm_step *st = add_step(p, HN_PRECOMPILED);
        st->charsmap = hf_charsmap_load(node, path, err);
        return st->charsmap ? 0 : -1;
    }
    if (!strcmp(type, "Nmt")) {
        add_step(p, HN_NMT);
        return 0;
    }
    buf_printf(err, "%s.type: the normalizer %s is not supported (NFC, NFD, NFKC, NFKD, Lowercase, Strip, "
                    "StripAccents, Replace, Prepend, BertNormalizer, Precompiled, Nmt, Sequence are)", path, type);
    return -1;
}

#define NFORMS 4
#define BMP 0x10000
enum { INERT_UNKNOWN = 0, INERT_YES, INERT_NO };

/* By form and BMP code point: whether the character is "inert" (filled on
 * first use; racing threads store the same value). */
static uint8_t inert_table[NFORMS][BMP];

static utf8proc_option_t form_options(int form)
{
    static const utf8proc_option_t opts[NFORMS] = {
        UTF8PROC_STABLE | UTF8PROC_COMPOSE, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE,
        UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT, UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT};
    return opts[form];
}

/* True when cp is a normalization boundary of the form: combining class 0,
 * not a mark, not a Hangul vowel or trailing jamo (those compose with what
 * comes before), and the form leaves it as it is. Text between two such
 * characters normalizes on its own. */
static bool inert_uncached(int form, uint32_t cp)
{
    if (!hf_normalization_knows(cp)) return true; /* HF's tables leave it as it is */
    const utf8proc_property_t *pr = utf8proc_get_property((utf8proc_int32_t)cp);
    if (pr->combining_class || (pr->category >= UTF8PROC_CATEGORY_MN && pr->category <= UTF8PROC_CATEGORY_ME))
        return false;
    if ((cp >= 0x1160 && cp <= 0x11FF) || (cp >= 0xD7B0 && cp <= 0xD7FF)) return false;
    utf8proc_uint8_t one[4], *back = NULL;
    utf8proc_ssize_t len = utf8proc_encode_char((utf8proc_int32_t)cp, one);
    utf8proc_ssize_t k = utf8proc_map(one, len, &back, form_options(form));
    bool same = k == len && !memcmp(back, one, (size_t)len);
    free(back);
    return same;
}

static bool inert(int form, uint32_t cp)
{
    if (cp >= BMP) return inert_uncached(form, cp);
    uint8_t v = __atomic_load_n(&inert_table[form][cp], __ATOMIC_RELAXED);
    if (v == INERT_UNKNOWN) {
        v = inert_uncached(form, cp) ? INERT_YES : INERT_NO;
        __atomic_store_n(&inert_table[form][cp], v, __ATOMIC_RELAXED);
    }
    return v == INERT_YES;
}

/* utf8proc's form of s[0..n) appended to out; text that is not UTF-8 stays as it is. */
static void map_segment(const char *s, size_t n, utf8proc_option_t opts, wbuf *out)
{
    utf8proc_uint8_t *dst = NULL;
    utf8proc_ssize_t r = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &dst, opts);
    if (r < 0) buf_append(out, s, n);
    else buf_append(out, dst, (size_t)r);
    free(dst);
}

#define SCAN_WIDTH 16

/* The first byte from i that is not ASCII (16 at a time), or n. */
static inline size_t ascii_end(const unsigned char *u, size_t n, size_t i)
{
    for (; i + SCAN_WIDTH <= n; i += SCAN_WIDTH) {
        unsigned high = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(u + i)));
        if (high) return i + (size_t)__builtin_ctz(high);
    }
    while (i < n && u[i] < 0x80) i++;
    return i;
}

/* Whether the character at s (n bytes on) is one HF's normalization
 * tables know, which a following mark may compose with. */
static bool known_char(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80 ? 1 : utf8_valid_seq(s, n);
    return len && (s[0] < 0x80 || hf_normalization_knows(utf8_decode(s, n, &len)));
}

/* Unicode normalization form of s into out: runs of inert characters are
 * copied, the rest (with the character before it, which a mark may compose
 * with) goes through utf8proc. */
static void unicode_form(const char *s, size_t n, int form, wbuf *out)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t copied = 0, prev = 0, i = 0;
    buf_clear(out);
    while (i < n) {
        if (u[i] < 0x80) { /* ASCII is inert in every form */
            size_t j = ascii_end(u, n, i + 1);
            prev = j - 1;
            i = j;
            continue;
        }
        size_t len = utf8_valid_seq(u + i, n - i);
        if (!len || inert(form, utf8_decode(u + i, n - i, &len))) {
            prev = i;
            i += len ? len : 1;
            continue;
        }
        size_t seg = prev >= copied && prev < i && known_char(u + prev, i - prev) ? prev : i, j = i + len;
        while (j < n) {
            size_t l = u[j] < 0x80 ? 1 : utf8_valid_seq(u + j, n - j);
            if (!l || u[j] < 0x80 || inert(form, utf8_decode(u + j, n - j, &l))) break;
            j += l;
        }
        buf_append(out, s + copied, seg - copied);
        map_segment(s + seg, j - seg, form_options(form), out);
        copied = prev = i = j;
    }
    buf_append(out, s + copied, n - copied);
}

static bool is_white_space(uint32_t cp)
{
    return (cp >= 9 && cp <= 13) || cp == ' ' || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

/* BertNormalizer's CJK ideographs (padded with spaces). */
static bool is_cjk(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
           (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

/* Replace of a one-byte literal (SentencePiece-style files' " " -> U+2581):
 * the output sized once (with room for a whole vector more), then 16 bytes
 * at a time stored whole and kept up to the first match (words are short:
 * no call per word). A text of up to REPLACE_BOUND_BYTES gets room for
 * every byte replaced; a longer one counts its matches first. */
#define REPLACE_BOUND_BYTES (1 << 20)
static void replace_byte(const hf_norm_step *st, const char *s, size_t n, wbuf *out)
{
    char c = st->pattern[0];
    const __m128i want = _mm_set1_epi8(c);
    size_t room = n * (st->content_len > 1 ? st->content_len : 1);
    if (n > REPLACE_BOUND_BYTES && st->content_len > 1) {
        size_t hits = 0, i = 0;
        for (; i + sizeof(__m128i) <= n; i += sizeof(__m128i))
            hits += (size_t)__builtin_popcount(
                (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + i)), want)));
        for (; i < n; i++) hits += s[i] == c;
        room = n - hits + hits * st->content_len;
    }
    buf_reserve(out, room + sizeof(__m128i));
    char *d = out->data + out->len;
    char padded[sizeof(__m128i)] = {0}; /* a content that fits one vector is stored whole (the room is there) */
    bool short_content = st->content_len <= sizeof padded;
    if (short_content) memcpy(padded, st->content, st->content_len);
    const __m128i content = _mm_loadu_si128((const __m128i *)padded);
    const char *p = s, *end = s + n;
    while (p + sizeof(__m128i) <= end) {
        __m128i v = _mm_loadu_si128((const __m128i *)p);
        _mm_storeu_si128((__m128i *)d, v);
        unsigned hit = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, want));
        if (!hit) {
            p += sizeof(__m128i), d += sizeof(__m128i);
            continue;
        }
        unsigned run = (unsigned)__builtin_ctz(hit);
        if (short_content) _mm_storeu_si128((__m128i *)(d + run), content);
        else memcpy(d + run, st->content, st->content_len);
        d += run + st->content_len;
        p += run + 1;
    }
    for (; p < end; p++) {
        if (*p != c) {
            *d++ = *p;
            continue;
        }
        if (short_content) _mm_storeu_si128((__m128i *)d, content);
        else memcpy(d, st->content, st->content_len);
        d += st->content_len;
    }
    out->len = (size_t)(d - out->data);
    out->data[out->len] = 0;
}

/* The bytes of out that the first z bytes of s become under a
 * normalization form (the prefix normalized alone: a character the
 * boundary cuts off cannot start a piece, so a composed one either way is
 * the same). */
static size_t form_prefix(const char *s, size_t z, int form)
{
    if (!z) return 0;
    wbuf prefix = WBUF_INIT;
    unicode_form(s, z, form, &prefix);
    size_t len = prefix.len;
    buf_free(&prefix);
    return len;
}

/* Replace's aligned prefix: what of out (written from s by matches and
 * gaps, in order) lies at original offset 0. A gap byte keeps its place's
 * alignment; a match's content takes that of the match's last byte (HF's
 * NormalizedString::replace), or offset 0 for an empty match at 0. */
typedef struct {
    size_t z_in, z_out;
    bool open; /* every byte of out so far lies at offset 0 */
} replace_prefix;

static void prefix_gap(replace_prefix *r, size_t from, size_t to)
{
    if (!r->open || to <= from) return;
    size_t aligned = r->z_in > from ? (r->z_in < to ? r->z_in : to) - from : 0;
    r->z_out += aligned;
    if (aligned < to - from) r->open = false;
}

static void prefix_content(replace_prefix *r, size_t match_end, size_t content_len)
{
    if (!r->open || !content_len) return;
    if (match_end <= r->z_in) r->z_out += content_len;
    else r->open = false;
}

/* Applies one step to s[0..n) into out. z: how many leading bytes of s lie
 * at the document's original offset 0 (HF's alignment start 0); returns
 * the same for out. */
static size_t apply(const hf_norm_step *st, const char *s, size_t n, size_t z, hf_scratch *h, wbuf *out)
{
    buf_clear(out);
    switch (st->kind) {
    case HN_NFC: unicode_form(s, n, 0, out); return form_prefix(s, z, 0);
    case HN_NFD: unicode_form(s, n, 1, out); return form_prefix(s, z, 1);
    case HN_NFKC: unicode_form(s, n, 2, out); return form_prefix(s, z, 2);
    case HN_NFKD: unicode_form(s, n, 3, out); return form_prefix(s, z, 3);
    case HN_PRECOMPILED: return hf_charsmap_apply(st->charsmap, s, n, z, out);
    case HN_NMT: return hf_nmt_apply(s, n, z, out);
    case HN_PREPEND: /* the content takes the first character's alignment */
        if (n) buf_append(out, st->content, st->content_len);
        buf_append(out, s, n);
        return z && n ? z + st->content_len : 0;
    case HN_LOWERCASE:
    case HN_STRIP_ACCENTS:
    case HN_STRIP_NONSPACING:
    case HN_BERT_CLEAN: { /* each character's output keeps its alignment */
        size_t z_out = z ? SIZE_MAX : 0;
        for (size_t i = 0; i < n;) {
            if (i >= z && z_out == SIZE_MAX) z_out = out->len;
            size_t len;
            uint32_t cp = utf8_decode((const unsigned char *)s + i, n - i, &len);
            if (!utf8_valid_seq((const unsigned char *)s + i, n - i)) {
                buf_putc(out, s[i++]);
                continue;
            }
            if (st->kind == HN_BERT_CLEAN) {
                /* HF's is_control: categories Cc, Cf, Co, Cs of Unicode 8.0 (unassigned code points stay) */
                bool control = cp != '\t' && cp != '\n' && cp != '\r' && hf_is_control(cp);
                if (st->left && (cp == 0 || cp == 0xFFFD || control)) {
                    /* dropped */
                } else if (st->left && is_white_space(cp)) {
                    buf_putc(out, ' ');
                } else if (st->right && is_cjk(cp)) {
                    buf_putc(out, ' ');
                    buf_append(out, s + i, len);
                    buf_putc(out, ' ');
                } else {
                    buf_append(out, s + i, len);
                }
            } else if (st->kind == HN_STRIP_NONSPACING) {
                if (!hf_is_nonspacing_mark(cp)) buf_append(out, s + i, len);
            } else if (st->kind == HN_LOWERCASE) {
                if (cp == DOTTED_CAPITAL_I) {
                    utf8_append(out, 'i');
                    utf8_append(out, 0x307);
                } else {
                    utf8_append(out, lowercase_char(cp));
                }
            } else if (!hf_is_combining_mark(cp)) { /* HN_STRIP_ACCENTS */
                buf_append(out, s + i, len);
            }
            i += len;
        }
        return z_out == SIZE_MAX ? out->len : z_out;
    }
    case HN_STRIP: {
        size_t a = 0, b = n, len;
        while (st->left && a < b && utf8_valid_seq((const unsigned char *)s + a, b - a) &&
               is_white_space(utf8_decode((const unsigned char *)s + a, b - a, &len)))
            a += len;
        while (st->right && b > a) {
            size_t k = b - 1;
            while (k > a && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
            if (!utf8_valid_seq((const unsigned char *)s + k, b - k) ||
                !is_white_space(utf8_decode((const unsigned char *)s + k, b - k, &len)))
                break;
            b = k;
        }
        buf_append(out, s + a, b - a);
        return z > a ? (z < b ? z : b) - a : 0;
    }
    case HN_REPLACE: {
        replace_prefix r = {z, 0, true};
        if (!st->re && st->pattern_len == 1) {
            replace_byte(st, s, n, out);
            for (size_t i = 0; i < z && i < n && r.open; i++) {
                if (s[i] == st->pattern[0]) prefix_content(&r, i + 1, st->content_len);
                else prefix_gap(&r, i, i + 1);
            }
            return r.z_out;
        }
        /* HF matches a String as an escaped regex, both with onig's find_iter:
         * an empty match where the last match ended is skipped (so "" and
         * x* match between the characters and at the end); an empty text has none */
        size_t pos = 0, copied = 0, last_end = SIZE_MAX;
        const pcre2_code *re = st->re ? hf_regex_for(st->re, st->re_fast, s, n) : NULL;
        while (n && pos <= n) {
            size_t ms, me;
            if (re) {
                if (hf_match(re, s, n, pos, h) < 0) break;
                PCRE2_SIZE *ov = pcre2_get_ovector_pointer(h->md);
                ms = ov[0], me = ov[1];
            } else {
                const char *hit = memmem(s + pos, n - pos, st->pattern, st->pattern_len); /* "": s + pos */
                if (!hit) break;
                ms = (size_t)(hit - s), me = ms + st->pattern_len;
            }
            if (ms == me && me == last_end) {
                size_t len = pos < n ? utf8_valid_seq((const unsigned char *)s + pos, n - pos) : 1;
                pos += len ? len : 1;
                continue;
            }
            buf_append(out, s + copied, ms - copied);
            prefix_gap(&r, copied, ms);
            buf_append(out, st->content, st->content_len);
            prefix_content(&r, me, st->content_len);
            pos = copied = last_end = me;
        }
        buf_append(out, s + copied, n - copied);
        prefix_gap(&r, copied, n);
        return r.z_out;
    }
    }
    return z;
}

size_t hf_normalize_aligned(const hf_pipeline *p, const char *s, size_t n, size_t z, hf_scratch *h, wbuf *out,
                            wbuf *tmp)
{
    buf_clear(out);
    if (!p->nnorm) buf_append(out, s, n);
    for (int i = 0; i < p->nnorm; i++) { /* the first step reads s, each later one the step before's out */
        z = apply(&p->norm[i], i ? (out->data ? out->data : "") : s, i ? out->len : n, z, h, tmp);
        wbuf swap = *out;
        *out = *tmp;
        *tmp = swap;
    }
    return z;
}

size_t hf_first_char_len(const char *s, size_t n)
{
    if (!n) return 0;
    size_t len = utf8_valid_seq((const unsigned char *)s, n);
    return len ? len : 1;
}

bool hf_normalize(const hf_pipeline *p, const char *s, size_t n, hf_scratch *h, wbuf *out, wbuf *tmp)
{
    return hf_normalize_aligned(p, s, n, hf_first_char_len(s, n), h, out, tmp) > 0;
}
