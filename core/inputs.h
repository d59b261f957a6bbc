/* inputs.h - the inputs a command is given, as the files it reads.
 *
 * A directory means every regular file under it (symlinks to regular files
 * included), recursively, in name order (strcmp: byte order); '-' (stdin) and
 * any other path stay as given, in their place (a FIFO named on the command
 * line is read: `<(zcat ...)` works). No input at all means stdin. Inside a
 * directory:
 *   - a symlink to a directory is not followed (a warning; not counted);
 *   - a FIFO, device or socket would block or never end: skipped, with a
 *     warning, counted as one input failed `not_regular_file`;
 *   - a directory that cannot be opened, or nested more than
 *     INPUTS_MAX_DEPTH deep, is skipped, with a warning, counted as one input
 *     failed `unreadable_input`, and makes the exit status 2.
 * A directory named that gives no file to read is warned about. Every stage
 * that takes FILE|DIR arguments reads them through this (core/stage.h
 * stage_take_inputs, ingest_path), so they all read and count the same. */
#ifndef WINNOW_INPUTS_H
#define WINNOW_INPUTS_H

#include "stats.h"

/* Directories are followed this deep (a loop of bind mounts ends here). */
#define INPUTS_MAX_DEPTH 32

/* The failure kinds of skipped entries. */
#define INPUTS_NOT_REGULAR "not_regular_file"
#define INPUTS_UNREADABLE "unreadable_input"

/* One entry, in input order: a file to read, or something skipped. */
typedef struct {
    char *path;          /* the file ("-": stdin), or the thing skipped */
    const char *failure; /* NULL: read path; else the failure kind it counts as */
} input_entry;

typedef struct {
    input_entry *entries; /* in input order */
    int n, cap;
    char **files; /* the paths of the entries to read, in order */
    int nfiles;
} input_list;

/* Sets l (whose old content is not freed) to args[0..nargs) expanded as
 * above, printing a warning for each thing skipped; no args gives "-". */
void inputs_expand(input_list *l, char *const *args, int nargs);

/* Counts each skipped entry of l (NULL: none) in s as one input failed as its
 * kind; returns the exit status they call for: EXIT_FATAL when one could not
 * be read (unreadable_input), else EXIT_OK. */
int inputs_count_skipped(const input_list *l, wstats *s);

/* The exit status l's skipped entries call for, as inputs_count_skipped. */
int inputs_status(const input_list *l);

/* Frees what l holds. */
void inputs_free(input_list *l);

#endif
