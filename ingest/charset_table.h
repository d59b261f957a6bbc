/* charset_table.h - legacy charsets to UTF-8 through tables that iconv itself
 * fills: for charsets whose glibc converter keeps no state, what iconv makes
 * of each byte sequence does not depend on what surrounds it, so a table of
 * its answers (filled as sequences are first met) converts exactly as iconv
 * does, at a fraction of the cost of a gconv call chain per page. */
#ifndef WINNOW_CHARSET_TABLE_H
#define WINNOW_CHARSET_TABLE_H

#include <stddef.h>
#include <sys/types.h>

#include "core/buf.h"

/* Converts p[0..n) from charset name (an iconv name) to UTF-8 appended to
 * out, byte for byte what iconv gives, with each byte at which iconv stops
 * (an invalid or truncated sequence) replaced by U+FFFD and skipped. Returns
 * the count replaced, or -1 with out unchanged when name is not a charset
 * handled here (the caller then uses iconv). */
ssize_t charset_table_convert(const char *name, const char *p, size_t n, wbuf *out);

/* The i-th charset handled here (an iconv name), NULL past the last. */
const char *charset_table_name(size_t i);

/* Frees the calling thread's tables. */
void charset_table_thread_free(void);

#endif
