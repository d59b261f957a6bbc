/* filter_words_fast.c - the word splitter's fast path over 64-byte ASCII
 * blocks gives exactly the words of its general loop (words_tokenize_general,
 * the splitter as it was before the fast path): every field of every word
 * (offset, length, code points, line, hash, flags), the line count and the
 * text's length, on real documents (DCLM, Dolma CC, C4, the UDHR in 532
 * languages), on the tokref corpora (en_code, multi, edge, blns), each also at
 * other addresses, and on random texts made of the bytes the fast path treats
 * specially (spaces, line breaks, \r\n, letters, digits, marks, quotes,
 * wider characters) across block boundaries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "filter/words.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"
#include "tests/unit/tokenize_corpus.h"

#define RANDOM_TEXTS 40000 /* random texts per run */
#define RANDOM_MAX_LEN 300 /* bytes: several 64-byte blocks */

typedef struct {
    stopword_set stop;
    fwords fast, general;
    wbuf moved;
    size_t docs, words, differ;
    char first[256]; /* what differed first */
} compare_ctx;

/* Index of the first word where a and b differ, or -1 when they agree. */
static long first_difference(const fwords *a, const fwords *b)
{
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        const fword *x = &a->w[i], *y = &b->w[i];
        if (x->off != y->off || x->len != y->len || x->nchars != y->nchars || x->line != y->line ||
            x->hash != y->hash || x->flags != y->flags)
            return (long)i;
    }
    if (a->n != b->n || a->lines != b->lines || a->text_chars != b->text_chars) return (long)n;
    return -1;
}

/* Splits s both ways (at its address and moved by a few bytes) and counts a difference. */
static void compare(compare_ctx *c, const char *s, size_t n)
{
    words_tokenize_general(&c->general, s, n, &c->stop);
    c->docs++;
    c->words += c->general.n;
    for (size_t shift = 0; shift < 3; shift++) {
        const char *at = s;
        if (shift) {
            buf_clear(&c->moved);
            for (size_t k = 0; k < shift * 7; k++) buf_putc(&c->moved, 'x');
            buf_append(&c->moved, s, n);
            at = c->moved.data + shift * 7;
        }
        words_tokenize(&c->fast, at, n, &c->stop);
        long i = first_difference(&c->fast, &c->general);
        if (i < 0) continue;
        if (!c->differ++) {
            size_t off = (size_t)i < c->general.n ? c->general.w[i].off : n;
            snprintf(c->first, sizeof c->first, "word %ld (byte %zu of %zu) of \"%.40s\"", i, off, n,
                     s + (off > 20 ? off - 20 : 0));
        }
        return;
    }
}

static void compare_text(const char *text, size_t len, void *ctx) { compare(ctx, text, len); }

static void check_jsonl(compare_ctx *c, const char *relative)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", shared_dir(), relative);
    require_file(path);
    size_t docs = c->docs;
    c->differ = 0;
    long n = jsonl_for_each_text(path, compare_text, c);
    ok(n > 0 && c->differ == 0, "%s: %zu documents, the same words both ways", relative, c->docs - docs);
    if (c->differ) diag("%zu differ; first: %s", c->differ, c->first);
}

static void check_corpus(compare_ctx *c, const char *name)
{
    tok_corpus corpus;
    corpus_load(&corpus, name);
    c->differ = 0;
    for (int d = 0; d < corpus.ndocs; d++) compare(c, corpus.text + corpus.off[d], corpus.len[d]);
    ok(corpus.ndocs > 0 && c->differ == 0, "tokref %s: %d documents, the same words both ways", name, corpus.ndocs);
    if (c->differ) diag("%zu differ; first: %s", c->differ, c->first);
    free(corpus.text);
    free(corpus.off);
    free(corpus.len);
}

/* The pieces random texts are made of: what the fast path decides on. */
static const char *const pieces[] = {
    " ", "  ", "\n", "\r\n", "\r", "\t", "\v", "\f", "\x1c", "\x1f", "a", "Z", "q", "7", "the", "and", "Mr", "U.S",
    ",", ";", ":", ".", "..", "!", "?", "'", "'s", "n't", "\"", "(", ")", "-", "--", "`", "#", "/", "_", "=",
    "@", "$", "%", "&", "*", "[", "]", "{", "}", "<", ">", "+", "|", "\\", "~", "^", "\x7f", "\x01",
    "\xc3\xa9", "\xe2\x80\x9c", "\xe2\x80\x99", "\xc2\x85", "\xc2\xa0", "\xe2\x80\xa8", "\xe3\x81\x82", "\xe4\xb8\xad",
    "\xe0\xb8\x81", "\xff", "\x80",
};
#define N_PIECES (sizeof pieces / sizeof pieces[0])

static void check_random(compare_ctx *c)
{
    uint64_t state = 0x2545F4914F6CDD1DULL;
    wbuf text = WBUF_INIT;
    c->differ = 0;
    for (int t = 0; t < RANDOM_TEXTS; t++) {
        buf_clear(&text);
        /* texts weighted toward letters and spaces, as prose is, with some marks */
        while (text.len < RANDOM_MAX_LEN) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            unsigned r = (unsigned)(state >> 32);
            const char *piece = r % 3 == 0 ? " " : r % 3 == 1 ? pieces[10 + (r >> 8) % 8] : pieces[(r >> 8) % N_PIECES];
            buf_append(&text, piece, strlen(piece));
            if ((r >> 20) % 97 == 0) break;
        }
        compare(c, text.data, text.len);
    }
    ok(c->differ == 0, "%d random texts of spaces, breaks, letters, marks and wider characters: the same words",
       RANDOM_TEXTS);
    if (c->differ) diag("%zu differ; first: %s", c->differ, c->first);
    buf_free(&text);
}

int main(void)
{
    compare_ctx c;
    memset(&c, 0, sizeof c);
    stopwords_init(&c.stop, "the,be,to,of,and,that,have,with");
    words_init(&c.fast);
    words_init(&c.general);
    check_jsonl(&c, "jsonl/dclm/data/majority_data.jsonl");
    check_jsonl(&c, "jsonl/dclm/data/agreement_data.jsonl");
    check_jsonl(&c, "jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz");
    check_jsonl(&c, "jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz");
    check_jsonl(&c, "multilingual/udhr/udhr_text_DERIVED.jsonl");
    check_corpus(&c, "en_code");
    check_corpus(&c, "multi");
    check_corpus(&c, "edge");
    check_corpus(&c, "blns");
    check_random(&c);
    diag("%zu texts, %zu words", c.docs, c.words);
    words_free(&c.fast);
    words_free(&c.general);
    stopwords_free(&c.stop);
    buf_free(&c.moved);
    return done_testing();
}
