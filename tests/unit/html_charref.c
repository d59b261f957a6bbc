/* html_charref.c - character references through the HTML parser, checked
 * against the HTML Living Standard: its own examples, html5lib-tests'
 * tokenizer cases (tests/data/html5lib/charrefs.txt) and, given a case file
 * as argument, any other reference's cases in the same format
 * (tests/e2e/html_charref_unescape.sh passes Python's html.unescape's).
 *
 *   html_charref [CASES]   one case a line: kind<TAB>input<TAB>expected, kind
 *                          "text" (the text the parser reports) or "attr" (the
 *                          value of attribute a of the one tag in input);
 *                          \\, \t, \n and \xHH escaped; '#' starts a comment */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "ingest/html_charref.h"
#include "ingest/html_parse.h"
#include "tests/tap.h"
#include "tests/unit/case_file.h"

/* The cases html5lib-tests holds for text and for attribute values. */
#define HTML5LIB_TEXT_CASES 4654
#define HTML5LIB_ATTR_CASES 18
/* How many failing cases a run lists. */
#define FAILURES_SHOWN 20

static html_parser parser;
static wbuf text, attr;
static int attr_seen;

static void on_start(void *ctx, const char *name, uint16_t element, const char *const *atts)
{
    (void)ctx, (void)name, (void)element;
    for (int i = 0; atts[i]; i += 2)
        if (!strcmp(atts[i], "a")) {
            buf_clear(&attr);
            buf_puts(&attr, atts[i + 1]);
            attr_seen++;
        }
}

static void on_end(void *ctx, const char *name, uint16_t element)
{
    (void)ctx, (void)name, (void)element;
}

static void on_text(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    buf_append(&text, s, n);
}

static const html_events events = {on_start, on_end, on_text};

/* What the parser makes of html: its text, or with want_attr the value of
 * the attribute "a" (NULL unless exactly one was seen). The result lives
 * until the next call. */
static const char *parse(const char *html, size_t n, int want_attr)
{
    buf_clear(&text);
    buf_clear(&attr);
    attr_seen = 0;
    html_parse(&parser, html, n, &events, NULL);
    wbuf *b = want_attr ? &attr : &text;
    buf_putc(b, 0);
    return want_attr && attr_seen != 1 ? NULL : b->data;
}

static const char *text_of(const char *html)
{
    return parse(html, strlen(html), 0);
}

static const char *attr_of(const char *html)
{
    return parse(html, strlen(html), 1);
}

/* Runs every case of path; *ntext and *nattr count them by kind. Returns
 * the failures (a malformed line is one). */
static int run_cases(const char *path, int *ntext, int *nattr)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        diag("cannot open %s", path);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    int failed = 0, lineno = 0;
    *ntext = *nattr = 0;
    while (case_file_next(f, &line, &cap, &lineno)) {
        char *input = strchr(line, '\t'), *want = input ? strchr(input + 1, '\t') : NULL;
        if (!want) {
            diag("%s:%d: not kind<TAB>input<TAB>expected", path, lineno);
            failed++;
            continue;
        }
        *input++ = 0;
        *want++ = 0;
        int is_attr = !strcmp(line, "attr");
        if (!is_attr && strcmp(line, "text")) {
            diag("%s:%d: unknown kind %s", path, lineno, line);
            failed++;
            continue;
        }
        (is_attr ? nattr : ntext)[0]++;
        size_t n = case_unescape(input);
        case_unescape(want);
        const char *got = parse(input, n, is_attr);
        if (!got || strcmp(got, want)) {
            if (failed++ < FAILURES_SHOWN)
                diag("%s:%d: %s '%s': got '%s', want '%s'", path, lineno, line, input, got ? got : "(no attribute)",
                     want);
        }
    }
    free(line);
    fclose(f);
    return failed;
}

/* The standard's examples and the rules one at a time. */
static void spec_examples(void)
{
    /* named character reference state, its examples */
    is_str(text_of("I'm &notit; I tell you"), "I'm \xC2\xACit; I tell you", "&notit; is &not then \"it;\"");
    is_str(text_of("I'm &notin; I tell you"), "I'm \xE2\x88\x89 I tell you", "&notin; is the longer name");
    is_str(text_of("&copyright"), "\xC2\xA9right", "a legacy name without ';' in text, letters after");
    is_str(text_of("&amp"), "&", "a legacy name at the end of input");
    is_str(text_of("&ampx;&lt3"), "&x;<3", "legacy names followed by a letter and a digit");
    is_str(text_of("&nbsp&nbsp;x"), "\xC2\xA0\xC2\xA0x", "with and without ';'");
    is_str(text_of("&hellip &hellip;"), "&hellip \xE2\x80\xA6", "a name that is not legacy needs its ';'");
    is_str(text_of("&Eacute;&eacute;"), "\xC3\x89\xC3\xA9", "names are case-sensitive");
    is_str(text_of("&NotEqualTilde; &fjlig;"), "\xE2\x89\x82\xCC\xB8 fj", "names of two code points");
    is_str(text_of("&lang;&rang;"), "\xE2\x9F\xA8\xE2\x9F\xA9", "HTML5's &lang; is U+27E8, not HTML 4's U+2329");
    is_str(text_of("&CounterClockwiseContourIntegral;"), "\xE2\x88\xB3", "the longest name (32 bytes with ';')");
    is_str(text_of("&xyz; & &; &#; &#x; &=a"), "&xyz; & &; &#; &#x; &=a", "what is no reference stays as it is");
    is_str(text_of("&&amp;&"), "&&&", "an '&' right before a reference");
    is_str(text_of("<title>&notit; &copy=2</title>"), "\xC2\xACit; \xC2\xA9=2", "RCDATA decodes as text");
    is_str(text_of("<script>&amp;</script>"), "&amp;", "raw text decodes nothing");
    /* attribute values: a match without ';' before '=' or an alphanumeric stays */
    is_str(attr_of("<a a=\"?x=1&copy=2&not3&notx&not;y&not\">"), "?x=1&copy=2&not3&notx\xC2\xACy\xC2\xAC",
           "attribute: legacy names before '=', digits, letters stay; before ';' or the end they decode");
    is_str(attr_of("<a a='&copy.&amp&lt;b'>"), "\xC2\xA9.&<b", "attribute: other characters after a legacy name");
    is_str(attr_of("<a a=&notin;x>"), "\xE2\x88\x89x", "attribute: a name with ';' decodes whatever follows");
    is_str(attr_of("<a a=\"&notit;\">"), "&notit;", "attribute: &notit; stays (the longest match is &not)");
    is_str(attr_of("<a a=&amp>"), "&", "attribute: unquoted value ends after a legacy name");
    is_str(attr_of("<a a='&#65x&#x41;'>"), "AxA", "attribute: numeric references need no ';'");
    /* the decoder itself */
    char out[CHARREF_MAX_UTF8];
    size_t len = 0;
    is_int(charref_decode("&notin;", 7, CHARREF_IN_TEXT, out, &len), 7, "decode: spans the whole name");
    is_int(charref_decode("&notit;", 7, CHARREF_IN_TEXT, out, &len), 4, "decode: spans &not");
    is_int(charref_decode("&notit;", 7, CHARREF_IN_ATTRIBUTE, out, &len), 0, "decode: no reference in an attribute");
    is_int(charref_decode("&not", 3, CHARREF_IN_TEXT, out, &len), 0, "decode: stops at n (&no is no name)");
}

int main(int argc, char **argv)
{
    int ntext = 0, nattr = 0;
    if (argc > 1) {
        int failed = run_cases(argv[1], &ntext, &nattr);
        ok(ntext + nattr > 0, "%s holds cases (%d text, %d attribute)", argv[1], ntext, nattr);
        ok(!failed, "every case of %s decodes as expected (%d failed)", argv[1], failed);
        return done_testing();
    }
    spec_examples();
    const char *path = "tests/data/html5lib/charrefs.txt";
    require_file(path);
    int failed = run_cases(path, &ntext, &nattr);
    is_int(ntext, HTML5LIB_TEXT_CASES, "html5lib-tests: every text case read");
    is_int(nattr, HTML5LIB_ATTR_CASES, "html5lib-tests: every attribute case read");
    ok(!failed, "html5lib-tests: every case decodes as the tokenizer tests expect (%d failed)", failed);
    html_parser_free(&parser);
    buf_free(&text);
    buf_free(&attr);
    return done_testing();
}
