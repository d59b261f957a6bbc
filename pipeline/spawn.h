/* spawn.h - running a step in a child process: a function of this program
 * in a forked process (the stages run in-process, kept apart from the caller
 * so that a crash or a fatal error fails only that work); and argument lists.
 *
 * Children die with the process that started them (PR_SET_PDEATHSIG), so a
 * killed run leaves no stage running on its own; their stderr goes to a log
 * file. */
#ifndef WINNOW_PIPELINE_SPAWN_H
#define WINNOW_PIPELINE_SPAWN_H

#include <stddef.h>

typedef struct {
    char **argv; /* NULL-terminated */
    int argc, cap;
} pl_argv;

/* Appends one argument (copied). */
void pl_argv_push(pl_argv *a, const char *arg);

void pl_argv_free(pl_argv *a);

/* Runs fn(arg) in a forked child (stdin and stdout /dev/null) whose exit
 * status is fn's return value, and waits for it. Its stderr passes through
 * this process into log_path (best effort: a full disk must not hide the
 * message) and its last line into last[lastlen]. Returns 0 when the child
 * exited 0; otherwise non-zero with a message in why naming it (name) and
 * how it ended (exit status or signal). */
int pl_run_call(int (*fn)(void *arg), void *arg, const char *name, const char *log_path, char *why, size_t whylen,
                char *last, size_t lastlen);

#endif
