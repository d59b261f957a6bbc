/* inputs.c - the inputs a command is given, as the files it reads (inputs.h). */
#include "inputs.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "util.h"

static void add_entry(input_list *l, const char *path, const char *failure)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->entries = xrealloc(l->entries, (size_t)l->cap * sizeof *l->entries);
    }
    l->entries[l->n++] = (input_entry){xstrdup(path), failure};
    if (!failure) l->nfiles++;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* True when path (followed through symlinks) is a regular file or a
 * directory, or does not exist (opening it then fails and says so). */
static bool regular_or_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

/* True when path is a symlink to a directory. */
static bool link_to_directory(const char *path)
{
    struct stat ls, st;
    return lstat(path, &ls) == 0 && S_ISLNK(ls.st_mode) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The names in directory d but . and .., sorted; *count of them. */
static char **sorted_names(DIR *d, size_t *count)
{
    char **names = NULL;
    size_t cap = 0;
    *count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (*count == cap) names = xrealloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
        names[(*count)++] = xstrdup(e->d_name);
    }
    if (*count) qsort(names, *count, sizeof *names, compare_names); /* (qsort wants a non-null array) */
    return names;
}

static void add_path(input_list *l, const char *path, int depth);

/* Adds the files under directory path, which is depth below a named input. */
static void add_directory(input_list *l, const char *path, int depth)
{
    if (depth > INPUTS_MAX_DEPTH) {
        warnf("%s: directories nested more than %d deep (a symlink loop?); skipped", path, INPUTS_MAX_DEPTH);
        add_entry(l, path, INPUTS_UNREADABLE);
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        warnf("%s: cannot open directory", path);
        add_entry(l, path, INPUTS_UNREADABLE);
        return;
    }
    size_t count;
    char **names = sorted_names(d, &count);
    closedir(d);
    wbuf child = WBUF_INIT;
    for (size_t i = 0; i < count; i++) {
        buf_clear(&child);
        buf_printf(&child, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", names[i]);
        if (link_to_directory(child.data)) {
            warnf("%s: a symlink to a directory, not followed", child.data);
        } else if (!regular_or_directory(child.data)) { /* a FIFO or /dev/zero would block or never end */
            warnf("%s: not a regular file (a FIFO, device or socket); skipped", child.data);
            add_entry(l, child.data, INPUTS_NOT_REGULAR);
        } else {
            add_path(l, child.data, depth + 1);
        }
        free(names[i]);
    }
    free(names);
    buf_free(&child);
}

/* Adds path: a directory's files, or path itself. */
static void add_path(input_list *l, const char *path, int depth)
{
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) add_directory(l, path, depth);
    else add_entry(l, path, NULL);
}

void inputs_expand(input_list *l, char *const *args, int nargs)
{
    memset(l, 0, sizeof *l);
    if (nargs == 0) add_entry(l, "-", NULL);
    for (int i = 0; i < nargs; i++) {
        int before = l->nfiles;
        add_path(l, args[i], 0);
        if (l->nfiles == before) warnf("%s: no file to read in this directory", args[i]);
    }
    l->files = xmalloc((size_t)(l->nfiles ? l->nfiles : 1) * sizeof *l->files);
    for (int i = 0, k = 0; i < l->n; i++)
        if (!l->entries[i].failure) l->files[k++] = l->entries[i].path;
}

int inputs_count_skipped(const input_list *l, wstats *s)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->entries[i].failure) stats_lost(s, l->entries[i].failure, 1);
    return inputs_status(l);
}

int inputs_status(const input_list *l)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->entries[i].failure && !strcmp(l->entries[i].failure, INPUTS_UNREADABLE)) return EXIT_FATAL;
    return EXIT_OK;
}

void inputs_free(input_list *l)
{
    for (int i = 0; i < l->n; i++) free(l->entries[i].path);
    free(l->entries);
    free(l->files);
    memset(l, 0, sizeof *l);
}
