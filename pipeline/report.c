/* report.c - reading --stats files back and merging them. */
#include "pipeline/report.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/output.h"
#include "core/util.h"

#define STAGE_COUNT 5
static const char *const report_stages[STAGE_COUNT] = {"ingest", "filter", "dedup", "tokenize", "shard"};

typedef struct {
    wstats stats;
    double seconds; /* summed over the processes of the stage */
    int files;      /* stats files merged */
} stage_total;

/* A tiny reader for the flat JSON stats_write_json() writes: top-level
 * numbers, and one level of {"name": number} tables. */
typedef struct {
    const char *p, *end;
} reader;

static void skip_space(reader *r)
{
    while (r->p < r->end && isspace((unsigned char)*r->p)) r->p++;
}

/* A JSON string without escapes in names (stats names are snake_case). */
static bool read_string(reader *r, char *out, size_t cap)
{
    skip_space(r);
    if (r->p >= r->end || *r->p != '"') return false;
    const char *s = ++r->p;
    while (r->p < r->end && *r->p != '"') r->p += *r->p == '\\' ? 2 : 1;
    if (r->p >= r->end) return false;
    snprintf(out, cap, "%.*s", (int)(r->p - s), s);
    r->p++;
    return true;
}

static bool expect(reader *r, char c)
{
    skip_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

/* A number, string or literal value; returns its number (0 for others). */
static double read_scalar(reader *r)
{
    skip_space(r);
    if (r->p < r->end && *r->p == '"') {
        char tmp[STATS_NAME_MAX];
        read_string(r, tmp, sizeof tmp);
        return 0;
    }
    char *end;
    double v = strtod(r->p, &end);
    if (end == r->p)
        while (r->p < r->end && isalpha((unsigned char)*r->p)) r->p++;
    else r->p = end;
    return v;
}

/* Adds v to the entry called name, appending it when new. */
static void table_add(stats_table *t, const char *name, double v)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->items[i].name, name)) {
            t->items[i].value += v;
            return;
        }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->items = xrealloc(t->items, (size_t)t->cap * sizeof *t->items);
    }
    snprintf(t->items[t->n].name, STATS_NAME_MAX, "%s", name);
    t->items[t->n++].value = v;
}

static bool read_table(reader *r, wstats *s, const char *which)
{
    if (!expect(r, '{')) return false;
    if (expect(r, '}')) return true;
    do {
        char name[STATS_NAME_MAX];
        if (!read_string(r, name, sizeof name) || !expect(r, ':')) return false;
        double v = read_scalar(r);
        if (!strcmp(which, "dropped_by_reason")) table_add(&s->drop_reasons, name, v);
        else if (!strcmp(which, "failed_by_kind")) table_add(&s->fail_kinds, name, v);
        else stats_add(s, name, v);
    } while (expect(r, ','));
    return expect(r, '}');
}

bool pl_stats_read(const char *path, wstats *s, double *seconds)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    wbuf b = WBUF_INIT;
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&b, chunk, n);
    fclose(f);
    reader r = {b.data, b.data + b.len};
    wstats one;
    stats_init(&one);
    double top[6] = {0};
    static const char *const top_names[6] = {"in", "out", "dropped", "failed", "bytes_in", "bytes_out"};
    *seconds = 0;
    bool ok = b.len && expect(&r, '{');
    while (ok && !expect(&r, '}')) {
        char key[STATS_NAME_MAX];
        ok = read_string(&r, key, sizeof key) && expect(&r, ':');
        if (!ok) break;
        skip_space(&r);
        if (r.p < r.end && *r.p == '{') ok = read_table(&r, &one, key);
        else {
            double v = read_scalar(&r);
            for (int i = 0; i < 6; i++)
                if (!strcmp(key, top_names[i])) top[i] = v;
            if (!strcmp(key, "seconds")) *seconds = v;
        }
        expect(&r, ',');
    }
    if (ok) {
        one.in = (uint64_t)top[0], one.out = (uint64_t)top[1], one.dropped = (uint64_t)top[2];
        one.failed = (uint64_t)top[3], one.bytes_in = (uint64_t)top[4], one.bytes_out = (uint64_t)top[5];
        stats_merge(s, &one);
    }
    stats_free(&one);
    buf_free(&b);
    return ok;
}

static void add_file(stage_total *t, const char *path)
{
    double secs;
    if (!pl_stats_read(path, &t->stats, &secs)) return;
    t->seconds += secs;
    t->files++;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.json in dir, sorted, into t. */
static void add_dir(stage_total *t, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".json")) continue;
        names = xrealloc(names, (size_t)(n + 1) * sizeof *names);
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, compare_names); /* names is NULL when n is 0 */
    for (int i = 0; i < n; i++) {
        char *path = xmalloc(strlen(dir) + strlen(names[i]) + 2);
        sprintf(path, "%s/%s", dir, names[i]);
        add_file(t, path);
        free(path);
        free(names[i]);
    }
    free(names);
}

static void put_table_json(wbuf *b, const char *key, const stats_table *t)
{
    buf_printf(b, ", \"%s\": {", key);
    for (int i = 0; i < t->n; i++) {
        buf_puts(b, i ? ", " : "");
        json_put_string(b, t->items[i].name, strlen(t->items[i].name));
        buf_printf(b, ": %.17g", t->items[i].value);
    }
    buf_putc(b, '}');
}

static void put_stage_json(wbuf *b, const char *name, const stage_total *t)
{
    const wstats *s = &t->stats;
    buf_printf(b, "    \"%s\": {\"in\": %llu, \"out\": %llu, \"dropped\": %llu, \"failed\": %llu, \"bytes_in\": %llu, "
               "\"bytes_out\": %llu, \"seconds\": %.3f, \"stats_files\": %d",
               name, (unsigned long long)s->in, (unsigned long long)s->out, (unsigned long long)s->dropped,
               (unsigned long long)s->failed, (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_out,
               t->seconds, t->files);
    put_table_json(b, "dropped_by_reason", &s->drop_reasons);
    put_table_json(b, "failed_by_kind", &s->fail_kinds);
    put_table_json(b, "extra", &s->extra); /* the stage's other counts, e.g. ingest's damaged_streams */
    buf_puts(b, "}");
}

static void put_stage_text(wbuf *b, const char *name, const stage_total *t)
{
    const wstats *s = &t->stats;
    buf_printf(b, "%-9s %10llu in %10llu out %10llu dropped %8llu failed  %9.1f MB in %9.1f MB out  %8.1f s\n", name,
               (unsigned long long)s->in, (unsigned long long)s->out, (unsigned long long)s->dropped,
               (unsigned long long)s->failed, s->bytes_in / 1e6, s->bytes_out / 1e6, t->seconds);
    for (int i = 0; i < s->drop_reasons.n; i++)
        buf_printf(b, "            dropped %-40s %10.0f\n", s->drop_reasons.items[i].name, s->drop_reasons.items[i].value);
    for (int i = 0; i < s->fail_kinds.n; i++)
        buf_printf(b, "            failed  %-40s %10.0f\n", s->fail_kinds.items[i].name, s->fail_kinds.items[i].value);
    for (int i = 0; i < s->extra.n; i++)
        buf_printf(b, "            counted %-40s %10.0f\n", s->extra.items[i].name, s->extra.items[i].value);
}

static void write_text_file(const char *path, const wbuf *b)
{
    woutput *o = output_open(path, 0);
    output_write(o, b->data, b->len);
    output_close(o);
}

void pl_report_write(const pl_plan *p, bool print)
{
    stage_total totals[STAGE_COUNT];
    for (int k = 0; k < STAGE_COUNT; k++) {
        memset(&totals[k], 0, sizeof totals[k]);
        stats_init(&totals[k].stats);
    }
    uint64_t input_bytes = 0;
    wbuf failed = WBUF_INIT, failed_text = WBUF_INIT;
    int nfailed = 0;
    for (int i = 0; i < p->nfiles; i++) {
        input_bytes += p->sizes[i];
        for (int k = 0; k < 2; k++) {
            char *path = pl_path(p, "stats/%06d.%s.json", i, report_stages[k]);
            add_file(&totals[k], path);
            free(path);
        }
        char *fpath = pl_path(p, "failed/%06d", i);
        if (pl_exists(fpath)) {
            buf_puts(&failed, nfailed++ ? ", " : "");
            json_put_string(&failed, p->files[i], strlen(p->files[i]));
            buf_printf(&failed_text, "  failed: %s\n", p->files[i]);
        }
        free(fpath);
    }
    char *dedup_dir = pl_path(p, "stats/dedup");
    add_dir(&totals[2], dedup_dir);
    free(dedup_dir);
    for (int k = 3; k < 5; k++) { /* per shards rank: stats/tokenize/RRRRR.json, stats/shard/RRRRR.json */
        char *dir = pl_path(p, "stats/%s", report_stages[k]);
        add_dir(&totals[k], dir);
        free(dir);
    }

    wbuf json = WBUF_INIT, text = WBUF_INIT;
    buf_printf(&json, "{\n  \"pipeline\": ");
    json_put_string(&json, p->cfg.path, strlen(p->cfg.path));
    buf_printf(&json, ",\n  \"tasks\": %d,\n  \"input_files\": %d,\n  \"input_bytes\": %llu,\n  \"failed_files\": %d,\n"
               "  \"failed\": [%s],\n  \"stages\": {\n",
               p->cfg.tasks, p->nfiles, (unsigned long long)input_bytes, nfailed, failed.data ? failed.data : "");
    buf_printf(&text, "winnow run %s: %d input files (%.1f MB), %d failed, %d tasks\n", p->cfg.path, p->nfiles,
               input_bytes / 1e6, nfailed, p->cfg.tasks);
    if (failed_text.data) buf_puts(&text, failed_text.data);
    int written = 0;
    for (int k = 0; k < 5; k++) {
        if (!totals[k].files) continue;
        buf_puts(&json, written++ ? ",\n" : "");
        put_stage_json(&json, report_stages[k], &totals[k]);
        put_stage_text(&text, report_stages[k], &totals[k]);
    }
    buf_puts(&json, "\n  }\n}\n");
    char *jpath = pl_path(p, "report.json"), *tpath = pl_path(p, "report.txt");
    write_text_file(jpath, &json);
    write_text_file(tpath, &text);
    if (print) fputs(text.data, stderr);
    free(jpath), free(tpath);
    buf_free(&json), buf_free(&text), buf_free(&failed), buf_free(&failed_text);
    for (int k = 0; k < STAGE_COUNT; k++) stats_free(&totals[k].stats);
}
