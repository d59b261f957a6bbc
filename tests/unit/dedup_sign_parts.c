/* dedup_sign_parts.c - the signer's GPU path (a batch cut into parts, each
 * submitted to the device while the next is hashed, then waited for in
 * order) gives every document the CPU's signature and band keys, also when
 * the device fails mid-batch. Runs without a GPU: this file stands in for
 * gpu/minhash.cu with a device that signs on the CPU only when a call is
 * waited for, from its own copy of the hashes taken at submit (what the real
 * one promises), and checks the calling rules (at most
 * GPU_MINHASH_IN_FLIGHT calls out, no wait without a call). The real
 * kernels are checked against the CPU by tests/unit/dedup_gpu.c on a GPU. */
#include <stdlib.h>
#include <string.h>

#include "core/input.h"
#include "core/util.h"
#include "dedup/fingerprint.h"
#include "gpu/minhash.h"
#include "tests/tap.h"

/* ---- the stand-in device ---- */

typedef struct {
    uint64_t *hashes, *offsets; /* copies, offsets from 0 */
    int ndocs;
} fake_call;

struct gpu_minhash {
    minhash_params p; /* k, a, b (no fast filter: the reference loop) */
    fake_call calls[GPU_MINHASH_IN_FLIGHT];
    int first, pending;
};

static int calls_made;     /* submits and waits so far, all contexts */
static int fail_at = -1;   /* the call (0-based, in calls_made) that fails */
static int most_pending;   /* the most calls a context had out at once */
static int broken_rules;   /* submits past the limit, waits with none out */
static long submits, waits;

/* Whether this call is the one told to fail. */
static bool fails(char *why, size_t n)
{
    if (calls_made++ != fail_at) return false;
    snprintf(why, n, "device 0: injected failure");
    return true;
}

bool gpu_usable(char *why, size_t n)
{
    (void)why, (void)n;
    return true;
}

gpu_minhash *gpu_minhash_create(int k, const uint64_t *a, const uint64_t *b, char *why, size_t n)
{
    (void)why, (void)n;
    gpu_minhash *g = xcalloc(1, sizeof *g);
    g->p.k = k;
    g->p.a = xmalloc((size_t)k * sizeof *a);
    g->p.b = xmalloc((size_t)k * sizeof *b);
    memcpy(g->p.a, a, (size_t)k * sizeof *a);
    memcpy(g->p.b, b, (size_t)k * sizeof *b);
    return g;
}

int gpu_minhash_submit(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs, char *why, size_t n)
{
    if (g->pending == GPU_MINHASH_IN_FLIGHT) {
        broken_rules++;
        snprintf(why, n, "too many calls in flight");
        return -1;
    }
    if (fails(why, n)) return -1;
    fake_call *c = &g->calls[(g->first + g->pending) % GPU_MINHASH_IN_FLIGHT];
    size_t nh = ndocs ? offsets[ndocs] - offsets[0] : 0;
    c->ndocs = ndocs;
    c->hashes = xmalloc((nh ? nh : 1) * sizeof *c->hashes);
    memcpy(c->hashes, hashes + (ndocs ? offsets[0] : 0), nh * sizeof *c->hashes);
    c->offsets = xmalloc(((size_t)ndocs + 1) * sizeof *c->offsets);
    c->offsets[0] = 0;
    for (int d = 0; d < ndocs; d++) c->offsets[d + 1] = offsets[d + 1] - offsets[0];
    g->pending++;
    most_pending = g->pending > most_pending ? g->pending : most_pending;
    submits++;
    return 0;
}

int gpu_minhash_wait(gpu_minhash *g, uint64_t *sigs, char *why, size_t n)
{
    if (g->pending == 0) {
        broken_rules++;
        snprintf(why, n, "no call in flight");
        return -1;
    }
    if (fails(why, n)) return -1;
    fake_call *c = &g->calls[g->first];
    for (int d = 0; d < c->ndocs; d++)
        minhash_signature(&g->p, c->hashes + c->offsets[d], c->offsets[d + 1] - c->offsets[d], sigs + (size_t)d * g->p.k);
    free(c->hashes), free(c->offsets);
    g->first = (g->first + 1) % GPU_MINHASH_IN_FLIGHT;
    g->pending--;
    waits++;
    return 0;
}

int gpu_minhash_signatures(gpu_minhash *g, const uint64_t *hashes, const uint64_t *offsets, int ndocs, uint64_t *sigs,
                           char *why, size_t n)
{
    if (gpu_minhash_submit(g, hashes, offsets, ndocs, why, n) != 0) return -1;
    return gpu_minhash_wait(g, sigs, why, n);
}

double gpu_minhash_last_kernel_ms(const gpu_minhash *g)
{
    (void)g;
    return 0;
}

void gpu_minhash_destroy(gpu_minhash *g)
{
    if (!g) return;
    for (; g->pending; g->pending--, g->first = (g->first + 1) % GPU_MINHASH_IN_FLIGHT)
        free(g->calls[g->first].hashes), free(g->calls[g->first].offsets);
    minhash_params_free(&g->p);
    free(g);
}

/* ---- the documents ---- */

#define MAX_LINES 4096
#define FAIL_EVERY 7 /* every 7th document is marked as failed to scan: not signed */

static char *lines[MAX_LINES];
static size_t lens[MAX_LINES];
static int nlines;

static void load(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/jsonl/dclm/data/%s", shared_dir(), name);
    winput *in = input_open(path);
    ok(in != NULL, "open %s", path);
    if (!in) return;
    const char *line;
    size_t len;
    while (nlines < MAX_LINES && input_getline(in, &line, &len)) {
        lines[nlines] = xmalloc(len + 1);
        memcpy(lines[nlines], line, len);
        lens[nlines++] = len;
    }
    input_close(in);
}

/* Fills b with documents [from, to) of the lines. */
static void fill_batch(stage_batch *b, int from, int to)
{
    b->n = to - from;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        memset(d, 0, sizeof *d);
        d->line = lines[from + i];
        d->len = lens[from + i];
        const char *err;
        size_t pos;
        if (json_scan_doc(d->line, d->len, &d->json, &err, &pos) != 0 || d->json.text.kind != JSON_STRING ||
            (from + i) % FAIL_EVERY == FAIL_EVERY - 1)
            d->verdict = DOC_FAIL;
    }
}

/* Runs every document through a GPU signer set and a CPU one, in batches of
 * growing size; returns the number of signed documents whose fingerprint,
 * signature or band keys differ. */
static int batches; /* batches run_all cut the documents into */

static long run_all(long *signed_docs)
{
    minhash_params p;
    minhash_params_init(&p, MINHASH_DEFAULT_BANDS, MINHASH_DEFAULT_ROWS, MINHASH_DEFAULT_NGRAM, 1);
    dedup_config gpu_cfg = {.params = p, .device = DEVICE_GPU}, cpu_cfg = {.params = p, .device = DEVICE_CPU};
    signer_set gpu, cpu;
    signer_set_init(&gpu, &gpu_cfg, 1);
    signer_set_init(&cpu, &cpu_cfg, 1);
    stage_batch b = {.docs = xcalloc(MAX_LINES, sizeof(stage_doc))};
    batch_prints on_gpu = {0}, on_cpu = {0};
    long bad = 0;
    *signed_docs = 0;
    for (int from = 0, size = 1; from < nlines; from += size, size = size * 2 + 1) {
        int to = from + size < nlines ? from + size : nlines;
        fill_batch(&b, from, to);
        batches++;
        signer_set_prints_into(&gpu, 0, &b, &on_gpu);
        signer_set_prints_into(&cpu, 0, &b, &on_cpu);
        for (int i = 0; i < b.n; i++) {
            if (b.docs[i].verdict == DOC_FAIL) continue;
            ++*signed_docs;
            bool same = !memcmp(&on_gpu.fp[i], &on_cpu.fp[i], sizeof on_gpu.fp[i]) &&
                        !memcmp(on_gpu.sigs + (size_t)i * p.k, on_cpu.sigs + (size_t)i * p.k, (size_t)p.k * sizeof *on_gpu.sigs) &&
                        (!on_cpu.fp[i].nshingles ||
                         !memcmp(on_gpu.keys + (size_t)i * p.bands, on_cpu.keys + (size_t)i * p.bands, (size_t)p.bands * sizeof *on_gpu.keys));
            bad += !same;
        }
    }
    free(b.docs);
    batch_prints_release(&on_gpu);
    batch_prints_release(&on_cpu);
    signer_set_free(&gpu);
    signer_set_free(&cpu);
    minhash_params_free(&p);
    return bad;
}

int main(void)
{
    load("majority_data.jsonl");
    load("agreement_data.jsonl");
    lines[nlines] = xstrdup("{\"text\":\"\"}"); /* no shingles */
    lens[nlines] = strlen(lines[nlines]);
    nlines++;
    ok(nlines == 781, "%d documents", nlines);

    long docs;
    is_int(run_all(&docs), 0, "%ld documents: parts on the GPU give the CPU's fingerprints, signatures, band keys", docs);
    ok(docs > 600, "%ld documents signed", docs);
    is_int(most_pending, GPU_MINHASH_IN_FLIGHT, "%d calls in flight at once", GPU_MINHASH_IN_FLIGHT);
    ok(submits == waits, "every submit waited for (%ld submits, %ld waits)", submits, waits);
    ok(submits > batches, "batches cut into parts: %ld calls for %d batches", submits, batches);
    is_int(broken_rules, 0, "no call past the limit, no wait without a call");

    int total = calls_made;
    const int fail_points[] = {0, 1, 2, 3, total / 2, total - 1};
    for (size_t f = 0; f < sizeof fail_points / sizeof fail_points[0]; f++) {
        calls_made = 0;
        fail_at = fail_points[f];
        is_int(run_all(&docs), 0, "the device fails at call %d of %d: the CPU's results all the same", fail_at, total);
    }
    is_int(broken_rules, 0, "no call past the limit, no wait without a call, failures included");
    for (int i = 0; i < nlines; i++) free(lines[i]);
    return done_testing();
}
