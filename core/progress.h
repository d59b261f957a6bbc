/* progress.h - a live progress line on stderr (only when stderr is a terminal).
 * Shows documents, docs/s, MB/s of input and elapsed time, twice a second. */
#ifndef WINNOW_PROGRESS_H
#define WINNOW_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Starts the display thread unless quiet or stderr is not a terminal. */
void progress_start(const char *label, bool quiet);

/* Adds to the counters shown (thread-safe, cheap). */
void progress_add(uint64_t docs, uint64_t bytes);

/* Stops the display and clears its line. */
void progress_stop(void);

#endif
