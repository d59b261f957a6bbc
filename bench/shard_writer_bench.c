/* shard_writer_bench.c - the shard writer fed from memory: how fast it
 * takes ids, and what its calling thread spends on them.
 *
 * usage: shard_writer_bench VOCAB_SIZE EOS FILE.bin DIR THREADS LEVEL MODE [COPIES]
 *
 * Reads a --format bin id stream (per document a u32 count, then the ids)
 * into memory COPIES times over (default 1) and writes it to DIR through
 * shards/shard_writer.h with THREADS compression threads at LEVEL. MODE
 * "copy" adds each document with shard_writer_add_document (the calling
 * thread checks and copies the ids, as `winnow shard` does); "borrowed"
 * with shard_writer_add_borrowed, releasing every BLOCK_IDS ids (as
 * `winnow tokenize` does per block). Prints one line: wall seconds, the
 * process's CPU seconds, the calling thread's CPU seconds, MB of ids per
 * CPU-second and per wall second, and the compressed size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/util.h"
#include "shards/shard_format.h"
#include "shards/shard_writer.h"
#include "bench/bin_ids.h"

#define BLOCK_IDS (64u << 20) /* ids per release in borrowed mode: a 256 MB block of ids */
#define MB 1e6

typedef struct {
    uint32_t *ids;
    uint64_t nids;
    uint64_t *ends; /* end of each document in ids */
    uint64_t ndocs;
} doc_array;

static void load_docs(const char *path, int copies, doc_array *a)
{
    size_t size;
    uint8_t *in = read_bin_file(path, &size);
    a->ids = xmalloc(size / 4 * sizeof *a->ids * (size_t)copies);
    a->ends = xmalloc(size / 4 * sizeof *a->ends * (size_t)copies);
    a->nids = a->ndocs = 0;
    for (int c = 0; c < copies; c++)
        for (size_t at = 0; at + 4 <= size;) {
            uint32_t n = get_le32(in + at);
            at += 4;
            if (at + 4 * (size_t)n > size) dief(EXIT_FATAL, "%s: truncated", path);
            for (uint32_t i = 0; i < n; i++, at += 4) a->ids[a->nids++] = get_le32(in + at);
            a->ends[a->ndocs++] = a->nids;
        }
    free(in);
}

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: shard_writer_bench VOCAB_SIZE EOS FILE.bin DIR THREADS LEVEL copy|borrowed [COPIES]\n");
        return EXIT_USAGE;
    }
    doc_array a;
    load_docs(argv[3], argc > 8 ? atoi(argv[8]) : 1, &a);
    bool borrowed = !strcmp(argv[7], "borrowed");
    if (!borrowed && strcmp(argv[7], "copy")) dief(EXIT_USAGE, "MODE must be copy or borrowed");
    shard_writer_options o;
    shard_writer_options_init(&o);
    o.vocab_size = strtoull(argv[1], NULL, 10);
    o.eos_id = atoll(argv[2]);
    o.threads = atoi(argv[5]);
    if (!shard_level_parse(argv[6], &o.zstd_level)) dief(EXIT_USAGE, "%s: not a level", argv[6]);
    double wall0 = now_seconds(), cpu0 = process_cpu_seconds(), thread0 = thread_cpu_seconds();
    shard_writer *w = shard_writer_open(argv[4], &o);
    if (!w) return EXIT_FATAL;
    uint64_t from = 0, released = 0;
    for (uint64_t d = 0; d < a.ndocs; d++) {
        const uint32_t *ids = a.ids + from;
        size_t n = (size_t)(a.ends[d] - from);
        if (!borrowed) {
            if (shard_writer_add_document(w, ids, n)) dief(EXIT_FATAL, "document %llu: %s", (unsigned long long)d, shard_writer_error(w));
        } else {
            shard_writer_add_borrowed(w, ids, n);
            if (a.ends[d] - released >= BLOCK_IDS) {
                shard_writer_release(w);
                released = a.ends[d];
            }
        }
        from = a.ends[d];
    }
    if (borrowed) shard_writer_release(w);
    double thread = thread_cpu_seconds() - thread0; /* the calling thread's part, before close waits */
    shard_writer_close(w);
    double wall = now_seconds() - wall0, cpu = process_cpu_seconds() - cpu0;
    uint64_t bytes = 0;
    char path[4096];
    for (int s = 0;; s++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/shard_%05d.tok.zst", argv[4], s);
        if (stat(path, &st)) break;
        bytes += (uint64_t)st.st_size;
    }
    double raw = (double)(a.nids + a.ndocs) * (o.vocab_size <= 65536 ? 2 : 4); /* the ids and an eos each */
    printf("%s -j%s level %s: wall %.3f s, CPU %.3f s (calling thread %.3f), %.0f MB of ids per CPU-s, %.0f MB/s wall, "
           "calling thread %.2f CPU-s per GB of ids, ratio %.3f\n",
           argv[7], argv[5], argv[6], wall, cpu, thread, raw / MB / cpu, raw / MB / wall, thread * 1e9 / raw,
           raw / (double)bytes);
    free(a.ids);
    free(a.ends);
    return 0;
}
