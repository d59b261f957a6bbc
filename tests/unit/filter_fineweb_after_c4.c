/* filter_fineweb_after_c4.c - FineWeb's newline ratio counts the words of
 * C4's output, as datatrove's FineWebQualityFilter does (word_tokenize(doc.text)
 * after C4QualityFilter set doc.text): citation markers C4 removed from a kept
 * line are not words any more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"
#include "tests/tap.h"

/* C4 (defaults) and FineWeb's newline ratio alone. */
static filter_config c4_then_list_ratio(void)
{
    filter_config c;
    filter_config_defaults(&c);
    c.gopher_quality = c.gopher_repetition = c.langid = false;
    c.c4 = c.fineweb = true;
    c.fw_line_punct_thr = c.fw_short_line_thr = c.fw_char_dup_ratio = 0; /* 0: off */
    c.fw_new_line_ratio = 0.2;
    return c;
}

/* Runs the filter on text; returns the drop reason or "keep", the new text in out. */
static const char *run(const filter_config *c, const char *text, char *out, size_t outlen)
{
    static char reason[96];
    filter *f = filter_create(c);
    filter_worker *w = filter_worker_create(f);
    filter_result r;
    filter_document(f, w, text, strlen(text), NULL, 0, &r);
    snprintf(reason, sizeof reason, "%s", r.reason ? r.reason : "keep");
    snprintf(out, outlen, "%.*s", (int)r.text_len, r.text);
    filter_worker_destroy(w);
    filter_destroy(f);
    return reason;
}

/* lines copies of line, joined by '\n', into buf. */
static const char *repeat(char *buf, size_t cap, const char *line, int lines)
{
    buf[0] = 0;
    for (int i = 0; i < lines; i++) {
        if (i) strncat(buf, "\n", cap - strlen(buf) - 1);
        strncat(buf, line, cap - strlen(buf) - 1);
    }
    return buf;
}

int main(void)
{
    filter_config c = c4_then_list_ratio();
    char text[4096], out[4096], want[4096];

    /* 12 lines "Big cats nap." = NLTK's Big, cats, nap, . : 48 words, 11
     * newlines, 11 / 48 = 0.229 > 0.2: list_ratio */
    is_str(run(&c, repeat(text, sizeof text, "Big cats nap.", 12), out, sizeof out), "fineweb:list_ratio",
           "12 lines of 4 words: 11 / 48 newlines per word > 0.2");

    /* the same lines with Wikipedia's citation markers: C4 removes them, so
     * FineWeb sees the very same text and the same 48 words (the markers
     * were 9 more words a line in the original: 11 / 156 would keep it) */
    is_str(run(&c, repeat(text, sizeof text, "Big cats nap.[1][2][edit]", 12), out, sizeof out), "fineweb:list_ratio",
           "citation markers C4 removed are not counted as words");

    /* C4 keeps the text it gives FineWeb: the markers are gone */
    c.fineweb = false;
    run(&c, repeat(text, sizeof text, "Big cats nap.[1][2][edit]", 12), out, sizeof out);
    is_str(out, repeat(want, sizeof want, "Big cats nap.", 12), "C4's output is the lines without their markers");
    c.fineweb = true;

    /* 9 lines with markers and 3 longer ones without: 8 + 3 newlines per
     * 9 * 4 + 3 * 9 = 63 words = 0.175: kept */
    repeat(text, sizeof text, "Big cats nap.[1][2][edit]", 9);
    strncat(text, "\nThe big cats nap in the warm sun.\nThe big cats nap in the warm sun.\n"
                  "The big cats nap in the warm sun.", sizeof text - strlen(text) - 1);
    is_str(run(&c, text, out, sizeof out), "keep", "11 newlines per 63 words of C4's output: kept");

    /* lines C4 drops (they mention javascript) are no words of its output:
     * 12 lines "Big cats nap." again, 11 / 48 */
    repeat(text, sizeof text, "Big cats nap.", 12);
    for (int i = 0; i < 6; i++)
        strncat(text, "\nPlease enable JavaScript in your browser to see all of the comments on this page.",
                sizeof text - strlen(text) - 1);
    is_str(run(&c, text, out, sizeof out), "fineweb:list_ratio",
           "the words of the lines C4 dropped are not counted (11 / 48, not 11 / 142)");

    filter_config_free(&c);
    return done_testing();
}
