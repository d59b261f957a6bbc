/* source.c - the ingest byte source over a core input or memory. */
#include "ingest/source.h"

#include <string.h>

void isrc_from_input(isrc *s, winput *in)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->name = input_name(in);
}

void isrc_from_memory(isrc *s, const char *p, size_t n, const char *name)
{
    memset(s, 0, sizeof *s);
    s->mem = p;
    s->mem_len = n;
    s->name = name;
}

size_t isrc_peek(isrc *s, size_t n, const char **p)
{
    if (s->in) return input_peek(s->in, n, p);
    (void)n; /* a memory source has everything visible */
    *p = s->mem + s->mem_pos;
    return s->mem_len - s->mem_pos;
}

size_t isrc_read(isrc *s, void *dst, size_t n)
{
    if (!s->in) {
        size_t left = s->mem_len - s->mem_pos;
        if (n > left) n = left;
        if (dst && n) memcpy(dst, s->mem + s->mem_pos, n);
        s->mem_pos += n;
        return n;
    }
    return dst ? input_read(s->in, dst, n) : input_skip(s->in, n);
}

uint64_t isrc_offset(const isrc *s)
{
    return s->in ? input_offset(s->in) : s->mem_pos;
}

bool isrc_damaged_within(const isrc *s, uint64_t from, uint64_t to)
{
    return s->in && input_damaged_within(s->in, from, to);
}

bool isrc_getline(isrc *s, const char **line, size_t *len)
{
    if (s->in) return input_getline(s->in, line, len);
    if (s->mem_pos >= s->mem_len) return false;
    const char *start = s->mem + s->mem_pos;
    size_t left = s->mem_len - s->mem_pos;
    const char *nl = memchr(start, '\n', left);
    size_t l = nl ? (size_t)(nl - start) : left;
    s->mem_pos += nl ? l + 1 : l;
    if (l && start[l - 1] == '\r') l--;
    *line = start;
    *len = l;
    return true;
}
