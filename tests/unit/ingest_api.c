/* ingest_api.c - the ingest library used in-process: documents come back
 * through the sink in input order, the same for any thread count, and the
 * counts balance. */
#include <stdio.h>
#include <string.h>

#include "ingest/ingest.h"
#include "tests/tap.h"

typedef struct {
    wbuf docs, rejects;
} collected;

static void take_docs(void *ctx, const char *lines, size_t len) { buf_append(&((collected *)ctx)->docs, lines, len); }
static void take_rejects(void *ctx, const char *lines, size_t len)
{
    buf_append(&((collected *)ctx)->rejects, lines, len);
}

static int count_lines(const wbuf *b)
{
    int n = 0;
    for (size_t i = 0; i < b->len; i++) n += b->data[i] == '\n';
    return n;
}

static void run(const char *path, int threads, collected *c, wstats *copy_counts)
{
    ingest_options o;
    ingest_options_init(&o);
    o.threads = threads;
    o.want_rejects = true;
    ingest_sink sink = {take_docs, take_rejects, c};
    ingest *g = ingest_create(&o, &sink);
    ingest_path(g, path);
    ingest_flush(g);
    const wstats *s = ingest_stats(g);
    copy_counts->in = s->in;
    copy_counts->out = s->out;
    copy_counts->dropped = s->dropped;
    copy_counts->failed = s->failed;
    ok(stats_balanced(s), "%s with %d threads: balanced", path, threads);
    ingest_destroy(g);
}

int main(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/warc/resiliparse/tests/data/warcfile.warc.gz", shared_dir());
    require_file(path);

    collected one = {WBUF_INIT, WBUF_INIT}, three = {WBUF_INIT, WBUF_INIT};
    wstats s1, s3;
    run(path, 1, &one, &s1);
    run(path, 3, &three, &s3);
    is_int(count_lines(&one.docs), 16, "16 documents through the sink");
    is_int(s1.out, 16, "stats out = 16");
    is_int(s1.in, 50, "stats in = 50 records");
    is_int(count_lines(&one.rejects), (long long)s1.dropped, "one rejects line per dropped record");
    ok(one.docs.len == three.docs.len && !memcmp(one.docs.data, three.docs.data, one.docs.len),
       "1 and 3 threads give the same bytes in the same order");
    ok(strncmp(one.docs.data, "{\"id\":\"<urn:uuid:", 17) == 0, "lines start with the record id");
    buf_free(&one.docs);
    buf_free(&one.rejects);
    buf_free(&three.docs);
    buf_free(&three.rejects);
    return done_testing();
}
