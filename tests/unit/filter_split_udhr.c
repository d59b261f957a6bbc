/* filter_split_udhr.c - the word splitter on real multilingual text (the
 * UDHR in 532 languages and scripts, ICU for those written without spaces):
 * its words are those the splitter gave before its fast paths (pinned by a
 * digest of every word's position, length, code points, line and flags),
 * they do not depend on where the text sits in memory (the 16-byte scans),
 * and every run of ASCII letters and digits between spaces is one word. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/util.h"
#include "filter/words.h"
#include "tests/tap.h"

/* FNV-1a over the words' splitting (not their hashes). */
static uint64_t split_digest(uint64_t h, const fwords *ws)
{
    for (size_t i = 0; i < ws->n; i++) {
        const fword *w = &ws->w[i];
        uint32_t f[5] = {w->off, w->len, w->nchars, w->line, w->flags};
        const unsigned char *p = (const unsigned char *)f;
        for (size_t k = 0; k < sizeof f; k++) h = (h ^ p[k]) * 0x100000001B3ULL;
    }
    return h;
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

/* Runs of ASCII letters and digits between ASCII spaces (or the text's ends)
 * that are not one word of ws. */
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
            if (w == ws->n || ws->w[w].off != a || ws->w[w].len != b - a) bad++;
        }
        a = b;
    }
    return bad;
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
    uint64_t digest = 0xCBF29CE484222325ULL;
    size_t docs = 0, words = 0, moved_differ = 0, runs_split = 0;
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
            digest = split_digest(digest, &ws);
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
    diag("%zu words, digest %016llx", words, (unsigned long long)digest);
    ok(digest == 0xA575006A2210AA87ULL, "the splitting of every UDHR text is the one pinned");
    is_int(moved_differ, 0, "the words do not depend on where the text sits in memory");
    is_int(runs_split, 0, "each run of ASCII letters and digits between spaces is one word");
    buf_free(&text);
    buf_free(&moved);
    words_free(&ws);
    words_free(&shifted);
    stopwords_free(&stop);
    free(data);
    return done_testing();
}
