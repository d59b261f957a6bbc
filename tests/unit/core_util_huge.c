/* core_util_huge - xmalloc_huge (core/util.h): the memory the tokenize block
 * path keeps its id arrays in is 2 MiB-aligned, holds what is written across
 * many pages, and works with realloc (an encoder that needs more ids than
 * reserved grows the array so) and free. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "tests/tap.h"

#define HUGE_ALIGN ((uintptr_t)2 << 20)

/* Whether p[0..n) holds the pattern i * 2654435761 (truncated) at every 4 KiB step and the ends. */
static int holds_pattern(const uint32_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 1024)
        if (p[i] != (uint32_t)(i * 2654435761u)) return 0;
    return p[n - 1] == (uint32_t)((n - 1) * 2654435761u);
}

static void write_pattern(uint32_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 1024) p[i] = (uint32_t)(i * 2654435761u);
    p[n - 1] = (uint32_t)((n - 1) * 2654435761u);
}

int main(void)
{
    size_t sizes[] = {1, 4096, (size_t)3 << 20, ((size_t)5 << 20) + 123};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k] / sizeof(uint32_t) ? sizes[k] / sizeof(uint32_t) : 1;
        uint32_t *p = xmalloc_huge(n * sizeof *p);
        ok(((uintptr_t)p & (HUGE_ALIGN - 1)) == 0, "%zu bytes: aligned to 2 MiB", sizes[k]);
        write_pattern(p, n);
        ok(holds_pattern(p, n), "%zu bytes: every page holds what was written", sizes[k]);
        uint32_t *q = realloc(p, 3 * n * sizeof *q);
        ok(q != NULL, "%zu bytes: realloc to three times the size works", sizes[k]);
        ok(q && holds_pattern(q, n), "%zu bytes: ... and keeps the contents", sizes[k]);
        free(q);
    }
    return done_testing();
}
