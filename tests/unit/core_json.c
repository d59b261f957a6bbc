/* core_json - the document-line scanner, unescaper and writer. */
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/input.h"
#include "core/json.h"
#include "core/simd.h"
#include "tests/tap.h"

static int scans(const char *line)
{
    jdoc d;
    const char *err;
    size_t pos;
    return json_scan_doc(line, strlen(line), &d, &err, &pos) == 0;
}

static void text_is(const char *line, const char *want, const char *name)
{
    jdoc d;
    wbuf b = WBUF_INIT;
    const char *err = NULL;
    size_t pos = 0;
    int r = json_scan_doc(line, strlen(line), &d, &err, &pos);
    if (r != 0) {
        ok(0, "%s (scan failed: %s at %zu)", name, err, pos);
        return;
    }
    json_unescape(&d.text, &b);
    is_str(b.data ? b.data : "", want, "%s", name);
    char *into = malloc(d.text.len ? d.text.len : 1); /* exactly the room it promises to need */
    size_t n = json_unescape_into(&d.text, into);
    ok(n == strlen(want) && !memcmp(into, want, n), "%s: json_unescape_into gives the same bytes in v->len", name);
    free(into);
    buf_free(&b);
}

/* Every Unicode scalar value written as a \uXXXX escape (a surrogate pair
 * above U+FFFF), with hex digits in upper case and in lower case, unescapes to
 * the UTF-8 that iconv makes from the code point: an independent reference. */
static void escapes_match_iconv(void)
{
    iconv_t cd = iconv_open("UTF-8", "UTF-32LE");
    if (cd == (iconv_t)-1) {
        ok(0, "iconv UTF-32LE to UTF-8 opens");
        return;
    }
    wbuf got = WBUF_INIT;
    for (int upper = 0; upper <= 1; upper++) {
        const char *fmt1 = upper ? "{\"text\":\"\\u%04X\"}" : "{\"text\":\"\\u%04x\"}";
        const char *fmt2 = upper ? "{\"text\":\"\\u%04X\\u%04X\"}" : "{\"text\":\"\\u%04x\\u%04x\"}";
        long bad = 0;
        uint32_t first_bad = 0;
        for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
            if (cp >= 0xD800 && cp <= 0xDFFF) continue;
            char line[64], want[8];
            if (cp < 0x10000)
                snprintf(line, sizeof line, fmt1, (unsigned)cp);
            else
                snprintf(line, sizeof line, fmt2, (unsigned)(0xD800 + ((cp - 0x10000) >> 10)),
                         (unsigned)(0xDC00 + ((cp - 0x10000) & 0x3FF)));
            unsigned char in[4] = {cp & 0xFF, (cp >> 8) & 0xFF, (cp >> 16) & 0xFF, 0};
            char *inp = (char *)in, *outp = want;
            size_t inleft = 4, outleft = sizeof want;
            size_t conv = iconv(cd, &inp, &inleft, &outp, &outleft);
            size_t want_len = sizeof want - outleft;
            jdoc d;
            const char *err;
            size_t pos;
            buf_clear(&got);
            int same = conv != (size_t)-1 && json_scan_doc(line, strlen(line), &d, &err, &pos) == 0;
            if (same) {
                json_unescape(&d.text, &got);
                same = got.len == want_len && !memcmp(got.data, want, want_len);
            }
            if (!same && !bad++) first_bad = cp;
        }
        ok(bad == 0, "every code point as a \\u escape (%s-case hex) unescapes to iconv's UTF-8", upper ? "upper" : "lower");
        if (bad) diag("%ld code points differ, the first U+%04X", bad, (unsigned)first_bad);
    }
    buf_free(&got);
    iconv_close(cd);
}

/* Every line of a real JSONL file scans and round-trips through the writer. */
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
    long n = 0, bad = 0, roundtrip_bad = 0;
    wbuf text = WBUF_INIT, again = WBUF_INIT, text2 = WBUF_INIT;
    while (input_getline(in, &line, &len)) {
        jdoc d;
        const char *err;
        size_t pos;
        n++;
        if (json_scan_doc(line, len, &d, &err, &pos) != 0 || d.text.kind != JSON_STRING) {
            bad++;
            continue;
        }
        buf_clear(&text);
        json_unescape(&d.text, &text);
        /* write the text as JSON again and decode it: must be the same bytes */
        buf_clear(&again);
        buf_puts(&again, "{\"text\":");
        json_put_string(&again, text.data, text.len);
        buf_putc(&again, '}');
        jdoc d2;
        buf_clear(&text2);
        if (json_scan_doc(again.data, again.len, &d2, &err, &pos) != 0) { roundtrip_bad++; continue; }
        json_unescape(&d2.text, &text2);
        if (text2.len != text.len || memcmp(text2.data, text.data, text.len)) roundtrip_bad++;
    }
    input_close(in);
    is_int(n, want_lines, "%s: line count", rel);
    is_int(bad, 0, "%s: every line scans as a document", rel);
    is_int(roundtrip_bad, 0, "%s: text survives write + scan + unescape", rel);
    buf_free(&text);
    buf_free(&again);
    buf_free(&text2);
}

/* Every check, run once per vector path. */

/* doc_rewrite of line (scanned here) with new_text (NULL keeps the text) and
 * meta gives want. */
static void rewrite_is(const char *line, const char *new_text, const wbuf *meta, const char *want, const char *name)
{
    jdoc d;
    const char *err;
    size_t pos;
    wbuf out = WBUF_INIT;
    json_scan_doc(line, strlen(line), &d, &err, &pos);
    doc_rewrite(line, strlen(line), &d, new_text, new_text ? strlen(new_text) : 0, meta, &out);
    is_str(out.data, want, "%s", name);
    buf_free(&out);
}
static void all_checks(void)
{
    ok(scans("{\"text\":\"a\"}"), "minimal document");
    ok(scans("  {\"text\" : \"a\" , \"n\" : [1, -2.5e+3, true, false, null, {\"x\": {}}]}  "), "whitespace and nesting");
    ok(!scans("{\"text\":\"a\""), "unterminated object rejected");
    ok(!scans("{\"text\":\"a\"} x"), "trailing junk rejected");
    ok(!scans("[1,2]"), "array line rejected");
    ok(!scans(""), "empty line rejected");
    {
        /* RFC 8259 lets a parser refuse a BOM; Python's json does ("Unexpected UTF-8 BOM"), so the
         * line fails, but the message must say why: "not a JSON object" sent users hunting */
        jdoc d;
        const char *err = NULL;
        size_t pos = 0;
        const char *bom = "\xEF\xBB\xBF{\"text\":\"a\"}";
        int r = json_scan_doc(bom, strlen(bom), &d, &err, &pos);
        ok(r != 0 && err && !strcmp(err, "a UTF-8 byte order mark before the object") && pos == 0,
           "a line starting with a UTF-8 BOM is refused naming the BOM, at byte 0 (got %s at %zu)", err, pos);
    }
    ok(!scans("{\"text\":\"a\tb\"}"), "raw control character rejected");
    ok(!scans("{\"text\":\"\\x\"}"), "bad escape rejected");
    ok(!scans("{\"text\":\"\\u12G4\"}"), "bad \\u escape rejected");
    ok(!scans("{\"text\":\"\xC3\x28\"}"), "invalid UTF-8 rejected");
    ok(!scans("{\"text\":\"\xED\xA0\x80\"}"), "UTF-8 surrogate rejected");
    ok(!scans("{\"n\":01}"), "leading zero rejected");
    ok(!scans("{\"n\":1.}"), "bare decimal point rejected");
    ok(!scans("{\"a\":1,}"), "trailing comma rejected");

    char deep[3000];
    size_t k = 0;
    k += (size_t)sprintf(deep, "{\"text\":\"x\",\"m\":");
    for (int i = 0; i < 1000; i++) deep[k++] = '[';
    for (int i = 0; i < 1000; i++) deep[k++] = ']';
    deep[k++] = '}';
    deep[k] = 0;
    ok(!scans(deep), "nesting deeper than the limit is rejected, not a crash");
    for (int levels = 512; levels <= 513; levels++) { /* the object, then arrays: README's limit */
        k = (size_t)sprintf(deep, "{\"text\":\"x\",\"m\":");
        for (int i = 1; i < levels; i++) deep[k++] = '[';
        for (int i = 1; i < levels; i++) deep[k++] = ']';
        deep[k++] = '}';
        deep[k] = 0;
        ok(scans(deep) == (levels <= 512), "%d levels of nesting %s", levels, levels <= 512 ? "read" : "refused");
    }

    escapes_match_iconv();
    text_is("{\"text\":\"plain\"}", "plain", "plain text");
    text_is("{\"text\":\"a\\\"b\\\\c\\/d\\n\\t\\r\\b\\f\"}", "a\"b\\c/d\n\t\r\b\f", "simple escapes");
    text_is("{\"text\":\"\\u00e9\\u4e2d\"}", "\xC3\xA9\xE4\xB8\xAD", "BMP \\u escapes");
    text_is("{\"text\":\"\\ud83d\\ude00\"}", "\xF0\x9F\x98\x80", "surrogate pair");
    text_is("{\"text\":\"x\\ud83dy\"}", "x\xEF\xBF\xBDy", "lone high surrogate becomes U+FFFD");
    text_is("{\"text\":\"\\udc00\"}", "\xEF\xBF\xBD", "lone low surrogate becomes U+FFFD");
    text_is("{\"id\":\"1\",\"text\":\"first\",\"text\":\"second\"}", "second", "duplicate key: last wins");
    text_is("{\"meta\":{\"text\":\"inner\"},\"text\":\"outer\"}", "outer", "only top-level members count");

    /* fields and spans */
    {
        const char *line = "{\"id\":17,\"text\":\"t\",\"url\":\"u\",\"metadata\":{\"a\":1}}";
        jdoc d;
        const char *err;
        size_t pos;
        json_scan_doc(line, strlen(line), &d, &err, &pos);
        ok(d.id.kind == JSON_NUMBER && d.id.len == 2, "numeric id recorded as a number");
        ok(d.metadata.kind == JSON_OBJECT && d.metadata.len == 7, "metadata object span");
        ok(d.date.kind == JSON_MISSING, "absent field is missing");
        is_int(d.close_brace, strlen(line) - 1, "closing brace offset");
    }

    /* writer: escaping and repair of invalid UTF-8 */
    {
        wbuf b = WBUF_INIT;
        json_put_string(&b, "q\"\\\n\x01\xC3\xA9\xFF", 8);
        is_str(b.data, "\"q\\\"\\\\\\n\\u0001\xC3\xA9\xEF\xBF\xBD\"", "writer escapes and repairs");
        buf_free(&b);
    }

    /* writer: one U+FFFD per maximal subpart of invalid UTF-8, as Python's
     * b.decode("utf-8", "replace") gives: E2 82 (a cut euro sign) is one,
     * F0 9F 98 before "x" one, ED A0 (a surrogate's lead) two, C0 AF two */
    {
        static const char bad[] = "\xE2\x82x\xF0\x9F\x98x\xED\xA0\xC0\xAF";
        const char *want = "\"\xEF\xBF\xBDx\xEF\xBF\xBDx\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"";
        wbuf b = WBUF_INIT;
        json_put_string(&b, bad, sizeof bad - 1);
        is_str(b.data, want, "writer: one U+FFFD per maximal subpart, as Python's decode('utf-8', 'replace')");
        is_int(json_string_size(bad, sizeof bad - 1), strlen(want), "json_string_size counts the repaired bytes");
        buf_free(&b);
    }

    /* writer: RFC 8259 section 7 says every byte below 0x20 must be escaped; the
     * bytes Python's json.dumps writes for each (its ESCAPE_DCT: \b \t \n \f \r,
     * else \u00xx in lowercase hex) */
    {
        static const char *const short_names = "btn\0fr"; /* 0x08..0x0d, 0x0b has none */
        int wrong = 0;
        for (int c = 0; c < 0x20; c++) {
            char in = (char)c, want[16];
            if (c >= 0x08 && c <= 0x0d && c != 0x0b) snprintf(want, sizeof want, "\"\\%c\"", short_names[c - 0x08]);
            else snprintf(want, sizeof want, "\"\\u%04x\"", c);
            wbuf b = WBUF_INIT;
            json_put_string(&b, &in, 1);
            if (strcmp(b.data, want) != 0 || json_string_size(&in, 1) != strlen(want)) {
                diag("byte 0x%02x: got %s, want %s", c, b.data, want);
                wrong++;
            }
            buf_free(&b);
        }
        is_int(wrong, 0, "writer escapes every byte below 0x20 as json.dumps does");
    }

    /* json_next_member: names and values of an object's members, strings that
     * end in an escaped backslash, escaped quotes and nesting included */
    {
        const char *members = " \"a\" : \"x\\\\\" , \"b\":\"q\\\"}\\\\\\\"\",\"c\":{\"d\":[1,\"]\"]},\"e\":-1.5e3 ";
        size_t n = strlen(members), at = 0;
        jmember m;
        wbuf got = WBUF_INIT;
        while (json_next_member(members, n, &at, &m))
            buf_printf(&got, "%.*s=%.*s;", (int)m.key.len, m.key.p, (int)(m.to - m.value_from), members + m.value_from);
        is_str(got.data, "a=\"x\\\\\";b=\"q\\\"}\\\\\\\"\";c={\"d\":[1,\"]\"]};e=-1.5e3;",
               "json_next_member: each member's name and value");
        buf_free(&got);
    }

    /* doc_rewrite: metadata added, text replaced, other bytes kept */
    {
        wbuf meta = WBUF_INIT, out = WBUF_INIT;
        meta_add_str(&meta, "lang", "en", 2);
        rewrite_is("{\"id\":\"a\",\"text\":\"old\",\"x\":[1],\"metadata\":{\"k\":1}}", "new\n", &meta,
                   "{\"id\":\"a\",\"text\":\"new\\n\",\"x\":[1],\"metadata\":{\"k\":1,\"lang\":\"en\"}}\n",
                   "rewrite text and add metadata");
        const char *bare = "{\"text\":\"t\"}";
        rewrite_is(bare, NULL, &meta, "{\"text\":\"t\",\"metadata\":{\"lang\":\"en\"}}\n", "metadata object created");
        rewrite_is("{\"text\":\"t\",\"metadata\":{ }}", NULL, &meta, "{\"text\":\"t\",\"metadata\":{ \"lang\":\"en\"}}\n",
                   "empty metadata object filled");
        rewrite_is("{\"metadata\":null,\"text\":7}", "s", &meta, "{\"metadata\":{\"lang\":\"en\"},\"text\":\"s\"}\n",
                   "null metadata and text replaced");
        rewrite_is("{\"text\":\"t\",\"metadata\":\"{\\\"src\\\": 1}\",\"z\":0}", NULL, &meta,
                   "{\"text\":\"t\",\"metadata\":{\"metadata\":\"{\\\"src\\\": 1}\",\"lang\":\"en\"},\"z\":0}\n",
                   "metadata that is a string is kept, under metadata, in the object that replaces it");
        /* a line filtered twice: the members added again replace the old ones
         * (their names compared decoded), a nested one of that name stays */
        meta_add_num(&meta, "lang_score", 0.5);
        rewrite_is("{\"text\":\"t\",\"metadata\": {\"l\\u0061ng\": \"xx\", \"k\": {\"lang\":1}, "
                   "\"lang_score\":0.1,\"z\":[\"lang\"]},\"tail\":2}",
                   NULL, &meta,
                   "{\"text\":\"t\",\"metadata\": {\"k\": {\"lang\":1},\"z\":[\"lang\"],\"lang\":\"en\",\"lang_score\":0.5},"
                   "\"tail\":2}\n",
                   "members set again replace the old ones, once each");
        rewrite_is("{\"text\":\"t\",\"metadata\":{\"lang\":\"xx\"}}", NULL, &meta,
                   "{\"text\":\"t\",\"metadata\":{\"lang\":\"en\",\"lang_score\":0.5}}\n",
                   "a metadata object holding only members set again");
        doc_reject_line(bare, strlen(bare), "filter", "too_short", "\"dup_of\":\"x\"", &out);
        is_str(out.data, "{\"reject\":{\"stage\":\"filter\",\"reason\":\"too_short\",\"dup_of\":\"x\"},\"text\":\"t\"}\n",
               "reject line");
        buf_clear(&out);
        doc_reject_line("{ }", 3, "filter", "no_text", NULL, &out);
        is_str(out.data, "{\"reject\":{\"stage\":\"filter\",\"reason\":\"no_text\"} }\n",
               "reject line of an empty object: no comma after the reject member");
        buf_clear(&out);
        const char *rejected = "{\"reject\":{\"stage\":\"filter\",\"reason\":\"a\"}, \"text\":\"t\",\"r\\u0065ject\":2,\"m\":{\"reject\":3}}";
        doc_reject_line(rejected, strlen(rejected), "dedup", "exact_dup", NULL, &out);
        is_str(out.data, "{\"reject\":{\"stage\":\"dedup\",\"reason\":\"exact_dup\"},\"text\":\"t\",\"m\":{\"reject\":3}}\n",
               "a rejects line rejected again: its reject members give way to the new one");
        buf_clear(&out);
        const char *broken = "{\"reject\":1,\"text\":";
        doc_reject_line(broken, strlen(broken), "filter", "bad_json", NULL, &out);
        is_str(out.data, "{\"reject\":{\"stage\":\"filter\",\"reason\":\"bad_json\"},\"reject\":1,\"text\":\n",
               "a line that is not JSON is kept as it is after the reject member");
        buf_free(&meta);
        buf_free(&out);
    }

    real_file("jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz", 697);
    real_file("jsonl/dolma/tests/data/formats/zst/CC-MAIN-20190717121559-20190717143559-00140.jsonl.zst", 697);
    real_file("jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz", 1000);
    real_file("jsonl/dclm/data/majority_data.jsonl", 499);
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
