/* docstream_bench - throughput of the document stream on the hot path:
 * read a line, scan it, get text and id unescaped, write the kept line back.
 * usage: docstream_bench FILE.jsonl THREADS [baseline]   (output goes to /dev/null)
 * "baseline" runs the SSE4.2 scanners even where the CPU has AVX2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd.h"
#include "core/stage.h"
#include "core/util.h"

typedef struct {
    wbuf scratch[64];
    unsigned long long chars[64];
} bench_ctx;

static void touch_fields(void *ctx, int worker, stage_batch *b)
{
    bench_ctx *c = ctx;
    wbuf *scratch = &c->scratch[worker];
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict == DOC_FAIL) continue;
        size_t len;
        json_string(&d->json.text, scratch, &len);
        c->chars[worker] += len;
        json_string(&d->json.id, scratch, &len);
        c->chars[worker] += len;
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "baseline")))
        dief(EXIT_USAGE, "usage: docstream_bench FILE THREADS [baseline]");
    simd_force_baseline(argc == 4);
    static bench_ctx ctx;
    stage_ops ops = {.name = "docstream", .ctx = &ctx, .map = touch_fields};
    stage_opts o;
    stage_opts_init(&o);
    o.threads = atoi(argv[2]);
    if (o.threads < 1 || o.threads > 64) dief(EXIT_USAGE, "THREADS must be 1..64");
    o.output = "/dev/null";
    o.quiet = true;
    o.inputs = argv + 1;
    o.ninputs = 1;
    double t0 = now_seconds();
    int rc = stage_run(&o, &ops);
    double secs = now_seconds() - t0;
    FILE *f = fopen(argv[1], "rb");
    fseek(f, 0, SEEK_END);
    double mb = (double)ftell(f) / 1e6;
    fclose(f);
    printf("%.1f\n", mb / secs);
    return rc;
}
