/* filter_punkt.c - punkt's sentences and the words split at them are NLTK's:
 * hand-made cases checked with Debian's python3-nltk 3.8, then every real
 * DCLM, Dolma and C4 document of ../shared against NLTK's own output on it
 * (tests/data/punkt/nltk_words.tsv, made by scripts/nltk_words_reference.py:
 * word_tokenize's words hashed, C4's sentence count per document). */
#include <stdbool.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/punkt.h"
#include "filter/uchar.h"
#include "filter/words.h"
#include "tests/tap.h"
#include "tests/unit/web_samples.h"

/* The offsets of the periods s's words split off, joined by ','. */
static const char *final_periods(const char *s)
{
    static char out[256];
    punkt_offsets o = {0}, starts = {0};
    punkt_sentences(s, strlen(s), &o, &starts);
    out[0] = 0;
    for (size_t i = 0; i < o.n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, sizeof out - len, "%s%zu", i ? "," : "", o.at[i]);
    }
    punkt_offsets_free(&o);
    punkt_offsets_free(&starts);
    return out;
}

static size_t sentences(const char *s) { return punkt_count_sentences(s, 0, strlen(s)); }

/* One document's line of the reference file. */
typedef struct {
    size_t words;
    uint64_t hash;
    size_t sentences;
} reference;

typedef struct {
    reference *ref;
    size_t n_ref, next;
    fwords ws;
    size_t compared, skipped, words_differ, sentences_differ;
} check_ctx;

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001B3ULL;
    return h;
}

/* Text that winnow splits its own way (docs/filter.md): scripts without
 * spaces (ICU's words). */
static bool split_differently(const char *text, size_t len)
{
    for (size_t i = 0; i < len;)
        if (uc_is_nospace_script(uc_next(text, len, &i))) return true;
    return false;
}

static void check_document(const char *text, size_t len, void *arg)
{
    check_ctx *c = arg;
    if (c->next >= c->n_ref) return;
    const reference *r = &c->ref[c->next++];
    if (split_differently(text, len)) {
        c->skipped++;
        return;
    }
    words_tokenize(&c->ws, text, len, NULL);
    uint64_t h = 0xCBF29CE484222325ULL;
    for (size_t i = 0; i < c->ws.n; i++) {
        size_t n;
        const char *w = word_nltk_form(text, &c->ws.w[i], &n);
        if (i) h = fnv1a(h, "\n", 1);
        h = fnv1a(h, w, n);
    }
    size_t count = 0;
    for (size_t pos = 0; pos < len;) {
        size_t end, a = pos;
        pos = uc_line_end(text, len, pos, &end);
        size_t b = end;
        uc_strip(text, &a, &b);
        if (a < b) count += punkt_count_sentences(text, a, b);
    }
    c->compared++;
    if (c->ws.n != r->words || h != r->hash) {
        c->words_differ++;
        diag("document %zu: %zu words, NLTK %zu (or another hash)", c->next - 1, c->ws.n, r->words);
    }
    if (count != r->sentences) {
        c->sentences_differ++;
        diag("document %zu: %zu sentences, NLTK %zu", c->next - 1, count, r->sentences);
    }
}

static void test_real_documents(void)
{
    require_file("tests/data/punkt/nltk_words.tsv");
    FILE *f = fopen("tests/data/punkt/nltk_words.tsv", "r");
    check_ctx c = {0};
    words_init(&c.ws);
    size_t cap = 0, file, doc;
    reference r;
    while (fscanf(f, "%zu %zu %zu %" SCNx64 " %zu", &file, &doc, &r.words, &r.hash, &r.sentences) == 5) {
        if (c.n_ref == cap) c.ref = realloc(c.ref, (cap = cap ? cap * 2 : 1024) * sizeof *c.ref);
        c.ref[c.n_ref++] = r;
    }
    fclose(f);
    web_samples_for_each_text(check_document, &c);
    is_int((long)c.next, (long)c.n_ref, "every reference document read (%zu)", c.n_ref);
    ok(c.compared > 2000, "%zu documents compared (%zu left out: scripts without spaces)", c.compared,
       c.skipped);
    is_int((long)c.words_differ, 0, "every document's words are NLTK word_tokenize's");
    is_int((long)c.sentences_differ, 0, "every document's C4 sentence count is NLTK sent_tokenize's");
    words_free(&c.ws);
    free(c.ref);
}

int main(void)
{
    /* each expected value is NLTK 3.8's sent_tokenize (or word_tokenize) with punkt's English
     * parameters and no orthographic table */
    is_int((long)sentences("One. Two! Three? Four"), 4, "four sentences");
    is_int((long)sentences("See e.g. this. And Mr. X here."), 3, "e.g. is no abbreviation of the model");
    is_int((long)sentences("He lives in the U.S. He works."), 2, "an abbreviation before a frequent starter ends one");
    is_int((long)sentences("It costs 5. it is cheap."), 1, "a number before a lower-case word ends none");
    is_int((long)sentences("J. Smith went home. Then left."), 2, "an initial before a capital ends none");
    is_int((long)sentences("Hello world.) Next one."), 2, "a closing bracket stays with its sentence");
    is_int((long)sentences("Wait... what? Yes."), 2, "an ellipsis before a word that starts no sentence");
    is_int((long)sentences("no end here"), 1, "a line without terminator is one sentence");
    is_int((long)sentences(""), 0, "an empty line has none");
    is_int((long)sentences("   "), 0, "a blank line has none");
    is_int((long)sentences("Very bad acting!!! I promise."), 2, "a run of marks ends one sentence");
    is_int((long)sentences("Sales rose in 1987. International trade grew."), 1, "a known collocation ends none");
    is_int((long)sentences("She met the ex-Sen. Jones today."), 1, "an abbreviation after a dash");
    is_int((long)sentences("Call me at 5 p.m. Then go."), 1, "an abbreviation before a capital that starts none");
    is_int((long)sentences("Wait . . . Then go."), 4, "spaced periods");

    is_str(final_periods("The end. the"), "7", "the period before a lower-case word is split off");
    is_str(final_periods("Mr. Smith met Dr. Who. Then"), "21", "abbreviations keep theirs");
    is_str(final_periods("He said \"no.\" Then"), "11", "before a closing quote");
    is_str(final_periods("Ends here. \"\nNext"), "", "not before a quote that a space opens");
    is_str(final_periods("So.. what. Yes."), "9,14", "not after another period");
    is_str(final_periods("Text ends here.  \n"), "14", "the text's last period, whitespace after it");
    is_str(final_periods("Apr. 25 (see fig. 3.) done."), "3,16,19,26", "Apr and fig are no abbreviations");

    test_real_documents();
    return done_testing();
}
