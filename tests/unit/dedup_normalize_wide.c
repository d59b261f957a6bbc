/* dedup_normalize_wide.c - the normaliser's 64-byte AVX-512 path for ASCII
 * (taken when the CPU has AVX-512 BW and VBMI2) gives the same normal form
 * and units, byte for byte, as its 16-byte baseline path
 * (simd_force_baseline), on the real JSONL data, the UDHR translations, the
 * tokref corpora (line by line and in 1 MiB pieces), and on random bytes
 * (any byte, and ASCII-heavy mixes of words, digit runs, separator runs and
 * non-ASCII bytes cut at every length), with dedup_normalize and with
 * dedup_normalize_json on JSON strings with escapes placed across the
 * 64-byte blocks. On a CPU without those units the comparisons are
 * skipped (the baseline is all that runs there). */
#include <stdlib.h>
#include <string.h>

#include "core/simd.h"
#include "dedup/normalize.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

#define TOKREF_PIECE (1u << 20) /* a corpus is also normalised in pieces this long */
#define RANDOM_ROUNDS 100000

static dedup_text wide, base;
static long compared, differing;

static int same(const dedup_text *a, const dedup_text *b)
{
    return a->text.len == b->text.len && !memcmp(a->text.data ? a->text.data : "", b->text.data ? b->text.data : "", a->text.len) &&
           a->nunits == b->nunits && (!a->nunits || (!memcmp(a->start, b->start, a->nunits * sizeof *a->start) &&
                                                     !memcmp(a->end, b->end, a->nunits * sizeof *a->end)));
}

static void note(const char *what, const char *s, size_t n)
{
    compared++;
    if (!same(&wide, &base) && differing++ < 3)
        diag("%s differs (%zu bytes, %zu/%zu units): %.60s", what, n, wide.nunits, base.nunits, s);
}

static void compare(const char *s, size_t n)
{
    simd_force_baseline(true);
    dedup_normalize(s, n, &base);
    simd_force_baseline(false);
    dedup_normalize(s, n, &wide);
    note("text", s, n);
}

static void compare_json(const jvalue *v)
{
    simd_force_baseline(true);
    dedup_normalize_json(v, &base);
    simd_force_baseline(false);
    dedup_normalize_json(v, &wide);
    note("JSON string", v->p, v->len);
}

/* Both: the decoded text of every line's "text", and its raw JSON string. */
static void compare_file(const char *path)
{
    winput *in = input_open(path);
    wbuf decoded = WBUF_INIT;
    const char *line;
    size_t len;
    while (in && input_getline(in, &line, &len)) {
        jdoc d;
        const char *err;
        size_t pos, n;
        if (json_scan_doc(line, len, &d, &err, &pos) != 0 || d.text.kind != JSON_STRING) continue;
        compare_json(&d.text);
        const char *s = json_string(&d.text, &decoded, &n);
        compare(s, n);
    }
    if (in) input_close(in);
    buf_free(&decoded);
}

static void test_real_text(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/jsonl", shared_dir());
    require_file(path);
    const jsonl_files *files = jsonl_files_under(path);
    for (int i = 0; i < files->n; i++) compare_file(files->path[i]);
    snprintf(path, sizeof path, "%s/multilingual/udhr/udhr_text_DERIVED.jsonl", shared_dir());
    require_file(path);
    compare_file(path);
    long docs = compared;
    static const char *corpora[] = {"en_code", "multi", "edge", "blns"};
    for (size_t c = 0; c < sizeof corpora / sizeof *corpora; c++) {
        snprintf(path, sizeof path, "%s/tokref/%s.txt.zst", shared_dir(), corpora[c]);
        require_file(path);
        winput *in = input_open(path);
        wbuf all = WBUF_INIT;
        const char *line;
        size_t len;
        while (in && input_getline(in, &line, &len)) {
            compare(line, len);
            buf_append(&all, line, len);
            buf_putc(&all, '\n');
        }
        if (in) input_close(in);
        for (size_t at = 0; at < all.len; at += TOKREF_PIECE)
            compare(all.data + at, all.len - at < TOKREF_PIECE ? all.len - at : TOKREF_PIECE);
        buf_free(&all);
    }
    ok(docs > 7000 && compared > docs + 10000, "%ld JSON strings and texts, %ld tokref lines and pieces", docs,
       compared - docs);
    is_int(differing, 0, "64-byte path: normal form and units equal the baseline's on all of them");
}

static uint64_t next(uint64_t *x)
{
    return (*x = *x * 6364136223846793005ull + 1442695040888963407ull) >> 33;
}

/* 1 to 40 of the pieces, drawn with x, joined into s while they fit below
 * cap; returns the length. */
static size_t random_pieces(const char *const *pieces, size_t npieces, uint64_t *x, char *s, size_t cap)
{
    size_t n = 0;
    int count = 1 + (int)(next(x) % 40);
    for (int i = 0; i < count; i++) {
        const char *piece = pieces[next(x) % npieces];
        size_t len = strlen(piece);
        if (n + len < cap) memcpy(s + n, piece, len), n += len;
    }
    return n;
}

/* Random bytes: uniform, or mostly ASCII runs that cross the blocks. */
static void test_random_bytes(void)
{
    static const char *pieces[] = {
        "a", "Word", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "x", " ", "   ", "\t\n",
        ",", ". ", "-", "7", "2024", "0123456789012345678901234567890123456789012345678901234567890123456789", "@",
        "                                                                  ", "a b c d e f g h i j k l m n o p q r s t u v w",
        "é", "日本", "ไทย", "\xFF", "\xC3", "\x7F", "\x01", "\\", "u", "[", "`", "{",
    };
    enum { NPIECES = sizeof pieces / sizeof *pieces };
    uint64_t x = 11;
    char s[1024];
    long before = compared;
    differing = 0;
    for (int round = 0; round < RANDOM_ROUNDS; round++) {
        size_t n = 0;
        if (round % 4 == 0) {
            n = next(&x) % sizeof s;
            for (size_t i = 0; i < n; i++) s[i] = (char)next(&x);
        } else {
            n = random_pieces(pieces, NPIECES, &x, s, sizeof s);
        }
        compare(s, next(&x) % (n + 1));
    }
    is_int(differing, 0, "64-byte path: %ld random byte strings equal the baseline", compared - before);
}

/* JSON strings: escapes of every kind among long ASCII runs. */
static void test_json_escapes(void)
{
    static const char *pieces[] = {
        "a", "Word", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "unit", "u", " ",
        "   ", ",", "-", "7", "2024", "0123456789012345678901234567890123456789012345678901234567890123456789", "é",
        "日本", "\\n", "\\t", "\\\"", "\\\\", "\\/", "\\\\n", "\\\\u0041", "\\\\\\n", "\\u00e9", "\\u0041", "\\u0030",
        "\\u0020", "\\ud83d\\ude00", "\\ud800", "\\u0301",
    };
    enum { NPIECES = sizeof pieces / sizeof *pieces };
    uint64_t x = 13;
    char s[1024];
    long before = compared;
    differing = 0;
    for (int round = 0; round < RANDOM_ROUNDS; round++) {
        size_t n = random_pieces(pieces, NPIECES, &x, s, sizeof s);
        jvalue v = {s, n, JSON_STRING, memchr(s, '\\', n) != NULL};
        compare_json(&v);
    }
    is_int(differing, 0, "64-byte path: %ld random JSON strings with escapes equal the baseline", compared - before);
}

int main(void)
{
    simd_force_baseline(false);
    if (!simd_avx512_vbmi2()) {
        skip_all("this CPU has no AVX-512 BW and VBMI2: only the baseline path runs");
    }
    test_real_text();
    test_random_bytes();
    test_json_escapes();
    dedup_text_free(&wide);
    dedup_text_free(&base);
    return done_testing();
}
