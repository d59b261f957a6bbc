/* core_json_text - json_scan_doc_text(), the scan that decodes the "text"
 * value in its own pass (64-byte windows of quote/backslash/control bits):
 * the decoded bytes against a reference decoder written here byte by byte,
 * and the scan's verdict, error and position against json_scan_doc() and
 * against positions worked out here; escapes of every kind at every offset
 * around the 64-byte window edges and the line's end, both vector paths,
 * with nothing read past the line or written past the room it promises to
 * need. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/input.h"
#include "core/json.h"
#include "core/simd.h"
#include "tests/tap.h"

enum { GUARD = 64, SENTINEL = 0x5A };

/* ---- a reference decoder, one byte at a time (RFC 8259 escapes; a surrogate
 * escape that does not pair up is U+FFFD, the project's rule) ---- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static long hex4_at(const char *p, const char *end)
{
    if (end - p < 4) return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(p[k]);
        if (h < 0) return -1;
        v = v * 16 + h;
    }
    return v;
}

static char *put_utf8(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        *d++ = (char)cp;
    } else if (cp < 0x800) {
        *d++ = (char)(0xC0 | cp >> 6), *d++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *d++ = (char)(0xE0 | cp >> 12), *d++ = (char)(0x80 | ((cp >> 6) & 0x3F)), *d++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *d++ = (char)(0xF0 | cp >> 18), *d++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F)), *d++ = (char)(0x80 | (cp & 0x3F));
    }
    return d;
}

/* Decodes the valid string body s[0, n) to out; returns its length. */
static size_t ref_decode(const char *s, size_t n, char *out)
{
    const char *p = s, *end = s + n;
    char *d = out;
    while (p < end) {
        if (*p != '\\') {
            *d++ = *p++;
            continue;
        }
        char e = p[1];
        p += 2;
        switch (e) {
        case 'n': *d++ = '\n'; break;
        case 't': *d++ = '\t'; break;
        case 'r': *d++ = '\r'; break;
        case 'b': *d++ = '\b'; break;
        case 'f': *d++ = '\f'; break;
        case 'u': {
            uint32_t cp = (uint32_t)hex4_at(p, end);
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                long lo = hex4_at(p + 2, end);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                    p += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
            d = put_utf8(d, cp);
            break;
        }
        default: *d++ = e; break; /* '"', '\\', '/' */
        }
    }
    return (size_t)(d - out);
}

/* ---- one line through both scanners ---- */

typedef struct {
    long lines, wrong;
    char first[200]; /* the first wrong case */
} tally;

static void wrong(tally *t, const char *what, const char *line, size_t len)
{
    if (!t->wrong++) snprintf(t->first, sizeof t->first, "%s: %.*s", what, (int)(len < 120 ? len : 120), line);
}

static bool jvalue_same(const jvalue *a, const jvalue *b)
{
    return a->p == b->p && a->len == b->len && a->kind == b->kind && a->has_escapes == b->has_escapes;
}

static bool jdoc_same(const jdoc *a, const jdoc *b)
{
    return jvalue_same(&a->id, &b->id) && jvalue_same(&a->text, &b->text) && jvalue_same(&a->url, &b->url) &&
           jvalue_same(&a->date, &b->date) && jvalue_same(&a->source, &b->source) &&
           jvalue_same(&a->metadata, &b->metadata) && a->close_brace == b->close_brace;
}

/* Scans line (copied into a buffer of exactly len bytes, so a sanitizer
 * catches any read past it) with json_scan_doc_text into room of exactly len
 * bytes followed by guard bytes. want_rc 0: the text must be ref_decode of the
 * "text" body want_body; else the scan must fail with want_err at want_pos.
 * Every case is also checked against json_scan_doc() (same verdict, error,
 * position and jdoc). */
static void check_line(tally *t, const char *text_line, size_t len, int want_rc, const char *want_err,
                       size_t want_pos)
{
    t->lines++;
    char *line = malloc(len ? len : 1);
    memcpy(line, text_line, len);
    char *room = malloc(len + GUARD);
    memset(room, SENTINEL, len + GUARD);
    jdoc a, b;
    const char *err_a = NULL, *err_b = NULL;
    size_t pos_a = 0, pos_b = 0, n = 12345;
    int rc_a = json_scan_doc_text(line, len, &a, room, &n, &err_a, &pos_a);
    int rc_b = json_scan_doc(line, len, &b, &err_b, &pos_b);
    for (size_t k = len; k < len + GUARD; k++)
        if ((unsigned char)room[k] != SENTINEL) {
            wrong(t, "wrote past the room", line, len);
            break;
        }
    if (rc_a != rc_b || (rc_a && (strcmp(err_a, err_b) || pos_a != pos_b))) {
        wrong(t, "verdict differs from json_scan_doc", line, len);
    } else if (!rc_a && !jdoc_same(&a, &b)) {
        wrong(t, "jdoc differs from json_scan_doc", line, len);
    } else if (rc_a != want_rc) {
        wrong(t, rc_a ? "fails" : "scans", line, len);
    } else if (rc_a && (strcmp(err_a, want_err) || pos_a != want_pos)) {
        wrong(t, "error or position", line, len);
    } else if (!rc_a && a.text.kind == JSON_STRING) {
        char *want = malloc(len + 1);
        size_t wn = ref_decode(a.text.p, a.text.len, want);
        if (n != wn || memcmp(room, want, wn)) wrong(t, "decoded text", line, len);
        bool esc = memchr(a.text.p, '\\', a.text.len) != NULL;
        if (a.text.has_escapes != esc) wrong(t, "has_escapes", line, len);
        free(want);
    } else if (!rc_a && n != 0) {
        wrong(t, "text_len without a text string", line, len);
    }
    free(room);
    free(line);
}

static void report(const tally *t, const char *name)
{
    ok(t->wrong == 0 && t->lines > 0, "%s: %ld lines, %ld wrong", name, t->lines, t->wrong);
    if (t->wrong) diag("first: %s", t->first);
}

/* ---- the cases ---- */

static const char *const escapes[] = {
    "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t",
    "\\u0041", "\\u00e9", "\\u20AC", "\\u0000", "\\u001f",
    "\\ud83d\\ude00",  /* a pair: U+1F600 */
    "\\uD83D\\uDE00x", /* upper-case pair */
    "\\ud83d",         /* a lone high surrogate (before plain text or the end) */
    "\\ud83dx\\ude00", /* high, text, low: two lone halves */
    "\\ud83d\\u0041",  /* high then a non-surrogate escape */
    "\\ud83d\\ud83d\\ude00", /* high, then a pair */
    "\\ude00",         /* a lone low surrogate */
    "\\ude00\\ud83d",  /* low then high: two lone halves */
    "\\\\u0041",       /* an escaped backslash, then plain "u0041" */
    "\\\\\\\"",        /* \\ then \" */
};

/* Escape e at every offset 0..150 of a text body of plain bytes followed by
 * 0..70 more, before each of a few line ends: every position relative to the
 * 64-byte windows and to the last 64 bytes of the line. */
static void escapes_at_every_offset(void)
{
    static const char *const tails[] = {"\"}", "\",\"id\":\"x\\ny\"}", "\"}  ", "\",\"m\":{\"text\":\"no\"}}"};
    static const size_t after[] = {0, 1, 2, 5, 31, 62, 63, 64, 65, 70};
    char line[512];
    for (size_t e = 0; e < sizeof escapes / sizeof *escapes; e++) {
        tally t = {0};
        for (size_t q = 0; q <= 150; q++)
            for (size_t a = 0; a < sizeof after / sizeof *after; a++)
                for (size_t k = 0; k < sizeof tails / sizeof *tails; k++) {
                    int m = snprintf(line, sizeof line, "{\"id\":\"d\",\"text\":\"\xc3\xa9\xe2\x82\xac%.*s%s%.*s%s", (int)q,
                                     "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_=+.,:;!?()<>[]{}"
                                     "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_=+.,:;!?()",
                                     escapes[e], (int)after[a], "-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-abcdefghijklmnopqrstuvwxyz", tails[k]);
                    check_line(&t, line, (size_t)m, 0, NULL, 0);
                }
        char name[64];
        snprintf(name, sizeof name, "escape %s at offsets 0-150", escapes[e]);
        report(&t, name);
    }
}

/* Two escapes with 0..70 bytes between them, the first at every offset 0..70:
 * a run of escapes, and an escape that ends exactly at a window's edge. */
static void escape_pairs(void)
{
    tally t = {0};
    char line[512], body[300];
    for (size_t e1 = 0; e1 < sizeof escapes / sizeof *escapes; e1 += 3)
        for (size_t e2 = 0; e2 < sizeof escapes / sizeof *escapes; e2 += 2)
            for (size_t q = 0; q <= 70; q++)
                for (size_t gap = 0; gap <= 70; gap += 7) {
                    memset(body, 'p', sizeof body);
                    int m = snprintf(line, sizeof line, "{\"text\":\"%.*s%s%.*s%s%.*s\"}", (int)q, body, escapes[e1],
                                     (int)gap, body, escapes[e2], (int)(q % 9), body);
                    check_line(&t, line, (size_t)m, 0, NULL, 0);
                }
    report(&t, "two escapes at every pair of offsets");
}

/* A bad string at every offset: the error and where it is, as worked out here. */
static void errors_at_every_offset(void)
{
    static const struct {
        const char *bad, *err;
        int at; /* error position relative to the bad part; -1: the text's opening quote */
    } cases[] = {
        {"\\x", "bad escape", 0},
        {"\\U0041", "bad escape", 0},
        {"\\'", "bad escape", 0},
        {"\\u12G4", "bad \\u escape", 0},
        {"\\u004", "bad \\u escape", 0}, /* the closing quote is its fourth "digit" */
        {"\\ud83d\\uZZZZ", "bad \\u escape", 6},
        {"\\ud83d\\x", "bad escape", 6},
        {"\x01", "control character in string", 0},
        {"\x1f", "control character in string", 0},
        {"\n", "control character in string", 0},
    };
    char line[512], body[200];
    memset(body, 'z', sizeof body);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tally t = {0};
        for (size_t q = 0; q <= 140; q++)
            for (size_t a = 0; a <= 70; a += 5) {
                const char *head = "{\"id\":\"x\\ty\",\"text\":\"";
                int m = snprintf(line, sizeof line, "%s%.*s%s%.*s\"}", head, (int)q, body, cases[c].bad, (int)a, body);
                size_t at = strlen(head) + q + (size_t)cases[c].at;
                check_line(&t, line, (size_t)m, -1, cases[c].err, at);
            }
        char name[80];
        snprintf(name, sizeof name, "error \"%s\" at every offset", cases[c].err);
        report(&t, name);
    }
    /* the line ends inside the string: in an escape, after a backslash, or plain */
    tally t = {0};
    static const char *const ends[] = {"", "\\", "\\u00", "\\u0041", "\\ud83d\\u", "\\\\"};
    for (size_t e = 0; e < sizeof ends / sizeof *ends; e++)
        for (size_t q = 0; q <= 140; q++) {
            const char *head = "{\"id\":\"x\",\"text\":\"";
            int m = snprintf(line, sizeof line, "%s%.*s%s", head, (int)q, body, ends[e]);
            bool short_u = !strcmp(ends[e], "\\u00") || !strcmp(ends[e], "\\ud83d\\u");
            size_t at = short_u ? strlen(head) + q + (ends[e][2] == 'd' ? 6 : 0) : strlen(head) - 1;
            check_line(&t, line, (size_t)m, -1, short_u ? "bad \\u escape" : "unterminated string", at);
        }
    report(&t, "a line that ends inside the text string");
}

/* Which "text" member is decoded: the last top-level one that is a string. */
static void which_text(void)
{
    static const struct {
        const char *line, *want; /* want NULL: no text string */
    } cases[] = {
        {"{\"text\":\"a\\nb\",\"text\":\"xyz\"}", "xyz"},
        {"{\"text\":\"first one is longer \\u00e9\",\"id\":1,\"text\":\"\\u00e9\"}", "\xc3\xa9"},
        {"{\"text\":\"abc\",\"text\":5}", NULL},
        {"{\"te\\u0078t\":\"escaped key\"}", "escaped key"}, /* names compare decoded, as in Python's json */
        {"{\"text\":\"plain key\",\"te\\u0078t\":5}", NULL},
        {"{\"meta\":{\"text\":\"nested\"},\"text\":\"top\"}", "top"},
        {"{\"meta\":{\"text\":\"nested\"}}", NULL},
        {"{\"texts\":\"no\",\"tex\":\"no\"}", NULL},
        {"{\"text\":\"\"}", ""},
        {"{\"text\":[\"array\"]}", NULL},
        {" { \"text\" : \"spaces\\taround\" } ", "spaces\taround"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const char *line = cases[c].line;
        size_t len = strlen(line), n = 99;
        char *room = malloc(len + GUARD);
        jdoc d;
        const char *err;
        size_t pos;
        int rc = json_scan_doc_text(line, len, &d, room, &n, &err, &pos);
        if (cases[c].want)
            ok(rc == 0 && d.text.kind == JSON_STRING && n == strlen(cases[c].want) && !memcmp(room, cases[c].want, n),
               "text of %s", line);
        else
            ok(rc == 0 && d.text.kind != JSON_STRING && n == 0, "no text string in %s (text_len 0)", line);
        free(room);
    }
}

/* Random lines over an alphabet rich in backslashes, quotes, 'u', hex digits,
 * control and multi-byte characters: valid or not, the same verdict, error
 * and position as json_scan_doc, and the reference's text where valid. */
static void random_lines(void)
{
    static const char *const atoms[] = {"a", "b", " ", "\\", "\"", "u", "0", "d", "8", "D", "c", "e", "F", "n", "/",
                                        "\\n", "\\u", "\\ud83d", "\\ude00", "\\u00e9", "\xc3\xa9", "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80", "\x01", "\t", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                                        "\xc3", "\xff"};
    uint64_t x = 0x9E3779B97F4A7C15u;
    tally t = {0};
    char line[2048];
    for (int r = 0; r < 30000; r++) {
        int m = snprintf(line, sizeof line, "{\"id\":\"r%d\",\"text\":\"", r);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int atoms_n = (int)(x % 160);
        for (int k = 0; k < atoms_n; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *a = atoms[x % (sizeof atoms / sizeof *atoms)];
            /* mostly valid: an odd atom (lone backslash or quote, control, bad byte) kept one time in 8 */
            bool odd = ((a[0] == '\\' || a[0] == '"' || (unsigned char)a[0] == 0xc3) && !a[1]) || a[0] == '\x01' ||
                       a[0] == '\t' || (unsigned char)a[0] == 0xff;
            if (odd && (x >> 20) % 8) a = "\\\\";
            m += snprintf(line + m, sizeof line - (size_t)m, "%s", a);
        }
        m += snprintf(line + m, sizeof line - (size_t)m, "\"}");
        /* the expected verdict is json_scan_doc's (checked inside); valid ones against the reference */
        jdoc d;
        const char *err = NULL;
        size_t pos = 0;
        int rc = json_scan_doc(line, (size_t)m, &d, &err, &pos);
        check_line(&t, line, (size_t)m, rc, err, pos);
    }
    report(&t, "30000 random lines, same verdict as json_scan_doc and the reference's text");
}

/* Every line of a real JSONL file: the text as json_scan_doc + json_unescape gives it. */
static void real_file(const char *rel, long want_lines)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", shared_dir(), rel);
    require_file(path);
    winput *in = input_open(path);
    if (!in) {
        ok(0, "open %s", rel);
        return;
    }
    const char *line;
    size_t len;
    tally t = {0};
    while (input_getline(in, &line, &len)) check_line(&t, line, len, 0, NULL, 0);
    input_close(in);
    is_int(t.lines, want_lines, "%s: line count", rel);
    report(&t, rel);
}

static void all_checks(void)
{
    escapes_at_every_offset();
    escape_pairs();
    errors_at_every_offset();
    which_text();
    random_lines();
    real_file("jsonl/dclm/data/majority_data.jsonl", 499);
    real_file("jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz", 1000);
}

int main(void)
{
    simd_force_baseline(true);
    diag("baseline (SSE4.2) scanner");
    all_checks();
    simd_force_baseline(false);
    diag("%s scanner", simd_avx2() ? "AVX2" : "baseline (no AVX2 on this CPU)");
    all_checks();
    return done_testing();
}
