/* core_huge_pages - large id arrays are advised into transparent huge pages
 * (the kernel's own record, VmFlags "hg" in /proc/self/smaps, says so) and
 * keep their ids as they grow across the threshold; small arrays and ranges
 * without a whole huge page are left alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/huge_pages.h"
#include "tests/tap.h"
#include "tokenize/bpe.h"

/* Whether the mapping that holds address p carries the kernel's VM_HUGEPAGE
 * flag ("hg"); -1 when p is in no mapping of /proc/self/smaps. */
static int advised_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, found = -1;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = a >= lo && a < hi;
            continue;
        }
        if (in && !strncmp(line, "VmFlags:", 8)) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

int main(void)
{
    if (access("/sys/kernel/mm/transparent_hugepage", F_OK)) skip_all("this kernel has no transparent huge pages");

    /* a growing id array: small, then past the threshold, the ids kept */
    tok_ids t = {0};
    const size_t small = 1000, big = HUGE_PAGES_MIN_BYTES / sizeof(uint32_t) * 2;
    for (uint32_t i = 0; i < small; i++) ids_push(&t, i * 7u + 1);
    is_int(advised_huge(t.ids), 0, "an array of %zu ids is not advised", small);
    ids_reserve(&t, big);
    ok(t.cap >= small + big, "room for %zu ids", small + big);
    is_int(advised_huge(t.ids + t.cap / 2), 1, "an array of %zu MiB is in huge pages", t.cap * 4 >> 20);
    size_t wrong = 0;
    for (uint32_t i = 0; i < small; i++) wrong += t.ids[i] != i * 7u + 1;
    is_int(wrong, 0, "the ids written before it grew are kept");
    for (size_t i = small; i < t.cap; i++) t.ids[t.n++] = (uint32_t)i;
    wrong = 0;
    for (size_t i = small; i < t.cap; i++) wrong += t.ids[i] != (uint32_t)i;
    is_int(wrong, 0, "every id written into the huge pages reads back");
    ids_free(&t);

    /* the advice itself: only whole huge pages inside the range */
    size_t two = (size_t)2 << 20, len = 4 * two;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ok(m != MAP_FAILED, "a test mapping of 8 MiB");
    char *aligned = (char *)(((uintptr_t)m + two - 1) & ~(uintptr_t)(two - 1));
    ok(!huge_pages_advise(aligned + 4096, two - 8192), "a range inside one huge page is not advised");
    is_int(advised_huge(aligned), 0, "... and its mapping is left as it was");
    ok(huge_pages_advise(aligned + 4096, 2 * two), "a range holding a whole huge page is advised");
    is_int(advised_huge(aligned + two), 1, "the whole huge page inside it is in huge pages");
    is_int(advised_huge(aligned), 0, "the partial page before it is not");
    munmap(m, len);
    return done_testing();
}
