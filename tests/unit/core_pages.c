/* core_pages.c - pages_populate makes every page of a fresh mapping
 * resident (mincore), whatever the length (whole pieces, a piece and a page,
 * less than one piece) and the number of threads (one, more threads than
 * pieces, pieces not a multiple of the threads, none asked), and leaves what
 * was written before in place. */
#include "core/pages.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/tap.h"

/* Resident pages of [p, p + n), by mincore. */
static size_t resident_pages(void *p, size_t n, size_t page)
{
    size_t pages = (n + page - 1) / page, count = 0;
    unsigned char *vec = malloc(pages);
    if (!vec || mincore(p, n, vec)) return SIZE_MAX;
    for (size_t i = 0; i < pages; i++) count += vec[i] & 1;
    free(vec);
    return count;
}

static void check(size_t n, int threads)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (n + page - 1) / page;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        ok(0, "mmap of %zu bytes", n);
        return;
    }
    madvise(p, n, MADV_NOHUGEPAGE); /* page by page, so that a part left out shows */
    is_int((long long)resident_pages(p, n, page), 0, "a fresh mapping of %zu bytes has no resident page", n);
    p[n / 2] = 'x';
    pages_populate(p, n, threads);
    is_int((long long)resident_pages(p, n, page), (long long)pages,
           "pages_populate(%zu bytes, %d threads): all %zu pages resident", n, threads, pages);
    ok(p[n / 2] == 'x', "... and a byte written before is still there");
    munmap(p, n);
}

int main(void)
{
    check(3 * PAGES_PIECE, 3);             /* whole pieces, a thread each */
    check(2 * PAGES_PIECE + 4096, 8);      /* a page past whole pieces, more threads than pieces */
    check(4 * PAGES_PIECE + 4096, 3);      /* 5 pieces over 3 threads: shares of 1, 2 and 2 pieces */
    check(PAGES_PIECE / 2 + 4096 * 3, 4);  /* less than one piece: one thread */
    check(PAGES_PIECE + 4096, 0);          /* threads < 1: the caller alone */
    return done_testing();
}
