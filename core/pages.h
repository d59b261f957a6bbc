/* pages.h - faulting in large buffers before they are used (pinned memory
 * for the GPU, which the driver can only lock once its pages exist). */
#ifndef WINNOW_PAGES_H
#define WINNOW_PAGES_H

#include <stddef.h>

/* Makes every page of [p, p + n) present and writable (MADV_POPULATE_WRITE;
 * a write to each 4 KiB page where the kernel lacks it; the bytes are then
 * undefined), on up to threads threads at once (the calling thread is one),
 * each asking for PAGES_PIECE bytes at a time, so that other threads' mmap
 * calls (CUDA's start-up makes many) wait for one piece at most, not a
 * whole buffer. p must be page-aligned; threads < 1 counts as 1. */
void pages_populate(void *p, size_t n, int threads);

/* Bytes per populate call: 16 huge pages, ~3 ms of zeroing. */
#define PAGES_PIECE ((size_t)32 << 20)

#endif
