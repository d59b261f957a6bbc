/* cmd_run.c - `winnow run PIPELINE`: the whole pipeline on this machine,
 * resumable, its tasks run as child processes a few at a time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/output.h"
#include "core/util.h"
#include "pipeline/plan.h"
#include "pipeline/report.h"
#include "pipeline/shards_rank.h"
#include "pipeline/shards_step.h"
#include "pipeline/steps.h"
#include "tools/commands.h"

#define POLL_NANOSECONDS 200000000L
#define LOCK_TRIES 50
#define LOCK_RETRY_NANOSECONDS 100000000L
#define PROGRESS_TTY_SECONDS 0.5
#define PROGRESS_LOG_SECONDS 10.0
/* Each process of a step gets this many times its share of the cores (at
 * most all of them) as worker threads. A step's ranks rarely end together
 * (20 files over 16 tasks: 4 tasks have a second file; ranks of unequal
 * bytes): with only its share, a rank left running alone would keep one core
 * busy and the others idle. With more threads than its share, the kernel
 * splits the cores among all threads while every rank runs, and the ranks
 * still running at the end use the cores the others left, until fewer than
 * 1/TAIL_THREADS_FACTOR of the jobs remain. The threads in all, and the
 * per-thread memory, stay within TAIL_THREADS_FACTOR x the cores. */
#define TAIL_THREADS_FACTOR 4

enum { OPT_FAIL_FAST = 0x1000, OPT_STEP, OPT_RANK, OPT_THREADS };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: winnow run [options] PIPELINE\n\n"
            "Runs the pipeline file PIPELINE (docs/pipeline.md) on this machine: the sorted input\n"
            "files split over its tasks (task t takes files t, t+N, ...), per input file\n"
            "ingest and filter in one process (no JSON between them) into the work directory,\n"
            "then global dedup (winnow dedup signatures, buckets, apply), then in each task\n"
            "tokenize and the shard writer in one process over its share of the documents,\n"
            "then the merge of the tasks' shards into one shard directory (renames and one\n"
            "manifest) and a merged stats report (WORK/report.json, WORK/report.txt).\n"
            "Stage options in the file are read by the stages' own option parsers when it is\n"
            "loaded: a bad one stops the run before it starts, naming FILE:LINE. Every\n"
            "finished file, task and step is recorded; after a crash or kill the same command\n"
            "goes on from there and the output is byte-identical to an uninterrupted run.\n\n"
            "options:\n"
            "  -j, --jobs N        tasks run at once (default: 'jobs' from the file, else\n"
            "                      the smaller of tasks and cores)\n"
            "      --threads N     worker threads of each file's and rank's process (default:\n"
            "                      4 x cores / jobs, at least 1, at most the cores, so that the\n"
            "                      ranks still running at a step's end use the cores others left;\n"
            "                      a step of one process, all cores)\n"
            "      --fail-fast     stop at the first input file that fails or crashes (default:\n"
            "                      report it, count it, go on)\n"
            "  -q, --quiet         no progress and no summary on stderr\n"
            "      --step STEP     run only rank --rank of one step (docs, signatures, buckets,\n"
            "      --rank R        apply, shards, merge) and return; what `winnow slurm` array tasks run\n"
            "                      (--rank defaults to $SLURM_ARRAY_TASK_ID)\n"
            "  -h, --help          this help\n"
            "exit status: 0 done, 1 usage or pipeline file error, 2 a step failed\n");
}

/* Live progress of the docs step: files done, docs/s, MB/s, ETA. */
typedef struct {
    const pl_plan *p;
    unsigned char *seen; /* per input: 1 when its unit was done before this run, 2 when done in it */
    int done, failed;
    uint64_t docs, bytes; /* of units done in this run */
    uint64_t bytes_left;
    double started, last_print;
    bool tty, quiet;
} progress;

static bool unit_finished(const pl_plan *p, int i, bool *failed)
{
    char *out = pl_docs_path(p, i), *fail = pl_path(p, "failed/%06d", i);
    bool ok = pl_exists(out);
    *failed = !ok && pl_exists(fail);
    free(out), free(fail);
    return ok || *failed;
}

static void progress_init(progress *g, const pl_plan *p, bool quiet)
{
    memset(g, 0, sizeof *g);
    g->p = p;
    g->quiet = quiet;
    g->tty = isatty(2);
    g->seen = xcalloc((size_t)p->nfiles, 1);
    g->started = g->last_print = now_seconds();
    for (int i = 0; i < p->nfiles; i++) {
        bool failed;
        if (pl_done(p, STEP_DOCS, i % p->cfg.tasks) || unit_finished(p, i, &failed)) {
            g->seen[i] = 1;
            g->done++;
        } else {
            g->bytes_left += p->sizes[i];
        }
    }
}

static void progress_poll(progress *g, bool final)
{
    const pl_plan *p = g->p;
    for (int i = 0; i < p->nfiles; i++) {
        bool failed;
        if (g->seen[i] || !unit_finished(p, i, &failed)) continue;
        g->seen[i] = 2;
        g->done++;
        g->failed += failed;
        g->bytes += p->sizes[i];
        g->bytes_left -= p->sizes[i];
        char *st = pl_path(p, "stats/%06d.ingest.json", i);
        wstats s;
        stats_init(&s);
        double secs;
        if (pl_stats_read(st, &s, &secs)) g->docs += s.out;
        stats_free(&s);
        free(st);
    }
    double now = now_seconds(), elapsed = now - g->started;
    if (g->quiet || (!final && now - g->last_print < (g->tty ? PROGRESS_TTY_SECONDS : PROGRESS_LOG_SECONDS))) return;
    g->last_print = now;
    double rate = elapsed > 0 ? g->bytes / elapsed : 0;
    char eta[32] = "-";
    if (rate > 0) {
        long s = (long)(g->bytes_left / rate);
        snprintf(eta, sizeof eta, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    }
    fprintf(stderr, "%swinnow run: docs %d/%d files, %d failed, %.0f docs/s, %.1f MB/s, ETA %s%s", g->tty ? "\r\033[K" : "",
            g->done, p->nfiles, g->failed, elapsed > 0 ? g->docs / elapsed : 0.0, rate / 1e6, eta,
            g->tty && !final ? "" : "\n");
}

/* Cleans up what killed processes of an earlier run left: temporary files of
 * atomic writes (in the work and output directories) and half-made per-file
 * outputs. Only under the lock. */
static void remove_leftovers(const pl_plan *p)
{
    static const char *const dirs[] = {"docs", "stats", "failed", "done", "dedup-out", "stats/dedup", "rejects",
                                       "rejects/dedup", "dedup", "dedup/sig", "dedup/ids", "dedup/rm", "dedup/done",
                                       "stats/tokenize", "stats/shard", "shards", ""};
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        char *dir = pl_path(p, "%s", dirs[k]);
        output_remove_temporaries(dir);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n < 5 || strcmp(e->d_name + n - 5, ".part")) continue;
            char *path = pl_path(p, "%s/%s", dirs[k], e->d_name);
            unlink(path);
            free(path);
        }
        if (d) closedir(d);
        free(dir);
    }
    output_remove_temporaries(p->cfg.output);
    pl_remove_parts(p, true);
}

/* Takes WORK/lock; exits when another run holds it. The descriptor is
 * inherited by every process of the run (tasks and stage processes alike), so
 * after a kill the lock is free only once the last of them is gone; a new run
 * waits a moment for that. */
static void lock_work(const pl_plan *p)
{
    char *path = pl_path(p, "lock");
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    if (fd < 0) dief(EXIT_FATAL, "cannot open %s: %m", path);
    for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
        if (tries == LOCK_TRIES)
            dief(EXIT_USAGE, "%s is in use by another winnow run (lock %s)", p->cfg.work, path);
        nanosleep(&(struct timespec){0, LOCK_RETRY_NANOSECONDS}, NULL);
    }
    free(path); /* the descriptor stays open: the lock lasts as long as this process */
}

/* Copies a text file to stderr; frees path. */
static void print_file(char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) fputs(line, stderr);
    if (f) fclose(f);
    free(path);
}

typedef struct {
    pid_t pid;
    int rank;
} child;

/* Runs every unfinished rank of step s, `jobs` at a time, in child processes. */
static int run_step(const pl_plan *p, pl_step s, int jobs, const pl_step_opts *o, progress *g)
{
    int ranks = pl_step_ranks(p, s), next = 0, running = 0, status = 0;
    child *kids = xcalloc((size_t)jobs, sizeof *kids);
    pid_t parent = getpid();
    bool stopping = false;
    sigset_t chld, old_mask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old_mask); /* a child's end wakes sigtimedwait below */
    for (;;) {
        while (!stopping && running < jobs && next < ranks) {
            int r = next++;
            if (pl_done(p, s, r)) continue;
            fflush(NULL);
            pid_t pid = fork();
            if (pid < 0) dief(EXIT_FATAL, "fork: %m");
            if (pid == 0) {
                sigprocmask(SIG_SETMASK, &old_mask, NULL);
                prctl(PR_SET_PDEATHSIG, SIGTERM); /* as spawn.c's children: temporaries removed */
                if (getppid() != parent) _exit(EXIT_FATAL);
                free(kids); /* the parent's bookkeeping; not the child's */
                exit(pl_step_run(p, s, r, o));
            }
            for (int k = 0; k < jobs; k++)
                if (!kids[k].pid) {
                    kids[k] = (child){pid, r};
                    break;
                }
            running++;
        }
        if (!running) break;
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        if (pid < 0 && errno != EINTR) dief(EXIT_FATAL, "waitpid: %m");
        if (pid <= 0) {
            if (g) progress_poll(g, false);
            sigtimedwait(&chld, NULL, &(struct timespec){0, POLL_NANOSECONDS});
            continue;
        }
        for (int k = 0; k < jobs; k++) {
            if (kids[k].pid != pid) continue;
            kids[k].pid = 0;
            running--;
            int rc = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : EXIT_FATAL;
            if (rc == 0) break;
            if (!status) status = rc;
            warnf("step %s, rank %d failed%s", pl_step_name(s), kids[k].rank,
                  o->fail_fast ? "; stopping (--fail-fast)" : "");
            if (o->fail_fast && !stopping) {
                stopping = true;
                for (int j = 0; j < jobs; j++)
                    if (kids[j].pid) kill(kids[j].pid, SIGKILL);
            }
        }
    }
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (g) progress_poll(g, true);
    free(kids);
    return status;
}

/* One rank of one step (Slurm array tasks). */
static int run_one(const char *pipeline, const char *step, int rank, const pl_step_opts *o)
{
    int s = pl_step_parse(step);
    if (s < 0) dief(EXIT_USAGE, "--step wants docs, signatures, buckets, apply, shards or merge, not '%s'", step);
    pl_plan p;
    pl_plan_load(pipeline, &p);
    int rc = pl_step_run(&p, (pl_step)s, rank, o);
    pl_plan_free(&p);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, 0, 'j'},         {"threads", required_argument, 0, OPT_THREADS},
        {"fail-fast", no_argument, 0, OPT_FAIL_FAST}, {"quiet", no_argument, 0, 'q'},
        {"step", required_argument, 0, OPT_STEP},     {"rank", required_argument, 0, OPT_RANK},
        {"help", no_argument, 0, 'h'},               {0, 0, 0, 0},
    };
    pl_step_opts o = {0};
    int jobs = 0, rank = -1;
    const char *step = NULL;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "j:qh", longopts, NULL)) != -1) {
        long long v = -1;
        switch (c) {
        case 'h': usage(stdout); return EXIT_OK;
        case 'q': o.quiet = true; break;
        case OPT_FAIL_FAST: o.fail_fast = true; break;
        case OPT_STEP: step = optarg; break;
        case 'j':
        case OPT_THREADS:
        case OPT_RANK:
            v = parse_count(optarg);
            if (v < (c == OPT_RANK ? 0 : 1) || v > (1 << 30))
                dief(EXIT_USAGE, "%s wants a number, not '%s'", c == 'j' ? "--jobs" : c == OPT_RANK ? "--rank" : "--threads", optarg);
            if (c == 'j') jobs = (int)v;
            else if (c == OPT_RANK) rank = (int)v;
            else o.threads = (int)v;
            break;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *pipeline = argv[optind];
    if (step && rank < 0 && getenv("SLURM_ARRAY_TASK_ID")) {
        rank = (int)parse_count(getenv("SLURM_ARRAY_TASK_ID"));
        if (rank < 0) dief(EXIT_USAGE, "SLURM_ARRAY_TASK_ID is not a rank: '%s'", getenv("SLURM_ARRAY_TASK_ID"));
    }
    if (step || rank >= 0) {
        if (!step || rank < 0) dief(EXIT_USAGE, "--step and --rank go together (--rank defaults to $SLURM_ARRAY_TASK_ID)");
        if (!o.threads) o.threads = 1;
        return run_one(pipeline, step, rank, &o);
    }

    pl_plan p;
    pl_plan_load(pipeline, &p);
    lock_work(&p);
    remove_leftovers(&p);
    if (!jobs) jobs = p.cfg.jobs ? p.cfg.jobs : p.cfg.tasks < cpu_count() ? p.cfg.tasks : cpu_count();
    if (jobs > p.cfg.tasks) jobs = p.cfg.tasks;
    bool threads_given = o.threads > 0;
    if (!threads_given) {
        int share = TAIL_THREADS_FACTOR * cpu_count() / jobs;
        o.threads = share < 1 ? 1 : share > cpu_count() ? cpu_count() : share;
    }
    if (!pl_step_unfinished(&p, STEP_MERGE) && !o.quiet) {
        fprintf(stderr, "winnow run: %s is already finished (%s/done/merge.0); its report:\n", pipeline, p.cfg.work);
        print_file(pl_path(&p, "report.txt"));
    }
    /* a vocabulary or [shard] setting that cannot work stops the run now, not after the docs and dedup steps */
    if (p.has_tokenize && pl_step_unfinished(&p, STEP_SHARDS) && pl_shards_check(&p) != 0) {
        warnf("%s: the shards step could not run; nothing was started", pipeline);
        pl_plan_free(&p);
        return EXIT_USAGE;
    }
    progress g;
    progress_init(&g, &p, o.quiet);
    int rc = 0;
    for (int s = 0; s < STEP_COUNT && rc == 0; s++) {
        if (!pl_step_enabled(&p, (pl_step)s)) continue;
        if (!pl_step_unfinished(&p, (pl_step)s)) continue;
        bool one_rank = pl_step_ranks(&p, (pl_step)s) == 1;
        if (one_rank && !threads_given) o.threads = cpu_count(); /* one process: give it every core */
        rc = run_step(&p, (pl_step)s, one_rank ? 1 : jobs, &o, s == STEP_DOCS ? &g : NULL);
        if (rc == 0 && !o.quiet && s != STEP_DOCS && s != STEP_MERGE)
            fprintf(stderr, "winnow run: %s%s done (%.1f s)\n", s == STEP_SHARDS ? "" : "dedup ", pl_step_name((pl_step)s),
                    now_seconds() - g.started);
    }
    if (rc) warnf("stopped; rerun the same command to go on from where it stopped (finished work is kept)");
    free(g.seen);
    pl_plan_free(&p);
    return rc;
}
