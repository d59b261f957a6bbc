/* config.c - reading the pipeline description file. */
#include "pipeline/config.h"

#include <ctype.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "filter/config.h"

#define MAX_TASKS 1000000
/* The UTF-8 byte order mark some editors put first: not part of the first line's key. */
#define UTF8_BOM "\xef\xbb\xbf"

/* Options the pipeline sets itself; a stage section may not set them. */
static const char *const reserved_keys[] = {"output", "o", "stats", "rejects", "jobs", "j", "quiet", "q",
                                            "zstd", "z", "work", "rank", "world-size", "format", "help"};

/* Stage options that name a file: a relative one starts at the pipeline
 * file's directory, as input, work and output do, so that the file means the
 * same from any working directory (a Slurm task's too). classifier is
 * NAME=FILE; the rest are the file alone. */
static const struct {
    const char *section, *key;
} file_options[] = {{"filter", "config"},  {"filter", "url-blocklist"}, {"filter", "badwords"},
                    {"filter", "classifier"}, {"tokenize", "vocab"},      {"shard", "vocab"}};

/* Top-level keys of one value: a second line for one is refused, since which
 * of the two was meant is a guess (Python's configparser refuses any repeated
 * key so); input is the repeatable one. */
static const char *const single_keys[] = {"work", "output", "tasks", "jobs", "compress", "rejects"};
#define SINGLE_KEYS (sizeof single_keys / sizeof *single_keys)

static const char *const known_sections[] = {"pipeline", "ingest", "filter", "dedup", "tokenize", "shard", "slurm"};

/* [slurm.STEP]: sbatch settings of one step (the steps of pipeline/plan.h). */
#define SLURM_STEP_PREFIX "slurm."
static const char *const slurm_steps[] = {"docs", "signatures", "buckets", "apply", "shards", "merge"};

/* path made absolute against dir (unless it already is). */
static char *absolute(const char *dir, const char *path)
{
    if (path[0] == '/') return xstrdup(path);
    size_t n = strlen(dir) + strlen(path) + 2;
    char *r = xmalloc(n);
    snprintf(r, n, "%s/%s", dir, path);
    return r;
}

/* value of option key in section with a relative file in it made absolute
 * against dir (file_options), newly allocated; NULL when it names no relative file. */
static char *file_option_value(const char *dir, const char *section, const char *key, const char *value)
{
    for (size_t i = 0; value && i < sizeof file_options / sizeof *file_options; i++) {
        if (strcmp(section, file_options[i].section) || !option_name_equal(key, file_options[i].key)) continue;
        const char *file = value;
        if (!strcmp(file_options[i].key, "classifier")) {
            const char *eq = strchr(value, '=');
            if (!eq) return NULL; /* the filter names what is wrong */
            for (file = eq + 1; *file == ' ' || *file == '\t'; file++) {}
        }
        if (!*file || file[0] == '/') return NULL;
        char *path = absolute(dir, file);
        size_t lead = (size_t)(file - value), n = lead + strlen(path) + 1;
        char *r = xmalloc(n);
        snprintf(r, n, "%.*s%s", (int)lead, value, path);
        free(path);
        return r;
    }
    return NULL;
}

static pl_section *add_section(pl_config *c, const char *name)
{
    c->sections = xrealloc(c->sections, (size_t)(c->nsections + 1) * sizeof *c->sections);
    pl_section *s = &c->sections[c->nsections++];
    memset(s, 0, sizeof *s);
    s->name = xstrdup(name);
    return s;
}

static void add_option(pl_section *s, const char *key, const char *value, int line)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->opts = xrealloc(s->opts, (size_t)s->cap * sizeof *s->opts);
    }
    s->opts[s->n++] = (pl_option){xstrdup(key), value ? xstrdup(value) : NULL, line};
}

/* The option of s named key ('_' or '-' alike), or NULL. */
static const pl_option *find_option(const pl_section *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (option_name_equal(s->opts[i].key, key)) return &s->opts[i];
    return NULL;
}

/* Applies one key of the [pipeline] part. */
static int set_run_key(pl_config *c, const char *key, const char *value, const char *where, char *err, size_t errlen)
{
    if (!value || !*value) return fail_msg(err, errlen, "%s: '%s' needs a value", where, key);
    if (!strcmp(key, "input")) {
        c->globs = xrealloc(c->globs, (size_t)(c->nglobs + 1) * sizeof *c->globs);
        c->globs[c->nglobs++] = absolute(c->base_dir, value);
    } else if (!strcmp(key, "work")) {
        free(c->work);
        c->work = absolute(c->base_dir, value);
    } else if (!strcmp(key, "output")) {
        free(c->output);
        c->output = absolute(c->base_dir, value);
    } else if (!strcmp(key, "tasks") || !strcmp(key, "jobs")) {
        long long v = parse_count(value);
        if (v < 1 || v > MAX_TASKS) return fail_msg(err, errlen, "%s: %s wants a number from 1 to %d, not '%s'", where, key, MAX_TASKS, value);
        if (key[0] == 't') c->tasks = (int)v;
        else c->jobs = (int)v;
    } else if (!strcmp(key, "compress") || !strcmp(key, "rejects")) {
        bool *flag = key[0] == 'c' ? &c->compress : &c->rejects;
        if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "1")) *flag = true;
        else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0")) *flag = false;
        else return fail_msg(err, errlen, "%s: %s wants true or false, not '%s'", where, key, value);
    } else {
        return fail_msg(err, errlen, "%s: unknown key '%s' (input, work, output, tasks, jobs, compress, rejects)", where, key);
    }
    return 0;
}

/* Refuses a top-level key of one value met again (at line) when first_line
 * holds the line of its first time; else notes that line there. */
static int check_once(const char *key, int line, int *first_line, const char *where, char *err, size_t errlen)
{
    for (size_t i = 0; i < SINGLE_KEYS; i++) {
        if (strcmp(key, single_keys[i])) continue;
        if (first_line[i]) return fail_msg(err, errlen, "%s: '%s' is given twice (first at line %d)", where, key, first_line[i]);
        first_line[i] = line;
    }
    return 0;
}

/* Whether section name holds sbatch settings ([slurm], [slurm.STEP]). */
static bool slurm_section(const char *name) { return !strncmp(name, "slurm", strlen("slurm")); }

/* Refuses a [slurm] or [slurm.STEP] line winnow slurm cannot honour: a
 * concurrency that is not a plain number (it becomes --array=0-N%CONCURRENCY),
 * or none; an array of the user's (a second --array line would replace the
 * one that runs a task per rank). */
static int check_slurm_key(const char *section, const char *key, const char *value, const char *where, char *err,
                           size_t errlen)
{
    if (!strcmp(key, "array"))
        return fail_msg(err, errlen, "%s: [%s] array is set by winnow slurm (a task per rank; concurrency = N limits how many run at once)",
                        where, section);
    if (strcmp(key, "concurrency")) return 0;
    long long v = value && strspn(value, "0123456789") == strlen(value) ? parse_count(value) : -1;
    if (v < 1 || v > MAX_TASKS)
        return fail_msg(err, errlen, "%s: [%s] concurrency wants a number from 1 to %d, not '%s'", where, section,
                        MAX_TASKS, value ? value : "");
    return 0;
}

static bool known_section(const char *name)
{
    for (size_t i = 0; i < sizeof known_sections / sizeof *known_sections; i++)
        if (!strcmp(name, known_sections[i])) return true;
    if (strncmp(name, SLURM_STEP_PREFIX, strlen(SLURM_STEP_PREFIX))) return false;
    for (size_t i = 0; i < sizeof slurm_steps / sizeof *slurm_steps; i++)
        if (!strcmp(name + strlen(SLURM_STEP_PREFIX), slurm_steps[i])) return true;
    return false;
}

/* pl_config_load without the cleanup on failure. */
static int load_into(const char *path, pl_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->compress = true;
    c->path = xstrdup(path);
    char *copy = xstrdup(path), resolved[PATH_MAX];
    const char *dir = dirname(copy);
    c->base_dir = xstrdup(realpath(dir, resolved) ? resolved : dir);
    free(copy);

    FILE *f = fopen(path, "r");
    if (!f) return fail_msg(err, errlen, "%s: cannot open: %m", path);
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0, single_line[SINGLE_KEYS] = {0};
    bool pipeline_header = false;
    pl_section *cur = NULL; /* NULL: the [pipeline] part */
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, f)) != -1) {
        lineno++;
        char where[PATH_MAX + 32];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (memchr(line, 0, (size_t)len)) {
            rc = fail_msg(err, errlen, "%s: a NUL byte; not a text file?", where);
            break;
        }
        char *text = line;
        if (lineno == 1 && !strncmp(text, UTF8_BOM, strlen(UTF8_BOM))) text += strlen(UTF8_BOM);
        cut_comment(text, "#;"); /* a comment: # or ; at the line's start or after a space or tab */
        char *s = trim_space(text);
        if (!*s) continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close || *trim_space(close + 1)) {
                rc = fail_msg(err, errlen, "%s: a section header is [name]", where);
                break;
            }
            *close = 0;
            char *name = trim_space(s + 1);
            if (!known_section(name)) {
                rc = fail_msg(err, errlen, "%s: unknown section [%s] (pipeline, ingest, filter, dedup, tokenize, shard, slurm, "
                          "slurm.STEP for STEP docs, signatures, buckets, apply, shards or merge)", where, name);
                break;
            }
            bool pipeline = !strcmp(name, "pipeline");
            if (pipeline ? pipeline_header : pl_config_section(c, name) != NULL) {
                rc = fail_msg(err, errlen, "%s: section [%s] appears twice", where, name);
                break;
            }
            pipeline_header |= pipeline;
            cur = pipeline ? NULL : add_section(c, name);
            continue;
        }
        char *eq = strchr(s, '='), *value = NULL;
        if (eq) {
            *eq = 0;
            value = trim_space(eq + 1);
        }
        char *key = trim_space(s);
        if (!*key || strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(key)) {
            rc = fail_msg(err, errlen, "%s: '%s' is not a key (lower-case letters, digits, '-', '_')", where, key);
            break;
        }
        if (!cur) {
            rc = check_once(key, lineno, single_line, where, err, errlen);
            if (!rc) rc = set_run_key(c, key, value, where, err, errlen);
            continue;
        }
        if (slurm_section(cur->name)) rc = check_slurm_key(cur->name, key, value, where, err, errlen);
        for (size_t k = 0; k < sizeof reserved_keys / sizeof *reserved_keys; k++)
            if (!slurm_section(cur->name) && !strcmp(key, reserved_keys[k]))
                rc = fail_msg(err, errlen, "%s: [%s] %s is set by the pipeline itself", where, cur->name, key);
        const pl_option *before = find_option(cur, key); /* last-wins would hide a mistake */
        if (before && !(strcmp(cur->name, "filter") == 0 && filter_config_repeatable(key)))
            rc = fail_msg(err, errlen, "%s: [%s] '%s' is given twice (first at line %d)", where, cur->name, key,
                          before->line);
        char *file_value = file_option_value(c->base_dir, cur->name, key, value);
        add_option(cur, key, file_value ? file_value : value, lineno);
        free(file_value);
    }
    if (!rc && ferror(f)) rc = fail_msg(err, errlen, "%s: cannot read: %m", path);
    free(line);
    fclose(f);
    if (rc) return rc;
    if (!c->nglobs) return fail_msg(err, errlen, "%s: no 'input =' line", path);
    if (!c->work) return fail_msg(err, errlen, "%s: no 'work =' line (the work directory)", path);
    if (!c->output) return fail_msg(err, errlen, "%s: no 'output =' line (the output directory)", path);
    if (!c->tasks) c->tasks = 1;
    return 0;
}

int pl_config_load(const char *path, pl_config *c, char *err, size_t errlen)
{
    int rc = load_into(path, c, err, errlen);
    if (rc) pl_config_free(c); /* nothing half-read is left to the caller */
    return rc;
}

const pl_section *pl_config_section(const pl_config *c, const char *name)
{
    for (int i = 0; i < c->nsections; i++)
        if (!strcmp(c->sections[i].name, name)) return &c->sections[i];
    return NULL;
}

const char *pl_section_get(const pl_section *s, const char *key, bool *present)
{
    if (present) *present = false;
    if (!s) return NULL;
    for (int i = s->n - 1; i >= 0; i--)
        if (!strcmp(s->opts[i].key, key)) {
            if (present) *present = true;
            return s->opts[i].value;
        }
    return NULL;
}

void pl_config_free(pl_config *c)
{
    for (int i = 0; i < c->nsections; i++) {
        for (int j = 0; j < c->sections[i].n; j++) {
            free(c->sections[i].opts[j].key);
            free(c->sections[i].opts[j].value);
        }
        free(c->sections[i].opts);
        free(c->sections[i].name);
    }
    free(c->sections);
    for (int i = 0; i < c->nglobs; i++) free(c->globs[i]);
    free(c->globs);
    free(c->work);
    free(c->output);
    free(c->path);
    free(c->base_dir);
    memset(c, 0, sizeof *c);
}
