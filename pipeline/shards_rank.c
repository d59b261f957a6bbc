/* shards_rank.c - the shards step in ranks; the merge step. */
#include "pipeline/shards_rank.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/output.h"
#include "core/util.h"
#include "pipeline/report.h"
#include "pipeline/shards_step.h"
#include "shards/shard_format.h"
#include "shards/shard_parts.h"

#define MESSAGE_MAX 1024
#define PARTS_DIR "parts"
#define PART_NAME "%05d"
#define HOST_MAX 256

/* OUTPUT/parts (rank < 0), or OUTPUT/parts/RRRRR followed by suffix; the caller frees. */
static char *parts_path(const pl_plan *p, int rank, const char *suffix)
{
    char *path;
    int rc = rank < 0 ? asprintf(&path, "%s/" PARTS_DIR, p->cfg.output)
                      : asprintf(&path, "%s/" PARTS_DIR "/" PART_NAME "%s", p->cfg.output, rank, suffix);
    if (rc < 0) dief(EXIT_FATAL, "out of memory");
    return path;
}

void pl_shards_share(const pl_plan *p, int rank, pl_argv *a)
{
    int n = 0;
    char **paths = xcalloc((size_t)(p->nfiles ? p->nfiles : 1), sizeof *paths);
    uint64_t *sizes = xcalloc((size_t)(p->nfiles ? p->nfiles : 1), sizeof *sizes), total = 0;
    for (int i = 0; i < p->nfiles; i++) {
        char *path = pl_final_docs_path(p, i);
        struct stat st;
        if (stat(path, &st) != 0) {
            free(path);
            continue;
        }
        paths[n] = path;
        sizes[n] = (uint64_t)st.st_size;
        total += sizes[n++];
    }
    uint64_t before = 0, ranks = (uint64_t)pl_step_ranks(p, STEP_SHARDS);
    uint64_t share = total / ranks + 1; /* bytes a rank's run of files starts within */
    for (int i = 0; i < n; i++) {
        uint64_t owner = before / share;
        if (owner == (uint64_t)rank) pl_argv_push(a, paths[i]);
        before += sizes[i];
        free(paths[i]);
    }
    free(paths);
    free(sizes);
}

/* Removes dir and the files in it (a part holds no directories). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *path;
        if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) dief(EXIT_FATAL, "out of memory");
        if (unlink(path) != 0 && errno != ENOENT) warnf("cannot remove %s: %m", path);
        free(path);
    }
    if (d) closedir(d);
    if (rmdir(dir) != 0 && errno != ENOENT) warnf("cannot remove %s: %m", dir);
}

void pl_remove_parts(const pl_plan *p, bool temporaries_only)
{
    char *dir = parts_path(p, -1, "");
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (temporaries_only && !strstr(e->d_name, ".tmp.")) continue;
        char *path;
        if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) dief(EXIT_FATAL, "out of memory");
        remove_dir(path);
        free(path);
    }
    if (d) closedir(d);
    if (!temporaries_only && rmdir(dir) != 0 && errno != ENOENT) warnf("cannot remove %s: %m", dir);
    free(dir);
}

/* The child process of a shards rank: tokenize and shard in-process. */
static int shards_main(void *arg)
{
    winnow_prog = "winnow run (tokenize | shard)";
    return pl_shards_run(arg);
}

/* Renames the finished part tmp to its name, or finds the work done: a part
 * with the same manifest there already (another copy of this rank, or an
 * earlier run killed before its marker). A different part there (a run of
 * other settings into the same output) is replaced. Returns 0, or -1 with
 * errno. */
static int publish_part(const char *tmp, const char *final, const char *manifest)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (rename(tmp, final) == 0) return 0;
        if (errno != EEXIST && errno != ENOTEMPTY) return -1;
        char *theirs_path;
        if (asprintf(&theirs_path, "%s/" SHARD_MANIFEST, final) < 0) dief(EXIT_FATAL, "out of memory");
        char *theirs = read_file(theirs_path, NULL);
        free(theirs_path);
        bool same = theirs && !strcmp(theirs, manifest);
        free(theirs);
        if (same) {
            remove_dir(tmp);
            return 0;
        }
        char *aside;
        if (asprintf(&aside, "%s.tmp.replaced.%ld", final, (long)getpid()) < 0) dief(EXIT_FATAL, "out of memory");
        if (rename(final, aside) == 0) remove_dir(aside);
        free(aside);
    }
    errno = EEXIST;
    return -1;
}

int pl_shards_rank_run(const pl_plan *p, int rank, int threads)
{
    /* An earlier run's manifest must not make the output look finished while
     * the parts change; the merge writes the new one. */
    char *manifest = NULL;
    if (asprintf(&manifest, "%s/" SHARD_MANIFEST, p->cfg.output) < 0) dief(EXIT_FATAL, "out of memory");
    if (unlink(manifest) != 0 && errno != ENOENT) warnf("cannot remove %s: %m", manifest);
    free(manifest);
    pl_unmark_done(p, STEP_MERGE, 0);

    char host[HOST_MAX] = "host";
    gethostname(host, sizeof host - 1);
    char unique[HOST_MAX + 32];
    snprintf(unique, sizeof unique, ".tmp.%s.%ld", host, (long)getpid());
    char *dir = parts_path(p, -1, ""), *tmp = parts_path(p, rank, unique), *final = parts_path(p, rank, "");
    pl_mkdirs(dir);
    pl_argv inputs = {0};
    pl_shards_share(p, rank, &inputs);
    char *tstats = pl_path(p, "stats/tokenize/" PART_NAME ".json", rank);
    char *sstats = pl_path(p, "stats/shard/" PART_NAME ".json", rank);
    char *log = pl_path(p, "logs/shards.%d.log", rank);
    pl_shards_work work = {p, inputs.argv, inputs.argc, threads, tmp, tstats, sstats};
    char why[MESSAGE_MAX], last[MESSAGE_MAX];
    int rc = pl_run_call(shards_main, &work, "tokenize | shard", log, why, sizeof why, last, sizeof last);
    char *part_manifest = NULL;
    if (rc == 0) {
        char *path;
        if (asprintf(&path, "%s/" SHARD_MANIFEST, tmp) < 0) dief(EXIT_FATAL, "out of memory");
        part_manifest = read_file(path, NULL);
        if (!part_manifest) {
            snprintf(why, sizeof why, "no manifest in %s", tmp);
            snprintf(last, sizeof last, "%s", strerror(errno));
            rc = 1;
        }
        free(path);
    }
    if (rc == 0) {
        char *kept = pl_path(p, "shards/" PART_NAME ".json", rank);
        woutput *o = output_open(kept, 0);
        output_write(o, part_manifest, strlen(part_manifest));
        output_close(o);
        free(kept);
        if (publish_part(tmp, final, part_manifest) != 0) {
            snprintf(why, sizeof why, "cannot rename %s to %s", tmp, final);
            snprintf(last, sizeof last, "%s", strerror(errno));
            rc = 1;
        }
    }
    if (rc) remove_dir(tmp);
    if (rc && pl_done(p, STEP_SHARDS, rank)) {
        /* another copy of this rank finished first, and the merge may have
         * removed this one's temporary part under it: the work is done */
        warnf("shards rank %d: another copy finished it (this one stopped: %s)", rank, why);
        rc = 0;
    } else if (rc) {
        warnf("tokenize | shard of rank %d failed: %s%s%s (log: %s)", rank, why, *last ? ": " : "", last, log);
    } else {
        pl_mark_done(p, STEP_SHARDS, rank, "ok\n");
    }
    free(part_manifest);
    pl_argv_free(&inputs);
    free(dir), free(tmp), free(final), free(tstats), free(sstats), free(log);
    return rc ? EXIT_FATAL : 0;
}

/* Every part into OUTPUT. Returns 0 or 2. */
static int merge_parts(const pl_plan *p)
{
    int n = pl_step_ranks(p, STEP_SHARDS), rc = 0;
    shard_manifest *ms = xcalloc((size_t)n, sizeof *ms);
    shard_part *parts = xcalloc((size_t)n, sizeof *parts);
    char err[PATH_MAX + MESSAGE_MAX];
    int loaded = 0;
    for (; loaded < n && rc == 0; loaded++) {
        char *path = pl_path(p, "shards/" PART_NAME ".json", loaded);
        size_t len;
        char *text = read_file(path, &len);
        if (!text) {
            warnf("cannot read %s: %m (remove %s/done/shards.%d and rerun)", path, p->cfg.work, loaded);
            rc = EXIT_FATAL;
        } else if (manifest_parse(text, len, &ms[loaded], err, sizeof err) != 0) {
            warnf("%s: %s (remove %s/done/shards.%d and rerun)", path, err, p->cfg.work, loaded);
            rc = EXIT_FATAL;
        }
        free(text);
        free(path);
        parts[loaded] = (shard_part){parts_path(p, loaded, ""), &ms[loaded]};
    }
    if (rc == 0 && shard_parts_merge(p->cfg.output, parts, n, err, sizeof err) != 0) {
        warnf("merging the shards: %s", err);
        rc = EXIT_FATAL;
    }
    if (rc == 0) pl_remove_parts(p, false);
    for (int k = 0; k < loaded; k++) {
        manifest_free(&ms[k]);
        free((char *)parts[k].dir);
    }
    free(ms);
    free(parts);
    return rc;
}

int pl_merge_run(const pl_plan *p, bool quiet)
{
    if (p->has_tokenize) {
        int rc = merge_parts(p);
        if (rc) return rc;
    }
    pl_report_write(p, !quiet);
    pl_mark_done(p, STEP_MERGE, 0, "ok\n");
    return 0;
}
