/* html_walk.c - the full-text walk (--extract=full) on small handmade pages. */
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "ingest/html.h"
#include "tests/tap.h"

static html_result r;

static const char *full(const char *html)
{
    html_extract(html, strlen(html), "utf-8", EXTRACT_FULL, &r);
    return r.text.data ? r.text.data : "";
}

int main(void)
{
    is_str(full("<html lang='de-AT'><head><title> A  &amp; B </title><style>p{}</style>"
                "<script>var x='<p>no</p>';</script></head><body><p>Hello <b>big</b>\n  world</p></body></html>"),
           "Hello big world", "script/style/head dropped, whitespace collapsed");
    is_str(r.title.data, "A & B", "title kept, entities decoded, trimmed");
    is_str(r.lang.data, "de-AT", "html lang kept");

    is_str(full("<p>one</p><p>two</p><ul><li>a</li><li>b</li></ul><h2>Head</h2>x<br>y"),
           "one\n\ntwo\n\na\nb\n\nHead\n\nx\ny", "paragraphs blank-line separated, list items and br lines");

    is_str(full("<div>caf&eacute; &#x4E2D;&#25991; &lt;tag&gt; &nbsp;x</div>"), "café 中文 <tag> x",
           "named and numeric entities decoded, nbsp collapsed");

    is_str(full("<body><noscript>enable js</noscript><template><p>t</p></template><svg><text>s</text></svg>"
                "<p hidden>h</p><div style='display: none'>d</div><p>seen</p></body>"),
           "seen", "noscript, template, svg and hidden elements dropped");

    is_str(full("<div class='d-none'>a</div><div class='hidden md:block'>b</div><span class='sr-only'>c</span>"
                "<div class='d-none d-print-block'>d</div><div class='d-none d-lg-flex'>e</div>"),
           "b\n\ne", "framework classes that hide (d-none, sr-only, print-only) drop; responsive ones that show keep");

    is_str(full("<table><tr><td>a1</td><td>b1</td></tr><tr><td>a2</td></tr></table>"), "a1\nb1\na2",
           "table cells are lines");

    is_str(full("<pre>  x = 1\n  y = 2\n</pre><p>after</p>"), "x = 1\n  y = 2\n\nafter", "pre keeps its lines");

    is_str(full("<pre>if (a)\r\n  b();\rc();\r\n</pre>"), "if (a)\n  b();\nc();",
           "in pre, CR LF and a lone CR are one line break (the HTML standard's newline normalization)");
    is_str(full("<pre>a\n b</pre><p>after\n   the   pre</p>"), "a\n b\n\nafter the pre",
           "whitespace collapses again after </pre>");

    /* HTML's rendering section: listing and plaintext are blocks with white-space: pre
     * like pre and xmp, search is a block, dialog:not([open]) is display: none */
    is_str(full("<listing>  x = 1\n  y = 2\n</listing><p>after</p>"), "x = 1\n  y = 2\n\nafter",
           "listing keeps its lines, as pre does");
    is_str(full("<p>r</p><plaintext>  a\n  b <p> c"), "r\n\na\n  b <p> c", "plaintext keeps its lines and markup as text");
    is_str(full("a<search>b</search>c"), "a\n\nb\n\nc", "search is a block");
    is_str(full("<p>top</p><dialog>modal <b>sign in</b></dialog><dialog open>shown</dialog>"), "top\n\nshown",
           "a dialog without open is not rendered; an open one is");

    is_str(full("<p>10&nbsp;km, Mr.\xc2\xa0Smith</p>"), "10 km, Mr. Smith", "no-break spaces are spaces");

    is_str(full("<p>seen</p><div style='visibility: hidden'>v</div><div style='DISPLAY: None'>d</div>"
                "<span style='Visibility:Hidden'>s</span>"),
           "seen", "visibility: hidden hides; CSS in the style attribute is case-insensitive");

    /* React's streaming render: each finished part arrives as <div hidden id="S:N"> (N in hex)
     * that a script moves into its placeholder <template id="B:N">; Next.js pages often
     * have all their text there */
    is_str(full("<main><template id='B:0'></template></main><p>after</p>"
                "<div hidden id='S:0'><article><p>streamed text</p></article></div>"
                "<div hidden id='S:1f'><p>second part</p></div>"),
           "after\n\nstreamed text\n\nsecond part", "a streamed React segment (hidden, id S:<hex>) is content");
    is_str(full("<p>seen</p><div hidden id='S:'>a</div><div hidden id='S:0x'>b</div><div hidden id='s:0'>c</div>"
                "<div hidden id='xS:0'>d</div><div hidden>e</div><div class='hidden' id='S:0'>f</div>"),
           "seen", "other hidden elements stay hidden, whatever their id; a hiding class hides a segment");

    /* a page built by scripts, with the page itself for readers without them in <noscript>
     * (Discourse forums): read as a browser without scripts does */
    is_str(full("<body><div id='app'></div><noscript><header>Forum</header><div class='post'>"
                "<p>The first post of the thread.</p><p>A reply &amp; more.</p></div></noscript>"
                "<script>boot()</script><p>ok</p></body>"),
           "Forum\n\nThe first post of the thread.\n\nA reply & more.\n\nok",
           "noscript with twice the text the page shows: read as without scripts");
    is_str(full("<body><p>The article, all of it here.</p><noscript><img src='pixel.gif' alt='a b'>"
                "<iframe src='https://www.googletagmanager.com/ns.html?id=GTM-XXXX'></iframe>"
                "<p>Please enable JavaScript.</p></noscript></body>"),
           "The article, all of it here.", "the markup of a noscript (tracking pixels) is not its text");
    is_str(full("<body><p>The article, all of it here.</p><noscript><p>The article, all of it here.</p></noscript></body>"),
           "The article, all of it here.", "a page that repeats its text in noscript is read with scripts");

    is_str(full("<p>unclosed <b>bold <i>both</p><p>next"), "unclosed bold both\n\nnext", "broken nesting recovered");

    is_str(full("text with\x01 control\x7f chars"), "text with control chars", "control characters dropped");

    is_str(full("<p>a</p><p>\xe2\x80\x8b</p><p>b\xe2\x80\x8b c</p>"), "a\n\nb c",
           "zero-width spaces are whitespace: a paragraph of them is empty");

    full("");
    is_str(r.text.data ? r.text.data : "", "", "empty input gives empty text");

    /* NUL bytes and invalid UTF-8 never reach the output */
    const char bad[] = "<p>a\0b\xff\xfe c</p>";
    html_extract(bad, sizeof bad - 1, NULL, EXTRACT_FULL, &r);
    ok(utf8_valid(r.text.data, r.text.len) && !memchr(r.text.data, 0, r.text.len), "NUL and bad bytes: valid UTF-8 out ('%s')", r.text.data);

    /* deep nesting stays linear and does not crash */
    size_t depth = 100000;
    char *deep = malloc(depth * 10 + 64);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) n += (size_t)sprintf(deep + n, "<div>%c", i % 1000 ? ' ' : 'w');
    deep[n] = 0;
    html_extract(deep, n, NULL, EXTRACT_FULL, &r);
    ok(r.text.len > 0 && strchr(r.text.data, 'w'), "100k nested divs: text comes out");
    html_extract(deep, n, NULL, EXTRACT_MAIN, &r);
    ok(r.text.len > 0, "100k nested divs, main mode: text comes out");
    free(deep);

    html_result_free(&r);
    return done_testing();
}
