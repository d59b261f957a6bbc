/* dedup_normalize.c - dedup_normalize() (with its fast paths: 16 ASCII
 * letters at a time, a cache of what each non-ASCII character becomes)
 * gives the same normal form and units as a plain character-by-character
 * normaliser written here from the definition in dedup/normalize.h, on
 * every document of the real JSONL data, the UDHR translations and the
 * naughty strings, and on random mixes of ASCII, other scripts, combining
 * marks, digits and invalid bytes cut at every length. Which characters are
 * units of their own (CJK, Thai, ...) the reference takes from ICU's Unicode
 * block property, not from winnow's table of ranges. dedup_normalize_json,
 * which reads a JSON string's escapes where they stand, gives what the
 * reference gives on the decoded text. Where the CPU has the 64-byte
 * AVX-512 path for ASCII, all of it runs with that path and again with the
 * 16-byte one. */
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <utf8proc.h>

#include "core/simd.h"
#include "dedup/normalize.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

/* ---- the reference: one character at a time, utf8proc for everything ---- */

/* A character that is a unit by itself: one of the blocks of the scripts
 * written without spaces that dedup/normalize.h lists (Thai, Lao, Tibetan,
 * Myanmar, Khmer, CJK ideographs and radicals, kana), by ICU's block
 * property; in the half- and full-width forms block, the Katakana ones. */
static int icu_char_script(utf8proc_int32_t cp)
{
    switch (ublock_getCode(cp)) {
    case UBLOCK_THAI: case UBLOCK_LAO: case UBLOCK_TIBETAN: case UBLOCK_MYANMAR: case UBLOCK_MYANMAR_EXTENDED_A:
    case UBLOCK_MYANMAR_EXTENDED_B: case UBLOCK_KHMER: case UBLOCK_KHMER_SYMBOLS:
    case UBLOCK_CJK_RADICALS_SUPPLEMENT: case UBLOCK_KANGXI_RADICALS: case UBLOCK_HIRAGANA: case UBLOCK_KATAKANA:
    case UBLOCK_KATAKANA_PHONETIC_EXTENSIONS: case UBLOCK_CJK_UNIFIED_IDEOGRAPHS:
    case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_A: case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_B:
    case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_C: case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_D:
    case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_E: case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_F:
    case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_G: case UBLOCK_CJK_UNIFIED_IDEOGRAPHS_EXTENSION_H:
    case UBLOCK_CJK_COMPATIBILITY_IDEOGRAPHS: case UBLOCK_CJK_COMPATIBILITY_IDEOGRAPHS_SUPPLEMENT:
        return 1;
    case UBLOCK_HALFWIDTH_AND_FULLWIDTH_FORMS:
        return uscript_hasScript(cp, USCRIPT_KATAKANA);
    default:
        return 0;
    }
}

typedef struct {
    wbuf text;
    uint32_t start[1 << 20], end[1 << 20];
    size_t nunits;
    int pending_space, in_digits, unit_open;
} reference;

static void ref_close(reference *r)
{
    if (r->unit_open) r->end[r->nunits++] = (uint32_t)r->text.len;
    r->unit_open = 0;
}

/* One character of a unit (its UTF-8 bytes). */
static void ref_char(reference *r, const utf8proc_uint8_t *bytes, size_t n, int char_script)
{
    if (r->pending_space) {
        ref_close(r);
        if (r->text.len) buf_putc(&r->text, ' ');
        r->pending_space = 0;
    }
    r->in_digits = 0;
    if (char_script) ref_close(r);
    if (!r->unit_open) {
        r->start[r->nunits] = (uint32_t)r->text.len;
        r->unit_open = 1;
    }
    buf_append(&r->text, bytes, n);
    if (char_script) ref_close(r);
}

static void ref_codepoint(reference *r, utf8proc_int32_t cp)
{
    utf8proc_int32_t lower = utf8proc_tolower(cp);
    utf8proc_category_t cat = utf8proc_category(lower);
    if (cat == UTF8PROC_CATEGORY_ND) {
        if (!r->in_digits) ref_char(r, (const utf8proc_uint8_t *)"0", 1, 0);
        r->in_digits = 1;
    } else if (cat == UTF8PROC_CATEGORY_MN || cat == UTF8PROC_CATEGORY_CF) {
        /* vanishes */
    } else if ((cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_ZP) || cat == UTF8PROC_CATEGORY_CC) {
        r->pending_space = 1;
        r->in_digits = 0;
    } else {
        utf8proc_int32_t parts[8];
        int boundclass = 0;
        utf8proc_ssize_t n = utf8proc_decompose_char(lower, parts, 8, UTF8PROC_DECOMPOSE, &boundclass);
        if (n < 0 || n > 8) parts[0] = lower, n = 1;
        for (utf8proc_ssize_t i = 0; i < n; i++) {
            if (utf8proc_category(parts[i]) == UTF8PROC_CATEGORY_MN) continue;
            utf8proc_uint8_t bytes[4];
            ref_char(r, bytes, (size_t)utf8proc_encode_char(parts[i], bytes), icu_char_script(parts[i]));
        }
    }
}

static void ref_normalize(reference *r, const char *s, size_t n)
{
    buf_clear(&r->text);
    r->nunits = 0;
    r->pending_space = r->in_digits = r->unit_open = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s, *e = p + n;
    while (p < e) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t len = utf8proc_iterate(p, e - p, &cp);
        if (len <= 0) cp = 0xFFFD, len = 1;
        p += len;
        ref_codepoint(r, cp);
    }
    ref_close(r);
}

/* ---- comparison ---- */

static reference ref;
static dedup_text got;
static long compared, differing;

static int same_as_reference(void)
{
    return got.text.len == ref.text.len && !memcmp(got.text.data ? got.text.data : "", ref.text.data ? ref.text.data : "", ref.text.len) &&
           got.nunits == ref.nunits && !memcmp(got.start, ref.start, ref.nunits * sizeof *ref.start) &&
           !memcmp(got.end, ref.end, ref.nunits * sizeof *ref.end);
}

static void compare(const char *s, size_t n)
{
    if (n > sizeof ref.start / sizeof ref.start[0] / 2) n = sizeof ref.start / sizeof ref.start[0] / 2;
    ref_normalize(&ref, s, n);
    dedup_normalize(s, n, &got);
    if (!same_as_reference() && differing++ < 3) diag("differs on %.60s (%zu bytes)", s, n);
    compared++;
}

/* dedup_normalize_json on the raw string v against the reference on its
 * decoded text. */
static void compare_json(const jvalue *v)
{
    static wbuf decoded;
    size_t n;
    const char *s = json_string(v, &decoded, &n);
    if (n > sizeof ref.start / sizeof ref.start[0] / 2) return;
    ref_normalize(&ref, s, n);
    dedup_normalize_json(v, &got);
    if (!same_as_reference() && differing++ < 3) diag("JSON string differs: %.60s (%zu bytes)", v->p, v->len);
    compared++;
}

static void compare_text(const char *text, size_t len, void *ctx)
{
    (void)ctx;
    compare(text, len);
}

static void test_real_text(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/jsonl", shared_dir());
    require_file(path);
    const jsonl_files *files = jsonl_files_under(path);
    for (int i = 0; i < files->n; i++) jsonl_for_each_text(files->path[i], compare_text, NULL);
    snprintf(path, sizeof path, "%s/multilingual/udhr/udhr_text_DERIVED.jsonl", shared_dir());
    require_file(path);
    jsonl_for_each_text(path, compare_text, NULL);
    long docs = compared;
    snprintf(path, sizeof path, "%s/vectors/blns/blns.txt", shared_dir());
    require_file(path);
    winput *in = input_open(path);
    const char *line;
    size_t len;
    while (in && input_getline(in, &line, &len)) compare(line, len);
    if (in) input_close(in);
    ok(docs > 3000 && compared > docs + 400, "%ld documents and %ld naughty strings read", docs, compared - docs);
    is_int(differing, 0, "normal form and units equal the reference's on all of them");
}

static void test_random_mixes(void)
{
    static const char *pieces[] = {
        "a", "Word", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", "xyz", " ", "  ", "\t\n", ",", ". ", "-", "'", "7", "2024",
        "é", "É", "ß", "ǅ", "ﬁ", "Ω", "ά", "ё", "Ё", "é" /* e + combining acute */, "\xCC\x81", "\xC2\xAD", "\xE2\x80\x8B",
        "\xC2\xA0", "—", "“", "”", "…", "€", "٣", "५", "日本", "語", "한국어", "각", "ไทย", "ພາສາ", "ကို", "ខ្មែរ", "カタカナ",
        "ｶﾀｶﾅ", "Ⅻ", "①", "𝐀", "𠀀", "😀", "\xFF", "\xC3", "\xE2\x82", "\xED\xA0\x80", "\xC0\xAF", "\xF4\x90\x80\x80",
        "\x01", "\x7F", "İ", "ǈ", "ᾼ", "Å", "Å",
    };
    enum { NPIECES = sizeof pieces / sizeof *pieces };
    uint64_t x = 5;
    char s[512];
    long before = compared;
    differing = 0;
    for (int round = 0; round < 200000; round++) {
        size_t n = 0;
        int count = 1 + (int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 59);
        for (int i = 0; i < count; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const char *piece = pieces[(x >> 33) % NPIECES];
            size_t len = strlen(piece);
            if (n + len < sizeof s) memcpy(s + n, piece, len), n += len;
        }
        compare(s, (size_t)(x >> 40) % (n + 1)); /* cut anywhere, mid-character too */
    }
    is_int(differing, 0, "%ld random mixes cut at random lengths equal the reference", compared - before);
}

/* dedup_normalize_json reads escapes where they stand: on every line of
 * the real JSONL data and the UDHR translations (the raw "text" string),
 * and on random JSON strings of words, digits, other scripts and every kind
 * of escape (surrogate pairs, lone halves, escaped backslashes before a 'u'
 * or an 'n'), across the 16-byte blocks of its fast path. */
static void compare_json_file(const char *path)
{
    winput *in = input_open(path);
    const char *line;
    size_t len;
    while (in && input_getline(in, &line, &len)) {
        jdoc d;
        const char *err;
        size_t pos;
        if (json_scan_doc(line, len, &d, &err, &pos) == 0 && d.text.kind == JSON_STRING) compare_json(&d.text);
    }
    if (in) input_close(in);
}

static void test_json_strings(void)
{
    char path[1024];
    long before = compared, escaped = 0;
    differing = 0;
    snprintf(path, sizeof path, "%s/jsonl", shared_dir());
    require_file(path);
    const jsonl_files *files = jsonl_files_under(path);
    for (int i = 0; i < files->n; i++) compare_json_file(files->path[i]);
    snprintf(path, sizeof path, "%s/multilingual/udhr/udhr_text_DERIVED.jsonl", shared_dir());
    require_file(path);
    compare_json_file(path);
    long docs = compared - before;
    static const char *pieces[] = {
        "a", "Word", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", "unit", "u", " ", "  ", ",", "-", "7", "2024", "é", "日本", "ไทย",
        "\\n", "\\t", "\\r", "\\b", "\\f", "\\\"", "\\\\", "\\/", "\\\\n", "\\\\u0041", "\\\\\\n",
        "\\u00e9", "\\u00C9", "\\u0041", "\\u0061b", "\\u0030", "\\u0020", "\\u0000", "\\u00ad", "\\u200b",
        "\\u65e5", "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\ud800\\u0041", "\\ud800x", "\\u0301",
    };
    enum { NPIECES = sizeof pieces / sizeof *pieces };
    uint64_t x = 7;
    char s[512];
    for (int round = 0; round < 200000; round++) {
        size_t n = 0;
        int count = 1 + (int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 58);
        for (int i = 0; i < count; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const char *piece = pieces[(x >> 33) % NPIECES];
            size_t len = strlen(piece);
            if (n + len < sizeof s) memcpy(s + n, piece, len), n += len;
        }
        jvalue v = {s, n, JSON_STRING, memchr(s, '\\', n) != NULL};
        escaped += v.has_escapes;
        compare_json(&v);
    }
    ok(docs > 3000 && escaped > 150000, "%ld documents and %ld random strings with escapes", docs, escaped);
    is_int(differing, 0, "the normal form of every JSON string read in place equals the reference's of its decoded text");
}

/* Every assigned character the normaliser writes (letters, marks that stay,
 * numbers other than digits, symbols, private use) is a unit by itself in
 * dedup_normalize exactly when ICU puts it in one of those blocks. */
static void test_char_script_table(void)
{
    long bad = 0;
    UChar32 first_bad = 0;
    for (UChar32 c = 0; c <= 0x10FFFF; c++) {
        int8_t t = u_charType(c);
        if (t == U_UNASSIGNED || t == U_SURROGATE || t == U_DECIMAL_DIGIT_NUMBER || t == U_NON_SPACING_MARK ||
            t == U_FORMAT_CHAR || t == U_CONTROL_CHAR || t == U_SPACE_SEPARATOR || t == U_LINE_SEPARATOR ||
            t == U_PARAGRAPH_SEPARATOR || (t >= U_DASH_PUNCTUATION && t <= U_OTHER_PUNCTUATION) ||
            t == U_INITIAL_PUNCTUATION || t == U_FINAL_PUNCTUATION)
            continue;
        if (!dedup_is_char_script((uint32_t)c) != !icu_char_script(c) && !bad++) first_bad = c;
    }
    is_int(bad, 0, "characters that are units by themselves: the same as ICU's blocks say%s",
           bad ? " (see the first difference below)" : "");
    if (bad) diag("first difference: U+%04X", (unsigned)first_bad);
}

int main(void)
{
    test_char_script_table();
    /* every vector path this CPU has: the best, then the baseline */
    bool wide = simd_avx512_vbmi2();
    for (int baseline = 0; baseline <= (int)wide; baseline++) {
        simd_force_baseline(baseline);
        diag("ASCII path: %s", simd_avx512_vbmi2() ? "64 bytes (AVX-512 VBMI2)" : "16 bytes (SSSE3)");
        compared = differing = 0;
        test_real_text();
        test_random_mixes();
        test_json_strings();
    }
    dedup_text_free(&got);
    buf_free(&ref.text);
    return done_testing();
}
