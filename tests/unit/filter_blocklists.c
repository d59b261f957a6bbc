/* filter_blocklists.c - the URL and word block lists as docs/filter.md
 * defines them: a URL entry ignores scheme, www., user info, port, query,
 * fragment and a final '/' (an IPv6 literal's colons are no port); word
 * entries match case-insensitively (C4 lower-cases the text, and the
 * entries are compared lower-cased too) where flanked by non-word
 * characters; the real LDNOOBW list loads whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/blocklist.h"
#include "tests/tap.h"

/* Writes text to a new temporary file; returns its path (static). */
static const char *temp_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_urls(void)
{
    char path[] = "/tmp/winnow-blocklists-urls-XXXXXX";
    url_blocklist *b = url_blocklist_load(temp_file(path, "# pages\nshop.example.net/cart\nbad.example.com\nhttp://[2001:db8::1]/\n"));
    wbuf scratch = WBUF_INIT;
    const struct {
        const char *url;
        bool blocked;
    } cases[] = {
        {"http://shop.example.net/cart", true},
        {"http://shop.example.net/cart?utm_source=mail&id=7", true}, /* query ignored */
        {"https://shop.example.net/cart#top", true},                /* fragment ignored */
        {"https://shop.example.net/cart/?x=1", true},               /* final '/' and query */
        {"http://buyer:secret@www.SHOP.example.net:8443/cart", true}, /* user info, www., case, port */
        {"http://shop.example.net/Cart", false},                    /* the path keeps its case */
        {"http://shop.example.net/cart/more", false},
        {"http://shop.example.net/", false}, /* an entry with a path blocks that page only */
        {"http://shop.example.net/checkout?next=/cart", false},
        {"http://x.bad.example.com/a?b#c", true},
        {"http://notbad.example.com/", false},
        /* an IPv6 literal host (RFC 3986: in brackets) is the whole bracketed address */
        {"http://[2001:db8::1]/page", true},
        {"https://[2001:DB8::1]:8443/", true},
        {"http://[2001:db8::2]/page", false},
        {"http://[2001:db8::1:5]/", false},
        /* a scheme is letters, digits, '+', '-' and '.' after a letter (RFC 3986 3.1): a
         * URL without one that holds "://" in its query is its own host, not that one */
        {"shop.example.net/?u=http://bad.example.com", false},
        {"x.org/?u=https://shop.example.net/cart", false},
        {"svn+ssh://bad.example.com/repo", true},
        {"bad.example.com/page", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ok(url_blocklist_match(b, cases[i].url, strlen(cases[i].url), &scratch) == cases[i].blocked, "%s %s",
           cases[i].url, cases[i].blocked ? "blocked" : "not blocked");
    is_int(url_blocklist_size(b), 3, "three entries (the comment is none)");
    url_blocklist_free(b);
    buf_free(&scratch);
    remove(path);
}

static void test_words(void)
{
    char path[] = "/tmp/winnow-blocklists-words-XXXXXX";
    word_blocklist *b = word_blocklist_load(temp_file(path, "Darn\nSilly Goose\nÉTOILE\n"));
    wbuf scratch = WBUF_INIT;
    const struct {
        const char *text;
        bool blocked;
    } cases[] = {
        {"Well, darn it.", true}, /* an entry with a capital matches the lower-cased text */
        {"WELL DARN IT", true},
        {"darnit is fine", false},
        {"what a silly goose!", true},
        {"what a SILLY GOOSE", true},
        {"une étoile filante", true}, /* non-ASCII capitals are lower-cased too */
        {"des étoiles", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ok(word_blocklist_match(b, cases[i].text, strlen(cases[i].text), &scratch) == cases[i].blocked, "'%s' %s",
           cases[i].text, cases[i].blocked ? "blocked" : "not blocked");
    word_blocklist_free(b);
    remove(path);

    /* the real list C4 uses: 377 lines, 377 entries, one of them (🖕) starting
     * with a non-word character, matched only after a non-word character */
    const char *shared = getenv("SHARED");
    char ldnoobw[4096];
    snprintf(ldnoobw, sizeof ldnoobw, "%s/extraction/dclm-pages/baselines/mappers/banlists/ldnoobw.txt",
             shared ? shared : "../shared/data");
    if (!ok(access(ldnoobw, R_OK) == 0, "%s is there (SHARED names the test data)", ldnoobw)) {
        buf_free(&scratch);
        return;
    }
    b = word_blocklist_load(ldnoobw);
    is_int(word_blocklist_size(b), 377, "LDNOOBW en: 377 entries");
    const struct {
        const char *text;
        bool blocked;
    } real[] = {
        {"The \xF0\x9F\x96\x95 sign.", true},
        {"x\xF0\x9F\x96\x95 sign.", false},
        {"A fine, clean sentence about cats.", false},
        {"2 Girls 1 Cup was a video.", true},
    };
    for (size_t i = 0; i < sizeof real / sizeof real[0]; i++)
        ok(word_blocklist_match(b, real[i].text, strlen(real[i].text), &scratch) == real[i].blocked, "LDNOOBW: '%s' %s",
           real[i].text, real[i].blocked ? "blocked" : "not blocked");
    word_blocklist_free(b);
    buf_free(&scratch);
}

int main(void)
{
    test_urls();
    test_words();
    return done_testing();
}
