/* shard_ids.c - fuzz target for `winnow shard`'s input, the --format bin id
 * stream (a u32 count, then that many u32 ids, per document): any bytes
 * streamed into a shard writer; ids out of range, huge counts and cut
 * documents must be counted and reported, never crash. The writer's shard
 * directory is one temporary directory, reused. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/input.h"
#include "core/stats.h"
#include "shards/id_stream.h"
#include "shards/shard_writer.h"

#define FUZZ_VOCAB 1000 /* small, so that random ids are often out of range */

static char dir[64];

static void remove_dir(void)
{
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) return;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/winnow-fuzz-shard-ids.XXXXXX");
        if (!mkdtemp(dir)) abort();
        atexit(remove_dir);
    }
    int fd = memfd_create("ids.bin", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        winput *in = input_open(path);
        shard_writer_options o;
        shard_writer_options_init(&o);
        o.vocab_size = FUZZ_VOCAB;
        o.eos_id = FUZZ_VOCAB - 1;
        o.shard_tokens = 4096;
        o.split_docs = size % 2;
        shard_writer *w = in ? shard_writer_open(dir, &o) : NULL;
        if (w) {
            wstats st;
            stats_init(&st);
            shard_stream_add(in, w, &st);
            shard_writer_close(w);
            if (!stats_balanced(&st)) abort(); /* every document counted once */
            stats_free(&st);
        }
        if (in) input_close(in);
    }
    close(fd);
    return 0;
}
