/* sniff.c - input kind detection by content. */
#include "ingest/sniff.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "core/input.h"
#include "ingest/arc.h"
#include "ingest/html_parse.h"

/* Offset of the "ustar" magic in a tar header block. */
#define TAR_MAGIC_OFFSET 257
/* Markup is looked for in the first this many bytes. */
#define HTML_WINDOW SNIFF_BYTES

static bool starts(const char *p, size_t n, const char *magic, size_t mlen)
{
    return n >= mlen && memcmp(p, magic, mlen) == 0;
}

/* A zstd skippable frame (magic 0x184D2A50..5F, RFC 8878 3.1.2), as pzstd
 * writes before each frame. */
static bool zstd_skippable(const char *p, size_t n)
{
    return n >= 4 && ((unsigned char)p[0] & 0xf0) == 0x50 && starts(p + 1, n - 1, "\x2a\x4d\x18", 3);
}

static bool is_compressed(const char *p, size_t n)
{
    return starts(p, n, "\x1f\x8b", 2) || starts(p, n, "\x28\xb5\x2f\xfd", 4) || zstd_skippable(p, n) ||
           input_bzip2_signature(p, n) || starts(p, n, "\xfd" "7zXZ\0", 6) ||
           starts(p, n, "\x04\x22\x4d\x18", 4);
}

static bool is_archive(const char *p, size_t n)
{
    return starts(p, n, "PK\x03\x04", 4) || starts(p, n, "PK\x05\x06", 4) ||
           starts(p, n, "7z\xbc\xaf\x27\x1c", 6) || starts(p, n, "!<arch>\n", 8) ||
           starts(p, n, "070707", 6) || starts(p, n, "070701", 6) ||
           (n >= TAR_MAGIC_OFFSET + 5 && memcmp(p + TAR_MAGIC_OFFSET, "ustar", 5) == 0);
}

/* True when a tag that only HTML uses appears near the start. */
static bool looks_html(const char *p, size_t n)
{
    static const char *const tags[] = {"<!doctype html", "<html", "<head", "<body", "<meta ",
                                       "<title", "<div", "<p>", "<script", "<link ", "<table", "<br", "<h1"};
    if (n > HTML_WINDOW) n = HTML_WINDOW;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '<') continue;
        for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
            size_t tl = strlen(tags[t]);
            if (n - i >= tl && strncasecmp(p + i, tags[t], tl) == 0) return true;
        }
    }
    return false;
}

/* Offset just past `close` from p + i, or 0 when it does not close in the window. */
static size_t skip_past(const char *p, size_t n, size_t i, const char *close)
{
    size_t cl = strlen(close);
    for (; i + cl <= n; i++)
        if (memcmp(p + i, close, cl) == 0) return i + cl;
    return 0;
}

/* Skips whitespace, comments (<!-- -->, ended where HTML5 ends them: also
 * at "--!>", and "<!-->" at once) and XML processing instructions
 * (<?xml ...?>) from i: what may come before a page's first tag. One that does
 * not close in the window is where the markup starts. */
static size_t skip_preamble(const char *p, size_t n, size_t i)
{
    for (;;) {
        while (i < n && isspace((unsigned char)p[i])) i++;
        size_t next = 0;
        if (starts(p + i, n - i, "<!--", 4)) next = html_comment_end(p, i, n);
        else if (starts(p + i, n - i, "<?", 2)) next = skip_past(p, n, i + 2, "?>");
        if (!next) return i;
        i = next;
    }
}

/* True when a line of the window begins (after blanks) with a doctype or an
 * <html> tag: a page with text before it (a server's warning, a stray line). */
static bool html_line_start(const char *p, size_t n)
{
    static const char *const tags[] = {"<!doctype html", "<html>", "<html "};
    if (n > HTML_WINDOW) n = HTML_WINDOW;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && p[i - 1] != '\n') continue;
        size_t j = i;
        while (j < n && (p[j] == ' ' || p[j] == '\t' || p[j] == '\r')) j++;
        for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
            size_t tl = strlen(tags[t]);
            if (n - j >= tl && strncasecmp(p + j, tags[t], tl) == 0) return true;
        }
    }
    return false;
}

input_kind sniff_kind(const char *p, size_t n)
{
    if (n == 0) return INPUT_EMPTY;
    if (is_compressed(p, n)) return INPUT_COMPRESSED;
    if (is_archive(p, n)) return INPUT_ARCHIVE;
    size_t i = 0;
    if (starts(p, n, "\xef\xbb\xbf", 3)) i = 3;
    while (i < n && isspace((unsigned char)p[i])) i++;
    if (starts(p + i, n - i, "WARC/", 5)) return INPUT_WARC;
    if (arc_sniff(p + i, n - i)) return INPUT_ARC;
    if (i < n && p[i] == '{') return INPUT_JSONL;
    if (memchr(p, 0, n) && !starts(p, n, "\xff\xfe", 2) && !starts(p, n, "\xfe\xff", 2)) return INPUT_BINARY;
    size_t tag = skip_preamble(p, n, i);
    if (tag < n && p[tag] == '<' && looks_html(p + tag, n - tag)) return INPUT_HTML;
    if (html_line_start(p, n)) return INPUT_HTML;
    return INPUT_TEXT;
}

const char *input_kind_name(input_kind k)
{
    switch (k) {
    case INPUT_EMPTY: return "empty";
    case INPUT_WARC: return "warc";
    case INPUT_ARC: return "arc";
    case INPUT_JSONL: return "jsonl";
    case INPUT_HTML: return "html";
    case INPUT_TEXT: return "text";
    case INPUT_ARCHIVE: return "archive";
    case INPUT_COMPRESSED: return "compressed";
    case INPUT_BINARY: return "binary";
    }
    return "?";
}
