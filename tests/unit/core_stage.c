/* core_stage - the ordered pool and the document-stream engine on real data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/doc.h"
#include "core/input.h"
#include "core/pool.h"
#include "core/stage.h"
#include "core/util.h"
#include "tests/tap.h"

#define SHORT_TEXT 500

static void square(void *ctx, int worker, void *item)
{
    (void)ctx;
    (void)worker;
    long *v = item;
    usleep((useconds_t)(rand() % 300));
    *v = *v * *v;
}

/* drops short texts, tags the others with their length */
static void tag_map(void *ctx, int worker, stage_batch *b)
{
    (void)ctx;
    (void)worker;
    wbuf scratch = WBUF_INIT, meta = WBUF_INIT, line = WBUF_INIT;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        size_t len;
        json_string(&d->json.text, &scratch, &len);
        if (len < SHORT_TEXT) {
            stage_doc_drop(b, i, "short", "\"limit\":500");
            continue;
        }
        buf_clear(&meta);
        buf_clear(&line);
        meta_add_int(&meta, "chars", (long long)len);
        doc_rewrite(d->line, d->len, &d->json, NULL, 0, &meta, &line);
        stage_doc_rewrite(b, i, &line);
    }
    buf_free(&scratch);
    buf_free(&meta);
    buf_free(&line);
}

/* What the engine told map() about each document, by ordinal. */
#define MAX_NUMBERED 4096
static struct {
    uint64_t lineno;
    char file[256];
    int seen;
} numbered[MAX_NUMBERED];
static int numbered_overflow;

static void record_map(void *ctx, int worker, stage_batch *b)
{
    (void)ctx;
    (void)worker;
    for (int i = 0; i < b->n; i++) {
        const stage_doc *d = &b->docs[i];
        if (d->ordinal >= MAX_NUMBERED) {
            numbered_overflow = 1;
            continue;
        }
        numbered[d->ordinal].lineno = d->lineno;
        snprintf(numbered[d->ordinal].file, sizeof numbered[d->ordinal].file, "%s", b->file);
        numbered[d->ordinal].seen++;
    }
}

/* Every document of files[0..n) numbered as a serial reader would: ordinals
 * 0, 1, ... over all files in order, line numbers from 1 in each file
 * (blank lines counted, not numbered), whatever the batch size and thread
 * count; plain files are mapped, gzip read, so both paths are checked. */
static void check_numbering(char **files, int n, const char *out, size_t batch_bytes, int threads)
{
    memset(numbered, 0, sizeof numbered);
    numbered_overflow = 0;
    stage_ops ops = {.name = "number", .map = record_map};
    stage_opts o;
    stage_opts_init(&o);
    o.output = out;
    o.quiet = true;
    o.inputs = files;
    o.ninputs = n;
    o.threads = threads;
    o.batch_bytes = batch_bytes;
    int rc = stage_run(&o, &ops);
    long docs = 0, wrong = 0;
    for (int f = 0; f < n; f++) {
        winput *in = input_open(files[f]);
        const char *line;
        size_t len;
        uint64_t lineno = 0;
        while (in && input_getline(in, &line, &len)) {
            lineno++;
            if (len && line[len - 1] == '\r') len--;
            if (!len) continue;
            if (docs >= MAX_NUMBERED || numbered[docs].seen != 1 || numbered[docs].lineno != lineno ||
                strcmp(numbered[docs].file, files[f]) != 0) {
                if (!wrong++ && docs < MAX_NUMBERED)
                    diag("document %ld: seen %d times, %s line %llu; want %s line %llu", docs, numbered[docs].seen,
                         numbered[docs].file, (unsigned long long)numbered[docs].lineno, files[f],
                         (unsigned long long)lineno);
            }
            docs++;
        }
        if (in) input_close(in);
    }
    int extra = docs < MAX_NUMBERED && numbered[docs].seen;
    ok(rc == 0 && docs > 100 && !wrong && !extra && !numbered_overflow,
       "batches of %zu bytes, -j %d: %ld documents of %d files numbered in input order, line numbers per file", batch_bytes,
       threads, docs, n);
}

/* Random JSONL files (documents of 0 to 400 text bytes, blank lines of
 * spaces and tabs, CRLF ends, sometimes no last line end) through a stage
 * that keeps everything, at batch sizes from 1 byte up: the output must be
 * every non-blank line once, in order, as it came, each with its line end. */
static void check_random_files(const char *dir)
{
    srand(15);
    int mismatches = 0, runs = 0;
    char path[256], out[256];
    snprintf(path, sizeof path, "%s/random.jsonl", dir);
    snprintf(out, sizeof out, "%s/random.out", dir);
    wbuf file = WBUF_INIT, want = WBUF_INIT, line = WBUF_INIT;
    for (int round = 0; round < 40; round++) {
        buf_clear(&file);
        buf_clear(&want);
        int lines = rand() % 60;
        for (int k = 0; k < lines; k++) {
            buf_clear(&line);
            if (rand() % 8 == 0) {
                for (int b = rand() % 4; b >= 0; b--) buf_putc(&line, rand() % 2 ? ' ' : '\t');
            } else {
                buf_append(&line, "{\"text\":\"", 9);
                for (int c = rand() % 401; c > 0; c--) buf_putc(&line, (char)('a' + rand() % 26));
                buf_append(&line, "\"}", 2);
            }
            if (rand() % 5 == 0) buf_putc(&line, '\r');
            bool last_open = k == lines - 1 && rand() % 2;
            buf_append(&file, line.data, line.len);
            if (!last_open) buf_putc(&file, '\n');
            if (line.data[0] == '{') {
                buf_append(&want, line.data, line.len);
                buf_putc(&want, '\n');
            }
        }
        FILE *f = fopen(path, "wb");
        if (file.len) fwrite(file.data, 1, file.len, f);
        fclose(f);
        size_t batch = 1 + (size_t)(rand() % (round < 20 ? 64 : 4096));
        stage_ops keep_all = {.name = "keep"};
        char *inputs[] = {path};
        stage_opts o;
        stage_opts_init(&o);
        o.output = out;
        o.quiet = true;
        o.inputs = inputs;
        o.ninputs = 1;
        o.threads = 1 + rand() % 4;
        o.batch_bytes = batch;
        int rc = stage_run(&o, &keep_all);
        size_t n;
        char *got = read_file(out, &n);
        runs++;
        if (rc != 0 || !got || n != want.len || (n && memcmp(got, want.data, n) != 0)) {
            if (!mismatches++) diag("round %d: %d lines, batches of %zu bytes: %zu bytes out, want %zu", round, lines, batch, got ? n : 0, want.len);
        }
        free(got);
    }
    buf_free(&file);
    buf_free(&want);
    buf_free(&line);
    ok(!mismatches, "%d random files through batches of 1 byte to 4 KiB: every non-blank line once, in order, byte for byte", runs);
}

/* end(): when it runs, how many batches reduce() had seen, and whether the
 * output was already in place. */
static struct {
    int reduced, ends, reduced_at_end, output_there_at_end;
    const char *output;
} end_seen;

static void count_reduce(void *ctx, stage_batch *b)
{
    (void)ctx;
    (void)b;
    end_seen.reduced++;
}

static void record_end(void *ctx)
{
    (void)ctx;
    end_seen.ends++;
    end_seen.reduced_at_end = end_seen.reduced;
    end_seen.output_there_at_end = access(end_seen.output, F_OK) == 0;
}

int main(void)
{
    /* pool order */
    long vals[500];
    wpool *p = pool_create(4, 7, square, NULL);
    int next = 0, popped = 0, in_order = 1;
    while (next < 500 || !pool_empty(p)) {
        if (next < 500 && !pool_full(p)) {
            vals[next] = next;
            pool_push(p, &vals[next]);
            next++;
            continue;
        }
        long *v = pool_pop(p);
        if (v != &vals[popped] || *v != (long)popped * popped) in_order = 0;
        popped++;
    }
    pool_destroy(p);
    ok(in_order && popped == 500, "pool returns 500 items in push order, all worked");

    /* engine: real C4 documents plus damage */
    char dir[] = "/tmp/winnow-stage-XXXXXX";
    if (!mkdtemp(dir)) skip_all("no temp dir");
    char input[256], out1[256], out4[256], rej[256], stats[256], cmd[2048];
    snprintf(input, sizeof input, "%s/in.jsonl", dir);
    snprintf(cmd, sizeof cmd,
             "(zcat %s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | head -600; "
             "echo '{\"text\": broken'; echo; echo '{\"id\":\"no-text\"}'; "
             "zcat %s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | tail -400) > %s",
             shared_dir(), shared_dir(), input);
    if (system(cmd) != 0) skip_all("cannot build the input");

    /* expected: count short texts independently of the engine */
    winput *in = input_open(input);
    const char *line;
    size_t len;
    long want_short = 0, want_long = 0;
    wbuf t = WBUF_INIT;
    while (input_getline(in, &line, &len)) {
        jdoc d;
        const char *err;
        size_t pos;
        if (!len || json_scan_doc(line, len, &d, &err, &pos) || d.text.kind != JSON_STRING) continue;
        buf_clear(&t);
        json_unescape(&d.text, &t);
        if (t.len < SHORT_TEXT) want_short++;
        else want_long++;
    }
    input_close(in);
    buf_free(&t);
    ok(want_short > 0 && want_long > 0, "input has short (%ld) and long (%ld) documents", want_short, want_long);

    stage_ops ops = {.name = "test", .map = tag_map};
    stage_opts o;
    char *inputs[] = {input};
    int threads[2] = {1, 4};
    char *outs[2] = {out1, out4};
    for (int k = 0; k < 2; k++) {
        snprintf(outs[k], 256, "%s/out%d.jsonl", dir, threads[k]);
        snprintf(rej, sizeof rej, "%s/rejects%d.jsonl", dir, threads[k]);
        snprintf(stats, sizeof stats, "%s/stats%d.json", dir, threads[k]);
        stage_opts_init(&o);
        o.threads = threads[k];
        o.output = outs[k];
        o.rejects_path = rej;
        o.stats_path = stats;
        o.quiet = true;
        o.inputs = inputs;
        o.ninputs = 1;
        is_int(stage_run(&o, &ops), 0, "-j %d: exit status 0", threads[k]);
    }
    size_t n1, n4, ns, nr;
    char *a = read_file(out1, &n1), *b = read_file(out4, &n4), *s = read_file(stats, &ns), *r = read_file(rej, &nr);
    ok(a && b && n1 == n4 && memcmp(a, b, n1) == 0, "output identical for -j 1 and -j 4 (%zu bytes)", n1);
    long lines = 0, tagged = 0;
    for (char *q = a; q && (q = strchr(q, '\n')); q++) lines++;
    for (char *q = a; q && (q = strstr(q, "\"chars\":")); q++) tagged++;
    is_int(lines, want_long, "kept = long documents");
    is_int(tagged, want_long, "every kept document carries its metadata");
    char want_stats[256];
    snprintf(want_stats, sizeof want_stats, "\"in\": %ld,\n  \"out\": %ld,\n  \"dropped\": %ld,\n  \"failed\": 2",
             want_short + want_long + 2, want_long, want_short);
    ok(s && strstr(s, want_stats), "stats: in == out + dropped + failed with the right numbers");
    ok(s && strstr(s, "\"bad_json\": 1") && strstr(s, "\"missing_text\": 1"), "stats: failures by kind");
    ok(s && strstr(s, "\"balanced\": true"), "stats: balanced");
    long rejects = 0;
    for (char *q = r; q && (q = strstr(q, "{\"reject\":{\"stage\":\"test\",\"reason\":\"short\",\"limit\":500},")); q++)
        rejects++;
    is_int(rejects, want_short, "every dropped document is in the rejects file with its reason");
    free(a);
    free(b);
    free(s);
    free(r);

    /* end(): once, after every batch's reduce, before the output is in place */
    {
        char end_out[256];
        snprintf(end_out, sizeof end_out, "%s/end.out", dir);
        end_seen.output = end_out;
        stage_ops ends = {.name = "end", .reduce = count_reduce, .end = record_end};
        stage_opts_init(&o);
        o.output = end_out;
        o.quiet = true;
        o.inputs = inputs;
        o.ninputs = 1;
        o.threads = 3;
        o.batch_bytes = 16 << 10;
        stage_run(&o, &ends);
        ok(end_seen.ends == 1 && end_seen.reduced > 10 && end_seen.reduced_at_end == end_seen.reduced,
           "end() runs once, after all %d batches' reduce", end_seen.reduced);
        ok(!end_seen.output_there_at_end && access(end_out, F_OK) == 0,
           "end() runs before the output is closed (not yet in place then, in place after)");
    }
    /* edges: CRLF, blank lines, a 9 MB line across blocks, no final newline */
    {
        char edge[256], edge_out[256];
        snprintf(edge, sizeof edge, "%s/edge.jsonl", dir);
        snprintf(edge_out, sizeof edge_out, "%s/edge.out", dir);
        FILE *f = fopen(edge, "wb");
        fputs("{\"text\":\"a\"}\r\n\n\n{\"text\":\"", f);
        for (int i = 0; i < 9000000; i++) fputc('x', f);
        fputs("\"}\n{\"text\":\"last\"}", f);
        fclose(f);
        stage_ops keep_all = {.name = "keep"};
        char *edge_in[] = {edge};
        stage_opts_init(&o);
        o.output = edge_out;
        o.quiet = true;
        o.inputs = edge_in;
        o.ninputs = 1;
        o.threads = 2;
        stage_run(&o, &keep_all);
        size_t n;
        char *got = read_file(edge_out, &n);
        ok(got && n == 15 + 9000000 + 11 + 16 && memcmp(got, "{\"text\":\"a\"}\r\n{\"text\":\"xx", 20) == 0 &&
               memcmp(got + n - 17, "\n{\"text\":\"last\"}\n", 17) == 0,
           "kept lines re-emitted byte for byte, blank lines skipped, last line ended (%zu bytes)", n);
        free(got);
    }
    /* numbering across batches, files and both read paths */
    {
        char plain1[256], gz[256], plain2[256], nout[256];
        snprintf(plain1, sizeof plain1, "%s/n1.jsonl", dir);
        snprintf(gz, sizeof gz, "%s/n2.jsonl.gz", dir);
        snprintf(plain2, sizeof plain2, "%s/n3.jsonl", dir);
        snprintf(nout, sizeof nout, "%s/n.out", dir);
        snprintf(cmd, sizeof cmd,
                 "zcat %s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | head -700 | "
                 "awk 'NR %% 50 == 7 {print \"\"} NR %% 90 == 3 {printf \"%%s\\r\\n\", $0; next} {print}' > %s && "
                 "zcat %s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | sed -n 701,1300p | gzip > %s && "
                 "zcat %s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | tail -300 | head -c -1 > %s",
                 shared_dir(), plain1, shared_dir(), gz, shared_dir(), plain2);
        ok(system(cmd) == 0, "numbering inputs built (plain with blank and CRLF lines, gzip, plain without a last line end)");
        char *files[] = {plain1, gz, plain2};
        check_numbering(files, 3, nout, 4096, 4);
        check_numbering(files, 3, nout, 64 << 10, 3);
        check_numbering(files, 3, nout, 0, 1);
        char *plain_only[] = {plain1, plain2, plain1};
        check_numbering(plain_only, 3, nout, 100, 4);
    }
    check_random_files(dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) diag("cannot clean %s", dir);
    return done_testing();
}
