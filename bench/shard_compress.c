/* shard_compress.c - shard frame compression on one thread: libzstd level 1
 * (what the shard writer uses) against the token-granular match finder of
 * bench/token_lz.h, whose sequences libzstd entropy-codes.
 *
 * usage: shard_compress VOCAB_SIZE [REPEATS] FILE.ids...
 *
 * Reads raw little-endian uint32 ids (the tokref *.bin files, concatenated
 * in the order given), stores them as the shard writer does (uint16 when
 * VOCAB_SIZE <= 65536, else uint32), cuts them into frames of
 * SHARD_FRAME_BYTES and compresses every frame both ways, alternating, the
 * best of REPEATS (default 3) rounds each: the thread's CPU seconds (for the
 * token matcher also its finder alone), the ratio, the sequences. Every
 * token_lz frame is first decompressed by a streaming decoder (as `zstd -d`
 * does, with a window) and compared, and so are edge frames (empty, tiny,
 * one token repeated, random bytes). A markdown table on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "bench/token_lz.h"
#include "shards/shard_format.h"

#define UINT16_VOCAB_LIMIT 65536u
#define DEFAULT_REPEATS 3
#define LEVEL_ONE 1

typedef struct {
    uint8_t *raw;
    size_t len;
    int width;
} ids;

static void load(int nfiles, char **files, uint64_t vocab, ids *a)
{
    a->width = vocab <= UINT16_VOCAB_LIMIT ? 2 : 4;
    a->raw = NULL;
    a->len = 0;
    for (int f = 0; f < nfiles; f++) {
        size_t size;
        uint8_t *in = (uint8_t *)read_file(files[f], &size);
        if (!in) dief(EXIT_FATAL, "%s: cannot read", files[f]);
        a->raw = xrealloc(a->raw, a->len + size);
        for (size_t at = 0; at + 4 <= size; at += 4) {
            uint32_t id = get_le32(in + at);
            if (a->width == 2 && id >= UINT16_VOCAB_LIMIT) dief(EXIT_FATAL, "%s: id %u does not fit uint16", files[f], id);
            if (a->width == 2) put_le16(a->raw + a->len, (uint16_t)id);
            else put_le32(a->raw + a->len, id);
            a->len += (size_t)a->width;
        }
        free(in);
    }
}

/* One round over every frame; returns the thread's CPU seconds, *total the compressed bytes. */
static double round_level1(const ids *a, ZSTD_CCtx *cc, uint8_t *comp, size_t cap, size_t *total)
{
    *total = 0;
    double t0 = thread_cpu_seconds();
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        size_t c = ZSTD_compress2(cc, comp, cap, a->raw + at, n);
        if (ZSTD_isError(c)) dief(EXIT_FATAL, "zstd: %s", ZSTD_getErrorName(c));
        *total += c;
    }
    return thread_cpu_seconds() - t0;
}

/* Decompresses one frame as a stream, window and all; exits when it differs from want. */
static void check_frame(ZSTD_DCtx *dc, const uint8_t *comp, size_t clen, const uint8_t *want, size_t n, uint8_t *back)
{
    ZSTD_DCtx_reset(dc, ZSTD_reset_session_only);
    ZSTD_inBuffer in = {comp, clen, 0};
    ZSTD_outBuffer out = {back, SHARD_FRAME_BYTES, 0};
    size_t r = ZSTD_decompressStream(dc, &out, &in);
    if (ZSTD_isError(r) || r != 0 || out.pos != n || memcmp(back, want, n))
        dief(EXIT_FATAL, "token_lz frame of %zu bytes: round trip differs (%s)", n,
             ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong bytes");
}

/* Edge frames (empty, 1 and 3 tokens, one token repeated, random tokens, a
 * length not a multiple of 8 bytes) through token_lz and back; exits on a difference. */
static void check_edges(token_lz *lz, int width)
{
    static const size_t lens[] = {0, 1, 3, 1000, SHARD_FRAME_BYTES};
    size_t cap = ZSTD_compressBound(SHARD_FRAME_BYTES);
    uint8_t *src = xmalloc(SHARD_FRAME_BYTES), *comp = xmalloc(cap), *back = xmalloc(SHARD_FRAME_BYTES);
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    uint64_t state = 1; /* xorshift: the same "random" tokens every run */
    for (int kind = 0; kind < 2; kind++)
        for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
            for (size_t extra = 0; extra <= (size_t)width; extra += (size_t)width) { /* + one token: odd lengths */
                size_t n = (lens[i] + extra / (size_t)width) * (size_t)width;
                if (n > SHARD_FRAME_BYTES) n = SHARD_FRAME_BYTES;
                for (size_t b = 0; b < n; b++) {
                    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
                    src[b] = kind ? (uint8_t)state : (uint8_t)(b % (size_t)width + 1);
                }
                token_lz_find(lz, src, n, width);
                size_t c = token_lz_encode(lz, comp, cap, src, n);
                if (ZSTD_isError(c)) dief(EXIT_FATAL, "edge frame of %zu bytes: %s", n, ZSTD_getErrorName(c));
                check_frame(dc, comp, c, src, n, back);
            }
    ZSTD_freeDCtx(dc);
    free(src);
    free(comp);
    free(back);
}

/* One round of token_lz; *find_s gets the finder's share of the CPU seconds returned. */
static double round_tokens(const ids *a, token_lz *lz, uint8_t *comp, size_t cap, size_t *total, size_t *nseqs,
                           double *find_s, bool check)
{
    ZSTD_DCtx *dc = check ? ZSTD_createDCtx() : NULL;
    uint8_t *back = check ? xmalloc(SHARD_FRAME_BYTES) : NULL;
    *total = *nseqs = 0;
    *find_s = 0;
    double spent = 0;
    for (size_t at = 0; at < a->len; at += SHARD_FRAME_BYTES) {
        size_t n = a->len - at < SHARD_FRAME_BYTES ? a->len - at : SHARD_FRAME_BYTES;
        double t0 = thread_cpu_seconds();
        token_lz_find(lz, a->raw + at, n, a->width);
        double t1 = thread_cpu_seconds();
        size_t c = token_lz_encode(lz, comp, cap, a->raw + at, n);
        spent += thread_cpu_seconds() - t0;
        *find_s += t1 - t0;
        if (ZSTD_isError(c)) dief(EXIT_FATAL, "ZSTD_compressSequences: %s", ZSTD_getErrorName(c));
        *total += c;
        *nseqs += lz->nseqs;
        if (check) check_frame(dc, comp, c, a->raw + at, n, back);
    }
    free(back);
    ZSTD_freeDCtx(dc);
    return spent;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: shard_compress VOCAB_SIZE [REPEATS] FILE.ids...\n");
        return EXIT_USAGE;
    }
    int first = 2, repeats = DEFAULT_REPEATS;
    if (argc > 3 && strspn(argv[2], "0123456789") == strlen(argv[2])) {
        repeats = atoi(argv[2]);
        first = 3;
    }
    ids a;
    load(argc - first, argv + first, strtoull(argv[1], NULL, 10), &a);
    size_t cap = ZSTD_compressBound(SHARD_FRAME_BYTES);
    uint8_t *comp = xmalloc(cap);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, LEVEL_ONE);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    token_lz lz;
    token_lz_init(&lz, SHARD_FRAME_BYTES);
    size_t z1 = 0, zt = 0, nseqs = 0;
    double find_s, best_find = 1e30;
    check_edges(&lz, a.width);
    round_tokens(&a, &lz, comp, cap, &zt, &nseqs, &find_s, true); /* checks every frame once */
    double best1 = 1e30, bestt = 1e30;
    for (int r = 0; r < repeats; r++) {
        double s1 = round_level1(&a, cc, comp, cap, &z1), st = round_tokens(&a, &lz, comp, cap, &zt, &nseqs, &find_s, false);
        best1 = s1 < best1 ? s1 : best1;
        if (st < bestt) bestt = st, best_find = find_s;
    }
    double mb = (double)a.len / 1e6;
    printf("%zu ids, %zu raw bytes (uint%d), frames of %u bytes, best of %d rounds (CPU s of one thread)\n\n",
           a.len / (size_t)a.width, a.len, 8 * a.width, SHARD_FRAME_BYTES, repeats);
    printf("| compressor | CPU s | finder CPU s | MB/s one thread | ratio | sequences |\n|---|---|---|---|---|---|\n");
    printf("| zstd level 1 | %.3f | - | %.0f | %.3f | - |\n", best1, mb / best1, (double)a.len / (double)z1);
    printf("| token_lz (hash log %d) | %.3f | %.3f | %.0f | %.3f | %zu |\n", TOKEN_LZ_HASH_LOG, bestt, best_find,
           mb / bestt, (double)a.len / (double)zt, nseqs);
    printf("\nCPU: level 1 / token_lz = %.2f; size: token_lz %.1f%% of level 1's\n", best1 / bestt,
           100.0 * (double)zt / (double)z1);
    token_lz_free(&lz);
    ZSTD_freeCCtx(cc);
    free(comp);
    free(a.raw);
    return 0;
}
