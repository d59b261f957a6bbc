/* extract_blocks.c - main-content decisions on small handmade pages: what a
 * reader calls the text of the page stays, navigation and boilerplate go. */
#include <stdio.h>
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

    is_str(main_text("<body><div class='story'>" P1 "<div><span>Anzeige:</span></div>" P2 "<p>Advertisement: </p></div></body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.",
           "advertisement labels followed by a colon go too");

    is_str(main_text("<body><div class='story'>" P1 P2 "<p>Thanks for reading</p></div></body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.\n\n"
           "Thanks for reading",
           "a short last line of text is kept (only a heading with nothing after it goes)");

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

    /* boilerplate found by tag, role and class whatever its case, inside the article */
    is_str(main_text("<body><article>" P1
                     "<aside><h3>Most read</h3><p>Ten things to do this weekend in town, from markets to concerts and a new museum.</p></aside>"
                     "<div role='navigation'><p>Sections: News, Sport, Business, Culture, Travel, Weather and Local Politics of the region.</p></div>"
                     "<div class='cookie-notice'><p>We use cookies to improve your experience on our website, as explained in our policy.</p></div>"
                     "<div class='RelatedStories'><p>Roads closed for repairs next week in the centre, and the buses take a detour.</p></div>"
                     P2 "</article></body>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.",
           "aside, role=navigation, a cookie notice and a CamelCase 'RelatedStories' class are dropped");

    /* the headline that repeats the <title> (with the site's name after it) goes even right before the text */
    is_str(main_text("<html><head><title>Bridge to be rebuilt after decades of debate | Daily Example</title></head><body>"
                     "<article><h1>Bridge to be rebuilt after decades of debate</h1>" P1 P2 "</article></body></html>"),
           "The council voted on Tuesday to rebuild the old bridge over the river, a project that has been discussed for a decade.\n\n"
           "Work starts in spring and should take two years, the mayor said, adding that a ferry will run while the bridge is closed.",
           "the headline that repeats the page title is dropped");

    /* Chinese prose ends in the ideographic full stop: a paragraph whose words are half links is a sentence, kept */
    const char *zh_linked = "<a href='/1'>北京</a>是<a href='/2'>中华人民共和国</a>的<a href='/3'>首都</a>，也是全国的<a href='/4'>政治中心</a>和<a href='/5'>文化中心</a>。";
    const char *zh1 = "北京有三千多年的建城史和八百多年的建都史，是一座历史悠久的文化名城，城中保存着大量的古代建筑和园林。";
    const char *zh2 = "今天的北京是一座现代化的国际大都市，每年都有数以百万计的游客来到这里参观故宫、长城和天坛等名胜古迹。";
    char zh_page[2048];
    snprintf(zh_page, sizeof zh_page, "<body>" NAV "<div class='text'><p>%s</p><p>%s</p><p>%s</p></div>" FOOTER "</body>", zh_linked, zh1, zh2);
    char zh_want[1024];
    snprintf(zh_want, sizeof zh_want, "北京是中华人民共和国的首都，也是全国的政治中心和文化中心。\n\n%s\n\n%s", zh1, zh2);
    is_str(main_text(zh_page), zh_want, "a Chinese paragraph of linked words ending in 。 is prose, kept");

    /* <meta> keys in order of preference, whatever order the page gives them; profile URLs are no authors;
     * a JSON-LD string with escaped quotes does not hide the fields after it */
    const char *meta_order = "<html><head><meta name='twitter:description' content='Tweet text.'>"
                             "<meta name='description' content='The page description.'>"
                             "<meta property='og:description' content='The OG description.'>"
                             "<meta property='article:author' content='https://www.facebook.com/janeroe'></head><body>" P1 "</body></html>";
    html_extract(meta_order, strlen(meta_order), NULL, EXTRACT_MAIN, &r);
    is_str(r.meta.data, "\"description\":\"The page description.\"",
           "description preferred over og: and twitter:, a profile URL is not an author");
    const char *escaped = "<html><head><script type='application/ld+json'>{\"headline\":\"The \\\"bridge\\\" vote\","
                          "\"author\":{\"@type\":\"Person\",\"name\":\"Jane Roe\"},\"datePublished\":\"2024-05-01\"}</script></head>"
                          "<body>" P1 "</body></html>";
    html_extract(escaped, strlen(escaped), NULL, EXTRACT_MAIN, &r);
    is_str(r.meta.data, "\"author\":\"Jane Roe\",\"published\":\"2024-05-01\"", "JSON-LD fields after an escaped quote are read");

    html_result_free(&r);
    /* a forum thread built by scripts (Discourse): with scripts the page shows a header; the
     * thread is in <noscript>, which the main content is then taken from */
    const char *post = "<p>We upgraded last night and since then every build fails at the deploy step, "
                       "although the same commit deployed fine the day before. Has anyone seen this?</p>";
    const char *reply = "<p>Yes: the new version changed the default output folder, so the deploy step "
                        "finds nothing to upload. Set it back in the settings and it works again.</p>";
    char page[2048];
    snprintf(page, sizeof page,
             "<body><header><a href='/'>Community</a></header><div id='app'></div><noscript>"
             "<nav><a href='/latest'>Latest</a> <a href='/top'>Top</a></nav><div id='main-outlet'>"
             "<div class='topic-body'>%s</div><div class='topic-body'>%s</div></div></noscript></body>",
             post, reply);
    const char *t = main_text(page);
    ok(strstr(t, "every build fails at the deploy step") && strstr(t, "Set it back in the settings"),
       "a thread only in <noscript> is the main content");
    ok(!strstr(t, "Latest"), "and its navigation is not");

    /* a discussion page (lobste.rs, a forum thread) whose posts are all marked as comments and
     * which has next to nothing else: the comments are its content */
    const char *c1 = "<div class='comment'><p>The goals for this year read well, but the async work has slipped "
                     "twice already and nothing in the plan says why it would not slip again.</p></div>";
    const char *c2 = "<div class='comment'><p>It slipped because the people doing it were also doing the "
                     "release work; this year the two are staffed separately, which is the real change.</p></div>";
    snprintf(page, sizeof page,
             "<body><nav><a href='/'>Home</a> <a href='/new'>New</a></nav><h1>Project goals for 2024</h1>"
             "<div class='comments'>%s%s</div><footer><a href='/about'>About</a></footer></body>",
             c1, c2);
    t = main_text(page);
    ok(strstr(t, "the async work has slipped") && strstr(t, "staffed separately"),
       "a page of nothing but comments keeps them");
    ok(!strstr(t, "About"), "and not its footer");
    snprintf(page, sizeof page,
             "<body><article><p>The project published its goals for the year: the async work, a faster "
             "compiler and better error messages, each with a named owner and a date for the first "
             "milestone.</p></article><div class='comments'>%s%s%s</div></body>",
             c1, c2, c1);
    ok(!strstr(main_text(page), "slipped"), "an article's comments still go, however long");

    /* an article in parts, each in a wrapper with a boilerplate word in its class name (CSS
     * modules' WidgetWrapper_..., page builders' widget containers), none holding most of the
     * page's prose: with next to nothing left outside the hints, they are unlucky names */
#define WIDGET(a, b) "<div class='WidgetWrapper_WidgetWrapper__R4uge'><div class='Prose_Prose__2zaJW'>" a b "</div></div>"
    t = main_text("<body>" NAV "<main><div class='TagList_TagList__x1'><span>Tags</span> <a href='/t/a'>Bridges</a></div>"
                  "<div class='WidgetArea_WidgetArea__3v9Kg'>" WIDGET(P1, P2) WIDGET(P3, P1) WIDGET(P2, P3) WIDGET(P1, P2) "</div>"
                  "</main><div class='related-stories'>" P1 P2 "</div>" FOOTER "</body>");
#undef WIDGET
    ok(strstr(t, "The council voted") && strstr(t, "worried about the noise"),
       "an article under widget class names is the main content");
    ok(!strstr(t, "Home") && !strstr(t, "Copyright") && !strstr(t, "Tags"), "and the page around it is not");

    /* a landing page: sections of short prose inside <main>, apart from each other by rows of
     * links (customers, integrations) and wrapped at different depths, none weighing much
     * alone; the page's <main> is its content */
#define LINK_ROW "<ul class='logos'><li><a href='/c/a'>Acme Corporation</a></li><li><a href='/c/b'>Globex " \
                 "Industries</a></li><li><a href='/c/c'>Initech Software</a></li><li><a href='/c/d'>Umbrella " \
                 "Health</a></li><li><a href='/c/e'>Stark Manufacturing</a></li><li><a href='/c/f'>Wayne " \
                 "Logistics</a></li><li><a href='/c/g'>Tyrell Robotics</a></li></ul>"
    t = main_text("<body>" NAV "<main><div class='hero'><h1>Ship docs your team will read</h1>"
                  "<p>Write once, publish everywhere, and keep every page in step with the code.</p></div>"
                  LINK_ROW
                  "<section><div><div><h2>Search that understands code</h2><p>Find a function by what it does, "
                  "not only by its name, across every version you have published.</p></div></div></section>"
                  LINK_ROW
                  "<section><h2>Reviews in the pull request</h2><p>Docs changes are reviewed where the code is, "
                  "and a page that no longer matches its code is flagged before it ships.</p></section>"
                  LINK_ROW
                  "<section><div><h2>Analytics without cookies</h2><p>See which pages readers finish and "
                  "where they give up, without a banner and without tracking anyone.</p></div></section>"
                  "</main>" FOOTER "</body>");
    ok(strstr(t, "Write once, publish everywhere") && strstr(t, "Find a function by what it does") &&
           strstr(t, "flagged before it ships") && strstr(t, "without tracking anyone"),
       "a landing page's sections in <main> are all its content");
    ok(!strstr(t, "Copyright") && !strstr(t, "Sport") && !strstr(t, "Acme"), "and its links and footer are not");
#undef LINK_ROW

    /* a post in <main> whose parts are apart from each other by long lists of linked patch
     * titles: no part holds half of <main>'s prose, so <main> is the content */
#define PATCHES "<ul><li><a href='/p/1'>libgccjit: Allow casts between integers and pointers</a></li>" \
                "<li><a href='/p/2'>libgccjit: Add support for the weak variable attribute</a></li>" \
                "<li><a href='/p/3'>libgccjit: Add support for the x87 CPU feature</a></li>" \
                "<li><a href='/p/4'>libgccjit: Add a function to check if LTO is supported</a></li>" \
                "<li><a href='/p/5'>libgccjit: Fix volatile loads and stores</a></li>" \
                "<li><a href='/p/6'>libgccjit: Add support for Aarch64 CPU features</a></li></ul>"
    t = main_text("<body>" NAV "<main><article><h2>What is this project?</h2><p>It is an ahead-of-time code "
             "generator for the compiler, loaded by the existing front end, that uses GCC for more targets.</p>"
             "<p>There has been good progress on the GCC side these past months, and many patches were sent "
             "for review:</p>" PATCHES PATCHES "<p>I sent every patch that was ready, in the hope of being as "
             "close to upstream as possible for the next release.</p><p>Also, a few patches were merged "
             "upstream this month, after a long review and two rounds of changes:</p>" PATCHES PATCHES
             "<h2>How to contribute</h2><p>Run the tests locally, choose a test that fails, and find out why it "
             "fails; even without a fix, the investigation helps.</p><p>You can also test the project on new "
             "platforms and compare its assembly with LLVM's to see if an optimization is missing.</p>"
             "</article></main>" FOOTER "</body>");
#undef PATCHES
    ok(strstr(t, "ahead-of-time code generator") && strstr(t, "I sent every patch") &&
           strstr(t, "compare its assembly"),
       "a post split by link lists is all content when its <main> holds it");
    ok(!strstr(t, "Copyright") && !strstr(t, "Sport"), "and the page around <main> is not");

    /* an article in <main> beside related stories (boilerplate, more prose than the article)
     * and a call to action, a sidebar outside <main>: the article holds most of <main>'s prose
     * outside boilerplate, so the selection stays the article */
    char related[8192];
    snprintf(related, sizeof related,
             "<body>" NAV "<main><article>%s%s%s</article><div class='related-stories'>%s%s%s%s</div>"
             "<div class='cta'><p>Start your free trial today, no card needed</p></div></main>"
             "<div class='sidebar'>%s%s%s%s</div>" FOOTER "</body>",
             P1, P2, P3, P1, P2, P3, P1, P2, P3, P1, P2);
    t = main_text(related);
    ok(strstr(t, "The council voted") && !strstr(t, "free trial"), "related stories do not widen an article to <main>");

    /* a blog a script shows by taking away its wrapper's "hide" class: with nothing else to
     * show, the class is taken for the script's; elsewhere class-hidden text stays out */
    t = main_text("<body><div class='root hide'>" NAV "<article>" P1 P2 P3 "</article>" FOOTER "</div></body>");
    ok(strstr(t, "The council voted") && strstr(t, "worried about the noise"),
       "a page hidden whole by a class is read with the class shown");
    t = main_text("<body>" NAV "<article>" P1 P2 P3 "</article><div class='hidden'><p>Sign in to save this "
                  "article to your reading list and get our newsletter every morning of the week.</p></div>"
                  FOOTER "</body>");
    ok(strstr(t, "The council voted") && !strstr(t, "Sign in to save"), "a class-hidden popup beside an article stays out");

    /* a forum thread (Invision Community) whose posts are all classed as comments, beside the
     * forum's calls to sign in, which are more than 150 bytes but no sentences */
#define SIGN_IN "<div class='ipsBox'><h2>Create an account or sign in to comment</h2><p>You need to be a member " \
                "in order to leave a comment</p><h3>Create an account</h3><p>Sign up for a new account in our " \
                "community. It's easy!</p><a href='/register'>Register a new account</a><h3>Sign in</h3>" \
                "<p>Already have an account? Sign in here.</p></div>"
    char thread[8192];
    snprintf(thread, sizeof thread, "<body>" NAV "<h1>Project goals for 2024</h1><div class='cComments'>%s%s%s%s%s%s%s%s%s%s</div>"
             SIGN_IN "</body>", c1, c2, c1, c2, c1, c2, c1, c2, c1, c2);
    t = main_text(thread);
    ok(strstr(t, "the async work has slipped") && strstr(t, "staffed separately"),
       "a thread of comment posts beside sign-in prompts keeps its posts");
    /* an article in <div>s, not <p>s (Slashdot), with much longer comments: still the article */
    snprintf(thread, sizeof thread,
             "<body><div class='body'><div class='p'>The project published its goals for the year: the async "
             "work, a faster compiler and better error messages, each with a named owner and a date.</div>"
             "<div class='p'>The team also said the release cadence stays at six weeks, and that the async "
             "work will be staffed apart from the release work this time.</div></div>"
             "<div class='comments'>%s%s%s%s%s%s%s%s%s%s</div>" SIGN_IN "</body>", c1, c2, c1, c2, c1, c2, c1, c2, c1, c2);
#undef SIGN_IN
    t = main_text(thread);
    ok(strstr(t, "release cadence") && !strstr(t, "slipped"), "an article without <p> keeps it over long comments");

    /* a thread whose posts are classed as comments, on a page whose most prose is the cookie
     * preference centre (OneTrust's, in the source of many sites): the banner is never the
     * content, however much of the page it holds */
#define COOKIE_TEXT "<p>When you visit any website, it may store or retrieve information on your browser, " \
                    "mostly in the form of cookies. This information might be about you, your preferences " \
                    "or your device and is mostly used to make the site work as you expect it to.</p>"
    snprintf(page, sizeof page,
             "<body>" NAV "<h1>Project goals for 2024</h1><div class='comments'>%s%s</div>"
             "<div id='onetrust-consent-sdk'><div id='onetrust-pc-sdk'>" COOKIE_TEXT COOKIE_TEXT COOKIE_TEXT
             "</div></div></body>", c1, c2);
    t = main_text(page);
    ok(strstr(t, "the async work has slipped") && !strstr(t, "form of cookies"),
       "a cookie banner holding most of the page is not its content");
    /* the same in a modal dialog whose class names say nothing (Osano, Ensighten) */
    snprintf(page, sizeof page,
             "<body>" NAV "<h1>Project goals for 2024</h1><div class='comments'>%s%s</div>"
             "<div class='cm-window'><div role='dialog' aria-label='Banner'>" COOKIE_TEXT COOKIE_TEXT COOKIE_TEXT
             "</div></div></body>", c1, c2);
#undef COOKIE_TEXT
    t = main_text(page);
    ok(strstr(t, "the async work has slipped") && !strstr(t, "form of cookies"),
       "a modal dialog holding most of the page is not its content");

    /* every paragraph of the article classed "contextmenu Body" (a "menu" hint) but one plain
     * paragraph, which alone would be the text */
#define MENU_P(p) "<p class='contextmenu Body'>" p "</p>"
    t = main_text("<body>" NAV "<article>" MENU_P("The council voted on Tuesday to rebuild the old bridge over "
                  "the river, a project that has been discussed for a decade.") MENU_P("Work starts in spring "
                  "and should take two years, the mayor said, adding that a ferry will run while the bridge is "
                  "closed.") MENU_P("Residents who spoke at the meeting were mostly in favour, though some "
                  "worried about the noise and the cost of the works.") MENU_P("The ferry will run every half "
                  "hour from six in the morning, and cyclists will ride it free of charge while the works go "
                  "on.") MENU_P("Some residents asked for the loudest works to pause in the summer months, when "
                  "the riverside is at its busiest.") MENU_P("The mayor said the dates would be set with the "
                  "builders and published on the council's site in March, with a map of the diversions.")
                  MENU_P("The old bridge, built in 1890, was closed to lorries in 2015 after an inspection found "
                  "cracks in two of its piers.") MENU_P("Engineers said the piers could not be mended for less "
                  "than a new bridge would cost, and that they would only get worse with every winter.")
                  MENU_P("The new bridge will be wider, with a lane for bicycles on each side and room for the "
                  "buses that now go the long way round.") MENU_P("Its stones will be kept and some used again in the "
                  "new bridge's walls, the council said.")
                  "<p>The council's decision will be reviewed in public at its next meeting, in the town hall, on "
                  "the first Monday of the month; anyone may speak, and the minutes will be published on the "
                  "council's site a week later.</p></article>" FOOTER "</body>");
#undef MENU_P
    ok(strstr(t, "The council voted") && strstr(t, "cracks in two of its piers") && strstr(t, "anyone may speak"),
       "an article whose paragraphs but one carry a menu class is all content");

    /* the article written twice (a layout per screen size, both in the source): once in the
     * text; a paragraph that the article itself repeats stays repeated */
    char twice[4096];
    snprintf(twice, sizeof twice, "<body>" NAV "<div class='desktop'><article>%s%s%s</article></div>"
             "<div class='mobile'><article>%s%s%s</article></div>" FOOTER "</body>", P1, P2, P3, P1, P2, P3);
    t = main_text(twice);
    const char *second = strstr(t, "The council voted");
    ok(second && !strstr(second + 1, "The council voted") && strstr(t, "worried about the noise"),
       "an article written twice comes out once");
#define P4 "<p>A ferry runs every half hour from the north bank while the works go on, from six in the morning.</p>"
#define P5 "<p>Some residents asked for the loudest works to pause in the summer months, when the riverside is busiest.</p>"
#define P6 "<p>The mayor said the dates would be set with the builders and published on the council's site in March.</p>"
    t = main_text("<body><article>" P1 P2 P3 P4 P5 P3 P6 "</article></body>");
    second = strstr(t, "worried about the noise");
    ok(second && strstr(second + 1, "worried about the noise"), "a paragraph the article repeats stays repeated");
#undef P4
#undef P5
#undef P6

    /* many paragraphs of one length are not repeats of each other (only equal bytes are) */
    char same_length[16384];
    size_t at = (size_t)snprintf(same_length, sizeof same_length, "<body><article>");
    for (int k = 0; k < 40; k++)
        at += (size_t)snprintf(same_length + at, sizeof same_length - at,
                               "<p>Item %02d of the council's list: the works on the bridge go on in this part of the "
                               "river, the mayor said.</p>", k);
    snprintf(same_length + at, sizeof same_length - at, "</article></body>");
    t = main_text(same_length);
    ok(strstr(t, "Item 00 of") && strstr(t, "Item 39 of") && strlen(t) > 40 * 100,
       "forty paragraphs of one length all stay");

    return done_testing();
}
