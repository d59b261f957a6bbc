/* pii.h - replaces e-mail addresses and public IP addresses, like
 * datatrove's PIIFormatter (same e-mail and IPv4 patterns; IPv6 added). */
#ifndef WINNOW_FILTER_PII_H
#define WINNOW_FILTER_PII_H

#include <stddef.h>

#include "core/buf.h"

typedef struct pii_matcher pii_matcher;
typedef struct pii_scratch pii_scratch;

/* Compiles the patterns; the replacements are copied. Exits on failure. */
pii_matcher *pii_create(const char *email_repl, const char *ipv4_repl, const char *ipv6_repl);
void pii_free(pii_matcher *m);

/* Per-thread match state. */
pii_scratch *pii_scratch_create(const pii_matcher *m);
void pii_scratch_free(pii_scratch *s);

/* Writes text with every e-mail address and public IPv4/IPv6 address
 * replaced to out; returns the number of replacements (0: out is unused). */
size_t pii_replace(const pii_matcher *m, pii_scratch *s, const char *text, size_t n, wbuf *out);

#endif
