/* cmd_slurm.c - `winnow slurm PIPELINE`: the same work as `winnow run`,
 * submitted as Slurm job arrays, one per step, chained with afterok. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/output.h"
#include "core/util.h"
#include "pipeline/plan.h"
#include "pipeline/shards_step.h"
#include "tools/commands.h"

#define JOB_ID_MAX 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: winnow slurm [options] PIPELINE\n\n"
            "Submits the pipeline file PIPELINE (docs/pipeline.md) to Slurm: one job array per\n"
            "step (docs, dedup signatures, buckets, apply, shards, merge), each depending on the one\n"
            "before (--dependency=afterok), each array task running\n"
            "  winnow run --step STEP --rank $SLURM_ARRAY_TASK_ID PIPELINE\n"
            "Ranks whose completion marker exists are left out, so submitting again after a\n"
            "failure runs only what is missing. [slurm] settings become #SBATCH lines of every\n"
            "step; [slurm.STEP] ones (e.g. [slurm.signatures] gres = gpu:1) only of that step,\n"
            "replacing [slurm] lines of the same key (concurrency = N limits each array to N\n"
            "tasks at once: --array=...%%N).\n"
            "The scripts are written to WORK/slurm/STEP.sh, logs to WORK/slurm/logs/.\n\n"
            "options:\n"
            "      --dry-run       print the sbatch commands and scripts, submit nothing\n"
            "      --fail-fast     a failing input file fails its array task (and so the run)\n"
            "  -q, --quiet         print nothing but errors\n"
            "  -h, --help          this help\n");
}

/* True when rank r of step s is to run: no marker; for the merge, also when
 * a shards rank is to run (it needs merging again). */
static bool rank_pending(const pl_plan *p, pl_step s, int r)
{
    return !pl_done(p, s, r) || (s == STEP_MERGE && pl_step_unfinished(p, STEP_SHARDS));
}

/* "0-3,5,7-9" for the unfinished ranks of step s; empty when all are done. */
static void array_spec(const pl_plan *p, pl_step s, wbuf *spec)
{
    int ranks = pl_step_ranks(p, s);
    for (int r = 0; r < ranks; r++) {
        if (!rank_pending(p, s, r)) continue;
        int end = r;
        while (end + 1 < ranks && rank_pending(p, s, end + 1)) end++;
        buf_puts(spec, spec->len ? "," : "");
        if (end > r) buf_printf(spec, "%d-%d", r, end);
        else buf_printf(spec, "%d", r);
        r = end;
    }
}

/* Single quotes for the shell. */
static void put_quoted(wbuf *b, const char *s)
{
    buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'') buf_puts(b, "'\\''");
        else buf_putc(b, *s);
    }
    buf_putc(b, '\'');
}

/* The #SBATCH lines of section sec, except concurrency and the keys of skip. */
static void put_sbatch_lines(wbuf *script, const pl_section *sec, const pl_section *skip)
{
    for (int i = 0; sec && i < sec->n; i++) {
        const pl_option *o = &sec->opts[i];
        bool present = false;
        pl_section_get(skip, o->key, &present);
        if (!strcmp(o->key, "concurrency") || present) continue;
        if (o->value) buf_printf(script, "#SBATCH --%s=%s\n", o->key, o->value);
        else buf_printf(script, "#SBATCH --%s\n", o->key);
    }
}

static void write_script(const pl_plan *p, pl_step s, const char *spec, const char *pipeline_abs, bool fail_fast,
                         wbuf *script)
{
    const pl_section *all = pl_config_section(&p->cfg, "slurm");
    char name[64];
    snprintf(name, sizeof name, "slurm.%s", pl_step_name(s));
    const pl_section *step = pl_config_section(&p->cfg, name); /* adds lines, replaces those of the same key */
    const char *concurrency = pl_section_get(step, "concurrency", NULL);
    if (!concurrency) concurrency = pl_section_get(all, "concurrency", NULL);
    char *logs = pl_path(p, "slurm/logs");
    buf_printf(script, "#!/bin/sh\n#SBATCH --job-name=winnow-%s\n#SBATCH --array=%s", pl_step_name(s), spec);
    if (concurrency) buf_printf(script, "%%%s", concurrency);
    buf_printf(script, "\n#SBATCH --output=%s/%s-%%A_%%a.out\n", logs, pl_step_name(s));
    put_sbatch_lines(script, all, step);
    put_sbatch_lines(script, step, NULL);
    buf_puts(script, "exec ");
    put_quoted(script, p->winnow);
    buf_printf(script, " run --step %s --rank \"$SLURM_ARRAY_TASK_ID\" --threads \"${SLURM_CPUS_PER_TASK:-1}\" %s",
               pl_step_name(s), fail_fast ? "--fail-fast " : "");
    put_quoted(script, pipeline_abs);
    buf_putc(script, '\n');
    free(logs);
}

/* Runs sbatch --parsable and returns the job id it printed (the caller frees). */
static char *submit(const char *script_path, const char *after)
{
    int fd[2];
    if (pipe(fd) != 0) dief(EXIT_FATAL, "pipe: %m");
    char dep[JOB_ID_MAX + 32];
    snprintf(dep, sizeof dep, "--dependency=afterok:%s", after ? after : "");
    char *args[] = {"sbatch", "--parsable", "--kill-on-invalid-dep=yes", after ? dep : NULL, NULL, NULL};
    args[after ? 4 : 3] = (char *)script_path;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) dief(EXIT_FATAL, "fork: %m");
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execvp("sbatch", args);
        fprintf(stderr, "winnow slurm: cannot run sbatch: %s\n", strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    char out[256] = "";
    size_t n = 0;
    ssize_t k;
    while (n + 1 < sizeof out && (k = read(fd[0], out + n, sizeof out - 1 - n)) > 0) n += (size_t)k;
    out[n] = 0;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        dief(EXIT_FATAL, "sbatch %s failed (exit status %d); jobs submitted before it stay queued", script_path,
             WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    out[strcspn(out, ";\n")] = 0; /* "ID" or "ID;cluster" */
    if (!*out) dief(EXIT_FATAL, "sbatch %s printed no job id", script_path);
    return xstrdup(out);
}

int cmd_slurm(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dry-run", no_argument, 0, 'n'}, {"fail-fast", no_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},    {0, 0, 0, 0}};
    bool dry_run = false, quiet = false, fail_fast = false;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return EXIT_OK;
        }
        if (c == 'n') dry_run = true;
        else if (c == 'f') fail_fast = true;
        else if (c == 'q') quiet = true;
        else {
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    char *pipeline_abs = realpath(argv[optind], NULL);
    if (!pipeline_abs) dief(EXIT_USAGE, "%s: %m", argv[optind]);
    pl_plan p;
    pl_plan_load(pipeline_abs, &p);
    if (p.has_tokenize && pl_step_unfinished(&p, STEP_SHARDS) && pl_shards_check(&p) != 0) /* before any job */
        dief(EXIT_USAGE, "%s: the shards step could not run; nothing was submitted", argv[optind]);
    char *dir = pl_path(&p, "slurm/logs");
    pl_mkdirs(dir);
    free(dir);
    char *after = NULL;
    int submitted = 0;
    for (int s = 0; s < STEP_COUNT; s++) {
        if (!pl_step_enabled(&p, (pl_step)s)) continue;
        wbuf spec = WBUF_INIT, script = WBUF_INIT;
        array_spec(&p, (pl_step)s, &spec);
        if (!spec.len) continue;
        write_script(&p, (pl_step)s, spec.data, pipeline_abs, fail_fast, &script);
        char *path = pl_path(&p, "slurm/%s.sh", pl_step_name((pl_step)s));
        woutput *o = output_open(path, 0);
        output_write(o, script.data, script.len);
        output_close(o);
        if (dry_run) {
            char placeholder[JOB_ID_MAX];
            printf("# sbatch --parsable --kill-on-invalid-dep=yes%s%s %s\n%s\n", after ? " --dependency=afterok:" : "",
                   after ? after : "", path, script.data);
            snprintf(placeholder, sizeof placeholder, "<%s job id>", pl_step_name((pl_step)s));
            free(after);
            after = xstrdup(placeholder);
        } else {
            char *id = submit(path, after);
            if (!quiet) printf("winnow slurm: %s: job %s, array %s\n", pl_step_name((pl_step)s), id, spec.data);
            free(after);
            after = id;
        }
        submitted++;
        free(path);
        buf_free(&spec);
        buf_free(&script);
    }
    if (!submitted && !quiet) printf("winnow slurm: nothing to submit: every step of %s is finished\n", argv[optind]);
    free(after);
    free(pipeline_abs);
    pl_plan_free(&p);
    return EXIT_OK;
}
