/* spawn.c - a step's child process and its messages. */
#include "pipeline/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

#define LOG_TAIL_BYTES 4096

void pl_argv_push(pl_argv *a, const char *arg)
{
    if (a->argc + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->argv = xrealloc(a->argv, (size_t)a->cap * sizeof *a->argv);
    }
    a->argv[a->argc++] = xstrdup(arg);
    a->argv[a->argc] = NULL;
}

void pl_argv_free(pl_argv *a)
{
    for (int i = 0; i < a->argc; i++) free(a->argv[i]);
    free(a->argv);
    memset(a, 0, sizeof *a);
}

/* In the child: wires fds, asks to die with the parent, runs fn. Never returns. */
static void run_child(int (*fn)(void *arg), void *arg, int null_fd, int err_fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* SIGTERM: its handler removes the child's temporaries (core/output.c) */
    if (getppid() != parent) _exit(127); /* the parent died before prctl */
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(err_fd, 2);
    exit(fn(arg));
}

/* Copies the child's messages to the log (best effort) until it closes its
 * stderr; keeps the last line. */
static void drain_messages(int fd, int log_fd, char *last, size_t lastlen)
{
    char tail[LOG_TAIL_BYTES + 1], chunk[LOG_TAIL_BYTES];
    size_t kept = 0;
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (log_fd >= 0 && write(log_fd, chunk, (size_t)n) != n) {
            close(log_fd); /* the disk is full or gone: keep only the tail */
            log_fd = -1;
        }
        size_t take = (size_t)n < sizeof tail - 1 ? (size_t)n : sizeof tail - 1;
        if (kept + take > sizeof tail - 1) {
            size_t drop = kept + take - (sizeof tail - 1);
            memmove(tail, tail + drop, kept - drop);
            kept -= drop;
        }
        memcpy(tail + kept, chunk + (size_t)n - take, take);
        kept += take;
    }
    if (log_fd >= 0) close(log_fd);
    tail[kept] = 0;
    while (kept && (tail[kept - 1] == '\n' || tail[kept - 1] == '\r')) tail[--kept] = 0;
    char *line = strrchr(tail, '\n');
    snprintf(last, lastlen, "%s", line ? line + 1 : tail);
}

int pl_run_call(int (*fn)(void *arg), void *arg, const char *name, const char *log_path, char *why, size_t whylen,
                char *last, size_t lastlen)
{
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) dief(EXIT_FATAL, "cannot open /dev/null: %m");
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0) dief(EXIT_FATAL, "pipe: %m");
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) dief(EXIT_FATAL, "fork: %m");
    if (pid == 0) run_child(fn, arg, devnull, err_pipe[1], parent);
    close(err_pipe[1]);
    drain_messages(err_pipe[0], log_fd, last, lastlen);
    close(err_pipe[0]);
    close(devnull);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) dief(EXIT_FATAL, "waitpid: %m");
    why[0] = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFEXITED(status)) snprintf(why, whylen, "%s exited with status %d", name, WEXITSTATUS(status));
    else snprintf(why, whylen, "%s was killed by signal %d", name, WTERMSIG(status));
    return 1;
}
