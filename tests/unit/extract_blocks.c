/* extract_blocks.c - main-content decisions on small handmade pages: what a
 * reader calls the text of the page stays, navigation and boilerplate go. */
#include <string.h>

#include "ingest/html.h"
#include "tests/tap.h"

static html_result r;

static const char *main_text(const char *html)
{
    html_extract(html, strlen(html), "utf-8", EXTRACT_MAIN, &r);
    return r.text.data ? r.text.data : "";
}

#define P1 "<p>The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.</p>"
#define P2 "<p>Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.</p>"
#define P3 "<p>Residents who spoke at the meeting were mostly in favour, though some worried about the noise and the cost of the works.</p>"
#define NAV "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li><li><a href='/sport'>Sport</a></li></ul></nav>"
#define SIDEBAR "<div class='sidebar'><h3>Most read</h3><ul><li><a href='/a'>Ten things to do this weekend in town</a></li>" \
                "<li><a href='/b'>Why the price of bread keeps going up again</a></li></ul></div>"
#define FOOTER "<footer><p>Copyright 2024 The Daily Example. All rights reserved.</p><a href='/privacy'>Privacy</a></footer>"

int main(void)
{
    is_str(main_text("<html><head><title>Bridge to be rebuilt | Daily Example</title></head><body>" NAV
                     "<div class='wrap'><article><h1>Bridge to be rebuilt</h1>"
                     "<div class='share-buttons'><a href='#'>Share on Facebook</a> <a href='#'>Tweet</a></div>"
                     P1 "<div class='x1'><span>Advertisement</span></div><figure><img src='x.jpg'><figcaption>The bridge in 1950. Photo: archive</figcaption></figure>"
                     P2 "<h2>What residents say</h2>" P3
                     "<div class='related-articles'><h3>Related</h3><ul><li><a href='/c'>Roads closed for repairs next week in the centre</a></li></ul></div>"
                     "</article>" SIDEBAR "</div>"
                     "<div id='comments'><h3>3 comments</h3><p>Great news, finally! I have waited for this bridge for years and years now.</p></div>"
                     "<div class='cookie-banner'><p>We use cookies to improve your experience on our website, as explained in our policy.</p></div>"
                     FOOTER "</body></html>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.\n\n"
           "What residents say\n\n"
           "Residents who spoke at the meeting were mostly in favour, though some worried about the noise and the cost of the works.",
           "article kept; nav, share, ad label, caption, related, sidebar, comments, cookie banner, footer and title heading dropped");

    is_str(main_text("<body>" NAV "<div class='content'>" P1
                     "<table><tr><th>Year</th><th>Cost</th></tr><tr><td>2025</td><td>4 million</td></tr>"
                     "<tr><td>2026</td><td>6 million</td></tr></table>" P2 "</div>" SIDEBAR FOOTER "</body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Year\nCost\n2025\n4 million\n2026\n6 million\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.",
           "a data table inside the content is kept");

    is_str(main_text("<body><div class='page has-sidebar'>" NAV P1 P2 P3 "</div></body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.\n\n"
           "Residents who spoke at the meeting were mostly in favour, though some worried about the noise and the cost of the works.",
           "a wrapper whose class says 'sidebar' but holds the article is not boilerplate");

    is_str(main_text("<body>" NAV "<ul class='teasers'>"
                     "<li><a href='/1'>Bridge to be rebuilt</a> The council voted to rebuild the old bridge over the river this week.</li>"
                     "<li><a href='/2'>Ferry to run in spring</a> A ferry will run while the bridge is closed for the works.</li></ul>"
                     "<div class='story'>" P1 P2 "</div></body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.",
           "a teaser list (linked headline + summary) loses to the story");

    const char *portal = "<body><h1>City services</h1><ul><li><a href='/a'>Parking permits</a></li><li><a href='/b'>Waste collection</a></li>"
                         "<li><a href='/c'>Libraries</a></li></ul><p>Call 555-0100</p></body>";
    main_text(portal);
    ok(strstr(r.text.data, "City services") && strstr(r.text.data, "Parking permits"),
       "a page without prose still yields its text ('%s')", r.text.data);

    is_str(main_text("<body><div class='post'>" P1 "<h3>Don't miss</h3><ul><li><a href='/x'>Another story about the river</a></li>"
                     "<li><a href='/y'>And one more about the bridge</a></li></ul>" P2 "</div></body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.",
           "a link list inside the content and its label are dropped");

    /* a body of paragraphs beside a heavy navigation table, in one container (Wikipedia) */
    char wiki[8192] = "<body><div id='content'><div class='body'>" P1 P2 P3 P1 P2 "<table class='navbox'>";
    for (int i = 0; i < 40; i++) strcat(wiki, "<tr><td><a href='/t'>Topic link</a></td><td><a href='/u'>Other topic</a></td></tr>");
    strcat(wiki, "</table></div></div></body>");
    main_text(wiki);
    ok(strstr(r.text.data, "The council voted") && strstr(r.text.data, "Residents who spoke") && !strstr(r.text.data, "Topic link"),
       "paragraphs beside a link table: paragraphs kept, table dropped");

    /* a stub whose sentences are half links (an encyclopedia) is prose, not navigation */
    is_str(main_text("<body>" NAV "<div id='body'><table class='infobox'><tr><td><a href='/p'>Province</a></td><td><a href='/g'>Guadalajara</a></td></tr></table>"
                     "<p><b>Escopete</b> is a <a href='/m'>municipality</a> in the <a href='/p'>province of Guadalajara</a>, "
                     "<a href='/s'>Spain</a>, in the <a href='/a'>Alcarria</a> region.</p>"
                     "<p>Its population was 84 in 2007, on an area of 19 square kilometres, and it lies 860 metres above the sea.</p></div>" FOOTER "</body>"),
           "Escopete is a municipality in the province of Guadalajara, Spain, in the Alcarria region.\n\n"
           "Its population was 84 in 2007, on an area of 19 square kilometres, and it lies 860 metres above the sea.",
           "paragraphs of linked sentences are kept, the link-only infobox is not");

    const char *meta_page = "<html><head><title>T</title><meta name='author' content='Jane Roe'>"
                            "<meta property='og:description' content='About the bridge.'>"
                            "<script type='application/ld+json'>{\"@type\":\"NewsArticle\",\"datePublished\":\"2024-05-01T10:00:00Z\","
                            "\"author\":[{\"@type\":\"Person\",\"name\":\"J. Roe\"}]}</script></head><body>" P1 "</body></html>";
    html_extract(meta_page, strlen(meta_page), NULL, EXTRACT_MAIN, &r);
    is_str(r.meta.data, "\"author\":\"J. Roe\",\"published\":\"2024-05-01T10:00:00Z\",\"description\":\"About the bridge.\"",
           "metadata from JSON-LD (author, date) and meta tags (description)");
    ok(!strstr(r.text.data, "NewsArticle"), "JSON-LD never reaches the text");

    html_result_free(&r);
    return done_testing();
}
