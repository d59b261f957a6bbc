/* case_file.h - the escapes of the case files tests/ref/html_unescape_cases.py
 * writes (tests/data/html5lib/NAME.txt): \t, \n and \xHH stand for their byte,
 * a backslash before anything else for that character. */
#ifndef WINNOW_TESTS_CASE_FILE_H
#define WINNOW_TESTS_CASE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* Reads the next case of f into *line (getline's buffer and *cap), its '\n'
 * removed, passing over comments ('#') and blank lines; *lineno counts the
 * lines read. False at the end of the file. */
static inline bool case_file_next(FILE *f, char **line, size_t *cap, int *lineno)
{
    while (getline(line, cap, f) > 0) {
        ++*lineno;
        (*line)[strcspn(*line, "\n")] = 0;
        if ((*line)[0] != '#' && (*line)[0]) return true;
    }
    return false;
}

#endif
