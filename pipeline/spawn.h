/* spawn.h - running stages as child processes: one command, or a chain of
 * commands connected by pipes (cmd1 | cmd2 | ...).
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

#endif
