/* http.c - stored HTTP response parsing: status line, headers, content type. */
#include "ingest/http.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

/* Length of "HTTP/" */
#define HTTP_MAGIC_LEN 5

/* Next line of p[*i..n): sets *line and *len without the line ending (LF, CRLF,
 * CR CR LF) and moves *i past it; false at the end. */
static bool next_line(const char *p, size_t n, size_t *i, const char **line, size_t *len)
{
    if (*i >= n) return false;
    const char *start = p + *i;
    const char *nl = memchr(start, '\n', n - *i);
    size_t l = nl ? (size_t)(nl - start) : n - *i;
    *i += nl ? l + 1 : l;
    while (l && start[l - 1] == '\r') l--;
    *line = start;
    *len = l;
    return true;
}

/* Parses "HTTP/x.y NNN [reason]"; returns the status or -1. */
static int parse_status_line(const char *s, size_t n)
{
    if (n < HTTP_MAGIC_LEN || strncasecmp(s, "HTTP/", HTTP_MAGIC_LEN) != 0) return -1;
    size_t i = HTTP_MAGIC_LEN;
    while (i < n && s[i] != ' ' && s[i] != '\t') i++; /* version */
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    int status = 0, digits = 0;
    while (i < n && isdigit((unsigned char)s[i]) && digits < 3) status = status * 10 + (s[i++] - '0'), digits++;
    if (digits != 3) return -1;
    if (i < n && isdigit((unsigned char)s[i])) return -1;
    return status;
}

int http_parse_response(const char *p, size_t n, http_response *r)
{
    size_t i = 0;
    const char *line;
    size_t len;
    r->nheaders = 0;
    r->body = p + n;
    r->body_len = 0;
    while (i < n && (p[i] == '\r' || p[i] == '\n')) i++; /* stray blank lines before the status */
    if (!next_line(p, n, &i, &line, &len)) return -1;
    r->status = parse_status_line(line, len);
    if (r->status < 0) return -1;
    while (next_line(p, n, &i, &line, &len)) {
        if (len == 0) {
            r->body = p + i;
            r->body_len = n - i;
            return 0;
        }
        const char *colon = memchr(line, ':', len);
        if (!colon || r->nheaders == HTTP_MAX_HEADERS) continue; /* junk or too many: ignored */
        http_header *h = &r->headers[r->nheaders];
        h->name = line;
        h->name_len = (size_t)(colon - line);
        h->value = colon + 1;
        h->value_len = len - h->name_len - 1;
        trim_blanks(&h->name, &h->name_len);
        trim_blanks(&h->value, &h->value_len);
        if (h->name_len) r->nheaders++;
    }
    return 0; /* headers ran to the end: no body */
}

const char *http_header_get(const http_response *r, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (int i = 0; i < r->nheaders; i++) {
        const http_header *h = &r->headers[i];
        if (h->name_len == nl && strncasecmp(h->name, name, nl) == 0) {
            *len = h->value_len;
            return h->value;
        }
    }
    *len = 0;
    return NULL;
}

/* Copies s[0..n) lower-cased into dst (size dst_size), trimmed of spaces and quotes. */
static void copy_token(char *dst, size_t dst_size, const char *s, size_t n)
{
    trim_blanks(&s, &n);
    while (n && (*s == '"' || *s == '\'')) s++, n--;
    while (n && (s[n - 1] == '"' || s[n - 1] == '\'')) n--;
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < dst_size; i++) dst[k++] = (char)tolower((unsigned char)s[i]);
    dst[k] = 0;
}

void http_parse_content_type(const char *v, size_t n, char *mime, size_t mime_size,
                             char *charset, size_t charset_size)
{
    mime[0] = charset[0] = 0;
    if (!v) return;
    const char *semi = memchr(v, ';', n);
    copy_token(mime, mime_size, v, semi ? (size_t)(semi - v) : n);
    while (semi) {
        const char *param = semi + 1;
        size_t left = n - (size_t)(param - v);
        semi = memchr(param, ';', left);
        size_t plen = semi ? (size_t)(semi - param) : left;
        trim_blanks(&param, &plen);
        if (plen > 8 && strncasecmp(param, "charset=", 8) == 0) {
            copy_token(charset, charset_size, param + 8, plen - 8);
            return;
        }
    }
}
