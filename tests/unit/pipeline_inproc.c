/* pipeline_inproc - what running stages in one process rests on: the ingest
 * document hook sees every document ingest would write, and can write its
 * line back byte for byte (with the size ingest reports); the CPU seconds
 * ingest reports for the hook are those it took; json_string_size
 * is what json_put_string writes; stage options read by name as their
 * command lines read them; pipeline files with a bad stage option fail at
 * load naming FILE:LINE. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "filter/config.h"
#include "ingest/ingest.h"
#include "pipeline/config.h"
#include "pipeline/stage_options.h"
#include "tests/tap.h"

typedef struct {
    int docs, sizes_right;
} hook_seen;

static void take_lines(void *ctx, const char *lines, size_t len) { buf_append(ctx, lines, len); }

/* The hook writes each document's line back as ingest would have. */
static void write_back(void *ctx, int worker, const ingest_doc *d, wbuf *out, wbuf *rejects, wstats *stats)
{
    (void)worker, (void)rejects;
    hook_seen *seen = ctx;
    size_t before = out->len;
    if (d->line) {
        buf_append(out, d->line, d->line_len);
        buf_putc(out, '\n');
    } else {
        ingest_doc_write(d, NULL, 0, NULL, out);
    }
    __atomic_add_fetch(&seen->docs, 1, __ATOMIC_RELAXED);
    if (out->len - before == d->line_size) __atomic_add_fetch(&seen->sizes_right, 1, __ATOMIC_RELAXED);
    stats->in++;
    stats->out++;
}

static void batch_done(void *ctx, const char *rejects, size_t len, const wstats *stats, double seconds)
{
    (void)ctx, (void)rejects, (void)len, (void)stats, (void)seconds;
}

/* Ingests path with 3 threads, with or without the write-back hook. */
static void ingest_file(const char *path, const ingest_doc_hook *hook, wbuf *lines, wstats *counts)
{
    ingest_options o;
    ingest_options_init(&o);
    o.threads = 3;
    o.hook = hook;
    ingest_sink sink = {take_lines, NULL, lines};
    ingest *g = ingest_create(&o, &sink);
    ingest_path(g, path);
    ingest_flush(g);
    *counts = *ingest_stats(g);
    counts->drop_reasons = counts->fail_kinds = counts->extra = (stats_table){0};
    ingest_destroy(g);
}

/* CPU seconds of a hook that spins for a while on each document: as it
 * measured them itself, and as ingest reported them. */
typedef struct {
    pthread_mutex_t lock;
    double spent, reported;
} hook_cpu;

#define SPIN_SECONDS 0.0002

static void spin(void *ctx, int worker, const ingest_doc *d, wbuf *out, wbuf *rejects, wstats *stats)
{
    (void)worker, (void)d, (void)out, (void)rejects;
    hook_cpu *h = ctx;
    double started = thread_cpu_seconds(), now;
    while ((now = thread_cpu_seconds()) - started < SPIN_SECONDS) continue;
    pthread_mutex_lock(&h->lock);
    h->spent += now - started;
    pthread_mutex_unlock(&h->lock);
    stats->in++;
    stats->out++;
}

static void add_reported(void *ctx, const char *rejects, size_t len, const wstats *stats, double seconds)
{
    (void)rejects, (void)len, (void)stats;
    ((hook_cpu *)ctx)->reported += seconds; /* the feeding thread alone calls this */
}

/* The hook's CPU seconds ingest reports per batch (its share of the
 * worker's CPU by wall time, no thread CPU clock read per document) add up
 * to what the hook spent, within a quarter (threads preempted in or out of
 * the hook unevenly: the machine may be busy). */
static void hook_seconds(const char *path)
{
    hook_cpu h = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    ingest_doc_hook hook = {spin, add_reported, &h};
    wbuf lines = WBUF_INIT;
    wstats counts;
    ingest_file(path, &hook, &lines, &counts);
    ok(h.spent >= counts.out * SPIN_SECONDS, "the hook spun on every document (%.3f s)", h.spent);
    ok(h.reported > 0.75 * h.spent && h.reported < 1.25 * h.spent,
       "ingest reports the hook's CPU seconds: %.3f for %.3f spent", h.reported, h.spent);
    buf_free(&lines);
}

static void count_only(void *ctx, int worker, const ingest_doc *d, wbuf *out, wbuf *rejects, wstats *stats)
{
    (void)ctx, (void)worker, (void)d, (void)out, (void)rejects;
    stats->in++;
    stats->out++;
}

/* A hook that does nothing is reported as taking a small part of the
 * process's CPU (the work is ingest's: extracting the HTML of a WARC). */
static void idle_hook_seconds(const char *path)
{
    hook_cpu h = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
    ingest_doc_hook hook = {count_only, add_reported, &h};
    wbuf lines = WBUF_INIT;
    wstats counts;
    double started = process_cpu_seconds();
    for (int k = 0; k < 20; k++) { /* a few ms each: measured over 20 */
        buf_clear(&lines);
        ingest_file(path, &hook, &lines, &counts);
    }
    double cpu = process_cpu_seconds() - started;
    ok(h.reported >= 0 && h.reported < 0.2 * cpu, "an idle hook is reported %.4f s of the %.3f s ingest took",
       h.reported, cpu);
    buf_free(&lines);
}

static void hook_writes_back(const char *path)
{
    wbuf plain = WBUF_INIT, hooked = WBUF_INIT;
    wstats a, b;
    hook_seen seen = {0, 0};
    ingest_doc_hook hook = {write_back, batch_done, &seen};
    ingest_file(path, NULL, &plain, &a);
    ingest_file(path, &hook, &hooked, &b);
    ok(plain.len > 0 && plain.len == hooked.len && !memcmp(plain.data, hooked.data, plain.len),
       "%s: the hook writes back the lines ingest writes, byte for byte", strrchr(path, '/') + 1);
    is_int(seen.docs, a.out, "%s: the hook sees every document", strrchr(path, '/') + 1);
    is_int(seen.sizes_right, seen.docs, "%s: line_size is each line's size", strrchr(path, '/') + 1);
    is_int(b.bytes_out, a.bytes_out, "%s: ingest counts the same bytes out with the hook", strrchr(path, '/') + 1);
    buf_free(&plain);
    buf_free(&hooked);
}

static void string_sizes(void)
{
    static const struct {
        const char *s;
        size_t n;
    } cases[] = {{"plain", 5}, {"quote \" back \\ slash", 20}, {"\n\r\t\b\f\x01\x1f", 7},
                 {"bad \xff utf-8 \xc3", 13}, {"\xe2\x82\xac euro, \xf0\x9f\x98\x80", 12}, {"nul \0 byte", 10},
                 {"sixteen bytes!!!\"and then more than sixteen\x7f", 45}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wbuf b = WBUF_INIT;
        json_put_string(&b, cases[i].s, cases[i].n);
        is_int(json_string_size(cases[i].s, cases[i].n), b.len, "json_string_size of case %zu", i);
        buf_free(&b);
    }
}

static void filter_options(void)
{
    filter_config c;
    filter_config_defaults(&c);
    char err[256];
    is_int(filter_config_set_option(&c, "no-langid", NULL, err, sizeof err), 0, "--no-langid");
    ok(!c.langid, "--no-langid turns language identification off");
    is_int(filter_config_set_option(&c, "langid", NULL, err, sizeof err), 0, "bare --langid");
    ok(c.langid, "a bare switch turns it on");
    is_int(filter_config_set_option(&c, "gopher_min_words", "7", err, sizeof err), 0, "'_' for '-'");
    ok(c.gopher_min_words == 7, "the value is set");
    is_int(filter_config_set_option(&c, "pii", "false", err, sizeof err), 0, "--pii=false");
    ok(filter_config_set_option(&c, "lang", NULL, err, sizeof err) != 0, "a bare setting that needs a value fails");
    ok(filter_config_set_option(&c, "no-lang", NULL, err, sizeof err) != 0, "no-X only for switches");
    ok(filter_config_set_option(&c, "no-pii", "x", err, sizeof err) != 0, "no-X takes no value");
    ok(filter_config_set_option(&c, "gopher-min-wordz", "1", err, sizeof err) != 0, "an unknown name fails");
    ok(strstr(err, "gopher-min-wordz") != NULL, "and the message names it");
    filter_config_free(&c);
}

static char dir[] = "/tmp/winnow-inproc.XXXXXX";

/* Loads a pipeline file whose stage part is `stage`; returns the error ("" when it loads). */
static const char *load_stage(const char *stage, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/p.ini", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "input = in/*\nwork = w\noutput = o\n%s", stage);
    fclose(f);
    pl_config c;
    pl_stage_options o;
    *err = 0;
    if (pl_config_load(path, &c, err, errlen) == 0 && pl_stage_options_read(&c, &o, err, errlen) == 0)
        pl_stage_options_free(&o);
    pl_config_free(&c);
    return err;
}

static void pipeline_stage_options(void)
{
    char err[512], want[300];
    is_str(load_stage("[ingest]\nextract = full\n[filter]\nno_langid\nc4-min-sentences = 2\n[dedup]\nbands = 20\n"
                      "[tokenize]\nno-eos\nencoding = cl100k_base\n[shard]\nvocab_size = 100277\neos = 100257\n",
                      err, sizeof err),
           "", "every stage's options load");
    static const struct {
        const char *stage, *where, *what;
    } bad[] = {
        {"[ingest]\nextract = partial\n", ":5: [ingest]", "main or full"},
        {"[filter]\nno-langid\ngopher-min-wordz = 3\n", ":6: [filter]", "gopher-min-wordz"},
        {"[filter]\ngopher_min_words = many\n", ":5: [filter]", "many"},
        {"[filter]\nlang\n", ":5: [filter]", "needs a value"},
        {"[dedup]\nbands = 0\n", ":5: [dedup]", "--bands"},
        {"[tokenize]\nno-eos = yes\n", ":5: [tokenize]", "takes no value"},
        {"[tokenize]\ndevice = tpu\n", ":5: [tokenize]", "auto, cpu or gpu"},
        {"[shard]\nvocab-size = 0\n", ":5: [shard]", "--vocab-size"},
        {"[shard]\nvocab-sise = 5\n", ":5: [shard]", "vocab-sise"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        load_stage(bad[i].stage, err, sizeof err);
        snprintf(want, sizeof want, "%s/p.ini%s", dir, bad[i].where);
        ok(strstr(err, want) && strstr(err, bad[i].what), "bad option %zu fails at load naming FILE:LINE and what", i);
        if (!strstr(err, want)) printf("#   got: %s\n", err);
    }
}

/* [filter] config = FILE is read before the section's other lines, wherever it
 * stands, as `winnow filter --config FILE` is read before the other options
 * (filter/cli.c): a setting above the config line still wins over the file. */
static void pipeline_filter_config_first(void)
{
    char path[256], conf[256], err[512] = "";
    snprintf(conf, sizeof conf, "%s/f.conf", dir);
    FILE *f = fopen(conf, "w");
    fprintf(f, "gopher_min_words = 3\nc4_min_sentences = 4\nlang = de\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/p.ini", dir);
    f = fopen(path, "w");
    fprintf(f, "input = in/*\nwork = w\noutput = o\n[filter]\ngopher_min_words = 7\nconfig = %s\nlang = fr\n", conf);
    fclose(f);
    pl_config c;
    pl_stage_options o;
    bool loaded = pl_config_load(path, &c, err, sizeof err) == 0 && pl_stage_options_read(&c, &o, err, sizeof err) == 0;
    ok(loaded, "a [filter] section with config = FILE loads");
    if (loaded) {
        is_int((int)o.filter.gopher_min_words, 7, "a setting above config = FILE wins over the file's");
        is_str(o.filter.lang, "fr", "a setting below it too");
        is_int((int)o.filter.c4_min_sentences, 4, "the file's other settings are taken");
        pl_stage_options_free(&o);
    } else {
        printf("#   %s\n", err);
    }
    pl_config_free(&c);
}

int main(void)
{
    string_sizes();
    filter_options();
    if (!mkdtemp(dir)) skip_all("no temporary directory");
    pipeline_stage_options();
    pipeline_filter_config_first();
    char path[1024];
    static const char *const inputs[] = {"warc/resiliparse/tests/data/warcfile.warc.gz",
                                         "warc/resiliparse/tests/data/clueweb-quirk.warc.gz",
                                         "jsonl/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz",
                                         "jsonl/olmo/test_fixtures/c4-sample.01.json.gz"};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        snprintf(path, sizeof path, "%s/%s", shared_dir(), inputs[i]);
        require_file(path);
        hook_writes_back(path);
    }
    snprintf(path, sizeof path, "%s/%s", shared_dir(), inputs[0]);
    idle_hook_seconds(path);
    snprintf(path, sizeof path, "%s/jsonl/dclm/data/majority_data.jsonl", shared_dir()); /* 499 documents */
    require_file(path);
    hook_seconds(path);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    return done_testing();
}
