/* charset.c - charset decision, conversion to UTF-8 (iconv) and NFC (utf8proc). */
#include "ingest/charset.h"

#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uchardet/uchardet.h>
#include <utf8proc.h>

#include "core/utf8.h"
#include "core/util.h"
#include "ingest/charset_table.h"

/* How many bytes uchardet sees; more adds cost and little certainty. */
#define DETECT_BYTES 65536
/* A declared UTF-8 is distrusted when it has at least this many bytes in no
 * valid sequence and they outnumber the valid multi-byte sequences. */
#define UTF8_DISTRUST_MIN_INVALID 8

const char *charset_source_name(charset_source s)
{
    switch (s) {
    case CHARSET_FROM_HTTP: return "http";
    case CHARSET_FROM_META: return "meta";
    case CHARSET_FROM_BOM: return "bom";
    case CHARSET_DETECTED: return "detected";
    default: return "default";
    }
}

/* Aliases whose WHATWG meaning differs from iconv's, or that iconv lacks. */
static const struct { const char *label, *iconv_name; } charset_aliases[] = {
    {"utf8", "UTF-8"},           {"utf-8", "UTF-8"},          {"unicode-1-1-utf-8", "UTF-8"},
    {"iso-8859-1", "WINDOWS-1252"}, {"iso8859-1", "WINDOWS-1252"}, {"latin1", "WINDOWS-1252"},
    {"latin-1", "WINDOWS-1252"}, {"us-ascii", "WINDOWS-1252"}, {"ascii", "WINDOWS-1252"},
    {"iso-8859-9", "WINDOWS-1254"}, {"iso-8859-11", "WINDOWS-874"}, {"tis-620", "WINDOWS-874"},
    {"gb2312", "GB18030"},       {"gbk", "GB18030"},          {"x-gbk", "GB18030"},
    {"gb_2312-80", "GB18030"},   {"euc-cn", "GB18030"},       {"cp936", "GB18030"},
    {"shift_jis", "CP932"},      {"shift-jis", "CP932"},      {"sjis", "CP932"},
    {"x-sjis", "CP932"},         {"windows-31j", "CP932"},    {"ms_kanji", "CP932"},
    {"euc-kr", "CP949"},         {"ks_c_5601-1987", "CP949"}, {"big5", "BIG5-HKSCS"},
    /* the Encoding Standard's "replacement" encoding: one U+FFFD for any input */
    {"csiso2022kr", CHARSET_REPLACEMENT}, {"hz-gb-2312", CHARSET_REPLACEMENT}, {"iso-2022-cn", CHARSET_REPLACEMENT},
    {"iso-2022-cn-ext", CHARSET_REPLACEMENT}, {"iso-2022-kr", CHARSET_REPLACEMENT},
    {"replacement", CHARSET_REPLACEMENT},
    {"x-user-defined", "X-USER-DEFINED"}, /* iconv has no such charset: x_user_defined_to_utf8 */
    /* UTF-16 (a meta tag's UTF-16 means UTF-8: charset_prescan.c) */
    {"utf-16", "UTF-16LE"},      {"utf-16le", "UTF-16LE"},    {"csunicode", "UTF-16LE"},
    {"iso-10646-ucs-2", "UTF-16LE"}, {"ucs-2", "UTF-16LE"},   {"unicode", "UTF-16LE"},
    {"unicodefeff", "UTF-16LE"}, {"utf-16be", "UTF-16BE"},    {"unicodefffe", "UTF-16BE"},
    /* The rest of the WHATWG labels (encodings.json) that glibc reads as
     * another charset (ISO-8859-1 for windows-1252, ASCII, GB2312 for GBK,
     * BIG5 for Big5-HKSCS, SJIS for windows-31j, EUC-KR for UHC, KOI8 for
     * KOI8-R) or does not know at all. */
    {"ansi_x3.4-1968", "WINDOWS-1252"}, {"cp819", "WINDOWS-1252"}, {"csisolatin1", "WINDOWS-1252"},
    {"ibm819", "WINDOWS-1252"},  {"iso-ir-100", "WINDOWS-1252"}, {"iso88591", "WINDOWS-1252"},
    {"iso_8859-1", "WINDOWS-1252"}, {"iso_8859-1:1987", "WINDOWS-1252"}, {"l1", "WINDOWS-1252"},
    {"x-cp1252", "WINDOWS-1252"},
    {"csisolatin5", "WINDOWS-1254"}, {"iso-ir-148", "WINDOWS-1254"}, {"iso8859-9", "WINDOWS-1254"},
    {"iso88599", "WINDOWS-1254"}, {"iso_8859-9", "WINDOWS-1254"}, {"iso_8859-9:1989", "WINDOWS-1254"},
    {"l5", "WINDOWS-1254"},      {"latin5", "WINDOWS-1254"},  {"x-cp1254", "WINDOWS-1254"},
    {"dos-874", "WINDOWS-874"},  {"iso8859-11", "WINDOWS-874"}, {"iso885911", "WINDOWS-874"},
    {"x-cp1250", "WINDOWS-1250"}, {"x-cp1251", "WINDOWS-1251"}, {"x-cp1253", "WINDOWS-1253"},
    {"x-cp1255", "WINDOWS-1255"}, {"x-cp1256", "WINDOWS-1256"}, {"x-cp1257", "WINDOWS-1257"},
    {"x-cp1258", "WINDOWS-1258"},
    {"csiso88596e", "ISO-8859-6"}, {"csiso88596i", "ISO-8859-6"}, {"iso-8859-6-e", "ISO-8859-6"},
    {"iso-8859-6-i", "ISO-8859-6"}, {"sun_eu_greek", "ISO-8859-7"},
    {"csiso88598e", "ISO-8859-8"}, {"iso-8859-8-e", "ISO-8859-8"}, {"visual", "ISO-8859-8"},
    {"csiso88598i", "ISO-8859-8"}, {"iso-8859-8-i", "ISO-8859-8"}, {"logical", "ISO-8859-8"},
    {"csisolatin9", "ISO-8859-15"}, {"l9", "ISO-8859-15"},
    {"koi", "KOI8-R"},           {"koi8", "KOI8-R"},          {"koi8_r", "KOI8-R"},
    {"x-mac-roman", "MACINTOSH"},
    {"chinese", "GB18030"},      {"csgb2312", "GB18030"},     {"csiso58gb231280", "GB18030"},
    {"gb_2312", "GB18030"},      {"iso-ir-58", "GB18030"},
    {"big5-hkscs", "BIG5-HKSCS"}, {"cn-big5", "BIG5-HKSCS"},  {"csbig5", "BIG5-HKSCS"},
    {"x-x-big5", "BIG5-HKSCS"},
    {"x-euc-jp", "EUC-JP"},      {"csshiftjis", "CP932"},     {"ms932", "CP932"},
    {"cseuckr", "CP949"},        {"csksc56011987", "CP949"},  {"iso-ir-149", "CP949"},
    {"korean", "CP949"},         {"ks_c_5601-1989", "CP949"}, {"ksc5601", "CP949"},
    {"ksc_5601", "CP949"},       {"windows-949", "CP949"},
};

/* Lower-cases and trims a charset label into buf; returns buf or NULL when empty/absurd. */
static const char *clean_label(const char *s, char *buf, size_t size)
{
    while (*s == ' ' || *s == '\t' || *s == '"' || *s == '\'') s++;
    size_t n = 0;
    for (; *s && n + 1 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\'' || c == ';' || c == ' ' || c == '\t') break;
        if (!(isalnum(c) || c == '-' || c == '_' || c == '.' || c == ':')) return NULL;
        buf[n++] = (char)tolower(c);
    }
    buf[n] = 0;
    return n ? buf : NULL;
}

bool charset_is_replacement(const charset_info *info)
{
    return !strcmp(info->name, CHARSET_REPLACEMENT);
}

/* ---- conversion ---- */

static _Thread_local iconv_t tl_iconv = (iconv_t)-1;
static _Thread_local char tl_iconv_name[40];

static iconv_t get_iconv(const char *name)
{
    if (tl_iconv != (iconv_t)-1 && !strcmp(tl_iconv_name, name)) {
        iconv(tl_iconv, NULL, NULL, NULL, NULL);
        return tl_iconv;
    }
    if (tl_iconv != (iconv_t)-1) iconv_close(tl_iconv);
    tl_iconv = iconv_open("UTF-8", name);
    snprintf(tl_iconv_name, sizeof tl_iconv_name, "%s", tl_iconv != (iconv_t)-1 ? name : "");
    return tl_iconv;
}

int charset_resolve_label(const char *label, char *out, size_t size)
{
    char clean[40];
    if (!label || !clean_label(label, clean, sizeof clean)) return 0;
    for (size_t i = 0; i < sizeof charset_aliases / sizeof charset_aliases[0]; i++)
        if (!strcmp(clean, charset_aliases[i].label)) {
            snprintf(out, size, "%s", charset_aliases[i].iconv_name);
            return 1;
        }
    for (size_t i = 0; clean[i]; i++) clean[i] = (char)toupper((unsigned char)clean[i]);
    if (get_iconv(clean) == (iconv_t)-1) return 0;
    snprintf(out, size, "%s", clean);
    return 1;
}

static int is_utf8_name(const char *name)
{
    return !strcmp(name, "UTF-8");
}

static int is_utf16_name(const char *name)
{
    return !strcmp(name, "UTF-16LE") || !strcmp(name, "UTF-16BE");
}

static int is_utf16_be(const char *name)
{
    return !strcmp(name, "UTF-16BE");
}

/* True when p[0..n) can be UTF-16 text of the given byte order: at least one
 * code unit in UTF16_MIN_ASCII_SHARE of the first UTF16_CHECK_BYTES is in
 * U+0000-U+00FF (its high byte zero). Markup, spaces, digits and line breaks
 * are such code units, so real UTF-16 HTML or text has plenty; ASCII or
 * UTF-8 that a header mislabels as UTF-16 has none, and decoding it as UTF-16
 * would make plausible CJK-looking garbage of it. */
static int looks_utf16(const unsigned char *p, size_t n, int big_endian)
{
    enum { UTF16_CHECK_BYTES = 4096, UTF16_MIN_ASCII_SHARE = 8 };
    if (n > UTF16_CHECK_BYTES) n = UTF16_CHECK_BYTES;
    size_t units = n / 2, zero_high = 0;
    for (size_t i = big_endian ? 0 : 1; i < units * 2; i += 2) zero_high += p[i] == 0;
    return units && zero_high * UTF16_MIN_ASCII_SHARE >= units;
}

/* True for charsets where every byte is one character (a wrong guess of one
 * of these over valid UTF-8 is the usual server misconfiguration). */
static int is_single_byte(const char *name)
{
    return !strncmp(name, "WINDOWS-", 8) || !strncmp(name, "ISO-8859", 8) || !strncmp(name, "KOI8", 4) ||
           !strncmp(name, "CP125", 5) || !strcmp(name, "MACINTOSH");
}

/* ---- UTF-8 statistics ---- */

typedef struct {
    size_t multibyte; /* valid sequences of 2-4 bytes */
    size_t invalid;   /* invalid sequences */
} utf8_census;

static utf8_census utf8_count(const char *s, size_t n)
{
    utf8_census c = {0, 0};
    const unsigned char *u = (const unsigned char *)s;
    if (utf8_valid(s, n)) { /* the usual case: every lead byte (0b11xxxxxx) starts one valid sequence */
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w;
            memcpy(&w, u + i, 8);
            c.multibyte += (size_t)__builtin_popcountll(w & (w << 1) & 0x8080808080808080ull);
        }
        for (; i < n; i++) c.multibyte += u[i] >= 0xC0;
        return c;
    }
    size_t i = 0;
    while (i < n) {
        uint64_t w;
        if (i + 8 <= n && (memcpy(&w, u + i, 8), !(w & 0x8080808080808080ull))) { /* eight ASCII bytes */
            i += 8;
            continue;
        }
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = utf8_valid_seq(u + i, n - i);
        if (len) {
            c.multibyte++;
            i += len;
        } else {
            c.invalid++;
            i++;
        }
    }
    return c;
}

/* ---- detection ---- */

static _Thread_local uchardet_t tl_detector;

/* Asks uchardet; resolves into name and returns 1, or returns 0. */
static int detect_charset(const char *p, size_t n, char *name, size_t size)
{
    if (!tl_detector) tl_detector = uchardet_new();
    uchardet_reset(tl_detector);
    uchardet_handle_data(tl_detector, p, n < DETECT_BYTES ? n : DETECT_BYTES);
    uchardet_data_end(tl_detector);
    const char *guess = uchardet_get_charset(tl_detector);
    if (!guess || !*guess || !strcmp(guess, "ASCII")) return 0;
    if (!charset_resolve_label(guess, name, size)) return 0;
    return !is_utf16_name(name) || looks_utf16((const unsigned char *)p, n, is_utf16_be(name));
}

static const char REPLACEMENT_UTF8[] = "\xEF\xBF\xBD";

size_t charset_iconv_convert(iconv_t cd, const char *p, size_t n, wbuf *out)
{
    size_t replaced = 0;
    char *in = (char *)p;
    size_t left = n;
    while (left) {
        buf_reserve(out, left * 2 + 16);
        char *dst = out->data + out->len;
        size_t room = out->cap - out->len - 1;
        size_t r = iconv(cd, &in, &left, &dst, &room);
        out->len = (size_t)(dst - out->data);
        out->data[out->len] = 0;
        if (r != (size_t)-1) break;
        if (errno == E2BIG) continue;
        /* EILSEQ or EINVAL (truncated at the end): replace one byte, go on;
         * glibc's UHC (CP949) converter may have consumed the bytes it
         * rejects up to the end, leaving none to skip */
        buf_append(out, REPLACEMENT_UTF8, 3);
        replaced++;
        if (left) {
            in++;
            left--;
        }
        iconv(cd, NULL, NULL, NULL, NULL);
    }
    /* flush a stateful encoding's shift state */
    buf_reserve(out, 16);
    char *dst = out->data + out->len;
    size_t room = out->cap - out->len - 1;
    iconv(cd, NULL, NULL, &dst, &room);
    out->len = (size_t)(dst - out->data);
    out->data[out->len] = 0;
    return replaced;
}

/* The UTF-16 code unit at p. */
static uint32_t utf16_unit(const unsigned char *p, int big_endian)
{
    return big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

/* UTF-16 (after its byte order mark) to UTF-8 as the WHATWG decoder does: a
 * surrogate pair is one code point, a lone surrogate one U+FFFD and the code
 * unit after it read again, a last odd byte (or a lead surrogate without its
 * pair at the end) one U+FFFD. iconv would make glibc skip one byte of a lone
 * surrogate, shifting every later code unit by a byte. Returns the count
 * replaced. */
static size_t utf16_to_utf8(const unsigned char *p, size_t n, int big_endian, wbuf *out)
{
    size_t replaced = 0, i = 0;
    buf_reserve(out, n / 2 * 3 + 4);
    while (i + 1 < n) {
        uint32_t u = utf16_unit(p + i, big_endian);
        i += 2;
        if (u < 0xD800 || u >= 0xE000) {
            utf8_append(out, u);
            continue;
        }
        if (u < 0xDC00 && i + 1 >= n) { /* a lead surrogate at the end, maybe with an odd byte: one error */
            i = n;
            buf_append(out, REPLACEMENT_UTF8, 3);
            replaced++;
            break;
        }
        uint32_t t = u < 0xDC00 ? utf16_unit(p + i, big_endian) : 0;
        if (t >= 0xDC00 && t < 0xE000) {
            utf8_append(out, 0x10000 + ((u - 0xD800) << 10) + (t - 0xDC00));
            i += 2;
            continue;
        }
        buf_append(out, REPLACEMENT_UTF8, 3);
        replaced++;
    }
    if (i < n) {
        buf_append(out, REPLACEMENT_UTF8, 3);
        replaced++;
    }
    return replaced;
}

/* x-user-defined to UTF-8 as the WHATWG Encoding Standard defines it:
 * bytes below 0x80 are ASCII, a byte b of 0x80-0xFF is U+F780 + (b - 0x80)
 * (private use code points, so the bytes survive, and never an error). */
static void x_user_defined_to_utf8(const unsigned char *p, size_t n, wbuf *out)
{
    enum { X_USER_DEFINED_BASE = 0xF780 };
    buf_reserve(out, n * 3);
    for (size_t i = 0; i < n; i++) utf8_append(out, p[i] < 0x80 ? p[i] : X_USER_DEFINED_BASE + (uint32_t)(p[i] - 0x80));
}

/* The output of iconv is trusted to be valid UTF-8 except that some converters
 * pass surrogates or noncharacters through; repair it in place when needed. */
static size_t repair_tail(wbuf *out, size_t from)
{
    if (utf8_valid(out->data + from, out->len - from)) return 0;
    wbuf fixed = WBUF_INIT;
    size_t r = utf8_repair(&fixed, out->data + from, out->len - from);
    out->len = from;
    buf_append(out, fixed.data, fixed.len);
    buf_free(&fixed);
    return r;
}

/* ---- NFC ---- */

/* True when code point cp is unchanged by NFC whatever surrounds it: it has no
 * canonical decomposition, is a starter and never composes with a neighbour.
 * A conservative list of big ranges; anything else goes through utf8proc. */
static int nfc_inert(uint32_t cp)
{
    return cp < 0x300 || (cp >= 0x400 && cp < 0x483) || (cp >= 0x48A && cp < 0x530) ||
           (cp >= 0x2010 && cp < 0x20D0) || (cp >= 0x20F1 && cp < 0x2126) || /* not the marks for symbols */
           (cp >= 0x3000 && cp < 0x302A) || (cp >= 0x3030 && cp < 0x3099) || /* nor the ideographic tone marks */
           (cp >= 0x30A0 && cp < 0x3100) || (cp >= 0x4E00 && cp < 0xA000) ||
           (cp >= 0xAC00 && cp < 0xD7A4) || (cp >= 0xFF00 && cp < 0xFFF0) || cp == 0xFFFD;
}

/* Appends the NFC form of s[0..n) (valid UTF-8) to out through utf8proc. */
static void append_nfc_utf8proc(wbuf *out, const char *s, size_t n)
{
    utf8proc_uint8_t *dst = NULL;
    utf8proc_ssize_t m = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)n, &dst,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (m < 0) {
        buf_append(out, s, n); /* cannot happen on valid UTF-8 */
    } else {
        buf_append(out, dst, (size_t)m);
    }
    free(dst);
}

/* Only the stretches around code points that NFC may change go through
 * utf8proc. A stretch runs from an ASCII byte to the next: an ASCII character
 * is a starter that never composes with what precedes it, so the NFC of a
 * text is the NFC of its pieces cut before ASCII characters. */
void utf8_append_nfc(wbuf *out, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t done = 0, i = 0; /* s[0..done) is in out; s[done..i) is inert */
    while (i < n) {
        if (u[i] < 0xCC) { /* every lead byte below 0xCC starts a code point below U+0300 */
            i++;
            continue;
        }
        size_t len;
        uint32_t cp = utf8_decode(u + i, n - i, &len);
        if (nfc_inert(cp)) {
            i += len;
            continue;
        }
        size_t from = i, to = i + len;
        while (from > done && u[from - 1] >= 0x80) from--;
        if (from > done) from--; /* the ASCII character before may compose with what follows it */
        while (to < n && u[to] >= 0x80) to++;
        buf_append(out, s + done, from - done);
        append_nfc_utf8proc(out, s + from, to - from);
        done = i = to;
    }
    buf_append(out, s + done, n - done);
}

/* ---- the decision ---- */

static void set_info(charset_info *info, const char *name, charset_source src)
{
    snprintf(info->name, sizeof info->name, "%s", name);
    info->source = src;
}

/* Decides the charset of p[0..n) into info (name, source); sets *valid_utf8
 * when the bytes were checked and are valid UTF-8; returns the number of BOM
 * bytes to skip. */
static void register_thread(void);

static size_t decide_charset(const char *p, size_t n, const char *declared, int html_sniff, charset_info *info,
                             int *valid_utf8_out)
{
    register_thread();
    *valid_utf8_out = 0;
    const unsigned char *u = (const unsigned char *)p;
    if (n >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
        set_info(info, "UTF-8", CHARSET_FROM_BOM);
        return 3;
    }
    if (n >= 2 && u[0] == 0xFF && u[1] == 0xFE) {
        set_info(info, "UTF-16LE", CHARSET_FROM_BOM);
        return 2;
    }
    if (n >= 2 && u[0] == 0xFE && u[1] == 0xFF) {
        set_info(info, "UTF-16BE", CHARSET_FROM_BOM);
        return 2;
    }
    utf8_census census = utf8_count(p, n);
    int valid_utf8 = census.invalid == 0;
    *valid_utf8_out = valid_utf8;
    int utf8_hopeless = census.invalid >= UTF8_DISTRUST_MIN_INVALID && census.invalid > census.multibyte;
    char name[40], meta[40];
    charset_source src = CHARSET_FROM_HTTP;
    int have = charset_resolve_label(declared, name, sizeof name);
    if (have && is_utf16_name(name) && !looks_utf16(u, n, is_utf16_be(name))) have = 0;
    if (!have && html_sniff && charset_sniff_meta(p, n, meta, sizeof meta)) {
        snprintf(name, sizeof name, "%s", meta);
        have = 1;
        src = CHARSET_FROM_META;
    }
    if (have) {
        if (is_single_byte(name) && valid_utf8 && census.multibyte) {
            set_info(info, "UTF-8", CHARSET_DETECTED);
            return 0;
        }
        if (!(is_utf8_name(name) && utf8_hopeless)) {
            set_info(info, name, src);
            return 0;
        }
    }
    if (valid_utf8) {
        set_info(info, "UTF-8", census.multibyte ? CHARSET_DETECTED : CHARSET_DEFAULT);
        return 0;
    }
    if (detect_charset(p, n, name, sizeof name)) {
        set_info(info, name, CHARSET_DETECTED);
        return 0;
    }
    set_info(info, census.invalid > census.multibyte ? "WINDOWS-1252" : "UTF-8", CHARSET_DEFAULT);
    return 0;
}

int text_to_utf8_raw(const char *p, size_t n, const char *declared, int html_sniff, wbuf *out, charset_info *info)
{
    int valid_utf8;
    size_t skip = decide_charset(p, n, declared, html_sniff, info, &valid_utf8);
    p += skip;
    n -= skip;
    info->replaced = 0;
    size_t start = out->len;
    if (is_utf8_name(info->name)) {
        if (valid_utf8) buf_append(out, p, n); /* checked already */
        else info->replaced = utf8_repair(out, p, n);
        return 0;
    }
    if (is_utf16_name(info->name)) {
        info->replaced = utf16_to_utf8((const unsigned char *)p, n, is_utf16_be(info->name), out);
        return 0;
    }
    if (charset_is_replacement(info)) { /* the standard's decoder: one U+FFFD for any non-empty input */
        if (n) {
            buf_append(out, REPLACEMENT_UTF8, 3);
            info->replaced = 1;
        }
        return 0;
    }
    if (!strcmp(info->name, "X-USER-DEFINED")) {
        x_user_defined_to_utf8((const unsigned char *)p, n, out);
        return 0;
    }
    ssize_t replaced = charset_table_convert(info->name, p, n, out);
    if (replaced >= 0) {
        info->replaced = (size_t)replaced;
        return 0;
    }
    iconv_t cd = get_iconv(info->name);
    if (cd == (iconv_t)-1) { /* resolve_charset checked it; only memory can fail here */
        set_info(info, "UTF-8", CHARSET_DEFAULT);
        info->replaced = utf8_repair(out, p, n);
        return 0;
    }
    info->replaced = charset_iconv_convert(cd, p, n, out);
    info->replaced += repair_tail(out, start);
    return 0;
}

int text_to_utf8(const char *p, size_t n, const char *declared, int html_sniff, wbuf *out, charset_info *info)
{
    wbuf raw = WBUF_INIT;
    text_to_utf8_raw(p, n, declared, html_sniff, &raw, info);
    utf8_append_nfc(out, raw.data ? raw.data : "", raw.len);
    buf_free(&raw);
    return 0;
}

/* ---- per-thread state ---- */

static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static _Thread_local int tl_registered;

/* Runs when a thread that used text_to_utf8 exits. */
static void release_thread_state(void *unused)
{
    (void)unused;
    if (tl_iconv != (iconv_t)-1) iconv_close(tl_iconv);
    tl_iconv = (iconv_t)-1;
    tl_iconv_name[0] = 0;
    if (tl_detector) uchardet_delete(tl_detector);
    tl_detector = NULL;
    charset_table_thread_free();
}

static void make_thread_key(void)
{
    pthread_key_create(&thread_key, release_thread_state);
}

static void register_thread(void)
{
    if (tl_registered) return;
    pthread_once(&thread_key_once, make_thread_key);
    pthread_setspecific(thread_key, &tl_registered);
    tl_registered = 1;
}
