/* pii.c - e-mail and IP address replacement with PCRE2 (JIT). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "filter/pii.h"

#include <arpa/inet.h>
#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The widely used RFC 5322 address pattern (datatrove uses the same). */
static const char EMAIL_PATTERN[] =
    "\\b[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@"
    "(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    "|\\[(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?"
    "|[A-Za-z0-9-]*[A-Za-z0-9]:(?:[\\x01-\\x08\\x0b\\x0c\\x0e-\\x1f\\x21-\\x5a\\x53-\\x7f]"
    "|\\\\[\\x01-\\x09\\x0b\\x0c\\x0e-\\x7f])+)\\])";

/* Dotted quads; unlike datatrove's pattern, not inside a longer run of
 * digits and dots (so "1.2.3.4.5" and version strings stay). */
static const char IPV4_PATTERN[] =
    "(?<![0-9.])(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}"
    "(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)(?![0-9]|\\.[0-9])";

/* IPv6 candidates; inet_pton decides. */
static const char IPV6_PATTERN[] =
    "(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|:)?(?![0-9A-Fa-f:])";

enum { PII_EMAIL, PII_IPV4, PII_IPV6, PII_KINDS };

struct pii_matcher {
    pcre2_code *code[PII_KINDS];
    char *repl[PII_KINDS];
};

struct pii_scratch {
    pcre2_match_data *md;
    wbuf tmp;
};

static pcre2_code *compile(const char *pattern)
{
    int err;
    PCRE2_SIZE off;
    /* UCP: \b as Python's str patterns have it (Unicode letters and digits
     * are word characters), so "caf\u00e9john@x.org" holds no address;
     * MATCH_INVALID_UTF: a library caller's text may hold bytes that are not
     * UTF-8 (the stream's never do), which then match nothing instead of
     * sending the matcher out of bounds */
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                  PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_NO_UTF_CHECK, &err, &off,
                                  NULL);
    if (!c) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        dief(EXIT_FATAL, "PII pattern at %zu: %s", (size_t)off, (char *)msg);
    }
    pcre2_jit_compile(c, PCRE2_JIT_COMPLETE); /* falls back to the interpreter when JIT is unavailable */
    return c;
}

pii_matcher *pii_create(const char *email_repl, const char *ipv4_repl, const char *ipv6_repl)
{
    pii_matcher *m = xcalloc(1, sizeof *m);
    m->code[PII_EMAIL] = compile(EMAIL_PATTERN);
    m->code[PII_IPV4] = compile(IPV4_PATTERN);
    m->code[PII_IPV6] = compile(IPV6_PATTERN);
    m->repl[PII_EMAIL] = xstrdup(email_repl);
    m->repl[PII_IPV4] = xstrdup(ipv4_repl);
    m->repl[PII_IPV6] = xstrdup(ipv6_repl);
    return m;
}

void pii_free(pii_matcher *m)
{
    if (!m) return;
    for (int k = 0; k < PII_KINDS; k++) {
        pcre2_code_free(m->code[k]);
        free(m->repl[k]);
    }
    free(m);
}

pii_scratch *pii_scratch_create(const pii_matcher *m)
{
    pii_scratch *s = xcalloc(1, sizeof *s);
    s->md = pcre2_match_data_create_from_pattern(m->code[PII_EMAIL], NULL);
    if (!s->md) dief(EXIT_FATAL, "out of memory");
    return s;
}

void pii_scratch_free(pii_scratch *s)
{
    if (!s) return;
    pcre2_match_data_free(s->md);
    buf_free(&s->tmp);
    free(s);
}

/* Python ipaddress (3.12.4 on): is_global for IPv4 (not private, not shared
 * 100.64/10; 192.0.0.9 and 192.0.0.10 are the private list's exceptions). */
static bool ipv4_is_global(const unsigned char a[4])
{
    uint32_t x = get_be32(a);
    static const uint32_t global_exceptions[] = {0xC0000009, 0xC000000A};
    for (size_t i = 0; i < sizeof global_exceptions / sizeof global_exceptions[0]; i++)
        if (x == global_exceptions[i]) return true;
    static const struct { uint32_t net; int bits; } private_nets[] = {
        {0x00000000, 8}, {0x0A000000, 8}, {0x64400000, 10}, {0x7F000000, 8}, {0xA9FE0000, 16},
        {0xAC100000, 12}, {0xC0000000, 24}, {0xC0000200, 24}, {0xC0A80000, 16}, {0xC6120000, 15},
        {0xC6336400, 24}, {0xCB007100, 24}, {0xF0000000, 4}, {0xFFFFFFFF, 32},
    };
    for (size_t i = 0; i < sizeof private_nets / sizeof private_nets[0]; i++) {
        uint32_t mask = private_nets[i].bits == 32 ? 0xFFFFFFFFu : ~(0xFFFFFFFFu >> private_nets[i].bits);
        if ((x & mask) == private_nets[i].net) return false;
    }
    return true;
}

static bool prefix_is(const unsigned char a[16], const unsigned char *net, int bits)
{
    int bytes = bits / 8, rest = bits % 8;
    if (memcmp(a, net, (size_t)bytes)) return false;
    if (!rest) return true;
    unsigned char mask = (unsigned char)(0xFF << (8 - rest));
    return (a[bytes] & mask) == (net[bytes] & mask);
}

/* Python ipaddress: is_global for IPv6 (not in the private/special blocks). */
static bool ipv6_is_global(const unsigned char a[16])
{
    static const struct { unsigned char net[16]; int bits; } special[] = {
        {{0}, 128},                                         /* :: */
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128}, /* ::1 */
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96},  /* IPv4-mapped */
        {{0x01, 0x00}, 64},                                 /* discard */
        {{0x20, 0x01, 0x00, 0x00}, 23},                     /* IETF protocol assignments */
        {{0x20, 0x01, 0x0d, 0xb8}, 32},                     /* documentation */
        {{0xfc}, 7},                                        /* unique local */
        {{0xfe, 0x80}, 10},                                 /* link local */
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (prefix_is(a, special[i].net, special[i].bits)) return false;
    return true;
}

static bool should_replace(int kind, const char *s, size_t len)
{
    if (kind == PII_EMAIL) return true;
    char addr[64];
    if (len >= sizeof addr) return false;
    memcpy(addr, s, len);
    addr[len] = 0;
    unsigned char bin[16];
    if (kind == PII_IPV4) return inet_pton(AF_INET, addr, bin) == 1 && ipv4_is_global(bin);
    return inet_pton(AF_INET6, addr, bin) == 1 && ipv6_is_global(bin);
}

/* One pattern over text into out; returns replacements made. */
static size_t replace_kind(const pii_matcher *m, pii_scratch *sc, int kind, const char *text, size_t n, wbuf *out)
{
    size_t count = 0, copied = 0, start = 0;
    buf_clear(out);
    while (start <= n) {
        int rc = pcre2_match(m->code[kind], (PCRE2_SPTR)text, n, start, PCRE2_NO_UTF_CHECK, sc->md, NULL);
        if (rc < 0) break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
        size_t a = ov[0], b = ov[1];
        if (b == a) { /* empty match: step on one byte */
            start = b + 1;
            continue;
        }
        if (should_replace(kind, text + a, b - a)) {
            buf_append(out, text + copied, a - copied);
            buf_puts(out, m->repl[kind]);
            copied = b;
            count++;
        }
        start = b;
    }
    if (count) buf_append(out, text + copied, n - copied);
    return count;
}

size_t pii_replace(const pii_matcher *m, pii_scratch *s, const char *text, size_t n, wbuf *out)
{
    size_t total = 0;
    const char *cur = text;
    size_t cur_len = n;
    /* cheap tests first: no '@' means no e-mail, no ':'/'.' no address */
    bool maybe[PII_KINDS] = {memchr(text, '@', n) != NULL, memchr(text, '.', n) != NULL,
                             memchr(text, ':', n) != NULL};
    for (int k = 0; k < PII_KINDS; k++) {
        if (!maybe[k]) continue;
        size_t c = replace_kind(m, s, k, cur, cur_len, &s->tmp);
        if (!c) continue;
        total += c;
        buf_clear(out);
        buf_append(out, s->tmp.data, s->tmp.len);
        cur = out->data;
        cur_len = out->len;
    }
    return total;
}
