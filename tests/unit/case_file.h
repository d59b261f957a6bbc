/* case_file.h - the escapes of the case files tests/ref/html_unescape_cases.py
 * writes (tests/data/html5lib/NAME.txt): \t, \n and \xHH stand for their byte,
 * a backslash before anything else for that character. */
#ifndef WINNOW_TESTS_CASE_FILE_H
#define WINNOW_TESTS_CASE_FILE_H

#include <stddef.h>

static inline int case_hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* Undoes a case file's escapes in s, in place; returns the new length. */
static inline size_t case_unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r != '\\' || !r[1]) {
            *w++ = *r;
            continue;
        }
        r++;
        if (*r == 't') *w++ = '\t';
        else if (*r == 'n') *w++ = '\n';
        else if (*r == 'x' && r[1] && r[2]) {
            *w++ = (char)(case_hex_value(r[1]) * 16 + case_hex_value(r[2]));
            r += 2;
        } else *w++ = *r;
    }
    *w = 0;
    return (size_t)(w - s);
}

#endif
