/* html_scriptdata.c - where a <script> element ends, checked against the
 * HTML Living Standard's script data states (13.2.5.4, 13.2.5.15-13.2.5.32:
 * escaped "<!-- -->" text and the double-escaped "<script>...</script>"
 * inside it): html5lib-tests' tokenizer cases in the script data state
 * (tests/data/html5lib/scriptdata.txt, written by
 * scripts/html5lib_scriptdata_cases.py), the standard's rules one at a time,
 * and the document.write shape of old ad code through the whole extraction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "ingest/html.h"
#include "ingest/html_parse.h"
#include "tests/tap.h"
#include "tests/unit/case_file.h"

/* The cases the file holds. */
#define HTML5LIB_SCRIPT_CASES 75
/* How many failing cases a run lists. */
#define FAILURES_SHOWN 20

static html_parser parser;
static wbuf script_text, after_text, got;
static int in_script, script_ended;

static void on_start(void *ctx, const char *name, uint16_t element, const char *const *atts)
{
    (void)ctx, (void)element, (void)atts;
    if (!strcmp(name, "script")) in_script = 1;
}

static void on_end(void *ctx, const char *name, uint16_t element)
{
    (void)ctx, (void)element;
    if (!strcmp(name, "script")) in_script = 0, script_ended = 1;
}

static void on_text(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    buf_append(in_script ? &script_text : script_ended ? &after_text : &got, s, n);
}

static const html_events events = {on_start, on_end, on_text};

/* Parses "<script>" + body; the script's text and the text after it land
 * in script_text and after_text (NUL-terminated). Text before the script
 * (there is none) would land in got. */
static void parse_script(const char *body, size_t n)
{
    buf_clear(&script_text);
    buf_clear(&after_text);
    buf_clear(&got);
    in_script = script_ended = 0;
    wbuf html = WBUF_INIT;
    buf_puts(&html, "<script>");
    buf_append(&html, body, n);
    html_parse(&parser, html.data, html.len, &events, NULL);
    buf_free(&html);
    buf_putc(&script_text, 0);
    buf_putc(&after_text, 0);
}

/* Runs every case of path, counting them in *ncases; returns the failures
 * (a malformed line is one). */
static int run_cases(const char *path, int *ncases)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        diag("cannot open %s", path);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    int failed = 0, lineno = 0;
    *ncases = 0;
    while (case_file_next(f, &line, &cap, &lineno)) {
        char *want_script = strchr(line, '\t'), *want_after = want_script ? strchr(want_script + 1, '\t') : NULL;
        if (!want_after) {
            diag("%s:%d: not input<TAB>script text<TAB>text after", path, lineno);
            failed++;
            continue;
        }
        *want_script++ = 0;
        *want_after++ = 0;
        ++*ncases;
        size_t n = case_unescape(line);
        case_unescape(want_script);
        case_unescape(want_after);
        parse_script(line, n);
        if (strcmp(script_text.data, want_script) || strcmp(after_text.data, want_after) || got.len) {
            if (failed++ < FAILURES_SHOWN)
                diag("%s:%d: '%s': script '%s', after '%s'; want '%s', '%s'", path, lineno, line, script_text.data,
                     after_text.data, want_script, want_after);
        }
    }
    free(line);
    fclose(f);
    return failed;
}

/* Checks the script text and the text after it for "<script>" + body. */
static void script_is(const char *body, const char *want_script, const char *want_after, const char *what)
{
    parse_script(body, strlen(body));
    is_str(script_text.data, want_script, "%s: the script's text", what);
    is_str(after_text.data, want_after, "%s: the text after it", what);
}

/* The states one at a time (read from the standard, 13.2.5.15-13.2.5.32). */
static void spec_rules(void)
{
    script_is("a</script>b", "a", "b", "script data: the end tag ends it");
    script_is("a</SCRIPT >b", "a", "b", "script data: any case, then whitespace");
    script_is("a</scripts>b</script>c", "a</scripts>b", "c", "script data: a longer name does not end it");
    script_is("a</script/>b", "a", "b", "script data: '/' after the name ends it too");
    script_is("<!-- a -> <script></script> --></script>y", "<!-- a -> <script></script> -->", "y",
              "escaped: one dash before '>' does not end the escape");
    script_is("<!--<scripx></script>y", "<!--<scripx>", "y", "\"<scripx\" does not double-escape");
    script_is("<!--<script></script><script></script></script>x", "<!--<script></script><script></script>", "x",
              "the double escape's end goes back to escaped text, where <script> double-escapes again");
    script_is("<!--<script>-</script>-->x</script>y", "<!--<script>-</script>-->x", "y",
              "double-escaped: one dash before the end tag");
    script_is("<!--<script>--</script>-->x</script>y", "<!--<script>--</script>-->x", "y",
              "double-escaped: two dashes, then '<' keeps the double escape");
    script_is("<!--<script>--></script>y", "<!--<script>-->", "y", "double-escaped: \"-->\" goes back to data");
    script_is("<!--<script>---></script>y", "<!--<script>--->", "y", "double-escaped: \"--->\" too");
    script_is("<!--<SCRIPT/></script></script>y", "<!--<SCRIPT/></script>", "y",
              "double escape start: any case, '/' after the name");
    script_is("<!--<scriptx></script>y", "<!--<scriptx>", "y", "\"<scriptx\" does not double-escape");
    script_is("<!--<script></script ></script>y", "<!--<script></script >", "y",
              "double escape end: whitespace after the name");
    script_is("<!--<script></scriptx></script>y", "<!--<script></scriptx></script>y", "",
              "\"</scriptx\" does not end the double escape: no end tag follows");
    script_is("<!-x <script></script>y", "<!-x <script>", "y", "\"<!-\" is no escape: </script> ends the script");
    script_is("<!--></script>y", "<!-->", "y", "\"<!-->\": escaped, then at once back to data");
    script_is("<!---></script>y", "<!--->", "y", "\"<!--->\" too");
    script_is("<!----><script></script>y", "<!----><script>", "y", "after \"<!---->\" a <script> is text");
    script_is("<!-- a -- <script></script> --></script>y", "<!-- a -- <script></script> -->", "y",
              "dashes not before '>' stay escaped");
    script_is("<!-- -<script></script>--></script>y", "<!-- -<script></script>-->", "y",
              "a dash then '<' starts a tag");
    script_is("x<!--<script>", "x<!--<script>", "", "double-escaped to the end of input");
    script_is("<!-- </script>x", "<!-- ", "x", "escaped: the end tag ends it");
    script_is("<!-- x -- > <script></script> --></script>y", "<!-- x -- > <script></script> -->", "y",
              "\"-- >\" is no escape end");
}

/* The shape of old pages with ad code: the first </script> is inside the
 * double escape, so none of the code leaks into the text. */
static void ad_code(void)
{
    const char *page = "<html><body><p>Before.</p>"
                       "<script><!-- document.write(\"<script src=x></script>\"); var leak = 1; --></script>"
                       "<p>After.</p></body></html>";
    html_result r = {0};
    html_extract(page, strlen(page), "utf-8", EXTRACT_FULL, &r);
    buf_putc(&r.text, 0);
    is_str(r.text.data, "Before.\n\nAfter.", "document.write of a script in a commented script: no code in the text");
    html_result_free(&r);
}

int main(void)
{
    spec_rules();
    ad_code();
    const char *path = "tests/data/html5lib/scriptdata.txt";
    require_file(path);
    int ncases = 0, failed = run_cases(path, &ncases);
    is_int(ncases, HTML5LIB_SCRIPT_CASES, "html5lib-tests: every script data case read");
    ok(!failed, "html5lib-tests: every case ends the script where the tokenizer tests say (%d failed)", failed);
    html_parser_free(&parser);
    buf_free(&script_text);
    buf_free(&after_text);
    buf_free(&got);
    return done_testing();
}
