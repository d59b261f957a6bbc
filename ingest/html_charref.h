/* html_charref.h - HTML character references (&amp; &#233; &#x4E2D;) to UTF-8. */
#ifndef WINNOW_HTML_CHARREF_H
#define WINNOW_HTML_CHARREF_H

#include <stddef.h>

/* Longest UTF-8 a reference decodes to. */
#define CHARREF_MAX_UTF8 4

/* Decodes the reference starting at s[0] == '&' in s[0..n). Returns the bytes
 * it spans and writes its UTF-8 to out (*out_len bytes), or returns 0 when
 * s does not start a reference (the '&' is then plain text).
 * Named references are HTML 4's 253 (libxml2's table) and need their ';';
 * numeric ones follow HTML5: ';' optional, 0x80-0x9F read as windows-1252,
 * 0, surrogates and values past U+10FFFF become U+FFFD. */
size_t charref_decode(const char *s, size_t n, char out[CHARREF_MAX_UTF8], size_t *out_len);

#endif
