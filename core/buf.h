/* buf.h - a growable byte buffer, the one string type of winnow.
 * data is always NUL-terminated after len bytes (when cap > 0). */
#ifndef WINNOW_BUF_H
#define WINNOW_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    char *data;
    size_t len;
    size_t cap;
} wbuf;

#define WBUF_INIT {NULL, 0, 0}

/* Makes room for at least extra more bytes (plus the terminating NUL). */
void buf_reserve(wbuf *b, size_t extra);

/* Appends n bytes. */
void buf_append(wbuf *b, const void *p, size_t n);

/* Appends a NUL-terminated string. */
void buf_puts(wbuf *b, const char *s);

/* Appends printf-formatted text. */
void buf_printf(wbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Releases the memory; the buffer is empty and reusable afterwards. */
void buf_free(wbuf *b);

/* Appends one byte. */
static inline void buf_putc(wbuf *b, char c)
{
    if (b->len + 2 > b->cap) buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}

/* Empties the buffer, keeping its memory. */
static inline void buf_clear(wbuf *b)
{
    b->len = 0;
    if (b->data) b->data[0] = 0;
}

#endif
