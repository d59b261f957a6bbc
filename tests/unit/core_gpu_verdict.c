/* core_gpu_verdict.c - a GPU verdict blocks every waiter until it is set,
 * wakes them all, is decided by its first setting alone, keeps its own copy
 * of the reason, and refuses a run with "--device gpu: WHY" and exit 1
 * (one message, however many threads wait). */
#include "core/gpu_verdict.h"

#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "tests/tap.h"

#define WAITERS 6
#define SETTLE_NS 100000000L /* time the waiters get to (wrongly) return early */
#define WAKE_TRIES 5000      /* x SETTLE_NS / 50: ten seconds for all to wake (a loaded CI box) */

typedef struct {
    gpu_verdict *v;
    atomic_int *returned, *said_usable;
    bool require; /* gpu_verdict_require() rather than gpu_verdict_wait() */
} waiter;

static void *wait_main(void *arg)
{
    waiter *w = arg;
    if (w->require) gpu_verdict_require(w->v);
    else if (gpu_verdict_wait(w->v)) atomic_fetch_add(w->said_usable, 1);
    atomic_fetch_add(w->returned, 1);
    return NULL;
}

static void pause_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&ts, NULL);
}

/* Starts WAITERS threads on v, lets them settle, sets v (usable, why), and
 * returns how many had returned before the setting; *woke: how many returned
 * within ten seconds after it, *usable: how many of those were told usable. */
static int wait_and_set(gpu_verdict *v, bool require, bool usable, const char *why, int *woke, int *said)
{
    atomic_int returned = 0, said_usable = 0;
    waiter w = {v, &returned, &said_usable, require};
    pthread_t t[WAITERS];
    for (int i = 0; i < WAITERS; i++) pthread_create(&t[i], NULL, wait_main, &w);
    pause_ns(SETTLE_NS);
    int early = atomic_load(&returned);
    gpu_verdict_set(v, usable, why);
    for (int i = 0; i < WAKE_TRIES && atomic_load(&returned) < WAITERS; i++) pause_ns(SETTLE_NS / 50);
    *woke = atomic_load(&returned);
    *said = atomic_load(&said_usable);
    if (*woke < WAITERS) return early; /* a waiter still blocked: leave it (the test has failed) */
    for (int i = 0; i < WAITERS; i++) pthread_join(t[i], NULL);
    return early;
}

/* Runs fn(v) in a child process; returns its exit status (-1: killed) and its stderr in err. */
static int in_child(void (*fn)(gpu_verdict *), gpu_verdict *v, char *err, size_t n)
{
    int fd[2];
    if (pipe(fd)) return -2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        fn(v);
        _exit(0);
    }
    close(fd[1]);
    size_t len = 0;
    ssize_t got;
    while (len + 1 < n && (got = read(fd[0], err + len, n - 1 - len)) > 0) len += (size_t)got;
    err[len] = 0;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void require_once(gpu_verdict *v) { gpu_verdict_require(v); }

/* Several threads require v while the child's main thread decides "no". */
static void require_from_many(gpu_verdict *v)
{
    int woke, said;
    wait_and_set(v, true, false, "no CUDA device", &woke, &said);
}

static void refuse_without_reason(gpu_verdict *v)
{
    (void)v;
    gpu_refuse(NULL);
}

int main(void)
{
    int woke, said;
    char err[1024];

    gpu_verdict v;
    gpu_verdict_init(&v);
    is_int(wait_and_set(&v, false, true, NULL, &woke, &said), 0, "no waiter returns before the verdict");
    is_int(woke, WAITERS, "every waiter wakes once it is set");
    is_int(said, WAITERS, "... and each is told usable");
    ok(gpu_verdict_wait(&v), "a wait after the setting returns usable at once");
    gpu_verdict_set(&v, false, "too late");
    ok(gpu_verdict_wait(&v), "a second setting changes nothing");
    is_int(in_child(require_once, &v, err, sizeof err), 0, "require on a usable verdict returns");
    is_str(err, "", "... and prints nothing");
    gpu_verdict_destroy(&v);

    gpu_verdict_init(&v);
    char why[64];
    snprintf(why, sizeof why, "%s", "no usable CUDA device: no CUDA-capable device is detected");
    is_int(wait_and_set(&v, false, false, why, &woke, &said), 0, "no waiter returns before a no");
    is_int(woke, WAITERS, "every waiter wakes on a no");
    is_int(said, 0, "... and each is told not usable");
    snprintf(why, sizeof why, "%s", "overwritten");
    gpu_verdict_set(&v, true, NULL);
    ok(!gpu_verdict_wait(&v), "a later usable setting does not overturn the no");
    is_int(in_child(require_once, &v, err, sizeof err), EXIT_USAGE, "require on a no exits 1");
    is_str(err, "winnow: --device gpu: no usable CUDA device: no CUDA-capable device is detected\n",
           "... with the reason as set (a copy: the caller's buffer changed since)");
    gpu_verdict_destroy(&v);

    gpu_verdict_init(&v);
    is_int(in_child(require_from_many, &v, err, sizeof err), EXIT_USAGE,
           "threads waiting in require when the no comes: exit 1");
    is_str(err, "winnow: --device gpu: no CUDA device\n", "... with one message");
    gpu_verdict_destroy(&v);

    is_int(in_child(refuse_without_reason, NULL, err, sizeof err), EXIT_USAGE, "a refusal without a reason exits 1");
    is_str(err, "winnow: --device gpu: the GPU did not start\n", "... saying the GPU did not start");
    return done_testing();
}
