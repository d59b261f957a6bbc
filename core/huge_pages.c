/* huge_pages.c - transparent huge pages for large arrays (see huge_pages.h). */
#include "core/huge_pages.h"

#include <stdint.h>
#include <sys/mman.h>

/* The size of a transparent huge page on x86-64 (and of a PMD on arm64 with 4 KiB pages). */
#define HUGE_PAGE ((uintptr_t)2 << 20)

bool huge_pages_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
    if (hi <= lo) return false;
    return madvise((void *)lo, hi - lo, MADV_HUGEPAGE) == 0;
#else
    (void)p, (void)bytes;
    return false;
#endif
}
