/* spawn.c - child processes and pipes for the stages. */
#include "pipeline/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

#define MAX_CHAIN 8
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

void pl_argv_pushf(pl_argv *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s;
    if (vasprintf(&s, fmt, ap) < 0) dief(EXIT_FATAL, "out of memory");
    va_end(ap);
    pl_argv_push(a, s);
    free(s);
}

void pl_argv_free(pl_argv *a)
{
    for (int i = 0; i < a->argc; i++) free(a->argv[i]);
    free(a->argv);
    memset(a, 0, sizeof *a);
}

/* What a child process does: exec a command, or call a function. */
typedef struct {
    pl_argv *cmd;
    int (*fn)(void *arg);
    void *arg;
} child_work;

/* In the child: wires fds, asks to die with the parent, runs the work. Never returns. */
static void run_child(const child_work *work, int in_fd, int out_fd, int err_fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127); /* the parent died before prctl */
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (work->fn) exit(work->fn(work->arg));
    execv(work->cmd->argv[0], work->cmd->argv);
    fprintf(stderr, "cannot run %s: %s\n", work->cmd->argv[0], strerror(errno));
    _exit(127);
}

/* Copies the children's messages to the log (best effort) until they all
 * close their stderr; keeps the last line. */
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

/* Runs works[0] | works[1] | ... (see pl_run_chain); names[i] names work i in why. */
static int run_children(const child_work *works, const char *const *names, int n, const char *log_path, char *why,
                        size_t whylen, char *last, size_t lastlen)
{
    if (n < 1 || n > MAX_CHAIN) dief(EXIT_FATAL, "internal: a chain of %d commands", n);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) dief(EXIT_FATAL, "cannot open /dev/null: %m");
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666), err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0) dief(EXIT_FATAL, "pipe: %m");
    pid_t pids[MAX_CHAIN], parent = getpid();
    int in_fd = devnull;
    for (int i = 0; i < n; i++) {
        int pipe_fd[2] = {-1, -1};
        if (i + 1 < n && pipe2(pipe_fd, O_CLOEXEC) != 0) dief(EXIT_FATAL, "pipe: %m");
        int out_fd = i + 1 < n ? pipe_fd[1] : devnull;
        fflush(NULL);
        pids[i] = fork();
        if (pids[i] < 0) dief(EXIT_FATAL, "fork: %m");
        if (pids[i] == 0) run_child(&works[i], in_fd, out_fd, err_pipe[1], parent);
        if (in_fd != devnull) close(in_fd);
        if (i + 1 < n) close(pipe_fd[1]);
        in_fd = pipe_fd[0];
    }
    close(err_pipe[1]);
    drain_messages(err_pipe[0], log_fd, last, lastlen);
    close(err_pipe[0]);
    int failed = 0;
    why[0] = 0;
    for (int i = 0; i < n; i++) {
        int status;
        while (waitpid(pids[i], &status, 0) < 0)
            if (errno != EINTR) dief(EXIT_FATAL, "waitpid: %m");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        if (!failed) {
            if (WIFEXITED(status)) snprintf(why, whylen, "%s exited with status %d", names[i], WEXITSTATUS(status));
            else snprintf(why, whylen, "%s was killed by signal %d", names[i], WTERMSIG(status));
        }
        failed = 1;
    }
    close(devnull);
    return failed;
}

int pl_run_chain(pl_argv *cmds, int n, const char *log_path, char *why, size_t whylen, char *last, size_t lastlen)
{
    child_work works[MAX_CHAIN];
    char names[MAX_CHAIN][64];
    const char *name_ptrs[MAX_CHAIN];
    for (int i = 0; i < n && i < MAX_CHAIN; i++) {
        works[i] = (child_work){&cmds[i], NULL, NULL};
        snprintf(names[i], sizeof names[i], "winnow %s", cmds[i].argc > 1 ? cmds[i].argv[1] : cmds[i].argv[0]);
        name_ptrs[i] = names[i];
    }
    return run_children(works, name_ptrs, n, log_path, why, whylen, last, lastlen);
}

int pl_run_call(int (*fn)(void *arg), void *arg, const char *name, const char *log_path, char *why, size_t whylen,
                char *last, size_t lastlen)
{
    child_work work = {NULL, fn, arg};
    return run_children(&work, &name, 1, log_path, why, whylen, last, lastlen);
}
