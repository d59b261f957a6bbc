/* core_stage_times - the engine's stage_times account for where its threads'
 * time went, on real C4 documents: each part holds at least the time a stage
 * is known to spend in it, the parts never exceed the workers' window, and
 * timing changes no output byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/stage.h"
#include "core/util.h"
#include "tests/tap.h"

#define MAP_SLEEP_US 3000     /* each batch's map sleeps this long */
#define REDUCE_SLEEP_US 2000  /* and its reduce this long */
#define BATCH_BYTES (16 << 10)
#define LONE_SLEEP_US 40000   /* the map of a run with a single batch */
#define NS_PER_US 1000u

static int mapped, reduced;

static void sleepy_map(void *ctx, int worker, stage_batch *b)
{
    (void)ctx, (void)worker, (void)b;
    __atomic_add_fetch(&mapped, 1, __ATOMIC_SEQ_CST);
    usleep(MAP_SLEEP_US);
}

static void sleepy_reduce(void *ctx, stage_batch *b)
{
    (void)ctx, (void)b;
    reduced++;
    usleep(REDUCE_SLEEP_US);
}

static void lone_map(void *ctx, int worker, stage_batch *b)
{
    (void)ctx, (void)worker, (void)b;
    usleep(LONE_SLEEP_US);
}

/* The workers' parts of t, summed (everything but idle between batches). */
static uint64_t parts_of(const stage_times *t)
{
    return atomic_load(&t->read_ns) + atomic_load(&t->split_ns) + atomic_load(&t->scan_ns) +
           atomic_load(&t->numbered_ns) + atomic_load(&t->map_ns) + t->before_first_ns + t->after_last_ns;
}

static void run(char *input, const char *output, int threads, size_t batch_bytes, const stage_ops *ops,
                stage_times *times)
{
    stage_opts o;
    char *inputs[] = {input};
    stage_opts_init_quiet(&o, threads, inputs, 1);
    o.output = output;
    o.batch_bytes = batch_bytes;
    o.times = times;
    is_int(stage_run(&o, ops), 0, "%d workers%s: exit status 0", threads, times ? ", timed" : "");
}

int main(void)
{
    char dir[] = "/tmp/winnow-stage-times-XXXXXX";
    if (!mkdtemp(dir)) {
        ok(0, "temp dir");
        return done_testing();
    }
    char input[256], timed_out[256], plain_out[256], cmd[1024];
    snprintf(input, sizeof input, "%s/in.jsonl", dir);
    snprintf(timed_out, sizeof timed_out, "%s/timed.jsonl", dir);
    snprintf(plain_out, sizeof plain_out, "%s/plain.jsonl", dir);
    snprintf(cmd, sizeof cmd, "zcat %s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | head -400 > %s",
             shared_dir(), input);
    ok(system(cmd) == 0, "input: 400 C4 documents");

    stage_ops sleepy = {.name = "sleepy", .map = sleepy_map, .reduce = sleepy_reduce};
    stage_times t = {0};
    run(input, timed_out, 3, BATCH_BYTES, &sleepy, &t);
    int batches = mapped;
    ok(batches > 10 && reduced == batches, "%d batches mapped and reduced", batches);
    ok(atomic_load(&t.map_ns) >= (uint64_t)batches * MAP_SLEEP_US * NS_PER_US, "map: at least %d x %d us (%.3f s)",
       batches, MAP_SLEEP_US, atomic_load(&t.map_ns) / 1e9);
    ok(t.writer_ns >= (uint64_t)batches * REDUCE_SLEEP_US * NS_PER_US, "writer: at least %d x %d us (%.3f s)", batches,
       REDUCE_SLEEP_US, t.writer_ns / 1e9);
    ok(atomic_load(&t.read_ns) > 0 && atomic_load(&t.split_ns) > 0 && atomic_load(&t.scan_ns) > 0,
       "the workers' reading, splitting and scanning are timed");
    ok(parts_of(&t) <= t.workers_ns, "the parts (%.3f s) fit in the workers' window (%.3f s)", parts_of(&t) / 1e9,
       t.workers_ns / 1e9);
    ok(t.reader_oldest_ns + t.reader_writer_ns <= t.workers_ns / 3,
       "the reading thread's waits (%.3f s) fit in the run", (t.reader_oldest_ns + t.reader_writer_ns) / 1e9);

    mapped = reduced = 0;
    run(input, plain_out, 3, BATCH_BYTES, &sleepy, NULL);
    size_t n1, n2;
    char *a = read_file(timed_out, &n1), *b = read_file(plain_out, &n2);
    ok(a && b && n1 == n2 && n1 > 0 && memcmp(a, b, n1) == 0, "timing changes no output byte (%zu bytes)", n1);
    free(a), free(b);

    /* one batch, four workers: three wait the whole run for a first batch */
    stage_ops lone = {.name = "lone", .map = lone_map};
    stage_times one = {0};
    run(input, timed_out, 4, 0, &lone, &one);
    uint64_t sleep_ns = (uint64_t)LONE_SLEEP_US * NS_PER_US;
    ok(one.before_first_ns >= 3 * sleep_ns, "three idle workers: %.3f s before a first batch (>= 3 x %d us)",
       one.before_first_ns / 1e9, LONE_SLEEP_US);
    ok(atomic_load(&one.map_ns) >= sleep_ns && atomic_load(&one.map_ns) < one.workers_ns / 2,
       "the one batch's map (%.3f s) is one worker's share", atomic_load(&one.map_ns) / 1e9);
    ok(parts_of(&one) <= one.workers_ns, "the parts (%.3f s) fit in the window (%.3f s)", parts_of(&one) / 1e9,
       one.workers_ns / 1e9);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) diag("cannot clean %s", dir);
    return done_testing();
}
