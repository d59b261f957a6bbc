#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "output.h"
#include "util.h"

void stats_init(wstats *s)
{
    memset(s, 0, sizeof *s);
    s->started = now_seconds();
}

void stats_free(wstats *s)
{
    free(s->drop_reasons.items);
    free(s->fail_kinds.items);
    free(s->extra.items);
    memset(s, 0, sizeof *s);
}

static stats_entry *table_slot(stats_table *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->items[i].name, name) == 0) return &t->items[i];
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->items = xrealloc(t->items, (size_t)t->cap * sizeof *t->items);
    }
    stats_entry *e = &t->items[t->n++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->value = 0;
    return e;
}

void stats_drop(wstats *s, const char *reason)
{
    s->dropped++;
    table_slot(&s->drop_reasons, reason)->value += 1;
}

void stats_fail(wstats *s, const char *kind) { stats_fail_n(s, kind, 1); }

void stats_fail_n(wstats *s, const char *kind, uint64_t n)
{
    if (!n) return; /* no kind named with a count of 0 */
    s->failed += n;
    table_slot(&s->fail_kinds, kind)->value += (double)n;
}

void stats_lost(wstats *s, const char *kind, uint64_t n)
{
    s->in += n;
    stats_fail_n(s, kind, n);
}

void stats_add(wstats *s, const char *name, double v) { table_slot(&s->extra, name)->value += v; }

void stats_set(wstats *s, const char *name, double v) { table_slot(&s->extra, name)->value = v; }

double stats_get(const wstats *s, const char *name)
{
    for (int i = 0; i < s->extra.n; i++)
        if (strcmp(s->extra.items[i].name, name) == 0) return s->extra.items[i].value;
    return 0;
}

static void table_merge(stats_table *dst, const stats_table *src)
{
    for (int i = 0; i < src->n; i++) table_slot(dst, src->items[i].name)->value += src->items[i].value;
}

void stats_merge(wstats *dst, const wstats *src)
{
    dst->in += src->in;
    dst->out += src->out;
    dst->dropped += src->dropped;
    dst->failed += src->failed;
    dst->bytes_in += src->bytes_in;
    dst->bytes_out += src->bytes_out;
    table_merge(&dst->drop_reasons, &src->drop_reasons);
    table_merge(&dst->fail_kinds, &src->fail_kinds);
    table_merge(&dst->extra, &src->extra);
}

static double table_sum(const stats_table *t)
{
    double sum = 0;
    for (int i = 0; i < t->n; i++) sum += t->items[i].value;
    return sum;
}

bool stats_balanced(const wstats *s)
{
    return s->in == s->out + s->dropped + s->failed && table_sum(&s->drop_reasons) == (double)s->dropped &&
           table_sum(&s->fail_kinds) == (double)s->failed;
}

static void put_table(wbuf *b, const char *key, const stats_table *t)
{
    buf_printf(b, ",\n  \"%s\": {", key);
    for (int i = 0; i < t->n; i++) {
        buf_puts(b, i ? ", " : "");
        json_put_string(b, t->items[i].name, strlen(t->items[i].name));
        if (t->items[i].value == (double)(long long)t->items[i].value)
            buf_printf(b, ": %lld", (long long)t->items[i].value);
        else
            buf_printf(b, ": %.6g", t->items[i].value);
    }
    buf_putc(b, '}');
}

void stats_write_json(const wstats *s, const char *stage, const char *path)
{
    stats_write_json_timed(s, stage, path, now_seconds() - s->started);
}

void stats_write_json_timed(const wstats *s, const char *stage, const char *path, double secs)
{
    wbuf b = WBUF_INIT;
    buf_puts(&b, "{\n  \"stage\": ");
    json_put_string(&b, stage, strlen(stage));
    buf_printf(&b, ",\n  \"in\": %llu,\n  \"out\": %llu,\n  \"dropped\": %llu,\n  \"failed\": %llu",
               (unsigned long long)s->in, (unsigned long long)s->out, (unsigned long long)s->dropped,
               (unsigned long long)s->failed);
    put_table(&b, "dropped_by_reason", &s->drop_reasons);
    put_table(&b, "failed_by_kind", &s->fail_kinds);
    buf_printf(&b, ",\n  \"bytes_in\": %llu,\n  \"bytes_out\": %llu,\n  \"seconds\": %.3f",
               (unsigned long long)s->bytes_in, (unsigned long long)s->bytes_out, secs);
    if (s->extra.n) put_table(&b, "extra", &s->extra);
    buf_printf(&b, ",\n  \"balanced\": %s\n}\n", stats_balanced(s) ? "true" : "false");
    woutput *o = output_open(path, 0);
    output_write(o, b.data, b.len);
    output_close(o);
    buf_free(&b);
}

void stats_print_summary(const wstats *s, const char *stage)
{
    double secs = now_seconds() - s->started;
    fprintf(stderr, "%s: %llu in, %llu out, %llu dropped, %llu failed; %.1f MB in %.2f s\n", stage,
            (unsigned long long)s->in, (unsigned long long)s->out, (unsigned long long)s->dropped,
            (unsigned long long)s->failed, (double)s->bytes_in / 1e6, secs);
    for (int i = 0; i < s->drop_reasons.n; i++)
        fprintf(stderr, "  dropped %-28s %llu\n", s->drop_reasons.items[i].name,
                (unsigned long long)s->drop_reasons.items[i].value);
    for (int i = 0; i < s->fail_kinds.n; i++)
        fprintf(stderr, "  failed  %-28s %llu\n", s->fail_kinds.items[i].name,
                (unsigned long long)s->fail_kinds.items[i].value);
}
