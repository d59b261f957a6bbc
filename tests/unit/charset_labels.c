/* charset_labels.c - every label of the WHATWG Encoding Standard
 * (encodings.json of whatwg/encoding) reaches its encoding's decoder: a sample
 * in that encoding, declared by HTTP and by <meta charset>, decodes as Python's
 * codec for the encoding does (the expected text was made with Python 3.11's
 * codecs and unicodedata.normalize("NFC")); and NFC by stretches equals
 * utf8proc's NFC of the whole text on every pair of adjacent BMP code points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "core/buf.h"
#include "ingest/charset.h"
#include "tests/tap.h"

/* Deliberately not here (docs/extract.md says why): utf-16/utf-16le/utf-16be
 * (a readable page that claims them is UTF-8; HTTP UTF-16: tests/unit/charset_prescan.c), x-user-defined (HTTP and meta
 * differ: tests/unit/html_charset.c), the
 * "replacement" labels, koi8-ru and x-mac-cyrillic. The samples are not valid
 * UTF-8 (valid UTF-8 would win over a declared single-byte charset), and those
 * of single-byte charsets hold a byte of 0x80-0x9F where ISO-8859-x and the
 * windows-125x charsets the standard means differ. */
static const struct {
    const char *labels, *bytes, *utf8;
} encodings[] = {
    /* ibm866, Python cp866: Привет */
    {"866 cp866 csibm866 ibm866",
     "\x8f\xe0\xa8\xa2\xa5\xe2", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"},
    /* iso-8859-2, Python iso8859_2: Łódź ą */
    {"csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2",
     "\xa3\xf3" "d\xbc \xb1", "\xc5\x81\xc3\xb3" "d\xc5\xba \xc4\x85"},
    /* iso-8859-3, Python iso8859_3: Ħħ ŝ */
    {"csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3",
     "\xa1\xb1 \xfe", "\xc4\xa6\xc4\xa7 \xc5\x9d"},
    /* iso-8859-4, Python iso8859_4: Ąą ā */
    {"csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4",
     "\xa1\xb1 \xe0", "\xc4\x84\xc4\x85 \xc4\x81"},
    /* iso-8859-5, Python iso8859_5: Привет */
    {"csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988",
     "\xbf\xe0\xd8\xd2\xd5\xe2", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"},
    /* iso-8859-6, Python iso8859_6: العربية */
    {"arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987",
     "\xc7\xe4\xd9\xd1\xc8\xea\xc9", "\xd8\xa7\xd9\x84\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\xa9"},
    /* iso-8859-7, Python iso8859_7: γεια σου */
    {"csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597 iso_8859-7 iso_8859-7:1987 sun_eu_greek",
     "\xe3\xe5\xe9\xe1 \xf3\xef\xf5", "\xce\xb3\xce\xb5\xce\xb9\xce\xb1 \xcf\x83\xce\xbf\xcf\x85"},
    /* iso-8859-8, Python iso8859_8: שלום */
    {"csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598 iso_8859-8 iso_8859-8:1988 visual",
     "\xf9\xec\xe5\xed", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"},
    /* iso-8859-8-i, Python iso8859_8: שלום */
    {"csiso88598i iso-8859-8-i logical",
     "\xf9\xec\xe5\xed", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"},
    /* iso-8859-10, Python iso8859_10: Ąŋ ð */
    {"csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6",
     "\xa1\xbf \xf0", "\xc4\x84\xc5\x8b \xc3\xb0"},
    /* iso-8859-13, Python iso8859_13: ”Š ž */
    {"iso-8859-13 iso8859-13 iso885913",
     "\xa1\xd0 \xfe", "\xe2\x80\x9d\xc5\xa0 \xc5\xbe"},
    /* iso-8859-14, Python iso8859_14: ḂŴ ŷ */
    {"iso-8859-14 iso8859-14 iso885914",
     "\xa1\xd0 \xfe", "\xe1\xb8\x82\xc5\xb4 \xc5\xb7"},
    /* iso-8859-15, Python iso8859_15: € œ é */
    {"csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9",
     "\xa4 \xbd \xe9", "\xe2\x82\xac \xc5\x93 \xc3\xa9"},
    /* iso-8859-16, Python iso8859_16: ĄȘ Ț */
    {"iso-8859-16",
     "\xa1\xaa \xde", "\xc4\x84\xc8\x98 \xc8\x9a"},
    /* koi8-r, Python koi8_r: Привет */
    {"cskoi8r koi koi8 koi8-r koi8_r",
     "\xf0\xd2\xc9\xd7\xc5\xd4", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"},
    /* macintosh, Python mac_roman: café “” */
    {"csmacintosh mac macintosh x-mac-roman",
     "caf\x8e \xd2\xd3", "caf\xc3\xa9 \xe2\x80\x9c\xe2\x80\x9d"},
    /* windows-874, Python cp874: การ € … */
    {"dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874",
     "\xa1\xd2\xc3 \x80 \x85", "\xe0\xb8\x81\xe0\xb8\xb2\xe0\xb8\xa3 \xe2\x82\xac \xe2\x80\xa6"},
    /* windows-1250, Python cp1250: Šš č € */
    {"cp1250 windows-1250 x-cp1250",
     "\x8a\x9a \xe8 \x80", "\xc5\xa0\xc5\xa1 \xc4\x8d \xe2\x82\xac"},
    /* windows-1251, Python cp1251: Привет Ђ */
    {"cp1251 windows-1251 x-cp1251",
     "\xcf\xf0\xe8\xe2\xe5\xf2 \x80", "\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82 \xd0\x82"},
    /* windows-1252, Python cp1252: “café” € … */
    {"ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252",
     "\x93" "caf\xe9\x94 \x80 \x85", "\xe2\x80\x9c" "caf\xc3\xa9\xe2\x80\x9d \xe2\x82\xac \xe2\x80\xa6"},
    /* windows-1253, Python cp1253: γεια € */
    {"cp1253 windows-1253 x-cp1253",
     "\xe3\xe5\xe9\xe1 \x80", "\xce\xb3\xce\xb5\xce\xb9\xce\xb1 \xe2\x82\xac"},
    /* windows-1254, Python cp1254: Ğşİ € */
    {"cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 latin5 windows-1254 x-cp1254",
     "\xd0\xfe\xdd \x80", "\xc4\x9e\xc5\x9f\xc4\xb0 \xe2\x82\xac"},
    /* windows-1255, Python cp1255: שלום € */
    {"cp1255 windows-1255 x-cp1255",
     "\xf9\xec\xe5\xed \x80", "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d \xe2\x82\xac"},
    /* windows-1256, Python cp1256: العربية € */
    {"cp1256 windows-1256 x-cp1256",
     "\xc7\xe1\xda\xd1\xc8\xed\xc9 \x80", "\xd8\xa7\xd9\x84\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\xa9 \xe2\x82\xac"},
    /* windows-1257, Python cp1257: ąė € */
    {"cp1257 windows-1257 x-cp1257",
     "\xe0\xeb \x80", "\xc4\x85\xc4\x97 \xe2\x82\xac"},
    /* windows-1258, Python cp1258: Việt € */
    {"cp1258 windows-1258 x-cp1258",
     "Vi\xea\xf2t \x80", "Vi\xe1\xbb\x87t \xe2\x82\xac"},
    /* gbk, Python gb18030: 你好 丂 */
    {"chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk",
     "\xc4\xe3\xba\xc3 \x81@", "\xe4\xbd\xa0\xe5\xa5\xbd \xe4\xb8\x82"},
    /* gb18030, Python gb18030: 你好 丂 😀 */
    {"gb18030",
     "\xc4\xe3\xba\xc3 \x81@ \x94" "9\xfc" "6", "\xe4\xbd\xa0\xe5\xa5\xbd \xe4\xb8\x82 \xf0\x9f\x98\x80"},
    /* big5, Python big5hkscs: 中文 䏰 */
    {"big5 big5-hkscs cn-big5 csbig5 x-x-big5",
     "\xa4\xa4\xa4\xe5 \x87@", "\xe4\xb8\xad\xe6\x96\x87 \xe4\x8f\xb0"},
    /* euc-jp, Python euc_jp: 日本語 */
    {"cseucpkdfmtjapanese euc-jp x-euc-jp",
     "\xc6\xfc\xcb\xdc\xb8\xec", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"},
    /* iso-2022-jp, Python iso2022_jp: 日本語 */
    {"csiso2022jp iso-2022-jp",
     "\x1b$BF|K\x5c" "8l\x1b(B", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"},
    /* shift_jis, Python cp932: 日本 ① */
    {"csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis",
     "\x93\xfa\x96{ \x87@", "\xe6\x97\xa5\xe6\x9c\xac \xe2\x91\xa0"},
    /* euc-kr, Python cp949: 한국 갂 */
    {"cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 windows-949",
     "\xc7\xd1\xb1\xb9 \x81" "A", "\xed\x95\x9c\xea\xb5\xad \xea\xb0\x82"},
};

/* Checks one label, declared by HTTP and by a meta tag; returns 1 when both match. */
static int label_decodes(const char *label, const char *bytes, const char *want)
{
    wbuf out = WBUF_INIT, page = WBUF_INIT;
    charset_info info;
    text_to_utf8(bytes, strlen(bytes), label, 0, &out, &info);
    int http_ok = out.len == strlen(want) && !memcmp(out.data, want, out.len) && info.source == CHARSET_FROM_HTTP;
    if (!http_ok) diag("declared '%s': got '%s' as %s (%s)", label, out.data ? out.data : "", info.name,
                       charset_source_name(info.source));
    buf_printf(&page, "<meta charset=\"%s\">%s", label, bytes);
    buf_clear(&out);
    text_to_utf8(page.data, page.len, NULL, 1, &out, &info);
    size_t n = strlen(want);
    int meta_ok = out.len >= n && !memcmp(out.data + out.len - n, want, n) && info.source == CHARSET_FROM_META;
    if (!meta_ok) diag("<meta charset=\"%s\">: got '%s' as %s (%s)", label, out.data ? out.data : "", info.name,
                       charset_source_name(info.source));
    buf_free(&out);
    buf_free(&page);
    return http_ok && meta_ok;
}

static void every_label(void)
{
    for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
        char labels[512], *save = NULL;
        snprintf(labels, sizeof labels, "%s", encodings[e].labels);
        int n = 0, good = 0;
        for (char *l = strtok_r(labels, " ", &save); l; l = strtok_r(NULL, " ", &save), n++)
            good += label_decodes(l, encodings[e].bytes, encodings[e].utf8);
        ok(good == n, "%d of %d labels decode as %s", good, n, strtok_r(labels, " ", &save));
    }
}

/* utf8_append_nfc of s equals utf8proc's NFC of all of s. */
static int nfc_same(const char *s, size_t n)
{
    wbuf got = WBUF_INIT;
    utf8_append_nfc(&got, s, n);
    utf8proc_uint8_t *want = NULL;
    utf8proc_ssize_t m = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &want,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    int same = m >= 0 && (size_t)m == got.len && !memcmp(want, got.data, got.len);
    free(want);
    buf_free(&got);
    return same;
}

/* Every pair of adjacent BMP code points, in both orders, after an "a": a code
 * point the quick scan wrongly takes as unchanged by NFC shows as a pair left
 * unordered or uncomposed. */
static void nfc_adjacent_pairs(void)
{
    size_t bad = 0;
    for (utf8proc_int32_t cp = 0x80; cp < 0xFFFF; cp++) {
        if (!utf8proc_codepoint_valid(cp) || !utf8proc_codepoint_valid(cp + 1)) continue;
        utf8proc_int32_t pairs[2][2] = {{cp, cp + 1}, {cp + 1, cp}};
        for (int k = 0; k < 2; k++) {
            utf8proc_uint8_t s[16] = "a";
            utf8proc_ssize_t n = 1;
            n += utf8proc_encode_char(pairs[k][0], s + n);
            n += utf8proc_encode_char(pairs[k][1], s + n);
            if (!nfc_same((const char *)s, (size_t)n) && bad++ < 5) diag("differs on U+%04X U+%04X", pairs[k][0], pairs[k][1]);
        }
    }
    ok(bad == 0, "NFC by stretches equals whole-text NFC on every adjacent BMP pair (%zu differ)", bad);
    /* Python: unicodedata.normalize("NFC", "a\u302b\u302a") == "a\u302a\u302b" (ccc 228 after 218) */
    wbuf out = WBUF_INIT;
    utf8_append_nfc(&out, "a\xe3\x80\xab\xe3\x80\xaa", 7);
    is_str(out.data, "a\xe3\x80\xaa\xe3\x80\xab", "ideographic tone marks reordered by canonical class");
    buf_clear(&out);
    utf8_append_nfc(&out, "x\xe2\x83\x91\xe2\x83\x92", 7);
    is_str(out.data, "x\xe2\x83\x92\xe2\x83\x91", "marks for symbols reordered (U+20D2 ccc 1 before U+20D1 ccc 230)");
    buf_free(&out);
}

int main(void)
{
    every_label();
    nfc_adjacent_pairs();
    return done_testing();
}
