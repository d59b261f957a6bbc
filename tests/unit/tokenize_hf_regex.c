/* tokenize_hf_regex.c - hf_regex.c's onig escapes against Oniguruma as HF
 * tokenizers runs it: tests/data/hf/onig_classes.tsv lists, for \w, [\w],
 * \W, [^\w], [^\w\s], \s, [\s], \S, \d, [\d], \D and the properties
 * \p{L} ... \p{Alphabetic}, [^\s\p{L}\p{N}], \P{L}, \p{^N}, every code
 * point that a Split by the pattern matches in HF tokenizers
 * (scripts/hf_regex_classes.js, npm tokenizers@0.23.2), and the characters
 * its Digits pre-tokenizer isolates. Each pattern compiled by
 * hf_regex_compile must match exactly those, one character at a time, over
 * all of Unicode, Unicode 16's characters included, which PCRE2 10.42
 * (Unicode 14) calls unassigned and hf_regex.c adds; the scanners' table
 * uclass_onig must hold the same classes, and Digits' characters as
 * UCLASS_NUMERIC (Rust's is_numeric, Unicode 17). Onig's \w is Alphabetic
 * (circled letters, letter numbers), not only letters, and outside a
 * bracket class it takes ² ³ ¹ ¼ ½ ¾ too.
 *
 * Case-insensitive patterns: in HF tokenizers (?i)ss isolates "ß" as well
 * as "ss", (?i)ß and (?i)[ß] "ss" as well as "ß", (?i)fi "ﬁ", (?i)ʼn "ŉ",
 * (?i)ǰ "ǰ" (a Split of "ﬀ ff FF ß ss ﬁ fi ŉ ʼn ǰ ǰ" by each, 2026-11-27);
 * PCRE2 folds one character to one, so those are refused, while Llama 3's
 * (?i:'s|'t|'re|'ve|'m|'ll|'d), which no such folding touches, compiles.
 * Onig syntax PCRE2 reads otherwise, seen in HF on "aaa b aab aaaab":
 * a{2}? is an optional a{2} (empty matches between), a{1,2}+b a repeat
 * (all of "aaaab"), [a-z&&b-d] an intersection: refused; (?m) lets . match
 * "\n" and c{,1}d is c{0,1}d, which compile as PCRE2's (?s) and {0,1}
 * (edge_variants.tsv's gpt2_edge_replace_onig_syntax). Onig's \h is a hex
 * digit (HF's Replace of \h+ by "#" turns "abc xyz 09 G" into "# xyz # G"),
 * PCRE2's horizontal white space: refused. A class inside a class is their
 * union in onig ([a[b-d]x] matches a, b, c, d, x; BLOOM's Split pattern
 * " ?[^(\s|[.,!?…。，、।۔،])]+", variants.tsv's gpt2_split_bloom): it compiles;
 * a negated, POSIX or ]-first one inside a class is refused. An escaped
 * character (\x{DF}, \x73, \u00DF: onig's \uHHHH is PCRE2's \x{HHHH}) is
 * literal text for the case-insensitive check: (?i)\x{df} isolates "ss"
 * in HF as (?i)ß does; \xHH above 7F is a byte in onig (HF refuses \xe9
 * alone) and \x without digits an x: both refused. */
#include <stdlib.h>
#include <utf8proc.h>

#include "tests/unit/tokenize_corpus.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/unicode_class.h"

#define CLASSES "tests/data/hf/onig_classes.tsv"
#define MAX_CODE_POINT 0x10FFFF
#define SURROGATE_FIRST 0xD800
#define SURROGATE_LAST 0xDFFF
#define NPATTERNS 26
#define NCODEPOINTS (MAX_CODE_POINT + 1 - (SURROGATE_LAST - SURROGATE_FIRST + 1))

/* The measured sets of the patterns uclass_onig's bits stand for. */
static const char *const table_patterns[] = {"\\p{L}", "\\p{N}", "\\s", "\\p{Lu}", "\\p{Lt}", "\\p{Lm}", "\\p{Lo}",
                                             "\\p{M}", "\\p{Ll}", "\\p{P}", "\\p{S}", "Digits"};
enum { T_L, T_N, T_WS, T_LU, T_LT, T_LM, T_LO, T_M, T_LL, T_P, T_S, T_DIGITS, NTABLE };

/* A Split step (isolated) and a Replace normalizer (by "x") with pattern
 * regex, loaded as a tokenizer.json's are, run on text: the pieces joined
 * by "|", then the normalized text after a tab, in out. */
static void run_pattern(const char *regex, const char *text, wbuf *out)
{
    char json[512];
    snprintf(json, sizeof json,
             "[{\"type\": \"Split\", \"pattern\": {\"Regex\": \"%s\"}, \"behavior\": \"Isolated\", \"invert\": false},"
             " {\"type\": \"Replace\", \"pattern\": {\"Regex\": \"%s\"}, \"content\": \"x\"}]",
             regex, regex);
    hj_doc doc;
    wbuf err = WBUF_INIT, norm = WBUF_INIT, tmpb = WBUF_INIT;
    hf_pipeline p = {0};
    hf_scratch h;
    hf_scratch_init(&h);
    hf_pieces pieces = {0}, tmp = {0};
    buf_clear(out);
    if (hj_parse(json, strlen(json), &doc, &err) || hf_pretok_load(&p, &doc.root.items[0], "pre_tokenizer", &err) ||
        hf_normalizer_load(&p, &doc.root.items[1], "normalizer", &err)) {
        buf_printf(out, "not loaded: %s", err.data ? err.data : "?");
    } else {
        hf_pretokenize(&p, text, strlen(text), hf_first_char_len(text, strlen(text)), &h, &pieces, &tmp);
        for (size_t i = 0; i < pieces.n; i++)
            buf_printf(out, "%s%.*s", i ? "|" : "", (int)pieces.len[i], hf_piece_text(&pieces) + pieces.off[i]);
        hf_normalize(&p, text, strlen(text), &h, &norm, &tmpb);
        buf_printf(out, "\t%.*s", (int)norm.len, norm.data ? norm.data : "");
        hj_free(&doc);
    }
    hf_pipeline_free(&p);
    hf_scratch_free(&h);
    hf_pieces *lists[] = {&pieces, &tmp};
    for (int i = 0; i < 2; i++) hf_pieces_free(lists[i]);
    buf_free(&err);
    buf_free(&norm);
    buf_free(&tmpb);
}

/* The class bits uclass_onig must give c, from the measured sets. */
static uint8_t measured_bits(bool *const *in, uint32_t c)
{
    bool both = in[T_LM][c] || in[T_LO][c] || in[T_M][c];
    return (uint8_t)((in[T_L][c] ? UCLASS_L : 0) | (in[T_N][c] ? UCLASS_N : 0) | (in[T_WS][c] ? UCLASS_WS : 0) |
                     (in[T_LU][c] || in[T_LT][c] || both ? UCLASS_UPPERISH : 0) |
                     (in[T_LL][c] || both ? UCLASS_LOWERISH : 0) | (in[T_P][c] ? UCLASS_P : 0) |
                     (in[T_S][c] ? UCLASS_S : 0) | (in[T_DIGITS][c] ? UCLASS_NUMERIC : 0));
}

/* Whether pattern re matches exactly the one character c (as a whole). */
static bool matches_char(const pcre2_code *re, pcre2_match_data *md, uint32_t c)
{
    utf8proc_uint8_t b[4];
    size_t n = (size_t)utf8proc_encode_char((utf8proc_int32_t)c, b);
    int rc = pcre2_match(re, (PCRE2_SPTR)b, n, 0, PCRE2_ANCHORED, md, NULL);
    return rc >= 0 && pcre2_get_ovector_pointer(md)[1] == n;
}

int main(void)
{
    size_t size;
    char *tsv = slurp(CLASSES, &size);
    bool *want = malloc(MAX_CODE_POINT + 1);
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    bool *table_sets[NTABLE] = {0};
    int npatterns = 0;
    char *save;
    for (char *line = strtok_r(tsv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        if (!tab) {
            ok(false, "%s: a pattern, a tab, ranges: %s", CLASSES, line);
            break;
        }
        *tab = 0;
        const char *pattern = line;
        memset(want, 0, MAX_CODE_POINT + 1);
        for (char *r = tab + 1; *r;) {
            char *end;
            unsigned long first = strtoul(r, &end, 16), last = first;
            if (*end == '-') last = strtoul(end + 1, &end, 16);
            for (unsigned long c = first; c <= last && c <= MAX_CODE_POINT; c++) want[c] = true;
            r = *end == ',' ? end + 1 : end;
        }
        for (int t = 0; t < NTABLE; t++)
            if (!strcmp(pattern, table_patterns[t])) table_sets[t] = memcpy(malloc(MAX_CODE_POINT + 1), want, MAX_CODE_POINT + 1);
        if (!strcmp(pattern, "Digits")) continue;
        wbuf err = WBUF_INIT;
        pcre2_code *re = hf_regex_compile(pattern, strlen(pattern), NULL, &err);
        npatterns++;
        if (!ok(re != NULL, "%s compiles%s%s", pattern, re ? "" : ": ", re ? "" : err.data)) {
            buf_free(&err);
            continue;
        }
        buf_free(&err);
        size_t checked = 0, differ = 0;
        for (uint32_t c = 1; c <= MAX_CODE_POINT; c++) {
            if (c >= SURROGATE_FIRST && c <= SURROGATE_LAST) continue;
            checked++;
            if (matches_char(re, md, c) != want[c] && differ++ < 3)
                diag("%s: U+%04X: PCRE2 %s, onig %s", pattern, c, want[c] ? "does not match" : "matches",
                     want[c] ? "matches" : "does not");
        }
        ok(differ == 0 && checked == NCODEPOINTS - 1, "%s: %zu characters as onig matches them (%zu differ)", pattern,
           checked, differ);
        pcre2_code_free(re);
    }
    is_int(npatterns, NPATTERNS, "%d patterns listed", NPATTERNS);

    size_t table_differ = 0;
    bool all_sets = true;
    for (int t = 0; t < NTABLE; t++) all_sets &= table_sets[t] != NULL;
    for (uint32_t c = 1; all_sets && c <= MAX_CODE_POINT; c++) {
        if (c >= SURROGATE_FIRST && c <= SURROGATE_LAST) continue;
        uint8_t got = uclass_of(&uclass_onig, c), want_bits = measured_bits(table_sets, c);
        if (got != want_bits && table_differ++ < 3) diag("uclass_onig U+%04X: %#x, onig %#x", c, got, want_bits);
    }
    ok(all_sets && table_differ == 0, "uclass_onig holds the classes onig and Digits give every character (%zu differ)",
       table_differ);
    for (int t = 0; t < NTABLE; t++) free(table_sets[t]);

    /* PCRE2 runs a faster twin without onig's newer characters on texts
     * that have none of them (hf_text_has_newer); a text with one must
     * take the exact pattern, in a Split and in a Replace alike. In HF,
     * \p{L}+ isolates Garay U+10D50 with the letters around it. */
    static const struct {
        const char *text;
        bool newer;
    } texts[] = {{"plain ascii", false}, {"\xE4\xB8\xAD\xE6\x96\x87 caf\xC3\xA9", false}, {"\xFF\xFE\x80", false},
                 {"ab\xF0\x90\xB5\x90" "cd 1", true}, {"x\xE0\xA2\x97", true}, {"\xF0\xAE\xAF\xB0", true}};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        ok(hf_text_has_newer(texts[i].text, strlen(texts[i].text)) == texts[i].newer, "text %zu has %s character PCRE2 lacks",
           i, texts[i].newer ? "a" : "no");
    wbuf got = WBUF_INIT;
    run_pattern("\\\\p{L}+", "ab\xF0\x90\xB5\x90" "cd 1", &got);
    is_str(got.data, "ab\xF0\x90\xB5\x90" "cd| 1\tx 1", "Split and Replace by \\p{L}+ on letters around Garay U+10D50, as HF");
    run_pattern("\\\\p{L}+", "ab cd 1", &got);
    is_str(got.data, "ab| |cd| 1\tx x 1", "the same patterns on a text without newer characters");
    buf_free(&got);

    static const char *const refused[] = {"(?i)ss", "(?i)ß", "(?i)[ß]", "(?i:x|fi)", "(?i)\u02bcn", "(?mi)ǰ",
                                          "(?i)STRASSE", "(?i)a\\.ﬀ", "[a-z&&b-d]+", "a{2}?", "a{1,2}+b",
                                          "\\h+", "[\\h]", "\\H", "[a[^b]]", "[[:alpha:]]", "[a[]b]]",
                                          "(?i)\\x{df}", "(?i)s\\x{73}", "(?i)\\x73s", "(?i)\\u00df", "(?i)[\\x{DF}]",
                                          "(?i)\\x{fb01}", "\\xe9", "\\x", "\\u00e",
                                          "[\\P{L}x]", "[^\\p{^N}]", "[\\D]"};
    static const char *const compiled[] = {"(?i:'s|'t|'re|'ve|'m|'ll|'d)", "(?i)s\\s", "(?i)s[s]", "ss|ß",
                                           "(?i)k", "(?i:s)s", "a{2,}?", "a{1,2}?", "(?m:.)+", "c{,1}d",
                                           " ?[^(\\s|[.,!?…。，、।۔،])]+", "[a[b-d]x]"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        wbuf why = WBUF_INIT;
        pcre2_code *re = hf_regex_compile(refused[i], strlen(refused[i]), NULL, &why);
        ok(!re && why.len, "%s refused: %s", refused[i],
           why.data ? why.data : "(compiled)");
        if (re) pcre2_code_free(re);
        buf_free(&why);
    }
    for (size_t i = 0; i < sizeof compiled / sizeof *compiled; i++) {
        wbuf why = WBUF_INIT;
        pcre2_code *re = hf_regex_compile(compiled[i], strlen(compiled[i]), NULL, &why);
        ok(re != NULL, "%s compiles%s%s", compiled[i], re ? "" : ": ", re ? "" : why.data);
        if (re) pcre2_code_free(re);
        buf_free(&why);
    }
    /* escaped characters, in HF: a Replace by "#" of \u00e9 turns "café é x一y"
     * into "caf# # x一y", of [\u4e00-\u9fff]+ into "café é x#y"; \x{41}+ is
     * \x{41} repeated (not an interval {41}) */
    static const struct {
        const char *pattern, *text;
        size_t start, end;
    } escaped[] = {{"\\u00e9", "café é x一y", 3, 5},
                   {"[\\u4e00-\\u9fff]+", "café é x一y", 10, 13},
                   {"\\x{41}+", "xAAAy", 1, 4},
                   {"\\x41{2}", "AAA", 0, 2}};
    for (size_t i = 0; i < sizeof escaped / sizeof *escaped; i++) {
        wbuf why = WBUF_INIT;
        pcre2_code *re = hf_regex_compile(escaped[i].pattern, strlen(escaped[i].pattern), NULL, &why);
        int rc = re ? pcre2_match(re, (PCRE2_SPTR)escaped[i].text, strlen(escaped[i].text), 0, 0, md, NULL) : -1;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        ok(rc > 0 && ov[0] == escaped[i].start && ov[1] == escaped[i].end, "%s matches bytes %zu-%zu of \"%s\"%s%s",
           escaped[i].pattern, escaped[i].start, escaped[i].end, escaped[i].text, re ? "" : ": ", re ? "" : why.data);
        if (re) pcre2_code_free(re);
        buf_free(&why);
    }
    /* HF's Replace of [a[b-d]x]+ by "#" turns "abcdxe][" into "#e][" */
    wbuf why = WBUF_INIT;
    pcre2_code *nested = hf_regex_compile("[a[b-d]x]+", strlen("[a[b-d]x]+"), NULL, &why);
    static const char nested_text[] = "abcdxe][";
    int rc = nested ? pcre2_match(nested, (PCRE2_SPTR)nested_text, strlen(nested_text), 0, 0, md, NULL) : -1;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    ok(rc > 0 && ov[0] == 0 && ov[1] == 5, "[a[b-d]x]+ matches \"abcdx\" of \"abcdxe][\", as in HF");
    if (nested) pcre2_code_free(nested);
    buf_free(&why);
    pcre2_match_data_free(md);
    free(want);
    free(tsv);
    return done_testing();
}
