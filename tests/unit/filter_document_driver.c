/* filter_document_driver.c - the rule driver's own decisions: the length
 * limit keeps a text of exactly max_doc_bytes bytes, and language ID that
 * only annotates describes the document as it came (FineWeb's
 * LanguageFilter runs first, on the original text), not C4's rewrite. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"
#include "tests/tap.h"

static filter_config none(void)
{
    filter_config c;
    filter_config_defaults(&c);
    c.gopher_quality = c.gopher_repetition = c.c4 = c.fineweb = c.langid = false;
    return c;
}

/* Runs the filter on text; fills r's copy of the language and returns the reason or "keep". */
static const char *run(const filter_config *c, const char *text, char *lang, size_t langlen, double *score)
{
    static char reason[96];
    filter *f = filter_create(c);
    filter_worker *w = filter_worker_create(f);
    filter_result r;
    filter_document(f, w, text, strlen(text), NULL, 0, &r);
    snprintf(reason, sizeof reason, "%s", r.reason ? r.reason : "keep");
    if (lang) snprintf(lang, langlen, "%s", r.has_lang ? r.lang : "-");
    if (score) *score = r.has_lang ? r.lang_score : -1;
    filter_worker_destroy(w);
    filter_destroy(f);
    return reason;
}

static void test_length_limit(void)
{
    filter_config c = none();
    c.max_doc_bytes = 12;
    is_str(run(&c, "twelve bytes", NULL, 0, NULL), "keep", "a text of exactly max_doc_bytes bytes is kept");
    is_str(run(&c, "thirteen byte", NULL, 0, NULL), "too_long", "one byte more is too_long");
    c.max_doc_bytes = 0;
    is_str(run(&c, "thirteen byte", NULL, 0, NULL), "keep", "0: no limit");
    filter_config_free(&c);
}

static void test_language_of_the_original(void)
{
    /* English lines C4 keeps, German lines of two words it drops (C4's
     * minimum is 3): C4's output alone is plain English */
    const char *text = "The cat sat on the mat and looked out of the window at the birds.\n"
                       "Guten Morgen\nWie geht\nDanke schön\nSehr gut\nAuf Wiedersehen\nBis bald\n"
                       "It was a warm day and the garden was full of flowers and bees.\n"
                       "Die Katze\nDer Hund\nDas Haus\nIm Garten\nAm Fenster\nZum Beispiel\n"
                       "Later the cat went to sleep in the sun near the open door.\n"
                       "In the evening the family came home and made a good dinner.\n"
                       "Everyone was happy and the cat was happy too.";
    filter_config c = none();
    c.langid = true;
    char alone[16], after_c4[16];
    double score_alone, score_after_c4;
    is_str(run(&c, text, alone, sizeof alone, &score_alone), "keep", "language ID alone keeps it");
    c.c4 = true;
    is_str(run(&c, text, after_c4, sizeof after_c4, &score_after_c4), "keep", "C4 keeps it (and drops the German lines)");
    is_str(after_c4, alone, "the language is the original text's");
    ok(score_after_c4 == score_alone, "so is the score (%.4f with C4, %.4f without)", score_after_c4, score_alone);
    filter_config_free(&c);
}

int main(void)
{
    test_length_limit();
    test_language_of_the_original();
    return done_testing();
}
