/* charset_prescan.c - the <meta> prescan against the HTML Standard
 * (13.2.3.2, "prescan a byte stream to determine its encoding"): html5lib-
 * tests' encoding cases (tests/data/html5lib/encoding.txt, written by
 * scripts/html5lib_encoding_cases.py), the need-pragma rule, the UTF-16 and
 * x-user-defined corrections; and UTF-16 declared by HTTP without a BOM,
 * which decodes as UTF-16 (as Python's codec) when the bytes can be UTF-16. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "ingest/charset.h"
#include "tests/tap.h"
#include "tests/unit/case_file.h"

/* The cases the file holds. */
#define HTML5LIB_ENCODING_CASES 75
/* How many failing cases a run lists. */
#define FAILURES_SHOWN 20

/* The encoding the page decodes with when only its bytes are known, as the
 * html5lib encoding tests name it: the prescan's (or the BOM's), else their
 * default, windows-1252. */
static void page_encoding(const char *s, size_t n, char *out, size_t size)
{
    wbuf text = WBUF_INIT;
    charset_info info;
    text_to_utf8_raw(s, n, NULL, 1, &text, &info);
    int declared = info.source == CHARSET_FROM_META || info.source == CHARSET_FROM_BOM;
    snprintf(out, size, "%s", declared ? info.name : "WINDOWS-1252");
    buf_free(&text);
}

/* True when iconv names a and b are one charset spelt alike but for '-' and
 * '_' (a label such as iso8859-2 reaches iconv as ISO8859-2, the standard's
 * name iso-8859-2 as ISO-8859-2). */
static int same_charset(const char *a, const char *b)
{
    for (;; a++, b++) {
        while (*a == '-' || *a == '_') a++;
        while (*b == '-' || *b == '_') b++;
        if (*a != *b) return 0;
        if (!*a) return 1;
    }
}

/* Runs every case of path, counting them in *ncases; returns the failures. */
static int run_cases(const char *path, int *ncases)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        diag("cannot open %s", path);
        return 1;
    }
    char *line = NULL;
    size_t cap = 0;
    int failed = 0, lineno = 0;
    *ncases = 0;
    while (case_file_next(f, &line, &cap, &lineno)) {
        char *label = strrchr(line, '\t');
        char want[40], got[40];
        if (!label || !charset_resolve_label(label + 1, want, sizeof want)) {
            diag("%s:%d: not input<TAB>encoding", path, lineno);
            failed++;
            continue;
        }
        *label = 0;
        ++*ncases;
        size_t n = case_unescape(line);
        page_encoding(line, n, got, sizeof got);
        if (!same_charset(got, want) && failed++ < FAILURES_SHOWN)
            diag("%s:%d: '%.80s': got %s, want %s", path, lineno, line, got, want);
    }
    free(line);
    fclose(f);
    return failed;
}

/* The prescan's answer for s, or "none". */
static const char *sniffed(const char *s)
{
    static char name[40];
    return charset_sniff_meta(s, strlen(s), name, sizeof name) ? name : "none";
}

/* The rules one at a time (read from the standard). */
static void spec_rules(void)
{
    is_str(sniffed("<meta content=\"text/html; charset=koi8-r\">"), "none",
           "content without http-equiv: no pragma, no charset");
    is_str(sniffed("<meta name=description content=\"charset=koi8-r\"><meta charset=big5>"), "BIG5-HKSCS",
           "a description that mentions charset= declares nothing; the next meta does");
    is_str(sniffed("<meta property=og:type content=\"text/html; charset=koi8-r\">"), "none",
           "nor does any other attribute's value");
    is_str(sniffed("<meta http-equiv=Content-Type content=\"text/html; charset=koi8-r\">"), "KOI8-R",
           "http-equiv=content-type (any case) with content");
    is_str(sniffed("<meta http-equiv=refresh content=\"0; charset=koi8-r\">"), "none",
           "http-equiv other than content-type: no pragma");
    is_str(sniffed("<meta charset=koi8-r charset=big5>"), "KOI8-R", "a repeated attribute: the first counts");
    is_str(sniffed("<meta http-equiv=x http-equiv=content-type content='charset=koi8-r'>"), "none",
           "... for http-equiv too");
    is_str(sniffed("<meta charset=koi8-r content='text/html; charset=big5' http-equiv=content-type>"), "KOI8-R",
           "charset before content: charset counts");
    is_str(sniffed("<meta content='text/html; charset=big5' charset=koi8-r http-equiv=content-type>"), "BIG5-HKSCS",
           "content before charset, with the pragma: content counts");
    is_str(sniffed("<div title='<meta charset=koi8-r>'><meta charset=big5>"), "BIG5-HKSCS",
           "a <meta inside another tag's attribute value is no meta");
    is_str(sniffed("<meta charset=utf-16be>"), "UTF-8", "UTF-16BE from a meta is UTF-8");
    is_str(sniffed("<meta charset=utf-16le>"), "UTF-8", "UTF-16LE from a meta is UTF-8");
    is_str(sniffed("<meta http-equiv=content-type content='text/html;charset=unicode'>"), "UTF-8",
           "unicode (a UTF-16LE label) in content is UTF-8");
    is_str(sniffed("<meta charset=x-user-defined>"), "WINDOWS-1252", "x-user-defined from a meta is windows-1252");
    is_str(sniffed("<meta charset=bogus><meta charset=koi8-r>"), "KOI8-R", "an unknown label is passed over");
    is_str(sniffed("<meta charset=\"koi8-r"), "none", "input ending in a value: nothing");
}

/* UTF-16 declared by HTTP, no BOM. */
static void http_utf16(void)
{
    wbuf out = WBUF_INIT;
    charset_info info;
    /* Python: "<p>Привет</p>".encode("utf-16-le") / "utf-16-be" */
    static const char le[] = "<\0p\0>\0\x1f\x04@\x04\x38\x04\x32\x04\x35\x04\x42\x04<\0/\0p\0>\0";
    static const char be[] = "\0<\0p\0>\x04\x1f\x04@\x04\x38\x04\x32\x04\x35\x04\x42\0<\0/\0p\0>";
    const char *want = "<p>\xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82</p>";
    text_to_utf8(le, sizeof le - 1, "utf-16le", 1, &out, &info);
    buf_putc(&out, 0);
    is_str(out.data, want, "HTTP utf-16le without a BOM decodes as UTF-16LE");
    is_str(info.name, "UTF-16LE", "... named so");
    is_str(charset_source_name(info.source), "http", "... from http");
    buf_clear(&out);
    text_to_utf8(le, sizeof le - 1, "utf-16", 1, &out, &info);
    buf_putc(&out, 0);
    is_str(out.data, want, "HTTP utf-16 is UTF-16LE");
    buf_clear(&out);
    text_to_utf8(be, sizeof be - 1, "UTF-16BE", 1, &out, &info);
    buf_putc(&out, 0);
    is_str(out.data, want, "HTTP UTF-16BE without a BOM decodes as UTF-16BE");
    buf_clear(&out);
    const char *page = "<p>plain ASCII mislabelled as UTF-16</p>";
    text_to_utf8(page, strlen(page), "utf-16", 1, &out, &info);
    buf_putc(&out, 0);
    is_str(out.data, page, "ASCII that HTTP calls UTF-16 (no code unit below U+0100) is not made CJK");
    is_str(charset_source_name(info.source), "default", "... the header is not believed");
    buf_free(&out);
}

int main(void)
{
    spec_rules();
    http_utf16();
    const char *path = "tests/data/html5lib/encoding.txt";
    require_file(path);
    int ncases = 0, failed = run_cases(path, &ncases);
    is_int(ncases, HTML5LIB_ENCODING_CASES, "html5lib-tests: every encoding case read");
    ok(!failed, "html5lib-tests: every page's encoding as the tests expect (%d failed)", failed);
    return done_testing();
}
