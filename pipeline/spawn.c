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

/* In the child: wires fds, asks to die with the parent, execs. Never returns. */
static void exec_child(pl_argv *cmd, int in_fd, int out_fd, int err_fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127); /* the parent died before prctl */
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execv(cmd->argv[0], cmd->argv);
    fprintf(stderr, "cannot run %s: %s\n", cmd->argv[0], strerror(errno));
    _exit(127);
}

int pl_run_chain(pl_argv *cmds, int n, const char *log_path, char *why, size_t whylen)
{
    if (n < 1 || n > MAX_CHAIN) dief(EXIT_FATAL, "internal: a chain of %d commands", n);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (devnull < 0) dief(EXIT_FATAL, "cannot open /dev/null: %m");
    if (log_fd < 0) dief(EXIT_FATAL, "cannot write %s: %m", log_path);
    pid_t pids[MAX_CHAIN], parent = getpid();
    int in_fd = devnull;
    for (int i = 0; i < n; i++) {
        int pipe_fd[2] = {-1, -1};
        if (i + 1 < n && pipe2(pipe_fd, O_CLOEXEC) != 0) dief(EXIT_FATAL, "pipe: %m");
        int out_fd = i + 1 < n ? pipe_fd[1] : devnull;
        fflush(NULL);
        pids[i] = fork();
        if (pids[i] < 0) dief(EXIT_FATAL, "fork: %m");
        if (pids[i] == 0) exec_child(&cmds[i], in_fd, out_fd, log_fd, parent);
        if (in_fd != devnull) close(in_fd);
        if (i + 1 < n) close(pipe_fd[1]);
        in_fd = pipe_fd[0];
    }
    int failed = 0;
    why[0] = 0;
    for (int i = 0; i < n; i++) {
        int status;
        while (waitpid(pids[i], &status, 0) < 0)
            if (errno != EINTR) dief(EXIT_FATAL, "waitpid: %m");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
        if (!failed) {
            const char *name = cmds[i].argc > 1 ? cmds[i].argv[1] : cmds[i].argv[0];
            if (WIFEXITED(status)) snprintf(why, whylen, "winnow %s exited with status %d", name, WEXITSTATUS(status));
            else snprintf(why, whylen, "winnow %s was killed by signal %d", name, WTERMSIG(status));
        }
        failed = 1;
    }
    close(devnull);
    close(log_fd);
    return failed;
}

void pl_log_last_line(const char *log_path, char *line, size_t len)
{
    line[0] = 0;
    FILE *f = fopen(log_path, "r");
    if (!f) return;
    char tail[LOG_TAIL_BYTES + 1];
    if (fseek(f, -LOG_TAIL_BYTES, SEEK_END) != 0) rewind(f);
    size_t n = fread(tail, 1, LOG_TAIL_BYTES, f);
    fclose(f);
    tail[n] = 0;
    while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r')) tail[--n] = 0;
    char *last = strrchr(tail, '\n');
    snprintf(line, len, "%s", last ? last + 1 : tail);
}
