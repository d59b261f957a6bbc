/* core_json_python - the document-line scanner against Python's json module
 * (tests/ref/json_doc_verdicts.py): for each line, whether it is one JSON
 * object (RFC 8259) and the decoded bytes of its top-level "text" member,
 * from json_scan_doc + json_unescape and from json_scan_doc_text, on both
 * vector paths. The values are edge cases of RFC 8259's grammar (numbers,
 * literals, escapes, surrogates, whitespace, nesting, structure), each put in
 * a member of its own, as the text, and after 70 bytes of padding; member
 * names with escapes; nesting up to 501 levels (JSONTestSuite's
 * i_structure_500_nested_arrays inside the line's object). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/simd.h"
#include "tests/tap.h"

/* Values put in a member; valid and invalid ones. */
static const char *const values[] = {
    "0", "-0", "1", "-1", "10", "1e5", "1E+5", "1e-05", "-1.5e3", "123.456", "0.5", "1.0e+1", "-0.0E-0",
    "123456789012345678901234567890", "1e400", "1e-400",
    "1e", "1e+", "1E-", "1.e5", ".5", "01", "-01", "00", "-", "+1", "0x1", "1.5e", "2.", "-.5", "1.5.1", "1e5.1",
    "--1", "1ee5", "0e", "- 1",
    "true", "false", "null", "tru", "True", "nul", "nulll", "NaN", "Infinity", "-Infinity", "undefined",
    "[]", "{}", "[[]]", "[[],[]]", "[{}]", "{\"a\":{}}", "{\"a\":[]}", " [ 1 , 2 ] ", "[1,]", "[,1]", "[1 2]",
    "{\"a\"}", "{\"a\" 1}", "{\"a\":}", "{1:1}", "{\"a\":1,}", "[1}", "{]", "[", "]", "{", "}", "[\"a\",]",
    "\"\"", "\"a\"", "\"\\u0000\"", "\"\\u0041\\u00e9\\u4E2D\"", "\"\\uD83D\\uDE00\"", "\"\\uDBFF\\uDFFF\"",
    "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\ud800\"", "\"\\udc00\\ud800\"", "\"\\ud800x\"", "\"\\ud800\\n\"",
    "\"\\ud800\\u0041\"", "\"\\ud83d\\ude00\\ud83d\"", "\"\x7f\"", "\"\\/\\\\\\\"\\b\\f\\n\\r\\t\"",
    "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"", "\"\xef\xbb\xbf\"", "\"\xf4\x8f\xbf\xbf\"",
    "\"\\'\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\x41\"", "\"\\U0041\"", "\"\\a\"", "\"\\\"", "\"\\u\"", "'a'",
    "\"\t\"", "\"\n\"", "\"\x01\"", "\"\x1f\"", "\"a", "\"\\ud800\\\"",
    "\"\xc3\x28\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"", "\"\xff\"", "\"\xe4\xb8\"",
    "[\f]", "\f1", "[\v]", "[\xc2\xa0]", "[1\r\n,\t2]", "1 2", "\"a\"\"b\"", "[1]x", "/*c*/1", "1//c",
};

/* Whole lines: where the object sits, member names, what follows it. */
static const char *const lines[] = {
    "{\"te\\u0078t\":\"escaped name\"}",
    "{\"text\":\"first\",\"\\u0074ext\":\"second\"}",
    "{\"\\u0074\\u0065\\u0078\\u0074\":\"all escaped\",\"id\":1}",
    "{\"te\\u0078t\":\"escaped name, then plain\",\"text\":\"plain\"}",
    "{\"text\":\"plain, then a name that is not text\",\"te\\u0078t \":\"no\"}",
    "{\"TEXT\":\"no\",\"text \":\"no\",\"tex\":\"no\",\"texts\":\"no\"}",
    "{\"te\\u0078t\":\"\\ud83d\\ude00 \\u00e9\\n\"}",
    "{\"te\\u0078t\":1}",
    "{\"text\\u0000\":\"no\"}",
    "{\"m\":{\"te\\u0078t\":\"inner\"},\"t\\u0065xt\":\"outer\"}",
    " \t{\"text\":\"a\"}\r\n ",
    "{\"text\":\"a\"}\f",
    "\xef\xbb\xbf{\"text\":\"a\"}",
    "{\"text\":\"a\"}{}",
    "{\"text\":\"a\"},",
    "{\"text\":\"a\"}}",
    "{\"text\":\"a\"",
    "{}",
    "{\"a\":1}",
    "[{\"text\":\"a\"}]",
    "\"text\"",
    "",
    " ",
};

/* Nesting: every line opens these many arrays inside its object. */
static const int depths[] = {1, 64, 200, 499, 500};
/* Empty containers one after the other inside an array (each opens a level and closes it). */
enum { EMPTY_CONTAINERS = 600 };
/* Bytes of padding before the value: the text then starts in the second 64-byte window. */
enum { PADDING = 70 };

static void add_line(wbuf *all, const char *s, size_t n)
{
    buf_append(all, s, n);
    buf_putc(all, '\n');
}

/* Every test line, each ending in '\n'. */
static void make_lines(wbuf *all)
{
    wbuf line = WBUF_INIT;
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        for (int shape = 0; shape < 3; shape++) { /* {"v":V}, {"text":V}, {"id":PADDING,"text":V,"n":1} */
            buf_clear(&line);
            if (shape == 0) buf_puts(&line, "{\"v\":");
            else if (shape == 1) buf_puts(&line, "{\"text\":");
            else {
                buf_puts(&line, "{\"id\":\"");
                for (int i = 0; i < PADDING; i++) buf_putc(&line, 'p');
                buf_puts(&line, "\",\"text\":");
            }
            buf_puts(&line, values[k]);
            buf_puts(&line, shape == 2 ? ",\"n\":1}" : "}");
            add_line(all, line.data, line.len);
        }
    }
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++) add_line(all, lines[k], strlen(lines[k]));
    for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++) {
        buf_clear(&line);
        buf_puts(&line, "{\"text\":\"deep\",\"m\":");
        for (int i = 0; i < depths[k]; i++) buf_putc(&line, '[');
        for (int i = 0; i < depths[k]; i++) buf_putc(&line, ']');
        buf_putc(&line, '}');
        add_line(all, line.data, line.len);
    }
    for (int kind = 0; kind < 2; kind++) {
        buf_clear(&line);
        buf_puts(&line, "{\"m\":[");
        for (int i = 0; i < EMPTY_CONTAINERS; i++) buf_puts(&line, i ? (kind ? ",{}" : ",[]") : (kind ? "{}" : "[]"));
        buf_puts(&line, "],\"text\":\"after many empty containers\"}");
        add_line(all, line.data, line.len);
    }
    buf_free(&line);
}

/* What the reference script writes for one line: "bad", "ok -" or "ok HEX" ("ok =" when empty). */
static void verdict_of(int scanned, const char *text, size_t n, bool has_text, wbuf *out)
{
    static const char hex[] = "0123456789abcdef";
    buf_clear(out);
    if (scanned != 0) {
        buf_puts(out, "bad");
        return;
    }
    buf_puts(out, has_text ? "ok " : "ok -");
    if (has_text && !n) buf_putc(out, '=');
    for (size_t i = 0; has_text && i < n; i++) {
        buf_putc(out, hex[(unsigned char)text[i] >> 4]);
        buf_putc(out, hex[(unsigned char)text[i] & 15]);
    }
}

/* Scans every line both ways; compares with the reference's verdicts. */
static void compare(const wbuf *all, char **want, size_t nwant, const char *path)
{
    size_t nlines = 0, differ = 0, text_differ = 0, accepted = 0;
    wbuf got = WBUF_INIT, got_text = WBUF_INIT, decoded = WBUF_INIT;
    for (size_t at = 0; at < all->len; nlines++) {
        const char *line = all->data + at;
        size_t len = (size_t)((const char *)memchr(line, '\n', all->len - at) - line);
        at += len + 1;
        jdoc d, d2;
        const char *err = NULL;
        size_t pos = 0, text_len = 0;
        int r = json_scan_doc(line, len, &d, &err, &pos);
        buf_clear(&decoded);
        if (r == 0 && d.text.kind == JSON_STRING) json_unescape(&d.text, &decoded);
        verdict_of(r, decoded.data, decoded.len, r == 0 && d.text.kind == JSON_STRING, &got);
        char *room = malloc(len ? len : 1); /* exactly the room json_scan_doc_text promises to need */
        int r2 = json_scan_doc_text(line, len, &d2, room, &text_len, &err, &pos);
        verdict_of(r2, room, text_len, r2 == 0 && d2.text.kind == JSON_STRING, &got_text);
        free(room);
        accepted += r == 0;
        const char *w = nlines < nwant ? want[nlines] : "(no verdict)";
        if (strcmp(got.data, w) != 0 && differ++ < 5)
            diag("line %zu %s: winnow %s, Python %s", nlines + 1, path, got.data, w);
        if (strcmp(got_text.data, w) != 0 && text_differ++ < 5)
            diag("line %zu %s: json_scan_doc_text %s, Python %s", nlines + 1, path, got_text.data, w);
    }
    is_int((long)nlines, (long)nwant, "a verdict from Python for each of the %zu lines", nlines);
    ok(accepted > 100 && accepted + 100 < nlines, "both kinds of line: %zu accepted", accepted);
    is_int((long)differ, 0, "json_scan_doc + json_unescape: Python's verdict and text on every line");
    is_int((long)text_differ, 0, "json_scan_doc_text: Python's verdict and text on every line");
    buf_free(&got);
    buf_free(&got_text);
    buf_free(&decoded);
}

int main(void)
{
    wbuf all = WBUF_INIT;
    make_lines(&all);
    char path[] = "/tmp/winnow_json_python_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f || fwrite(all.data, 1, all.len, f) != all.len || fclose(f) != 0) {
        ok(0, "wrote the test lines to %s", path);
        return done_testing();
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tests/ref/json_doc_verdicts.py < %s", path);
    FILE *py = popen(cmd, "r");
    char **want = NULL, buf[1 << 16];
    size_t nwant = 0;
    while (py && fgets(buf, sizeof buf, py)) {
        buf[strcspn(buf, "\n")] = 0;
        want = realloc(want, (nwant + 1) * sizeof *want);
        want[nwant++] = strdup(buf);
    }
    ok(py && pclose(py) == 0, "python3 tests/ref/json_doc_verdicts.py ran");
    unlink(path);

    simd_force_baseline(true);
    diag("baseline (SSE4.2) scanner");
    compare(&all, want, nwant, "(baseline)");
    simd_force_baseline(false);
    diag("%s scanner", simd_avx2() ? "AVX2" : "baseline (no AVX2 on this CPU)");
    compare(&all, want, nwant, "(best)");

    for (size_t i = 0; i < nwant; i++) free(want[i]);
    free(want);
    buf_free(&all);
    return done_testing();
}
