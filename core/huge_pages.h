/* huge_pages.h - asking the kernel to back large arrays with huge pages. */
#ifndef WINNOW_CORE_HUGE_PAGES_H
#define WINNOW_CORE_HUGE_PAGES_H

#include <stdbool.h>
#include <stddef.h>

/* Arrays from this size on are worth the advice: malloc maps them on their
 * own (its mmap threshold is at most 32 MiB), so advising them touches no
 * other allocation's memory. */
#define HUGE_PAGES_MIN_BYTES ((size_t)32 << 20)

/* Asks for transparent huge pages (madvise MADV_HUGEPAGE) for the whole
 * 2 MiB pages inside p[0..bytes): a first write then faults once per 2 MiB
 * instead of once per 4 KiB, and freeing unmaps 512 times fewer entries.
 * Only advice, for memory that is malloc's or the caller's: returns whether
 * the kernel took it (false when the range holds no whole huge page or the
 * kernel has no such pages). */
bool huge_pages_advise(void *p, size_t bytes);

#endif
