/* output.h - writing a file or stdout, plain or zstd, atomically.
 *
 * A file is written under a temporary name beside it (NAME.tmp.PID) and
 * renamed to NAME only by output_close(), so a killed run never leaves a file
 * that looks finished. A write error (disk full, ...) is fatal: the temporary
 * file is removed and the program exits with status 2 naming the file. */
#ifndef WINNOW_OUTPUT_H
#define WINNOW_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct woutput woutput;

/* Opens path for writing ("-" or NULL: stdout). zstd_level 0 writes plain
 * bytes, 1..19 a zstd stream. A path ending in ".parquet" takes the document
 * stream (JSON lines) and is written as a Parquet file (core/parquet_writer.h;
 * zstd_level then does not apply). Exits with status 2 when it cannot. */
woutput *output_open(const char *path, int zstd_level);

/* Writes n bytes (buffered). */
void output_write(woutput *out, const void *p, size_t n);

struct iovec;

/* Writes the pieces iov[0..n) in order (it may change iov): a plain output
 * hands them to the kernel with writev, no copy here; others as output_write. */
void output_writev(woutput *out, struct iovec *iov, size_t n);

/* Bytes given to output_write() so far (before compression). */
uint64_t output_bytes(const woutput *out);

/* Flushes, finishes the zstd frame, closes and renames into place; frees out. */
void output_close(woutput *out);

/* Removes the temporary file without renaming it; frees out. */
void output_abort(woutput *out);

/* True when name (a file name, no directory) is a temporary output_open()
 * makes: NAME.tmp.PID. */
bool output_is_temporary(const char *name);

/* Removes the temporaries in dir that writers killed before output_close()
 * left behind. Only for a directory whose writer is this process (no other
 * process may be writing there). */
void output_remove_temporaries(const char *dir);

/* Removes every temporary file still open; for fatal-error paths. */
void output_abort_all(void);

#endif
