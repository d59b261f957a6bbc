#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

void buf_reserve(wbuf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) cap += cap / 2 + 64;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void buf_append(wbuf *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_puts(wbuf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_printf(wbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_free(wbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
