/* shards_writer_gpu.c - the shard writer's GPU path for --level tlz
 * (batches of frames sent by the emitter, frames the GPU cannot take coded
 * by the workers, everything written in order) against its host path, with
 * a stand-in for gpu/tlz.h defined here: it codes each batch on the host
 * with tlz_compress_frame() (the device's frames are byte-identical to those:
 * tests/unit/gpu_tlz.c checks that on a GPU) and says "not ready" for a while
 * after each submit, so that the emitter's waits, its queue of frames and
 * shard markers behind open batches, and the workers' share are all reached
 * without a GPU. The shard files must be byte-identical to the host path's
 * for any batch size, thread count and shard layout. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/util.h"
#include "gpu/tlz.h"
#include "shards/shard_format.h"
#include "shards/shard_writer.h"
#include "shards/tlz.h"
#include "tests/tap.h"

/* ---- the stand-in GPU ---- */

#define FAKE_SLOTS GPU_TLZ_IN_FLIGHT
#define FAKE_MAX_FRAMES 256

typedef struct {
    bool busy;
    size_t n;
    int polls_left; /* "not ready" answers before "ready" */
    uint8_t *frame[FAKE_MAX_FRAMES];
    size_t size[FAKE_MAX_FRAMES];
} fake_slot;

struct gpu_tlz {
    fake_slot slot[FAKE_SLOTS];
    tlz_ctx *ctx;
    int lag; /* polls_left of the next batch */
};

static struct {
    size_t frames, batches, max_batch, opened;
    bool contract_broken; /* a batch too large, a third open one, a finish of nothing, a bad checksum */
    int lag_cycle;        /* batches wait 0, 1, .., lag_cycle - 1 polls in turn */
} fake;

bool gpu_tlz_usable(wbuf *why)
{
    (void)why;
    return true;
}

gpu_tlz *gpu_tlz_open(size_t max_frames, size_t max_frame_bytes, wbuf *err)
{
    (void)err;
    if (max_frames > FAKE_MAX_FRAMES || max_frame_bytes > SHARD_FRAME_BYTES) fake.contract_broken = true;
    gpu_tlz *g = xcalloc(1, sizeof *g);
    g->ctx = tlz_ctx_new();
    fake.opened++;
    return g;
}

void *gpu_tlz_alloc_host(size_t bytes)
{
    return xmalloc(bytes);
}

void gpu_tlz_free_host(void *p)
{
    free(p);
}

int gpu_tlz_submit(gpu_tlz *g, size_t n, const uint8_t *const *src, const size_t *len, int width,
                   const uint32_t *checksum)
{
    int s = 0;
    while (s < FAKE_SLOTS && g->slot[s].busy) s++;
    if (s == FAKE_SLOTS || n == 0 || n > FAKE_MAX_FRAMES) {
        fake.contract_broken = true;
        abort();
    }
    fake_slot *slot = &g->slot[s];
    for (size_t i = 0; i < n; i++) {
        if ((uint32_t)XXH64(src[i], len[i], 0) != checksum[i]) fake.contract_broken = true;
        slot->frame[i] = xmalloc(tlz_frame_bound(len[i]));
        slot->size[i] = tlz_compress_frame(g->ctx, src[i], len[i], width, slot->frame[i]);
    }
    slot->busy = true;
    slot->n = n;
    slot->polls_left = fake.lag_cycle ? g->lag++ % fake.lag_cycle : 0;
    fake.frames += n;
    fake.batches++;
    if (n > fake.max_batch) fake.max_batch = n;
    return s;
}

bool gpu_tlz_ready(gpu_tlz *g, int s)
{
    if (s < 0 || s >= FAKE_SLOTS || !g->slot[s].busy) fake.contract_broken = true;
    if (g->slot[s].polls_left == 0) return true;
    g->slot[s].polls_left--;
    return false;
}

void gpu_tlz_finish(gpu_tlz *g, int s, uint8_t *const *dst, size_t *size)
{
    if (s < 0 || s >= FAKE_SLOTS || !g->slot[s].busy) {
        fake.contract_broken = true;
        abort();
    }
    fake_slot *slot = &g->slot[s];
    for (size_t i = 0; i < slot->n; i++) {
        memcpy(dst[i], slot->frame[i], slot->size[i]);
        size[i] = slot->size[i];
        free(slot->frame[i]);
    }
    slot->busy = false;
}

void gpu_tlz_phase_seconds(const gpu_tlz *g, double seconds[GPU_TLZ_PHASES])
{
    (void)g;
    for (int p = 0; p < GPU_TLZ_PHASES; p++) seconds[p] = 0;
}

void gpu_tlz_close(gpu_tlz *g)
{
    for (int s = 0; s < FAKE_SLOTS; s++)
        if (g->slot[s].busy) fake.contract_broken = true; /* a batch never written */
    tlz_ctx_free(g->ctx);
    free(g);
}

/* ---- documents: the tokref ids of multi, cl100k_base ---- */

typedef struct {
    uint32_t *ids;
    size_t *len, n;
} corpus;

static corpus load_corpus(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tokref/%s.bin.zst", shared_dir(), name);
    require_file(path);
    size_t zlen;
    char *z = read_file(path, &zlen);
    unsigned long long raw = ZSTD_getFrameContentSize(z, zlen);
    if (raw == ZSTD_CONTENTSIZE_UNKNOWN || raw == ZSTD_CONTENTSIZE_ERROR) dief(EXIT_FATAL, "%s: no content size", path);
    uint8_t *bin = xmalloc(raw);
    size_t got = ZSTD_decompress(bin, raw, z, zlen);
    if (ZSTD_isError(got)) dief(EXIT_FATAL, "%s: %s", path, ZSTD_getErrorName(got));
    corpus c = {xmalloc(got), NULL, 0};
    size_t nids = 0;
    for (size_t at = 0; at + 4 <= got;) {
        uint32_t n = get_le32(bin + at);
        at += 4;
        c.len = xrealloc(c.len, (c.n + 1) * sizeof *c.len);
        c.len[c.n++] = n;
        for (uint32_t i = 0; i < n; i++, at += 4) c.ids[nids++] = get_le32(bin + at);
    }
    free(bin);
    free(z);
    return c;
}

/* Writes the corpus as shards in dir; returns the writer's exit code. */
static int write_shards(const corpus *c, const char *dir, wdevice device, int threads, int batch, uint64_t shard_tokens,
                        bool split)
{
    shard_writer_options o;
    shard_writer_options_init(&o);
    o.vocab_size = 100277;
    o.eos_id = 100257;
    o.zstd_level = SHARD_LEVEL_TLZ;
    o.device = device;
    o.threads = threads;
    o.gpu_batch_frames = batch;
    o.gpu_backlog = -1; /* the stand-in takes every frame it has room for */
    o.shard_tokens = shard_tokens;
    o.split_docs = split;
    shard_writer *w = shard_writer_open(dir, &o);
    if (!w) return -1;
    const uint32_t *ids = c->ids;
    for (size_t d = 0; d < c->n; d++) {
        if (shard_writer_add_document(w, ids, c->len[d])) return -1;
        ids += c->len[d];
    }
    return shard_writer_close(w);
}

/* Whether every file of dir a is in dir b with the same bytes, and as many. */
static bool same_dirs(const char *a, const char *b)
{
    DIR *d = opendir(a);
    if (!d) return false;
    bool same = true;
    size_t na = 0, nb = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        na++;
        char pa[1024], pb[1024];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        size_t la, lb;
        char *fa = read_file(pa, &la), *fb = read_file(pb, &lb);
        if (!fa || !fb || la != lb || memcmp(fa, fb, la)) same = false;
        free(fa);
        free(fb);
    }
    closedir(d);
    if ((d = opendir(b))) {
        while ((e = readdir(d))) nb += e->d_name[0] != '.';
        closedir(d);
    }
    return same && na == nb;
}

int main(void)
{
    corpus c = load_corpus("multi.cl100k_base"); /* 5.9 M ids: 23 frames of uint32 */
    char tmp[] = "/tmp/winnow-shards-gpu.XXXXXX";
    if (!mkdtemp(tmp)) dief(EXIT_FATAL, "mkdtemp");
    char ref[1100], dir[1100];
    const struct {
        uint64_t shard_tokens;
        bool split;
    } layouts[] = {{100000000, false}, {1500000, false}, {700000, true}};
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
        snprintf(ref, sizeof ref, "%s/ref%zu", tmp, l);
        is_int(write_shards(&c, ref, DEVICE_CPU, 2, 0, layouts[l].shard_tokens, layouts[l].split), 0,
               "layout %zu: the host path writes shards", l);
        const struct {
            int threads, batch, lag;
        } runs[] = {{2, 0, 0}, {2, 3, 0}, {1, 1, 3}, {4, 4, 5}, {3, 2, 2}};
        for (size_t r = 0; r < sizeof runs / sizeof *runs; r++) {
            memset(&fake, 0, sizeof fake);
            fake.lag_cycle = runs[r].lag;
            snprintf(dir, sizeof dir, "%s/gpu%zu-%zu", tmp, l, r);
            int rc = write_shards(&c, dir, DEVICE_GPU, runs[r].threads, runs[r].batch, layouts[l].shard_tokens,
                                  layouts[l].split);
            size_t limit = runs[r].batch ? (size_t)runs[r].batch : FAKE_MAX_FRAMES;
            ok(rc == 0 && fake.opened == 1 && fake.frames > 0 && !fake.contract_broken && fake.max_batch <= limit,
               "layout %zu, %d threads, batches of %d, lag %d: %zu frames in %zu batches on the GPU, the API kept", l,
               runs[r].threads, runs[r].batch, runs[r].lag, fake.frames, fake.batches);
            ok(same_dirs(ref, dir), "... the same files as the host path");
        }
    }
    memset(&fake, 0, sizeof fake);
    snprintf(dir, sizeof dir, "%s/auto", tmp);
    is_int(write_shards(&c, dir, DEVICE_AUTO, 2, 0, 100000000, false), 0, "--device auto writes shards");
    snprintf(ref, sizeof ref, "%s/ref0", tmp);
    ok(fake.opened == 0 && same_dirs(ref, dir), "... the host path's files, without starting the GPU for fewer than 256 frames");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (!getenv("KEEP") && system(cmd)) diag("could not remove %s", tmp);
    free(c.ids);
    free(c.len);
    return done_testing();
}
