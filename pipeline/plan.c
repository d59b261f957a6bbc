/* plan.c - the input list, the work directory layout and the plan check. */
#include "pipeline/plan.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/inputs.h"
#include "core/output.h"
#include "core/util.h"

#define PLAN_MAGIC "winnow-pipeline-plan 1"

static const char *const step_names[STEP_COUNT] = {"docs", "signatures", "buckets", "apply", "shards",
                                                          "merge"};

const char *pl_step_name(pl_step s) { return step_names[s]; }

int pl_step_parse(const char *name)
{
    for (int i = 0; i < STEP_COUNT; i++)
        if (!strcmp(name, step_names[i])) return i;
    return -1;
}

bool pl_step_enabled(const pl_plan *p, pl_step s)
{
    if (s == STEP_SIGNATURES || s == STEP_BUCKETS || s == STEP_APPLY) return p->has_dedup;
    return true;
}

int pl_step_ranks(const pl_plan *p, pl_step s)
{
    if (s == STEP_MERGE || (s == STEP_SHARDS && !p->has_tokenize)) return 1;
    return p->cfg.tasks;
}

bool pl_step_unfinished(const pl_plan *p, pl_step s)
{
    if (!pl_step_enabled(p, s)) return false;
    for (int r = 0; r < pl_step_ranks(p, s); r++)
        if (!pl_done(p, s, r)) return true;
    return s == STEP_MERGE && pl_step_unfinished(p, STEP_SHARDS);
}

char *pl_path(const pl_plan *p, const char *fmt, ...)
{
    wbuf b = WBUF_INIT;
    buf_puts(&b, p->cfg.work);
    buf_putc(&b, '/');
    va_list ap;
    va_start(ap, fmt);
    char *rel;
    if (vasprintf(&rel, fmt, ap) < 0) dief(EXIT_FATAL, "out of memory");
    va_end(ap);
    buf_puts(&b, rel);
    free(rel);
    return b.data;
}

char *pl_docs_path(const pl_plan *p, int i)
{
    return pl_path(p, "docs/%06d.jsonl%s", i, p->cfg.compress ? ".zst" : "");
}

char *pl_final_docs_path(const pl_plan *p, int i)
{
    if (!p->has_dedup) return pl_docs_path(p, i);
    return pl_path(p, "dedup-out/%06d.jsonl%s", i, p->cfg.compress ? ".zst" : "");
}

bool pl_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void pl_mkdirs(const char *path)
{
    char *copy = xstrdup(path);
    for (char *s = copy + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = 0;
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) dief(EXIT_FATAL, "cannot create directory %s: %m", copy);
        *s = c;
        if (!c) break;
    }
    free(copy);
}

bool pl_done(const pl_plan *p, pl_step s, int rank)
{
    char *path = pl_path(p, "done/%s.%d", step_names[s], rank);
    bool done = pl_exists(path);
    free(path);
    return done;
}

void pl_mark_done(const pl_plan *p, pl_step s, int rank, const char *note)
{
    char *path = pl_path(p, "done/%s.%d", step_names[s], rank);
    woutput *o = output_open(path, 0);
    output_write(o, note, strlen(note));
    output_close(o);
    free(path);
}

void pl_unmark_done(const pl_plan *p, pl_step s, int rank)
{
    char *path = pl_path(p, "done/%s.%d", step_names[s], rank);
    if (unlink(path) != 0 && errno != ENOENT) dief(EXIT_FATAL, "cannot remove %s: %m", path);
    free(path);
}

static int compare_paths(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Adds path to p's files. */
static void add_file(pl_plan *p, int *cap, const char *path)
{
    if (p->nfiles == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        p->files = xrealloc(p->files, (size_t)*cap * sizeof *p->files);
    }
    p->files[p->nfiles++] = xstrdup(path);
}

/* Expands every input pattern; the union, sorted, without repeats; only
 * regular files: a directory matched gives every regular file under it
 * (core/inputs.h: what a stage given that directory reads). */
static void expand_inputs(pl_plan *p)
{
    int cap = 0;
    for (int g = 0; g < p->cfg.nglobs; g++) {
        glob_t gl;
        int rc = glob(p->cfg.globs[g], 0, NULL, &gl);
        if (rc == GLOB_NOMATCH) {
            warnf("input %s matches no file", p->cfg.globs[g]);
            continue;
        }
        if (rc != 0) dief(EXIT_FATAL, "input %s: cannot expand the pattern", p->cfg.globs[g]);
        for (size_t i = 0; i < gl.gl_pathc; i++) {
            struct stat st;
            if (stat(gl.gl_pathv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
                input_list under;
                inputs_expand(&under, &gl.gl_pathv[i], 1); /* warns of what it skips */
                for (int k = 0; k < under.nfiles; k++) add_file(p, &cap, under.files[k]);
                inputs_free(&under);
                continue;
            }
            if (stat(gl.gl_pathv[i], &st) != 0 || !S_ISREG(st.st_mode)) {
                if (stat(gl.gl_pathv[i], &st) == 0) /* a FIFO or device would block */
                    warnf("input %s: not a regular file (a FIFO, device or socket); skipped", gl.gl_pathv[i]);
                continue;
            }
            add_file(p, &cap, gl.gl_pathv[i]);
        }
        globfree(&gl);
    }
    if (p->nfiles > 1) qsort(p->files, (size_t)p->nfiles, sizeof *p->files, compare_paths); /* (NULL when none) */
    int n = 0;
    for (int i = 0; i < p->nfiles; i++) {
        if (n && !strcmp(p->files[n - 1], p->files[i])) free(p->files[i]);
        else p->files[n++] = p->files[i];
    }
    p->nfiles = n;
    p->sizes = xcalloc((size_t)(n ? n : 1), sizeof *p->sizes);
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(p->files[i], &st) == 0) p->sizes[i] = (uint64_t)st.st_size;
    }
}

/* The text WORK/plan holds for this run. */
static void plan_text(const pl_plan *p, wbuf *b)
{
    buf_printf(b, "%s\ntasks %d\ncompress %d\nfiles %d\n", PLAN_MAGIC, p->cfg.tasks, p->cfg.compress, p->nfiles);
    for (int i = 0; i < p->nfiles; i++) buf_printf(b, "%s\n", p->files[i]);
}

/* Replaces the expanded input list with the one in plan text (the run's own). */
static void take_plan_files(pl_plan *p, char *text)
{
    for (int i = 0; i < p->nfiles; i++) free(p->files[i]);
    free(p->files);
    free(p->sizes);
    int n = 0;
    char *list = strstr(text, "\nfiles ");
    if (!list || sscanf(list, "\nfiles %d", &n) != 1 || n < 0) dief(EXIT_USAGE, "%s/plan is damaged; remove %s to start over", p->cfg.work, p->cfg.work);
    p->files = xcalloc((size_t)(n ? n : 1), sizeof *p->files);
    p->sizes = xcalloc((size_t)(n ? n : 1), sizeof *p->sizes);
    char *line = strchr(list + 1, '\n');
    for (int i = 0; i < n; i++) {
        char *end = line ? strchr(line + 1, '\n') : NULL;
        if (!end) dief(EXIT_USAGE, "%s/plan is damaged; remove %s to start over", p->cfg.work, p->cfg.work);
        *end = 0;
        p->files[i] = xstrdup(line + 1);
        struct stat st;
        if (stat(p->files[i], &st) == 0) p->sizes[i] = (uint64_t)st.st_size;
        line = end;
    }
    p->nfiles = n;
}

/* Compares WORK/plan with this run (writing it when absent): the task count
 * must be the same; the plan's input list is the run's, whatever the
 * patterns match now (files that vanished fail as inputs; new ones wait for
 * another run). */
static void check_plan(pl_plan *p)
{
    wbuf want = WBUF_INIT;
    plan_text(p, &want);
    char *path = pl_path(p, "plan");
    char *have = read_file(path, NULL);
    if (!have) {
        if (!p->nfiles) dief(EXIT_USAGE, "%s: the input patterns match no file", p->cfg.path);
        woutput *o = output_open(path, 0);
        output_write(o, want.data, want.len);
        output_close(o);
    } else if (strcmp(have, want.data) != 0) {
        int tasks = -1, compress = -1;
        if (sscanf(have, PLAN_MAGIC "\ntasks %d\ncompress %d", &tasks, &compress) != 2)
            dief(EXIT_USAGE, "%s is not a winnow pipeline plan; remove %s to start over", path, p->cfg.work);
        if (tasks != p->cfg.tasks)
            dief(EXIT_USAGE,
                 "%s: this work directory belongs to a run started with tasks = %d, and %s now says tasks = %d. "
                 "Changing the task count of a started run would split the files differently: set tasks = %d to "
                 "finish it, or remove %s to start over",
                 p->cfg.work, tasks, p->cfg.path, p->cfg.tasks, tasks, p->cfg.work);
        if (compress != p->cfg.compress)
            dief(EXIT_USAGE, "%s: this work directory belongs to a run started with compress = %s; set it back, or remove %s to start over",
                 p->cfg.work, compress ? "true" : "false", p->cfg.work);
        warnf("the input patterns now match other files than when %s was started; this run goes on with its own "
              "list of %s (new files need a new work directory)", p->cfg.work, path);
        take_plan_files(p, have);
    }
    free(have);
    free(path);
    buf_free(&want);
}

void pl_plan_load(const char *pipeline_path, pl_plan *p)
{
    memset(p, 0, sizeof *p);
    char err[PATH_MAX + 256];
    if (pl_config_load(pipeline_path, &p->cfg, err, sizeof err) != 0) dief(EXIT_USAGE, "%s", err);
    if (pl_stage_options_read(&p->cfg, &p->stages, err, sizeof err) != 0) dief(EXIT_USAGE, "%s", err);
    p->has_filter = pl_config_section(&p->cfg, "filter") != NULL;
    p->has_dedup = pl_config_section(&p->cfg, "dedup") != NULL;
    p->has_tokenize = pl_config_section(&p->cfg, "tokenize") != NULL;
    /* [tokenize] alone writes shards with the writer's defaults (shards_step.c) */
    if (!p->has_tokenize && pl_config_section(&p->cfg, "shard"))
        dief(EXIT_USAGE, "%s: [shard] needs [tokenize] (it writes the tokens [tokenize] makes)", pipeline_path);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) dief(EXIT_FATAL, "cannot find the winnow binary (/proc/self/exe): %m");
    exe[n] = 0;
    p->winnow = xstrdup(exe);
    expand_inputs(p);
    static const char *const dirs[] = {"", "docs", "stats", "failed", "logs", "done", "dedup", "dedup-out", "rejects",
                                       "shards", "stats/tokenize", "stats/shard"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char *d = pl_path(p, "%s", dirs[i]);
        pl_mkdirs(d);
        free(d);
    }
    check_plan(p);
}

void pl_plan_free(pl_plan *p)
{
    for (int i = 0; i < p->nfiles; i++) free(p->files[i]);
    free(p->files);
    free(p->sizes);
    free(p->winnow);
    pl_stage_options_free(&p->stages);
    pl_config_free(&p->cfg);
}
