/* spawn.h - running stages as child processes: one command, a chain of
 * commands connected by pipes (cmd1 | cmd2 | ...), or a function of this
 * program in a forked process (stages run in-process, kept apart from the
 * caller so that a crash or a fatal error fails only that work).
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

/* Appends one formatted argument. */
void pl_argv_pushf(pl_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void pl_argv_free(pl_argv *a);

/* Runs cmds[0] | cmds[1] | ... | cmds[n-1] (stdin from /dev/null, the last
 * stdout to /dev/null) and waits for all. Their stderr passes through this
 * process into log_path (best effort: a full disk must not hide the message)
 * and its last line into last[lastlen]. Returns 0 when every command exited 0;
 * otherwise non-zero with a message in why naming the first command that
 * failed and how (exit status or signal). */
int pl_run_chain(pl_argv *cmds, int n, const char *log_path, char *why, size_t whylen, char *last, size_t lastlen);

/* Runs fn(arg) in a forked child (stdin and stdout /dev/null, stderr as
 * pl_run_chain's) whose exit status is fn's return value; name says what it
 * is in why. Returns 0 when the child exited 0. */
int pl_run_call(int (*fn)(void *arg), void *arg, const char *name, const char *log_path, char *why, size_t whylen,
                char *last, size_t lastlen);

#endif
