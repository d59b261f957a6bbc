/* filter_rules.c - pins every filter rule at its threshold on handmade
 * texts: just on the keeping side keeps, just past it drops. The arithmetic
 * for each case is in its comment. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"
#include "tests/tap.h"

/* A config with every rule off; each test turns on the one it pins. */
static filter_config none(void)
{
    filter_config c;
    filter_config_defaults(&c);
    c.gopher_quality = c.gopher_repetition = c.c4 = c.fineweb = c.langid = false;
    return c;
}

static void set(filter_config *c, const char *key, const char *value)
{
    char err[128];
    if (filter_config_set(c, key, value, err, sizeof err)) {
        printf("Bail out! %s\n", err);
        exit(1);
    }
}

static size_t last_c4_removed; /* c4_lines_removed of the last run() */

/* Runs the filter; returns the drop reason or "keep". Copies the new text to out when given. */
static const char *run(const filter_config *c, const char *text, char *out, size_t outlen)
{
    static char reason[96];
    filter *f = filter_create(c);
    filter_worker *w = filter_worker_create(f);
    filter_result r;
    filter_document(f, w, text, strlen(text), NULL, 0, &r);
    snprintf(reason, sizeof reason, "%s", r.reason ? r.reason : "keep");
    last_c4_removed = r.c4_lines_removed;
    if (out) snprintf(out, outlen, "%.*s", (int)r.text_len, r.text);
    filter_worker_destroy(w);
    filter_destroy(f);
    return reason;
}

static char text[1 << 16];

/* Appends a formatted piece to text. */
static void add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void add(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t len = strlen(text);
    vsnprintf(text + len, sizeof text - len, fmt, ap);
    va_end(ap);
}

/* "the and" + n copies of word: n + 2 words, two stop words. */
static void gopher_text(int n, const char *word)
{
    text[0] = 0;
    add("the and");
    for (int i = 0; i < n; i++) add(" %s", word);
}

static void test_gopher_quality(void)
{
    filter_config c = none();
    c.gopher_quality = true;

    gopher_text(48, "apple"); /* 50 words */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 50 words keeps");
    gopher_text(47, "apple");
    is_str(run(&c, text, NULL, 0), "gopher_quality:short_doc", "gopher: 49 words drops");

    set(&c, "gopher-max-words", "60");
    gopher_text(58, "apple");
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 60 words keeps at max 60");
    gopher_text(59, "apple");
    is_str(run(&c, text, NULL, 0), "gopher_quality:long_doc", "gopher: 61 words drops at max 60");
    set(&c, "gopher-max-words", "100000");

    gopher_text(48, "cat"); /* mean length 3.0 */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: mean word length 3 keeps");
    gopher_text(47, "cat");
    add(" at"); /* (3*49 + 2) / 50 = 2.98 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:below_avg_word_len", "gopher: mean word length 2.98 drops");
    gopher_text(48, "cat");
    for (int i = 0; i < 10; i++) add(" ."); /* datatrove: the mean over non-symbol words only, 3.0 (not 150 / 60) */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: mean word length leaves out punctuation words");
    gopher_text(48, "abcdefghij"); /* (6 + 480) / 50 = 9.72 */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: mean word length 9.72 keeps");
    gopher_text(48, "abcdefghijk"); /* (6 + 528) / 50 = 10.68 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:above_avg_word_len", "gopher: mean word length 10.68 drops");

    /* '#' is a token of its own: k hashes give k / (50 + k) */
    gopher_text(48, "apple");
    add(" #a #b #c #d #e"); /* 5 / 60 (5 more words a..e) */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 5 '#' in 60 words keeps");
    gopher_text(43, "apple");
    add(" #a #b #c #d #e #f #g"); /* 7 / 57 = 0.123 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_hashes", "gopher: 7 '#' in 57 words drops");
    gopher_text(48, "apple");
    add(" a... b... c... d... e... end"); /* 5 / (50 + 6 + 5) = 0.082 */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 5 ellipses in 61 words keeps");
    gopher_text(41, "apple");
    add(" a... b... c... d... e... f… end"); /* "f…" is one word: 6 / (43 + 7 + 5) = 0.109 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_ellipsis", "gopher: 6 ellipses in 55 words drops");

    /* 10 lines of 5 words; bullets '-' and U+2022 */
    text[0] = 0;
    for (int i = 0; i < 10; i++) add("%s the and apple pie tree\n", i < 9 ? (i % 2 ? "-" : "\xE2\x80\xA2") : "");
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 9 of 10 lines bulleted keeps");
    text[0] = 0;
    for (int i = 0; i < 10; i++) add("- the and apple pie tree\n");
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_bullets", "gopher: 10 of 10 lines bulleted drops");

    text[0] = 0;
    for (int i = 0; i < 10; i++) add("the and apple pie tree%s\n", i < 3 ? "..." : "");
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 3 of 10 lines ending in ... keeps");
    text[0] = 0;
    for (int i = 0; i < 10; i++) add("the and apple pie tree%s\n", i < 4 ? "\xE2\x80\xA6" : "");
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_end_ellipsis", "gopher: 4 of 10 lines ending in … drops");

    /* lines as str.splitlines() counts them, each stripped: indentation and
     * trailing whitespace (tab, U+00A0) do not hide a bullet or an ellipsis,
     * \r\n is one break, U+2028 is one, and an empty or whitespace-only line
     * counts (the last one too, without a break after it) */
    text[0] = 0;
    for (int i = 0; i < 9; i++) add(" \t\xC2\xA0- the and apple pie tree fig \r\n");
    add(" \t"); /* 9 / 10 lines */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 9 of 10 lines bulleted, the last one blank, keeps");
    text[0] = 0;
    for (int i = 0; i < 9; i++) add("  - the and apple pie tree\xE2\x80\xA8");
    add("- the and apple pie tree"); /* 10 / 10 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_bullets", "gopher: 10 of 10 lines bulleted by U+2028 drops");
    text[0] = 0;
    for (int i = 0; i < 8; i++) add("the and apple pie tree fig nut%s\r\n", i < 3 ? "... \t" : "");
    add("\r\n \r\n"); /* 3 / 10 */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 3 of 10 lines ending in ..., 2 blank, keeps");
    text[0] = 0;
    for (int i = 0; i < 10; i++) add("the and apple pie tree%s\r\n", i < 4 ? "...\xC2\xA0" : ""); /* 4 / 10 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_end_ellipsis", "gopher: 4 of 10 \\r\\n lines ending in ... drops");
    /* a break after the last line starts no line of its own (splitlines): 4 of 13 lines = 0.308 drops,
     * where a 14th, empty line would make it 0.286 and keep it */
    text[0] = 0;
    for (int i = 0; i < 13; i++) add("the and apple pie tree%s\n", i < 4 ? "..." : "");
    is_str(run(&c, text, NULL, 0), "gopher_quality:too_many_end_ellipsis",
           "gopher: 4 of 13 lines ending in ..., a break after the last, drops");

    gopher_text(38, "apple");
    for (int i = 0; i < 10; i++) add(" 123"); /* 40 of 50 alphabetic = 0.8 */
    is_str(run(&c, text, NULL, 0), "keep", "gopher: 80%% alphabetic words keeps");
    gopher_text(37, "apple");
    for (int i = 0; i < 11; i++) add(" 123"); /* 39 of 50 = 0.78 */
    is_str(run(&c, text, NULL, 0), "gopher_quality:below_alpha_threshold", "gopher: 78%% alphabetic words drops");
    gopher_text(40, "apple");
    for (int i = 0; i < 9; i++) add(" 123");
    add(" . . ."); /* datatrove divides by every word, punctuation too: 42 / 54 = 0.778 (not 42 / 51) */
    is_str(run(&c, text, NULL, 0), "gopher_quality:below_alpha_threshold", "gopher: alphabetic ratio counts punctuation words");

    text[0] = 0;
    add("the");
    for (int i = 0; i < 49; i++) add(" apple");
    is_str(run(&c, text, NULL, 0), "gopher_quality:few_stop_words", "gopher: one stop word drops");
    text[0] = 0;
    add("The"); /* case-sensitive like datatrove: "The" is not "the" */
    for (int i = 0; i < 48; i++) add(" apple");
    add(" with");
    is_str(run(&c, text, NULL, 0), "gopher_quality:few_stop_words", "gopher: 'The' is not a stop word");
    gopher_text(48, "apple");
    is_str(run(&c, text, NULL, 0), "keep", "gopher: two stop words keep");
    filter_config_free(&c);
}

/* Only the named repetition check on. */
static filter_config repetition_only(filter_config *old, const char *key, const char *value)
{
    if (old) filter_config_free(old);
    filter_config c = none();
    c.gopher_repetition = true;
    c.rep_dup_line_frac = c.rep_dup_para_frac = c.rep_dup_line_char_frac = c.rep_dup_para_char_frac = 0;
    for (int n = 2; n <= 4; n++) c.rep_top_ngram[n] = 0;
    for (int n = 5; n <= 10; n++) c.rep_dup_ngram[n] = 0;
    set(&c, key, value);
    return c;
}

/* n lines of 9 characters, the last dups of them copies of the first. */
static void lines9(int n, int dups, const char *sep)
{
    text[0] = 0;
    for (int i = 0; i < n; i++) add("%sline %03d", i ? sep : "", i < n - dups ? i : 0);
}

/* lines9() in Cyrillic: n lines of 9 characters, 14 bytes ("линия 000"). */
static void lines9_cyrillic(int n, int dups)
{
    text[0] = 0;
    for (int i = 0; i < n; i++) add("%sлиния %03d", i ? "\n" : "", i < n - dups ? i : 0);
}

/* k copies of the phrase, then m fillers of 5 characters ("u0001"). */
static void phrase_text(const char *phrase, int k, int m)
{
    text[0] = 0;
    for (int i = 0; i < k; i++) add("%s ", phrase);
    for (int i = 0; i < m; i++) add("%su%04d", i ? " " : "", i);
}

/* k copies of phrase a, k of phrase b, then m fillers of 5 characters. */
static void two_phrase_text(const char *a, const char *b, int k, int m)
{
    text[0] = 0;
    for (int i = 0; i < k; i++) add("%s ", a);
    for (int i = 0; i < k; i++) add("%s ", b);
    for (int i = 0; i < m; i++) add("%su%04d", i ? " " : "", i);
}

static void test_gopher_repetition(void)
{
    filter_config c = repetition_only(NULL, "rep_dup_line_frac", "0.3");
    lines9(10, 3, "\n"); /* 3 / 10 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: 30%% duplicated lines keeps");
    lines9(11, 4, "\n"); /* 4 / 11 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:dup_line_frac", "repetition: 36%% duplicated lines drops");
    c = repetition_only(&c, "rep_dup_line_char_frac", "0.2");
    lines9(10, 2, "\n"); /* 18 / 99 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: 18%% duplicated line chars keeps");
    lines9(10, 3, "\n"); /* 27 / 99 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:dup_line_char_frac", "repetition: 27%% duplicated line chars drops");
    c = repetition_only(&c, "rep_dup_para_frac", "0.3");
    lines9(10, 3, "\n\n");
    is_str(run(&c, text, NULL, 0), "keep", "repetition: 30%% duplicated paragraphs keeps");
    lines9(11, 4, "\n\n\n");
    is_str(run(&c, text, NULL, 0), "gopher_repetition:dup_para_frac", "repetition: 36%% duplicated paragraphs drops");
    c = repetition_only(&c, "rep_dup_para_char_frac", "0.2");
    lines9(10, 2, "\n\n"); /* 18 / 108 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: 17%% duplicated paragraph chars keeps");
    lines9(10, 3, "\n\n"); /* 27 / 108 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:dup_para_char_frac", "repetition: 25%% duplicated paragraph chars drops");
    lines9(10, 3, "\n \n"); /* "\n \n" does not separate paragraphs: one paragraph */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: a blank line with a space is no paragraph break");
    /* the fractions are of characters (code points, Python's len), not bytes */
    c = repetition_only(&c, "rep_dup_line_char_frac", "0.2");
    lines9_cyrillic(10, 2); /* 18 / 99 (in bytes 18 / 149) */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: Cyrillic, 18%% duplicated line chars keeps");
    lines9_cyrillic(10, 3); /* 27 / 99 (in bytes 27 / 149 = 0.18) */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:dup_line_char_frac",
           "repetition: Cyrillic, 27%% duplicated line chars drops (characters, not bytes)");

    c = repetition_only(&c, "rep_top_2gram", "0.2");
    phrase_text("xx yy", 10, 32); /* 5*10 / (60 + 192 - 1) = 0.1992 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: top 2-gram 0.1992 keeps");
    phrase_text("xx yy", 10, 31); /* 50 / 245 = 0.2041 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:top_2_gram", "repetition: top 2-gram 0.2041 drops");
    phrase_text("хх уу", 10, 31); /* 50 / 245 = 0.2041 characters (in bytes 50 / 285 = 0.1754) */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:top_2_gram",
           "repetition: Cyrillic top 2-gram 0.2041 drops (characters, not bytes)");
    phrase_text("хх уу", 10, 32); /* 50 / 251 = 0.1992 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: Cyrillic top 2-gram 0.1992 keeps");
    c = repetition_only(&c, "rep_top_3gram", "0.18");
    phrase_text("xx yy zz", 10, 60); /* 80 / 449 = 0.1782 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: top 3-gram 0.1782 keeps");
    phrase_text("xx yy zz", 10, 59); /* 80 / 443 = 0.1806 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:top_3_gram", "repetition: top 3-gram 0.1806 drops");
    c = repetition_only(&c, "rep_top_4gram", "0.16");
    phrase_text("ww xx yy zz", 10, 95); /* 110 / 689 = 0.1597 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: top 4-gram 0.1597 keeps");
    phrase_text("ww xx yy zz", 10, 94); /* 110 / 683 = 0.1611 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:top_4_gram", "repetition: top 4-gram 0.1611 drops");

    /* a tie between top 2-grams goes to the first seen: datatrove takes
     * Counter(grams).most_common(1), and Python documents most_common as
     * ordering equal counts by first insertion. Python gives ('xx yy', 5), 25
     * of 249 characters = 0.1004 for the first text, ('longword1 longword2',
     * 5), 95 / 249 = 0.3815 for the second */
    c = repetition_only(&c, "rep_top_2gram", "0.2");
    two_phrase_text("xx yy", "longword1 longword2", 5, 20);
    is_str(run(&c, text, NULL, 0), "keep", "repetition: top 2-gram tie, the first seen (short, 0.1004) keeps");
    two_phrase_text("longword1 longword2", "xx yy", 5, 20);
    is_str(run(&c, text, NULL, 0), "gopher_repetition:top_2_gram", "repetition: top 2-gram tie, the first seen (long, 0.3815) drops");

    /* duplicated n-grams count "".join characters of each repeat after the first */
    c = repetition_only(&c, "rep_dup_5gram", "0.15");
    phrase_text("aa bb cc dd ee", 4, 24); /* 3 repeats * 10 / (60 + 144 - 1) = 0.1478 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: duplicated 5-grams 0.1478 keeps");
    phrase_text("aa bb cc dd ee", 4, 23); /* 30 / 197 = 0.1523 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:duplicated_5_n_grams", "repetition: duplicated 5-grams 0.1523 drops");
    c = repetition_only(&c, "rep_dup_10gram", "0.10");
    phrase_text("aa bb cc dd ee ff gg hh ii jj", 2, 24); /* 20 / (60 + 144 - 1) = 0.0985 */
    is_str(run(&c, text, NULL, 0), "keep", "repetition: duplicated 10-grams 0.0985 keeps");
    phrase_text("aa bb cc dd ee ff gg hh ii jj", 2, 23); /* 20 / 197 = 0.1015 */
    is_str(run(&c, text, NULL, 0), "gopher_repetition:duplicated_10_n_grams", "repetition: duplicated 10-grams 0.1015 drops");
    /* 4 copies of a 5-word phrase: the 6-gram at word 5 repeats word 0's (12
     * chars), the scan jumps to word 11, which repeats word 1's (12 chars),
     * then jumps past the copies: 24 / 197 = 0.1218 (counting every repeated
     * position instead would give 120 / 197) */
    c = repetition_only(&c, "rep_dup_6gram", "0.125");
    phrase_text("aa bb cc dd ee", 4, 23);
    is_str(run(&c, text, NULL, 0), "keep", "repetition: duplicated 6-grams 0.1218 keeps at 0.125");
    set(&c, "rep_dup_6gram", "0.12");
    is_str(run(&c, text, NULL, 0), "gopher_repetition:duplicated_6_n_grams", "repetition: duplicated 6-grams 0.1218 drops at 0.12");
    filter_config_free(&c);
}

static void test_c4(void)
{
    filter_config c = none();
    c.c4 = true;
    char out[4096];
    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    is_str(run(&c, text, out, sizeof out), "keep", "c4: 5 sentences keep");
    is_str(out, "This is sentence number 0.\nThis is sentence number 1.\nThis is sentence number 2.\n"
                "This is sentence number 3.\nThis is sentence number 4.", "c4: text is the stripped lines joined");
    text[0] = 0;
    for (int i = 0; i < 4; i++) add("This is sentence number %d.\n", i);
    add("Two words\n");
    is_str(run(&c, text, NULL, 0), "c4:too_few_sentences", "c4: 4 sentences (and a 2-word line) drop");
    text[0] = 0;
    add("One sentence here. Another one here! And a third? Yes a fourth. And fifth.");
    is_str(run(&c, text, NULL, 0), "keep", "c4: 5 sentences on one line keep");
    text[0] = 0;
    add("Dr. Smith went home. He met Mr. Jones there. It was late. They talked. The end");
    is_str(run(&c, text, NULL, 0), "keep", "c4: abbreviations do not end sentences (5 sentences)");
    text[0] = 0;
    add("Dr. Smith went home. He met Mr. Jones there. It was late. They talked");
    is_str(run(&c, text, NULL, 0), "c4:too_few_sentences", "c4: 4 sentences with abbreviations drop");

    text[0] = 0;
    add("  Line one is kept here.  \nok two\nEnable JavaScript to view this page.\nWe use cookies on this site.\n"
        "Wikipedia says so.[12] And more[citation needed] here[edit].\nLine four is kept.\nLine five is kept.\n"
        "Line six is kept.\n");
    is_str(run(&c, text, out, sizeof out), "keep", "c4: line rules keep the document");
    is_str(out, "Line one is kept here.\nWikipedia says so. And more here.\nLine four is kept.\nLine five is kept.\n"
                "Line six is kept.", "c4: short, javascript and cookie lines removed, citations removed");
    is_int(last_c4_removed, 3, "c4: three lines removed");

    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    add("Lorem ipsum dolor sit amet.\n");
    is_str(run(&c, text, NULL, 0), "c4:lorem_ipsum", "c4: lorem ipsum drops");
    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    add("function f() { return 1; }\n");
    is_str(run(&c, text, NULL, 0), "c4:curly_bracket", "c4: a curly bracket drops");
    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    add("a { b\n"); /* 3 words: checked */
    is_str(run(&c, text, NULL, 0), "c4:curly_bracket", "c4: bracket on a 3-word line drops");
    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    add("a {\n"); /* 2 words: the line goes before the bracket rule */
    is_str(run(&c, text, NULL, 0), "keep", "c4: bracket on a removed short line keeps");

    /* words over 1000 characters remove the line */
    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    add("long word ");
    for (int i = 0; i < 1000; i++) add("x");
    is_str(run(&c, text, out, sizeof out), "keep", "c4: 1000-char word keeps its line");
    ok(strstr(out, "long word x") != NULL, "c4: line with a 1000-char word is kept");
    add("y");
    run(&c, text, out, sizeof out);
    ok(strstr(out, "long word") == NULL, "c4: line with a 1001-char word is removed");

    set(&c, "c4_terminal_punct", "true");
    text[0] = 0;
    for (int i = 0; i < 5; i++) add("This is sentence number %d.\n", i);
    add("No terminal punctuation here\nAn ellipsis is not one...\nA quote counts \"\n");
    run(&c, text, out, sizeof out);
    ok(strstr(out, "No terminal") == NULL && strstr(out, "ellipsis") == NULL && strstr(out, "quote counts") != NULL,
       "c4: terminal punctuation rule removes lines without . ? ! \" ' and with ...");
    filter_config_free(&c);
}

static filter_config fineweb_only(filter_config *old, const char *key, const char *value)
{
    if (old) filter_config_free(old);
    filter_config c = none();
    c.fineweb = true;
    c.fw_line_punct_thr = c.fw_short_line_thr = c.fw_char_dup_ratio = c.fw_new_line_ratio = 0;
    set(&c, key, value);
    return c;
}

static void test_fineweb(void)
{
    filter_config c = fineweb_only(NULL, "fw_line_punct_thr", "0.12");
    text[0] = 0;
    for (int i = 0; i < 25; i++) add("%sline %d%s", i ? "\n" : "", i, i < 4 ? "." : ""); /* 4 / 25 = 0.16 */
    is_str(run(&c, text, NULL, 0), "keep", "fineweb: 16%% lines with terminal punctuation keeps");
    text[0] = 0;
    for (int i = 0; i < 25; i++) add("%sline %d%s", i ? "\n" : "", i, i < 3 ? "!" : ""); /* 3 / 25 = 0.12 */
    is_str(run(&c, text, NULL, 0), "fineweb:line_punct_ratio", "fineweb: 12%% lines with terminal punctuation drops");

    c = fineweb_only(&c, "fw_short_line_thr", "0.67");
    text[0] = 0;
    for (int i = 0; i < 100; i++) /* 30 characters is short, 31 is not */
        add("%s%s", i ? "\n" : "", i < 66 ? "short line of exactly 30 chars" : "a longer line of exactly 31 chr");
    is_str(run(&c, text, NULL, 0), "keep", "fineweb: 66%% short lines keeps");
    text[0] = 0;
    for (int i = 0; i < 100; i++)
        add("%s%s", i ? "\n" : "", i < 67 ? "short line of exactly 30 chars" : "a longer line of exactly 31 chr");
    is_str(run(&c, text, NULL, 0), "fineweb:short_line_ratio", "fineweb: 67%% short lines drops");

    c = fineweb_only(&c, "fw_char_dup_ratio", "0.01");
    text[0] = 0; /* 99 unique lines of 10 chars and one duplicate of 9: 9 / 999 = 0.009 */
    for (int i = 0; i < 99; i++) add("line %05d\n", i);
    add("\n\nline 0000\nline 0000");
    is_str(run(&c, text, NULL, 0), "keep", "fineweb: 0.9%% duplicated line chars keeps");
    text[0] = 0; /* 10 / 1000 = 0.01 */
    for (int i = 0; i < 99; i++) add("line %05d\n", i);
    add("line %05d", 0);
    is_str(run(&c, text, NULL, 0), "fineweb:char_dup_ratio", "fineweb: 1%% duplicated line chars drops");

    /* one worker over several documents: its line table is reset per document
     * (a new generation) and grows past 64 lines; a line seen before the growth
     * still counts as a duplicate (datatrove's find_duplicates: 10 / 1000) */
    filter *f = filter_create(&c);
    filter_worker *w = filter_worker_create(f);
    filter_result res;
    int dups_found = 0;
    for (int doc = 0; doc < 6; doc++) {
        char small[64];
        snprintf(small, sizeof small, "a short document %d\nof two lines", doc);
        const char *t = doc % 2 ? text : small; /* text: 99 unique lines, then line 0 again */
        filter_document(f, w, t, strlen(t), NULL, 0, &res);
        dups_found += doc % 2 && res.reason && !strcmp(res.reason, "fineweb:char_dup_ratio");
    }
    is_int(dups_found, 3, "fineweb: duplicates found after the line table grows, document after document");
    filter_worker_destroy(w);
    filter_destroy(f);

    c = fineweb_only(&c, "fw_new_line_ratio", "0.3");
    strcpy(text, "one two three\nfour five six\nseven eight nine\nten"); /* 3 / 10 */
    is_str(run(&c, text, NULL, 0), "keep", "fineweb: 0.3 newlines per word keeps");
    strcpy(text, "one two three\nfour five six\nseven eight nine\nten\n"); /* 4 / 10 */
    is_str(run(&c, text, NULL, 0), "fineweb:list_ratio", "fineweb: 0.4 newlines per word drops");
    filter_config_free(&c);
}

static void test_langid_pii_lists(void)
{
    filter_config c = none();
    c.langid = true;
    const char *en = "The quick brown fox jumps over the lazy dog. This sentence is written in plain English "
                     "so that the language detector has enough words to be sure about it.";
    const char *de = "Alle Menschen sind frei und gleich an Würde und Rechten geboren. Sie sind mit Vernunft "
                     "und Gewissen begabt und sollen einander im Geist der Brüderlichkeit begegnen.";
    filter *f = filter_create(&c);
    filter_worker *w = filter_worker_create(f);
    filter_result r;
    filter_document(f, w, en, strlen(en), NULL, 0, &r);
    ok(r.has_lang && !strcmp(r.lang, "en") && r.lang_score > 0.9, "langid: English is en (%s %.2f)", r.lang, r.lang_score);
    double en_score = r.lang_score;
    filter_document(f, w, de, strlen(de), NULL, 0, &r);
    ok(r.has_lang && !strcmp(r.lang, "de"), "langid: German is de (%s)", r.lang);
    filter_worker_destroy(w);
    filter_destroy(f);
    set(&c, "lang", "de,fr");
    is_str(run(&c, en, NULL, 0), "lang:not_wanted", "langid: --lang de,fr drops English");
    is_str(run(&c, de, NULL, 0), "keep", "langid: --lang de,fr keeps German");
    set(&c, "lang", "German");
    is_str(run(&c, de, NULL, 0), "keep", "langid: --lang accepts language names");
    /* datatrove's LanguageFilter keeps score > threshold: a score equal to
     * --min-lang-score drops, one just below it keeps */
    set(&c, "lang", "");
    c.min_lang_score = en_score;
    is_str(run(&c, en, NULL, 0), "lang:low_score", "langid: a score equal to --min-lang-score (%.4f) drops", en_score);
    c.min_lang_score = nextafter(en_score, 0);
    is_str(run(&c, en, NULL, 0), "keep", "langid: a score just above --min-lang-score keeps");
    set(&c, "min_lang_score", "1.01");
    is_str(run(&c, en, NULL, 0), "lang:low_score", "langid: --min-lang-score above 1 drops");

    filter_config_free(&c);
    c = none();
    c.pii = true;
    char out[512];
    run(&c, "Mail jane.doe+x@mail.example.org or call 8.8.8.8, not 192.168.1.10 or 10.0.0.1; v6 2606:4700::1111 "
            "and fe80::1 and version 1.2.3.4.5 at 12:30:45.", out, sizeof out);
    is_str(out, "Mail email@example.com or call 22.214.171.124, not 192.168.1.10 or 10.0.0.1; v6 2001:db8::1 "
                "and fe80::1 and version 1.2.3.4.5 at 12:30:45.", "pii: e-mail and public IPs replaced, private ones kept");
    /* a library caller's text need not be UTF-8 (the stream's always is): bytes that are not
     * match nothing, the addresses beside them are still replaced; the matcher read past such
     * bytes unchecked before and crashed on this text (the fuzz target's seed
     * filter_rules/pii-invalid-utf8.bin) */
    static const char not_utf8[] =
        "a a He said \"\222\220\250\250\250\250\250\250\250\250\250\250\250\250\250\250\250\250\250\321\335"
        "\337\253\227\237n. Mr\310\337SmgehThe qui met Dr. Who. Then the end. the U.S. He\342\200\242ck brown fox. "
        "Contact m a\nb ae@examrle.com at 2.8.8.4 or 260ti] a a a a a\340\236\337\227 a a\340\236\337\340.\n\nLose "
        "\236\337\227 a a\340\236\337\227 a\nb a\nworks.\nIt s scot5. it b\nb\nbis c\n\n\neh";
    char big[1024];
    run(&c, not_utf8, big, sizeof big);
    ok(strstr(big, "b email@example.com at 22.214.171.124 or") && !strstr(big, "examrle"),
       "pii: addresses beside bytes that are not UTF-8 replaced");

    filter_config_free(&c);
    c = none();
    char urls[] = "/tmp/winnow-filter-urls-XXXXXX", words[] = "/tmp/winnow-filter-words-XXXXXX";
    int fd = mkstemp(urls);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, "# blocked\nbad.example.com\nhttps://www.ok.example.org/one/page/\n");
    fclose(fp);
    fd = mkstemp(words);
    fp = fdopen(fd, "w");
    fprintf(fp, "darn\nsilly goose\n$money\n");
    fclose(fp);
    set(&c, "url_blocklist", urls);
    set(&c, "badwords", words);
    f = filter_create(&c);
    w = filter_worker_create(f);
    const char *cases[][3] = {
        {"http://bad.example.com/x", "fine text", "url_blocklist"},
        {"https://sub.bad.example.com:8080/x?y", "fine text", "url_blocklist"},
        {"http://notbad.example.com/", "fine text", "keep"},
        {"http://ok.example.org/one/page", "fine text", "url_blocklist"},
        {"http://ok.example.org/two", "fine text", "keep"},
        {NULL, "Well, DARN it.", "badwords"},
        {NULL, "darnit is fine", "keep"},
        {NULL, "what a Silly  goose", "keep"},
        {NULL, "what a silly goose!", "badwords"},
        {NULL, "show me the $money", "badwords"},
        {NULL, "show me the x$money", "keep"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *url = cases[i][0];
        filter_document(f, w, cases[i][1], strlen(cases[i][1]), url, url ? strlen(url) : 0, &r);
        is_str(r.reason ? r.reason : "keep", cases[i][2], "lists: url %s text '%s'", url ? url : "-", cases[i][1]);
    }
    filter_worker_destroy(w);
    filter_destroy(f);
    remove(urls);
    remove(words);
    filter_config_free(&c);
}

/* PII against datatrove's PIIFormatter, run with email_replacement "EMAIL"
 * and ip_replacement "IP" (its regexes through Python's re, its
 * public_ip_validator through ipaddress, Python 3.12.4 on): the address
 * lists of datatrove's own PII test (less ".3.3.3.0", the deliberate
 * change), Python's Unicode \\b next to non-ASCII letters, shared and
 * special-purpose IPv4 blocks, and IPv6 (winnow's addition). */
static void test_pii_reference(void)
{
    filter_config c = none();
    c.pii = true;
    set(&c, "pii_email", "EMAIL");
    set(&c, "pii_ipv4", "IP");
    set(&c, "pii_ipv6", "V6");
    static char out[4096];
    const char *ip_in =
        "999.999.999.999.\n"
        "108.0.0.01\n"
        "0.1.2.3\n"
        "00.0000.00.00\n"
        "192.168.l.1\n"
        "912.456.123.123\n"
        "192.168.o.0\n"
        "172.16.0.9\n"
        "172.17.1.1\n"
        "127.0.0.2\n"
        "10.155.155.155\n"
        "172.31.254.254\n"
        "192.168.254.0\n"
        "163.36.107.25\n"
        "114.35.103.54\n"
        "57.120.21.121\n"
        "4.132.211.142\n"
        "214.70.227.4";
    const char *ip_want =
        "999.999.999.999.\n"
        "108.0.0.01\n"
        "0.1.2.3\n"
        "00.0000.00.00\n"
        "192.168.l.1\n"
        "912.456.123.123\n"
        "192.168.o.0\n"
        "172.16.0.9\n"
        "172.17.1.1\n"
        "127.0.0.2\n"
        "10.155.155.155\n"
        "172.31.254.254\n"
        "192.168.254.0\n"
        "IP\n"
        "IP\n"
        "IP\n"
        "IP\n"
        "IP";
    run(&c, ip_in, out, sizeof out);
    is_str(out, ip_want, "pii: datatrove's IPv4 list: invalid and private kept, public replaced");
    const char *email_in =
        "email@example.com\n"
        "firstname.lastname@example.com\n"
        "email@subdomain.example.com\n"
        "firstname+lastname@example.com\n"
        "email@123.123.123.123\n"
        "email@[123.123.123.123]\n"
        "\"email\"@example.com\n"
        "1234567890@example.com\n"
        "email@example-one.com\n"
        "_______@example.com\n"
        "NAME@MYSITE.COM\n"
        "much.”more\\ unusual”@example.com\n"
        "very.unusual.”@”.unusual.com@example.com\n"
        "very.”(),:;<>[]”.VERY.”very@\\ \"very”.unusual@strange.example.com\n"
        "plainaddress\n"
        "#@%^%#$@#$@#.com\n"
        "@example.com\n"
        "Joe Smith <email@example.com>\n"
        "email.example.com\n"
        "email@example@example.com\n"
        ".email@example.com\n"
        "email.@example.com\n"
        "email..email@example.com\n"
        "あいうえお@example.com\n"
        "email@example.com (Joe Smith)\n"
        "email@example\n"
        "email@-example.com\n"
        "email@111.222.333.44444\n"
        "email@example..com\n"
        "Abc..123@example.com\n"
        "”(),:;<>[\\]@example.com\n"
        "just”not”right@example.com\n"
        "this\\ is\"really\"not\\allowed@example.com";
    const char *email_want =
        "EMAIL\n"
        "EMAIL\n"
        "EMAIL\n"
        "EMAIL\n"
        "EMAIL\n"
        "EMAIL\n"
        "\"email\"@example.com\n"
        "EMAIL\n"
        "EMAIL\n"
        "EMAIL\n"
        "EMAIL\n"
        "much.”more\\ unusual”@example.com\n"
        "very.unusual.”@”.EMAIL\n"
        "very.”(),:;<>[]”.VERY.”very@\\ \"very”.EMAIL\n"
        "plainaddress\n"
        "#@%^%#$@#$@#.com\n"
        "@example.com\n"
        "Joe Smith <EMAIL>\n"
        "email.example.com\n"
        "email@EMAIL\n"
        ".EMAIL\n"
        "email.@example.com\n"
        "email..EMAIL\n"
        "あいうえお@example.com\n"
        "EMAIL (Joe Smith)\n"
        "email@example\n"
        "email@-example.com\n"
        "EMAIL\n"
        "email@example..com\n"
        "Abc..EMAIL\n"
        "”(),:;<>[\\]@example.com\n"
        "just”not”EMAIL\n"
        "this\\ is\"really\"not\\EMAIL";
    run(&c, email_in, out, sizeof out);
    is_str(out, email_want, "pii: datatrove's e-mail list: valid, strange and invalid addresses as Python's re finds them");
    const char *more_in =
        "see -jane@example.org or {jane}@example.org\n"
        "café@example.com caféjohn@example.com naïve.user@example.com\n"
        "mail: jöhn.doe@example.org, Übermail@example.de, x_é@example.com\n"
        "shared 100.64.1.2 and 100.127.255.254 but 100.128.0.1 and 100.63.255.255"
        "\n"
        "192.0.0.8 192.0.0.9 192.0.0.10 192.0.0.11 192.0.0.170\n"
        "v6 fd12:3456::1 fe80::1 2001:db8::7 but 2606:4700::1111";
    const char *more_want =
        "see -EMAIL or {EMAIL\n"
        "café@example.com caféjohn@example.com naïve.EMAIL\n"
        "mail: jöhn.EMAIL, Übermail@example.de, x_é@example.com\n"
        "shared 100.64.1.2 and 100.127.255.254 but IP and IP"
        "\n"
        "192.0.0.8 IP IP 192.0.0.11 192.0.0.170\n"
        "v6 fd12:3456::1 fe80::1 2001:db8::7 but V6";
    run(&c, more_in, out, sizeof out);
    is_str(out, more_want, "pii: word boundaries at non-ASCII letters, 100.64/10, 192.0.0.9/.10, unique-local IPv6");
    filter_config_free(&c);
}

int main(void)
{
    test_gopher_quality();
    test_gopher_repetition();
    test_c4();
    test_fineweb();
    test_langid_pii_lists();
    test_pii_reference();
    return done_testing();
}
