/* zstd_params.c - zstd's speed and ratio on real token ids, per level and
 * advanced parameter, one thread, as the shard writer compresses them.
 *
 * usage: zstd_params VOCAB_SIZE FILE.bin [REPEATS] SPEC...
 *
 * Reads a --format bin id stream (per document a u32 count, then the ids),
 * lays the ids out as the shard writer stores them (uint16 when VOCAB_SIZE
 * <= 65536, else uint32, little-endian) and compresses them in frames with
 * the writer's parameters (content size, content checksum). A SPEC is a
 * level and optional parameters: LEVEL[,NAME=VALUE...] with NAME one of
 * wlog, hlog, clog, slog, mml, tlen, strat (zstd's windowLog, hashLog,
 * chainLog, searchLog, minMatch, targetLength, strategy), lit (zstd's
 * experimental literalCompressionMode: 1 Huffman-codes literals, 2 stores
 * them raw) and frame (frame bytes, k/M suffix; the format's is 1M). Each
 * spec is timed REPEATS times (default 3), best kept: the machine is shared.
 * Prints one Markdown row per spec: CPU-seconds per GB of raw ids, MB/s, the
 * ratio, the size against the first spec, bits per token, decompression
 * MB/s. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode, an experimental parameter */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "core/util.h"
#include "shards/shard_format.h"
#include "bench/bin_ids.h"

#define GB 1e9
#define DEFAULT_REPEATS 3
#define KIB 1024


typedef struct {
    const char *name;
    ZSTD_cParameter param;
} param_name;

static const param_name PARAMS[] = {
    {"wlog", ZSTD_c_windowLog},   {"hlog", ZSTD_c_hashLog},         {"clog", ZSTD_c_chainLog},
    {"slog", ZSTD_c_searchLog},   {"mml", ZSTD_c_minMatch},         {"tlen", ZSTD_c_targetLength},
    {"strat", ZSTD_c_strategy},   {"lit", ZSTD_c_literalCompressionMode},
};

/* Sets up cc as spec says; returns the frame size. */
static size_t apply_spec(ZSTD_CCtx *cc, const char *spec)
{
    char *copy = xstrdup(spec), *save = NULL;
    size_t frame = SHARD_FRAME_BYTES;
    ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, atoi(strtok_r(copy, ",", &save)));
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    for (char *kv; (kv = strtok_r(NULL, ",", &save));) {
        char *eq = strchr(kv, '=');
        if (!eq) dief(EXIT_USAGE, "%s: NAME=VALUE expected", kv);
        *eq = 0;
        char *end;
        long v = strtol(eq + 1, &end, 10);
        if (!strcmp(kv, "frame")) {
            frame = (size_t)v * (*end == 'k' ? KIB : *end == 'M' ? KIB * KIB : 1);
            continue;
        }
        size_t i = 0;
        while (i < sizeof PARAMS / sizeof *PARAMS && strcmp(PARAMS[i].name, kv)) i++;
        if (i == sizeof PARAMS / sizeof *PARAMS) dief(EXIT_USAGE, "%s: unknown parameter", kv);
        size_t r = ZSTD_CCtx_setParameter(cc, PARAMS[i].param, (int)v);
        if (ZSTD_isError(r)) dief(EXIT_USAGE, "%s=%ld: %s", kv, v, ZSTD_getErrorName(r));
    }
    free(copy);
    return frame;
}

typedef struct {
    double ccpu, dcpu; /* seconds, best of the repeats */
    size_t total;      /* compressed bytes */
} spec_result;

static spec_result run_spec(const id_array *a, const char *spec, int repeats)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    size_t frame = apply_spec(cc, spec);
    size_t bound = ZSTD_compressBound(frame);
    uint8_t *comp = xmalloc(bound), *back = xmalloc(frame);
    spec_result best = {0, 0, 0};
    for (int r = 0; r < repeats; r++) {
        spec_result now = {0, 0, 0};
        for (size_t at = 0; at < a->len; at += frame) {
            size_t n = a->len - at < frame ? a->len - at : frame;
            double t0 = thread_cpu_seconds();
            size_t c = ZSTD_compress2(cc, comp, bound, a->raw + at, n);
            if (ZSTD_isError(c)) dief(EXIT_FATAL, "zstd: %s", ZSTD_getErrorName(c));
            double t1 = thread_cpu_seconds();
            size_t d = ZSTD_decompressDCtx(dc, back, frame, comp, c);
            double t2 = thread_cpu_seconds();
            if (d != n || memcmp(back, a->raw + at, n)) dief(EXIT_FATAL, "round trip differs");
            now.ccpu += t1 - t0;
            now.dcpu += t2 - t1;
            now.total += c;
        }
        if (r == 0 || now.ccpu < best.ccpu) best.ccpu = now.ccpu;
        if (r == 0 || now.dcpu < best.dcpu) best.dcpu = now.dcpu;
        best.total = now.total;
    }
    free(comp);
    free(back);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: zstd_params VOCAB_SIZE FILE.bin [REPEATS] SPEC...\n");
        return EXIT_USAGE;
    }
    id_array a;
    load_ids(argv[2], strtoull(argv[1], NULL, 10), &a);
    int first = 3, repeats = DEFAULT_REPEATS;
    if (argc > 4 && !strchr(argv[3], ',') && atoi(argv[3]) > 1 && atoi(argv[3]) < 100) { /* a count, not a level */
        repeats = atoi(argv[3]);
        first = 4;
    }
    printf("%zu ids, %zu raw bytes (uint%d), best of %d\n\n", a.len / (size_t)a.width, a.len, 8 * a.width, repeats);
    printf("| spec | CPU-s per GB of raw ids | MB/s one thread | ratio | size vs %s | bits/token | decompress MB/s |\n",
           argv[first]);
    printf("|---|---|---|---|---|---|---|\n");
    size_t base = 0;
    for (int i = first; i < argc; i++) {
        spec_result r = run_spec(&a, argv[i], repeats);
        if (!base) base = r.total;
        printf("| %s | %.2f | %.0f | %.3f | %+.1f %% | %.2f | %.0f |\n", argv[i], r.ccpu * GB / (double)a.len,
               (double)a.len / 1e6 / r.ccpu, (double)a.len / (double)r.total,
               100.0 * ((double)r.total / (double)base - 1), 8.0 * (double)r.total / (double)(a.len / (size_t)a.width),
               (double)a.len / 1e6 / r.dcpu);
        fflush(stdout);
    }
    free(a.raw);
    return 0;
}
