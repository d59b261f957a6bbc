/* filter_split_udhr.c - the word splitter on real multilingual text (the
 * UDHR in 532 languages and scripts, ICU for those written without spaces),
 * checked against independent definitions: each word's code point count and
 * alphabetic flag against ICU's, its line against Python's str.splitlines()
 * line boundaries, the words in order without overlap covering every
 * character that is not Unicode White_Space (ICU); the words do not depend on
 * where the text sits in memory (the 16-byte scans), and every run of ASCII
 * letters and digits between spaces is one word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/util.h"
#include "filter/words.h"
#include "tests/tap.h"

/* Python's str.splitlines() boundaries (its documentation's table): \n, \r
 * (\r\n counts once), \v, \f, \x1c, \x1d, \x1e, \x85, U+2028, U+2029. */
static bool python_line_boundary(UChar32 c)
{
    return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 ||
           c == 0x2028 || c == 0x2029;
}

static bool icu_letter(UChar32 c)
{
    int8_t t = u_charType(c);
    return t == U_UPPERCASE_LETTER || t == U_LOWERCASE_LETTER || t == U_TITLECASE_LETTER || t == U_MODIFIER_LETTER ||
           t == U_OTHER_LETTER;
}

typedef struct {
    size_t nchars, line, alpha, order, uncovered, total_chars;
} split_errors;

/* Checks ws, the words of s[0, n) (valid UTF-8), against ICU and Python's
 * definitions; adds what differs to e. */
static void check_words(const fwords *ws, const char *s, size_t n, split_errors *e)
{
    size_t w = 0, line = 0, chars = 0;
    int32_t i = 0, len = (int32_t)n;
    while (i < len) {
        int32_t at = i;
        UChar32 c;
        U8_NEXT(s, i, len, c);
        chars++;
        while (w < ws->n && ws->w[w].off + ws->w[w].len <= (uint32_t)at) w++;
        bool inside = w < ws->n && ws->w[w].off <= (uint32_t)at;
        if (!inside && !u_hasBinaryProperty(c, UCHAR_WHITE_SPACE)) e->uncovered++;
        if (python_line_boundary(c) && !(c == '\r' && i < len && s[i] == '\n')) line++;
        if (inside && ws->w[w].off == (uint32_t)at) { /* a word starts here */
            const fword *x = &ws->w[w];
            if (x->line != line) e->line++;
            size_t count = 0;
            bool letter = false;
            for (int32_t k = (int32_t)x->off, end = (int32_t)(x->off + x->len); k < end; count++) {
                UChar32 d;
                U8_NEXT(s, k, end, d);
                letter |= icu_letter(d);
            }
            if (x->len == 1 && s[x->off] == '"') count = 2; /* NLTK's `` or '' */
            if (count != x->nchars) e->nchars++;
            if (letter != !!(x->flags & WORD_ALPHA)) e->alpha++;
        }
    }
    for (size_t k = 0; k < ws->n; k++)
        if (ws->w[k].len == 0 || ws->w[k].off + ws->w[k].len > n ||
            (k && ws->w[k].off < ws->w[k - 1].off + ws->w[k - 1].len))
            e->order++;
    if (chars != ws->text_chars) e->total_chars++;
}

static bool same_split(const fwords *a, const fwords *b)
{
    if (a->n != b->n || a->text_chars != b->text_chars) return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->w[i].off != b->w[i].off || a->w[i].len != b->w[i].len || a->w[i].nchars != b->w[i].nchars ||
            a->w[i].line != b->w[i].line || a->w[i].flags != b->w[i].flags || a->w[i].hash != b->w[i].hash)
            return false;
    return true;
}

static bool is_ascii_space(char c) { return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F); }
static bool is_ascii_alnum(char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

/* True when s[a, b) is one of the words NLTK's CONTRACTIONS2 splits after
 * their third letter ("cannot" -> "can" "not"; any case). */
static bool is_two_words(const char *s, size_t a, size_t b)
{
    static const char *const two[] = {"cannot", "gimme", "gonna", "gotta", "lemme", "wanna"};
    for (size_t k = 0; k < sizeof two / sizeof two[0]; k++)
        if (strlen(two[k]) == b - a && !strncasecmp(s + a, two[k], b - a)) return true;
    return false;
}

/* Runs of ASCII letters and digits between ASCII spaces (or the text's ends)
 * that are not one word of ws (two for NLTK's CONTRACTIONS2). */
static size_t plain_runs_split(const fwords *ws, const char *s, size_t n)
{
    size_t bad = 0, w = 0;
    for (size_t a = 0; a < n;) {
        if (is_ascii_space(s[a])) {
            a++;
            continue;
        }
        size_t b = a;
        bool plain = true;
        for (; b < n && !is_ascii_space(s[b]); b++)
            if (!is_ascii_alnum(s[b])) plain = false;
        if (plain) {
            while (w < ws->n && ws->w[w].off < a) w++;
            size_t first = is_two_words(s, a, b) ? 3 : b - a;
            if (w == ws->n || ws->w[w].off != a || ws->w[w].len != first) bad++;
            else if (first < b - a && (w + 1 == ws->n || ws->w[w + 1].off != a + first || ws->w[w + 1].len != b - a - first))
                bad++;
        }
        a = b;
    }
    return bad;
}

/* 1 when the counts ws kept as it made its words (words_count_...) differ
 * from a count over the words, else 0; adds the stop words to *stops. */
static size_t counts_differ(const fwords *ws, size_t *stops)
{
    size_t content = 0, content_chars = 0, alpha = 0, stop = 0;
    for (size_t i = 0; i < ws->n; i++) {
        const fword *x = &ws->w[i];
        if (!(x->flags & WORD_SYMBOL)) {
            content++;
            content_chars += x->nchars;
        }
        alpha += (x->flags & WORD_ALPHA) != 0;
        stop += (x->flags & WORD_STOP) != 0;
    }
    *stops += stop;
    return content != words_count_content(ws) || content_chars != words_count_content_chars(ws) ||
           alpha != words_count_alpha(ws) || stop != words_count_stop(ws);
}

int main(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/multilingual/udhr/udhr_text_DERIVED.jsonl", shared_dir());
    size_t size;
    require_file(path);
    char *data = read_file(path, &size);
    if (!ok(data != NULL, "read %s", path)) return done_testing();

    stopword_set stop;
    stopwords_init(&stop, "the,be,to,of,and,that,have,with");
    fwords ws, shifted;
    words_init(&ws);
    words_init(&shifted);
    wbuf text = {0}, moved = {0};
    split_errors e = {0};
    size_t docs = 0, words = 0, moved_differ = 0, runs_split = 0, counts_wrong = 0, stops = 0;
    for (char *line = data, *end = data + size; line < end;) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
        jdoc doc;
        const char *err;
        size_t err_pos;
        if (json_scan_doc(line, len, &doc, &err, &err_pos) == 0 && doc.text.kind == JSON_STRING) {
            buf_clear(&text);
            json_unescape(&doc.text, &text);
            words_tokenize(&ws, text.data, text.len, &stop);
            check_words(&ws, text.data, text.len, &e);
            counts_wrong += counts_differ(&ws, &stops);
            docs++;
            words += ws.n;
            runs_split += plain_runs_split(&ws, text.data, text.len);
            for (size_t shift = 1; shift < 16; shift += 5) { /* the same text at other addresses */
                buf_clear(&moved);
                for (size_t k = 0; k < shift; k++) buf_putc(&moved, 'x');
                buf_append(&moved, text.data, text.len);
                words_tokenize(&shifted, moved.data + shift, text.len, &stop);
                moved_differ += !same_split(&ws, &shifted);
            }
        }
        line += len + 1;
    }
    is_int(docs, 532, "UDHR texts read");
    diag("%zu words", words);
    is_int(e.order, 0, "words are non-empty, in order, without overlap");
    is_int(e.uncovered, 0, "every character that is not White_Space (ICU) is in a word");
    is_int(e.nchars, 0, "each word's length in code points is ICU's count (2 for NLTK's `` or '' of a \")");
    is_int(e.alpha, 0, "a word is alphabetic exactly when it has a letter (ICU general category L*)");
    is_int(e.line, 0, "each word's line is the one str.splitlines() puts it on");
    is_int(e.total_chars, 0, "the text's length in code points is ICU's count");
    is_int(moved_differ, 0, "the words do not depend on where the text sits in memory");
    is_int(runs_split, 0, "each run of ASCII letters and digits between spaces is one word");
    is_int(counts_wrong, 0, "the counts kept for Gopher quality equal a count over each text's words (%zu stop words)", stops);
    buf_free(&text);
    buf_free(&moved);
    words_free(&ws);
    words_free(&shifted);
    stopwords_free(&stop);
    free(data);
    return done_testing();
}
