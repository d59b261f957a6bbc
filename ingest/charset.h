/* charset.h - from bytes in any charset to valid NFC UTF-8.
 *
 * The charset is decided in this order: a byte-order mark (it is definitive,
 * as in the WHATWG encoding spec), the HTTP header charset, for HTML a
 * <meta charset> or http-equiv Content-Type in the first bytes, then
 * detection (uchardet), then UTF-8 when the bytes are valid UTF-8, else
 * windows-1252. A declared single-byte charset loses to UTF-8 when the bytes
 * are valid, non-ASCII UTF-8 (servers often declare latin1 by default), and a
 * declared UTF-8 loses to detection when most non-ASCII bytes are invalid. */
#ifndef WINNOW_CHARSET_H
#define WINNOW_CHARSET_H

#include <iconv.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"

/* The name of the Encoding Standard's "replacement" encoding (labels
 * iso-2022-kr, csiso2022kr, iso-2022-cn, iso-2022-cn-ext, hz-gb-2312,
 * replacement), whose decoder makes one U+FFFD of any non-empty input. */
#define CHARSET_REPLACEMENT "REPLACEMENT"

typedef enum { CHARSET_FROM_HTTP, CHARSET_FROM_META, CHARSET_DETECTED, CHARSET_DEFAULT, CHARSET_FROM_BOM } charset_source;

typedef struct {
    char name[40];          /* the charset used for conversion, e.g. "UTF-8", "GB18030" */
    charset_source source;  /* how it was found */
    size_t replaced;        /* invalid sequences replaced by U+FFFD */
} charset_info;

/* Appends p[0..n) converted by iconv descriptor cd (to UTF-8) to out, each
 * byte iconv rejects becoming U+FFFD; returns the count replaced. */
size_t charset_iconv_convert(iconv_t cd, const char *p, size_t n, wbuf *out);

/* Converts bytes in any charset to valid NFC UTF-8 appended to out. declared (may be NULL)
 * is the HTTP header charset; for HTML, html_sniff=1 also looks at <meta charset>/http-equiv.
 * Then uchardet, then UTF-8/windows-1252. Invalid sequences become U+FFFD (counted in info->replaced).
 * Returns 0. */
int text_to_utf8(const char *p, size_t n, const char *declared, int html_sniff, wbuf *out, charset_info *info);

/* Like text_to_utf8 without the NFC step (for callers that normalise later). */
int text_to_utf8_raw(const char *p, size_t n, const char *declared, int html_sniff, wbuf *out, charset_info *info);

/* True when info's charset is the "replacement" encoding: the text is at most
 * one U+FFFD, nothing of the page (ingest refuses such documents). */
bool charset_is_replacement(const charset_info *info);

/* "http","meta","bom","detected","default" */
const char *charset_source_name(charset_source s);

/* Finds the charset a <meta> tag declares in the first 8 KB of an HTML page
 * as the HTML Standard's prescan does (ingest/charset_prescan.c); copies the
 * name iconv knows it by (as charset_resolve_label) to name and returns 1,
 * or returns 0. UTF-16 there means UTF-8, x-user-defined windows-1252. */
int charset_sniff_meta(const char *p, size_t n, char *name, size_t name_size);

/* Maps a charset label (any case, WHATWG's meaning where it differs from
 * iconv's) to the name handed to iconv, into out; returns 1, or 0 when
 * neither the label table nor iconv knows it. */
int charset_resolve_label(const char *label, char *out, size_t size);

/* Replaces s[0..n) NFC-normalised into out (appended). Valid UTF-8 in, valid UTF-8 out. */
void utf8_append_nfc(wbuf *out, const char *s, size_t n);

#endif
