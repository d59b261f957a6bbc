/* words_dump.c - the filter's words of each text, in NLTK's forms, for
 * scripts/nltk_words_diffcheck.py: texts separated by NUL bytes on stdin;
 * for each, its words one per line, then a line holding only 0x1E. With
 * --sentences, instead one line per text: the byte offsets where punkt's
 * sentences start that word_tokenize splits a final period in (comma
 * separated), a space, and the number of sentences punkt finds in the text.
 *
 *   words_dump [--sentences] < TEXTS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "filter/punkt.h"
#include "filter/words.h"

int main(int argc, char **argv)
{
    int sentences = argc > 1 && strcmp(argv[1], "--sentences") == 0;
    punkt_offsets periods = {0}, starts = {0};
    wbuf all = WBUF_INIT;
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) buf_append(&all, chunk, n);
    fwords ws;
    words_init(&ws);
    for (size_t a = 0; a < all.len;) {
        const char *end = memchr(all.data + a, '\0', all.len - a);
        size_t b = end ? (size_t)(end - all.data) : all.len;
        if (sentences) {
            punkt_sentences(all.data + a, b - a, &periods, &starts);
            for (size_t i = 0; i < starts.n; i++) printf("%s%zu", i ? "," : "", starts.at[i]);
            printf(" %zu\n", punkt_count_sentences(all.data + a, 0, b - a));
            a = b + 1;
            continue;
        }
        words_tokenize(&ws, all.data + a, b - a, NULL);
        for (size_t i = 0; i < ws.n; i++) {
            size_t len;
            const char *w = word_nltk_form(all.data + a, &ws.w[i], &len);
            fwrite(w, 1, len, stdout);
            fputc('\n', stdout);
        }
        fputs("\x1e\n", stdout);
        a = b + 1;
    }
    words_free(&ws);
    punkt_offsets_free(&periods);
    punkt_offsets_free(&starts);
    buf_free(&all);
    return 0;
}
