/* sigfile.h - the records one input file sends to each partition, in one
 * file: blocks of one partition's records each, then an index of the blocks
 * and a footer. The staged mode's signatures step writes one such file per
 * input file instead of one file per input file and partition (file
 * creation and sync cost a few hundred microseconds each on local disks,
 * more on cluster file systems); the buckets step reads only the blocks of
 * its partition.
 *
 *   blocks                      records, back to back
 *   index                       per block: u32 partition, u32 0, u64 offset, u64 length
 *   footer                      SIG_FILE_MAGIC (8 bytes), u64 index offset, u64 blocks
 *
 * Integers are in the host's byte order, like the records (the work
 * directory is read by the machines of one cluster). Records are opaque
 * bytes here: the caller adds whole records and checks the size of what it
 * reads back. */
#ifndef WINNOW_DEDUP_SIGFILE_H
#define WINNOW_DEDUP_SIGFILE_H

#include <stddef.h>

#include "core/buf.h"

typedef struct sig_writer sig_writer;

/* Starts the file at path (written under a temporary name, as output_open
 * does) for records of partitions 0 .. partitions-1. */
sig_writer *sig_writer_open(const char *path, int partitions);

/* Adds one record of n bytes to partition p. */
void sig_writer_add(sig_writer *w, int p, const void *record, size_t n);

/* Writes what is buffered, the index and the footer, syncs and renames the
 * file into place; frees w. */
void sig_writer_close(sig_writer *w);

/* Removes the temporary file; frees w. */
void sig_writer_abort(sig_writer *w);

/* Appends the records of partition p in the file at path to out. Returns 0,
 * or -1 with a message in err when the file cannot be read or is damaged. */
int sig_file_read(const char *path, int p, wbuf *out, char *err, size_t errlen);

#endif
