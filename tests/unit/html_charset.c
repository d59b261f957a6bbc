/* html_charset.c - charset decision and conversion on handmade bytes and on
 * real Common Crawl pages re-encoded to gb18030/gb2312 and windows-1251. */
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/utf8.h"
#include "ingest/charset.h"
#include "ingest/html.h"
#include "core/util.h"
#include "tests/tap.h"

#include <utf8proc.h>

/* NFC by stretches (utf8_append_nfc) equals utf8proc's NFC of the whole text,
 * on random mixes of ASCII, combining marks, Hangul jamo and syllables,
 * precomposed letters, CJK and other scripts. */
static void nfc_by_stretches(void)
{
    static const char *const pieces[] = {
        "a", "e", "o", " ", ".", "\n", "\xcc\x81", "\xcc\x88", "\xcc\xa3", "\xcd\x85", "\xc3\xa9", "\xc3\xb6",
        "\xe1\x84\x80", "\xe1\x85\xa1", "\xe1\x86\xa8", "\xea\xb0\x80", "\xe4\xb8\xad", "\xe3\x81\x8b", "\xe3\x82\x99",
        "\xd0\x98", "\xcc\x86", "\xe2\x84\xa6", "\xef\xac\x80", "\xe0\xa4\x95", "\xe0\xa4\xbc", "\xd7\x90", "\xd6\xb8",
        "\xf0\x9d\x85\x97", "\xf0\x9d\x85\xa5", "\xc5\xbf", "\xe1\xba\x9b", "\xe0\xbd\xb1", "\xe0\xbd\xb2",
    };
    wbuf text = WBUF_INIT, got = WBUF_INIT;
    int good = 1;
    srand(3);
    for (int round = 0; round < 2000 && good; round++) {
        buf_clear(&text);
        int len = rand() % 40;
        for (int k = 0; k < len; k++) buf_puts(&text, pieces[rand() % (sizeof pieces / sizeof pieces[0])]);
        buf_clear(&got);
        utf8_append_nfc(&got, text.data ? text.data : "", text.len);
        utf8proc_uint8_t *want = NULL;
        utf8proc_ssize_t m = utf8proc_map((const utf8proc_uint8_t *)(text.data ? text.data : ""),
                                          (utf8proc_ssize_t)text.len, &want, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
        good = m >= 0 && (size_t)m == got.len && !memcmp(want, got.data, got.len);
        if (!good) diag("differs on '%s'", text.data);
        free(want);
    }
    ok(good, "NFC by stretches equals NFC of the whole text (2000 random mixes)");
    buf_free(&text);
    buf_free(&got);
}

/* Re-encodes UTF-8 to charset (characters it lacks are dropped). */
static char *encode(const char *utf8, size_t n, const char *charset, size_t *out_n)
{
    char to[64];
    snprintf(to, sizeof to, "%s//IGNORE", charset);
    iconv_t cd = iconv_open(to, "UTF-8");
    if (cd == (iconv_t)-1) return NULL;
    size_t cap = n * 4 + 16, left = cap;
    char *out = malloc(cap), *dst = out, *in = (char *)utf8;
    size_t inleft = n;
    iconv(cd, &in, &inleft, &dst, &left);
    iconv_close(cd);
    *out_n = (size_t)(dst - out);
    return out;
}

static void convert(const char *s, size_t n, const char *declared, wbuf *out, charset_info *info)
{
    buf_clear(out);
    text_to_utf8(s, n, declared, 1, out, info);
}

int main(void)
{
    wbuf out = WBUF_INIT;
    charset_info info;

    convert("plain ascii", 11, NULL, &out, &info);
    is_str(out.data, "plain ascii", "ascii passes through");

    convert("caf\xc3\xa9", 5, "iso-8859-1", &out, &info);
    is_str(out.data, "caf\xc3\xa9", "valid UTF-8 beats a declared latin1");
    is_str(charset_source_name(info.source), "detected", "... and says it was detected");

    convert("caf\xe9 cr\xe8me", 10, NULL, &out, &info);
    is_str(out.data, "caf\xc3\xa9 cr\xc3\xa8me", "undeclared latin1 is converted");

    convert("caf\xe9", 4, "windows-1252", &out, &info);
    is_str(out.data, "caf\xc3\xa9", "declared windows-1252");
    is_str(charset_source_name(info.source), "http", "source http");

    convert("abc\xff\xfe" "def", 8, "utf-8", &out, &info);
    is_str(out.data, "abc\xef\xbf\xbd\xef\xbf\xbd" "def", "invalid bytes become U+FFFD");
    is_int(info.replaced, 2, "two replacements counted");
    /* one U+FFFD per maximal subpart, as the WHATWG UTF-8 decoder; Python:
     * b"caf\xc3 \xe2\x82 \xf0\x9f\x98x".decode("utf-8", "replace")
     * == "caf\ufffd \ufffd \ufffdx" */
    convert("caf\xc3 \xe2\x82 \xf0\x9f\x98x", 12, "utf-8", &out, &info);
    is_str(out.data, "caf\xef\xbf\xbd \xef\xbf\xbd \xef\xbf\xbdx", "cut-off sequences: one U+FFFD each");
    is_int(info.replaced, 3, "... three replacements counted");

    convert("e\xcc\x81t\xc3\xa9", 6, "utf-8", &out, &info);
    is_str(out.data, "\xc3\xa9t\xc3\xa9", "output is NFC");

    convert("\xef\xbb\xbfhi", 5, "windows-1251", &out, &info);
    is_str(out.data, "hi", "a UTF-8 BOM wins over the header and is removed");
    is_str(charset_source_name(info.source), "bom", "source bom");

    convert("\xff\xfeh\0i\0", 6, NULL, &out, &info);
    is_str(out.data, "hi", "UTF-16LE with BOM");
    convert("\xfe\xff\0h\0i\x04\x1f", 8, NULL, &out, &info);
    is_str(out.data, "hi\xd0\x9f", "UTF-16BE with BOM (hi\u041f)");
    is_str(charset_source_name(info.source), "bom", "... source bom");
    /* lone surrogates: one U+FFFD each and the next code unit read in step, as
     * the WHATWG UTF-16 decoder and Python's decode("utf-16-le", "replace") */
    convert("\xff\xfe\x00\xd8h\x00i\x00\x3d\xd8\x00\xde", 12, NULL, &out, &info);
    is_str(out.data, "\xef\xbf\xbdhi\xf0\x9f\x98\x80", "UTF-16LE: a lone lead surrogate, then hi and a pair (U+1F600)");
    is_int(info.replaced, 1, "... one replacement");
    convert("\xfe\xff\xdc\x00\x00h\x00i\xd8\x3d\xde\x00\x00z", 14, NULL, &out, &info);
    is_str(out.data, "\xef\xbf\xbdhi\xf0\x9f\x98\x80z", "UTF-16BE: a lone trail surrogate, then hi, a pair and z");
    convert("\xff\xfeh\x00\x00\xd8", 6, NULL, &out, &info);
    is_str(out.data, "h\xef\xbf\xbd", "UTF-16LE: a lead surrogate at the end is one U+FFFD");

    /* through iconv (no table): a rejected byte is one U+FFFD and the next
     * byte is read again, as Python's bytes.decode(codec, "replace") does */
    convert("\xa4\xa4\xff\xa4\xe5 ok", 8, "big5", &out, &info);
    is_str(out.data, "\xe4\xb8\xad\xef\xbf\xbd\xe6\x96\x87 ok", "big5-hkscs: one bad byte, one U+FFFD (Python: '\u4e2d\ufffd\u6587 ok')");
    is_int(info.replaced, 1, "... counted once");
    convert("\xc7\xd1\xff\xb1\xb9 ok", 8, "euc-kr", &out, &info);
    is_str(out.data, "\xed\x95\x9c\xef\xbf\xbd\xea\xb5\xad ok", "cp949: one bad byte, one U+FFFD (Python: '\ud55c\ufffd\uad6d ok')");
    is_int(info.replaced, 1, "... counted once");

    /* x-user-defined, by the Encoding Standard: 0x80-0xFF are U+F780-U+F7FF;
     * from a <meta> the HTML prescan reads it as windows-1252 */
    convert("a\x80\xff\x93", 4, "x-user-defined", &out, &info);
    is_str(out.data, "a\xef\x9e\x80\xef\x9f\xbf\xef\x9e\x93", "x-user-defined by HTTP: U+F780 + (byte - 0x80)");
    is_int(info.replaced, 0, "... never an error");
    convert("<meta charset=x-user-defined>\x93x\x94", 32, NULL, &out, &info);
    is_str(out.data, "<meta charset=x-user-defined>\xe2\x80\x9cx\xe2\x80\x9d",
           "x-user-defined by <meta>: windows-1252, as the prescan says");
    is_str(info.name, "WINDOWS-1252", "... named so");

    /* the "replacement" encoding's decoder: one U+FFFD for any non-empty input */
    static const char *const replacement_labels[] = {"iso-2022-kr", "csiso2022kr", "iso-2022-cn", "iso-2022-cn-ext",
                                                     "hz-gb-2312", "replacement"};
    int replaced_alike = 0;
    for (size_t i = 0; i < sizeof replacement_labels / sizeof replacement_labels[0]; i++) {
        convert("\x1b$)C\x0eGQ\x0f abc", 11, replacement_labels[i], &out, &info);
        replaced_alike += !strcmp(out.data, "\xef\xbf\xbd") && info.replaced == 1 && charset_is_replacement(&info);
    }
    is_int(replaced_alike, 6, "every replacement label: the whole input is one U+FFFD");
    convert("", 0, "iso-2022-kr", &out, &info);
    ok(out.len == 0 && charset_is_replacement(&info), "... and empty input nothing");

    const char *page = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">"
                       "</head><body>\xcf\xf0\xe8\xe2\xe5\xf2</body></html>";
    convert(page, strlen(page), NULL, &out, &info);
    ok(strstr(out.data, "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82") != NULL, "http-equiv windows-1251 (Привет)");
    is_str(charset_source_name(info.source), "meta", "source meta");

    char name[40];
    ok(charset_sniff_meta("<meta charset='GB2312'>", 23, name, sizeof name) && !strcmp(name, "GB18030"),
       "meta charset sniffed (gb2312 is GB18030)");
    /* the WHATWG prescan skips comments ("<!-->" is a whole one) and tags
     * that only start with "meta" */
    static const char *const prescan[][2] = {
        {"<!-- <meta charset=\"windows-1251\"> --><meta charset=\"koi8-r\">", "KOI8-R"},
        {"<!--><meta charset=koi8-r><!-- <meta charset=utf-8> -->", "KOI8-R"},
        {"<!---><meta charset=koi8-r> -->", "KOI8-R"},
        {"<META\ncharset=koi8-r>", "KOI8-R"},
        {"<metadata charset=windows-1251><meta/charset=koi8-r>", "KOI8-R"},
    };
    for (size_t i = 0; i < sizeof prescan / sizeof prescan[0]; i++) {
        name[0] = 0;
        int found = charset_sniff_meta(prescan[i][0], strlen(prescan[i][0]), name, sizeof name);
        ok(found && !strcmp(name, prescan[i][1]), "prescan of '%s' finds %s (got %s)", prescan[i][0], prescan[i][1],
           found ? name : "none");
    }
    ok(!charset_sniff_meta("<!-- <meta charset=koi8-r>", 26, name, sizeof name), "an unclosed comment hides what follows");

    /* real pages, re-encoded */
    char path[512];
    const char *dir = "extraction/dclm-pages/tests/baselines/mappers/enrichers/enricher_test_files";
    struct { const char *file, *charset, *declared, *title_part, *text_part; } cases[] = {
        {"common_crawl_paragraph3.html", "WINDOWS-1251", "windows-1251", "Белорусский портал в Казахстане", "Регистрация"},
        {"common_crawl_paragraph3.html", "WINDOWS-1251", NULL, "Белорусский портал в Казахстане", "Регистрация"},
        {"common_crawl_paragraph2.html", "GB18030", "gb2312", "福建", "福建"},
        {"common_crawl_paragraph2.html", "GB2312", NULL, "福建", "福建"},
    };
    html_result ref = {0}, got = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(path, sizeof path, "%s/%s/%s", shared_dir(), dir, cases[i].file);
        require_file(path);
        size_t n, en = 0;
        char *utf8 = read_file(path, &n);
        if (!utf8) {
            ok(0, "read %s", path);
            continue;
        }
        char *enc = encode(utf8, n, cases[i].charset, &en);
        html_extract(utf8, n, NULL, EXTRACT_FULL, &ref);
        html_extract(enc, en, cases[i].declared, EXTRACT_FULL, &got);
        ok(strstr(got.title.data, cases[i].title_part) != NULL, "%s as %s (declared %s): title '%s'", cases[i].file,
           cases[i].charset, cases[i].declared ? cases[i].declared : "no", got.title.data);
        ok(strstr(got.text.data, cases[i].text_part) != NULL, "... text has '%s'", cases[i].text_part);
        ok(utf8_valid(got.text.data, got.text.len), "... text is valid UTF-8");
        if (!strcmp(cases[i].charset, "GB18030"))
            is_str(got.text.data, ref.text.data, "... text equals the UTF-8 original's");
        free(utf8);
        free(enc);
    }
    html_result_free(&ref);
    html_result_free(&got);
    buf_free(&out);
    nfc_by_stretches();
    return done_testing();
}
