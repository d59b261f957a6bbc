/* words_dump.c - the filter's words of each text, in NLTK's forms, for
 * scripts/nltk_words_diffcheck.py: texts separated by NUL bytes on stdin;
 * for each, its words one per line, then a line holding only 0x1E.
 *
 *   words_dump < TEXTS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "filter/words.h"

int main(void)
{
    wbuf all = WBUF_INIT;
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) buf_append(&all, chunk, n);
    fwords ws;
    words_init(&ws);
    for (size_t a = 0; a < all.len;) {
        const char *end = memchr(all.data + a, '\0', all.len - a);
        size_t b = end ? (size_t)(end - all.data) : all.len;
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
    buf_free(&all);
    return 0;
}
