/* html_parse.c - the HTML parser's events on small handmade pages: every rule
 * of html_parse.h (tokenizer states, implied ends, references) pinned. */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "ingest/html_charref.h"
#include "ingest/html_parse.h"
#include "tests/tap.h"

static wbuf out;
static html_parser parser;

static void on_start(void *ctx, const char *name, uint16_t element, const char *const *atts)
{
    (void)ctx;
    if (element != html_element_id(name)) buf_puts(&out, "(wrong id)");
    buf_printf(&out, "<%s", name);
    for (int i = 0; atts[i]; i += 2) buf_printf(&out, " %s=%s", atts[i], atts[i + 1]);
    buf_putc(&out, '>');
}

static void on_end(void *ctx, const char *name, uint16_t element)
{
    (void)ctx;
    if (element != html_element_id(name)) buf_puts(&out, "(wrong id)");
    buf_printf(&out, "</%s>", name);
}

static void on_text(void *ctx, const char *s, size_t n)
{
    (void)ctx;
    buf_append(&out, s, n);
}

/* The events of html as one string: <name k=v>, </name> and the text. */
static const char *events(const char *html)
{
    static const html_events ev = {on_start, on_end, on_text};
    buf_clear(&out);
    html_parse(&parser, html, strlen(html), &ev, NULL);
    buf_putc(&out, 0);
    return out.data;
}

static const char *decode(const char *ref)
{
    static char s[CHARREF_MAX_UTF8 + 1];
    size_t len = 0;
    size_t used = charref_decode(ref, strlen(ref), CHARREF_IN_TEXT, s, &len);
    s[used ? len : 0] = 0;
    return used ? s : "(none)";
}

int main(void)
{
    /* tokenizer */
    is_str(events("<DIV Class=\"a b\" id='x' data-v=1 hidden>t</div>"),
           "<div class=a b id=x data-v=1 hidden=>t</div>", "names lower-cased; quoted, unquoted and empty values");
    is_str(events("<a href=\"?a=1&amp;b=2&c\">x</a>"), "<a href=?a=1&b=2&c>x</a>", "references decoded in values");
    is_str(events("<p title='a>b'>t</p>"), "<p title=a>b>t</p>", "'>' inside a quoted value");
    is_str(events("a<!-- <p>no</p> -->b<!---->c<!-->d<!--->e"), "abcde", "comments, empty and abrupt ones");
    is_str(events("<!DOCTYPE html><?xml x?>a</ >b</3>c"), "abc", "doctype, processing instruction, bogus end tags");
    is_str(events("1 < 2 <= 3 &&; a<"), "1 < 2 <= 3 &&; a<", "a '<' or '&' that starts nothing is text");
    is_str(events("x<div class=\"cut"), "x", "a tag cut off by the end of input is dropped");
    is_str(events("<div/>a</div>"), "<div>a</div>", "self-closing syntax on a normal element is ignored (HTML5)");

    /* raw text and RCDATA */
    is_str(events("<script>if (a<b && c) x='</p>';</script>t"),
           "<script>if (a<b && c) x='</p>';</script>t", "script is raw text up to </script>");
    is_str(events("<style>p>a{}</STYLE >t"), "<style>p>a{}</style>t", "style ends at its end tag in any case");
    is_str(events("<title>A &amp; <b>B</b></title>"), "<title>A & <b>B</b></title>", "title is RCDATA: references, no tags");
    is_str(events("<script>a='</scripts>';</script\t>b<textarea>x</textareas></textarea/>c"),
           "<script>a='</scripts>';</script>b<textarea>x</textareas></textarea>c",
           "a raw-text end tag needs whitespace, '/' or '>' after its name (HTML5 appropriate end tag)");
    is_str(events("<a href=/wiki/X_(y) rel=a/b>t</a>"), "<a href=/wiki/X_(y) rel=a/b>t</a>",
           "an unquoted value runs to whitespace or '>', '/' included");
    is_str(events("a<!-- x --!>b<!-- y --->c<!-- z --!-->d"), "abcd", "comment ends \"--!>\" and \"--->\" (HTML5 comment end states)");
    is_str(events("<script>never ends"), "<script>never ends</script>", "unterminated raw text runs to the end");
    is_str(events("<script>a</script"), "<script>a</script</script>",
           "\"</script\" cut off by the end of input is text (script data end tag name state)");
    is_str(events("<title>a &amp;</TITLE"), "<title>a &</TITLE</title>", "the same in RCDATA");
    is_str(events("<script>a</script "), "<script>a</script>", "\"</script \" cut off: the tag is dropped, not text");
    is_str(events("<svg><![CDATA[x<y]]></svg><![CDATA[z]]>"), "<svg>x<y</svg>", "CDATA is text only in svg/math");

    /* implied ends */
    is_str(events("<p>a<div>b</div>"), "<p>a</p><div>b</div>", "a block start closes an open p");
    is_str(events("<p>a<span>b<ul><li>c</ul>"), "<p>a<span>b</span></p><ul><li>c</li></ul>",
           "... past inline elements");
    is_str(events("<ul><li>a<li>b<div>c<li>d</ul>"), "<ul><li>a</li><li>b<div>c</div></li><li>d</li></ul>",
           "li closes the previous li, past a div");
    is_str(events("<dl><dt>a<dd>b<dt>c</dl>"), "<dl><dt>a</dt><dd>b</dd><dt>c</dt></dl>", "dt and dd close each other");
    is_str(events("<table><tr><td>a<td>b<tr><td>c</table>"),
           "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "cells and rows close their siblings");
    is_str(events("<table><tr><td><table><tr><td>in</table>out</table>"),
           "<table><tr><td><table><tr><td>in</td></tr></table>out</td></tr></table>",
           "a nested table's rows do not close the outer cell");
    is_str(events("<h1>a<h2>b</h2>"), "<h1>a</h1><h2>b</h2>", "a heading closes an open heading");
    is_str(events("<a href=1>x<a href=2>y</a>"), "<a href=1>x</a><a href=2>y</a>", "a closes an open a");
    is_str(events("<select><option>a<option>b</select>"), "<select><option>a</option><option>b</option></select>",
           "option closes option");

    /* end tags */
    is_str(events("<div><span>a</div>b"), "<div><span>a</span></div>b", "</div> closes the inline elements in it");
    is_str(events("<div>a</span>b</div>"), "<div>ab</div>", "an end tag with nothing open to close is ignored");
    is_str(events("<span><div>a</span>b</div>"), "<span><div>ab</div></span>", "</span> does not close past a div");
    is_str(events("<td><div>a</td>"), "<td><div>a</div></td>", "</td> closes what is open in the cell");
    is_str(events("<table><tr><td><div>a</div></div>b</td></tr></table>"),
           "<table><tr><td><div>a</div>b</td></tr></table>", "</div> does not close past a table cell");
    is_str(events("a</p>b</br>c"), "a<p></p>b<br></br>c", "</p> without <p> is an empty p; </br> is <br>");
    is_str(events("<h2>a</h3>b"), "<h2>a</h2>b", "any heading end tag closes the open heading");
    is_str(events("<my-el><x-y>a</my-el>b"), "<my-el><x-y>a</x-y></my-el>b", "unknown elements match by name");

    /* void elements, html/head/body */
    is_str(events("a<br>b<img src=x>c<hr>d"), "a<br></br>b<img src=x></img>c<hr></hr>d", "void elements end at once");
    is_str(events("<html lang=en><head><title>t</title><meta name=a content=b></head><body>x</body></html>"),
           "<html lang=en><head><title>t</title><meta name=a content=b></meta></head><body>x</body></html>",
           "a whole document");
    is_str(events("<html><head><title>t</title><p>body text"),
           "<html><head><title>t</title></head><p>body text</p></html>", "body content ends an unclosed head");
    is_str(events("<head>  <title>t</title> text"), "<head>  <title>t</title></head> text",
           "non-blank text ends head, blank text does not");
    is_str(events("<body>a</body>b</html><body class=x>c"), "<body>abc</body>",
           "</body> and </html> close nothing; a second body is ignored");

    /* character references */
    is_str(events("caf&eacute; &lt;&gt; &#x4E2D;&#25991; &#150; &#0; &#xD800; &#x110000;"),
           "café <> 中文 – \xEF\xBF\xBD \xEF\xBF\xBD \xEF\xBF\xBD",
           "named, numeric, windows-1252 and invalid references");
    is_str(decode("&amp"), "&", "a legacy name needs no ';'");
    is_str(decode("&hellip"), "(none)", "other names need their ';'");
    is_str(decode("&#65"), "A", "a numeric one does not");
    is_str(decode("&apos;"), "'", "&apos; is known");
    is_str(decode("&thetasym;"), "\xCF\x91", "&thetasym; is known");
    static const char *const html4_names[][2] = { /* the ends of HTML 4's ranges */
        {"&quot;", "\""}, {"&yuml;", "\xC3\xBF"}, {"&OElig;", "\xC5\x92"}, {"&fnof;", "\xC6\x92"},
        {"&circ;", "\xCB\x86"}, {"&Alpha;", "\xCE\x91"}, {"&piv;", "\xCF\x96"}, {"&ensp;", "\xE2\x80\x82"},
        {"&euro;", "\xE2\x82\xAC"}, {"&alefsym;", "\xE2\x84\xB5"}, {"&larr;", "\xE2\x86\x90"},
        {"&lang;", "\xE2\x9F\xA8"}, {"&loz;", "\xE2\x97\x8A"}, {"&diams;", "\xE2\x99\xA6"},
    };
    for (size_t i = 0; i < sizeof html4_names / sizeof html4_names[0]; i++)
        is_str(decode(html4_names[i][0]), html4_names[i][1], "HTML 4 name: %s", html4_names[i][0]);
    is_str(decode("&Eacute;"), "\xC3\x89", "names are case-sensitive (&Eacute;)");
    is_str(decode("&eacutx;"), "(none)", "an unknown name is no reference");
    is_str(decode("&#x;"), "(none)", "&#x; without digits is no reference");
    is_str(decode("&#99999999999999999999;"), "\xEF\xBF\xBD", "an overlong number is U+FFFD");

    /* depth: 100,000 unclosed elements and end tags that match nothing stay linear */
    size_t depth = 100000;
    char *deep = malloc(depth * 16 + 1);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(deep + n, "<span></x-y>", 12);
        n += 12;
    }
    deep[n] = 0;
    const char *e = events(deep);
    ok(strlen(e) == depth * strlen("<span></span>"), "100k nested spans with stray end tags: all closed at the end");
    free(deep);

    html_parser_free(&parser);
    buf_free(&out);
    is_str(events("<noscript><p>a &amp; b</p></noscript>"), "<noscript><p>a &amp; b</p></noscript>",
           "noscript is raw text while scripting is on");
    parser.scripting_off = 1;
    is_str(events("<noscript><p>a &amp; b</p></noscript>"), "<noscript><p>a & b</p></noscript>",
           "with scripting off, noscript holds markup (the HTML standard's parsing without scripts)");
    is_str(events("<noscript><p>x</p></noscript><p>y"), "<noscript><p>x</p></noscript><p>y</p>",
           "scripting_off is kept from page to page, until the caller resets it");
    parser.scripting_off = 0;
    return done_testing();
}
