/* gpu_bpe_overlap.c - calls that leave their last batches on the device
 * (gpu_bpe_encode_begin): a call returns with some of its ids still to come
 * (batches in flight), the next call, a plain call or gpu_bpe_finish
 * completes them, and every call's ids and document ends are the CPU
 * path's; calls of many batches, of one, of none, and one with a piece too
 * long for a batch (merged on the host), one after another, on one emulated
 * device and on two; and with a sink (gpu_bpe_id_sink) that places every
 * third batch's ids nowhere: the runs it gets and the ids in out make the
 * CPU's ids, a document longer than a batch (cut, its ids in runs of two
 * batches) included. Runs wherever CUDA was built in, GPU or not. */
#include "tests/unit/gpu_bpe_check.h"

#define SMALL_BATCH ((size_t)4 << 20) /* the smallest batch: many batches per call */
#define EN_CODE_STRIDE 4              /* ~20 MB of en_code */
#define LONG_PIECE ((size_t)5 << 20)  /* one word longer than a batch: no cut, merged on the host */
#define CALLS 6
#define UNPLACED_EVERY 3 /* the sink gives no room to every third batch: those ids come into out */
#define LONG_DOC_DOCS 600 /* en_code documents joined into one longer than a batch (cut into segments) */

/* A sink whose places are never reused (the test checks the library, not a ring). */
typedef struct {
    gpu_bpe_id_sink sink;
    uint32_t *arena;
    size_t used, cap, placed, unplaced;
} test_sink;

static uint32_t *test_place(gpu_bpe_id_sink *sink, size_t n)
{
    test_sink *t = sink->ctx;
    if ((t->placed + t->unplaced) % UNPLACED_EVERY == UNPLACED_EVERY - 1 || t->used + n > t->cap) {
        t->unplaced++;
        return NULL;
    }
    uint32_t *p = t->arena + t->used;
    t->used += n;
    t->placed++;
    return p;
}

typedef struct {
    size_t first, n; /* documents [first, first + n) of the set */
    tok_ids ids;
    size_t *end;
    size_t ids_at_return; /* ids in place when its begin call returned */
    test_sink *sink;      /* NULL, or where the runs came */
} call;

/* Copies the sink's runs of call k into its ids (once the call is
 * complete), so that they can be compared whole: false when a run is not
 * inside the ids or not after the one before. */
static bool gather_runs(call *k)
{
    if (!k->sink) return true;
    size_t after = 0;
    for (size_t i = 0; i < k->sink->sink.nruns; i++) {
        const gpu_bpe_run *r = &k->sink->sink.runs[i];
        if (r->at < after || r->at + r->n > k->ids.n || !r->n) return false;
        memcpy(k->ids.ids + r->at, r->ids, r->n * sizeof *r->ids);
        after = r->at + r->n;
    }
    return true;
}

/* Whether call k's ids and document ends are the CPU path's. */
static bool same_as_cpu(const tokenizer *t, const doc_set *s, const call *k, bpe_scratch *scratch)
{
    tok_ids want = {0};
    size_t at = 0;
    bool same = true;
    for (size_t d = 0; d < k->n && same; d++) {
        want.n = 0;
        tokenizer_encode(t, s->text[k->first + d], s->len[k->first + d], false, scratch, &want);
        same = k->end[d] - at == want.n && !memcmp(k->ids.ids + at, want.ids, want.n * sizeof *want.ids);
        at = k->end[d];
    }
    ids_free(&want);
    return same && at == k->ids.n;
}

static void run(const tokenizer *t, const doc_set *s, const size_t sizes[CALLS], bool with_sink, const char *what)
{
    test_sink sinks[CALLS];
    size_t text_bytes = 0;
    for (size_t d = 0; d < s->n; d++) text_bytes += s->len[d];
    uint32_t *arena = with_sink ? malloc(text_bytes * sizeof *arena) : NULL; /* one id per byte at most */
    wbuf err = WBUF_INIT;
    gpu_bpe *g = gpu_bpe_open(t, GPU_BPE_EMULATE, &err);
    if (!g || gpu_bpe_tune(g, 0, SMALL_BATCH, true, &err)) {
        printf("Bail out! %s\n", err.data);
        exit(1);
    }
    call calls[CALLS];
    bpe_scratch scratch = {0};
    size_t first = 0;
    bool left_some = false;
    for (int k = 0; k < CALLS; k++) {
        call *c = &calls[k];
        memset(c, 0, sizeof *c);
        c->first = first;
        c->n = sizes[k] == SIZE_MAX ? s->n - first : sizes[k];
        c->end = calloc(c->n + 1, sizeof *c->end);
        first += c->n;
        if (with_sink) { /* each call its own sink, sharing one arena and count (as blocks share a ring) */
            c->sink = &sinks[k];
            memset(c->sink, 0, sizeof *c->sink);
            c->sink->sink.place = test_place;
            c->sink->sink.ctx = &sinks[0];
            if (k == 0) sinks[0].arena = arena, sinks[0].cap = text_bytes;
        }
        int rc = gpu_bpe_encode_begin(g, s->text + c->first, s->len + c->first, c->n, false, &c->ids, c->end,
                                      c->sink ? &c->sink->sink : NULL, &err);
        ok(rc == 0, "%s: call %d (%zu documents) starts%s%s", what, k, c->n, rc ? ": " : "", rc ? err.data : "");
        c->ids_at_return = c->ids.n;
        if (k > 0)
            ok(gather_runs(&calls[k - 1]) && same_as_cpu(t, s, &calls[k - 1], &scratch),
               "%s: call %d's ids are complete and the CPU's once call %d returns", what, k - 1, k);
    }
    ok(gpu_bpe_finish(g, &err) == 0, "%s: gpu_bpe_finish", what);
    ok(gather_runs(&calls[CALLS - 1]) && same_as_cpu(t, s, &calls[CALLS - 1], &scratch),
       "%s: the last call's ids are the CPU's after gpu_bpe_finish", what);
    if (with_sink) {
        size_t runs = 0;
        for (int k = 0; k < CALLS; k++) runs += calls[k].sink->sink.nruns;
        ok(sinks[0].placed > 0 && sinks[0].unplaced > 0 && runs > sinks[0].placed,
           "%s: %zu batches' ids placed (%zu runs: long pieces split them), %zu not", what, sinks[0].placed, runs,
           sinks[0].unplaced);
    }
    ok(gpu_bpe_finish(g, &err) == 0, "%s: gpu_bpe_finish again, with nothing in flight", what);
    for (int k = 0; k < CALLS; k++) left_some |= calls[k].ids_at_return < calls[k].ids.n;
    ok(left_some, "%s: some call returned with ids still to come (batches left in flight)", what);
    /* a plain call after an overlapped one completes it first */
    call a = {.first = 0, .n = calls[2].n + calls[3].n, .end = calloc(s->n + 1, sizeof(size_t))};
    call b = {.first = 0, .n = 3, .end = calloc(4, sizeof(size_t))};
    a.first = calls[2].first;
    ok(gpu_bpe_encode_begin(g, s->text + a.first, s->len + a.first, a.n, false, &a.ids, a.end, NULL, &err) == 0 &&
           gpu_bpe_encode(g, s->text, s->len, b.n, &b.ids, b.end, &err) == 0,
       "%s: an overlapped call, then a plain one", what);
    ok(same_as_cpu(t, s, &a, &scratch) && same_as_cpu(t, s, &b, &scratch), "%s: both give the CPU's ids", what);
    ids_free(&a.ids), ids_free(&b.ids), free(a.end), free(b.end);
    for (int k = 0; k < CALLS; k++) {
        ids_free(&calls[k].ids), free(calls[k].end);
        if (calls[k].sink) free(calls[k].sink->sink.runs);
    }
    free(arena);
    bpe_scratch_free(&scratch);
    buf_free(&err);
    gpu_bpe_close(g);
}

int main(void)
{
    tokenizer t;
    load_emulated_or_skip(&t);

    tok_corpus en, multi;
    corpus_load(&en, "en_code");
    corpus_load(&multi, "multi");
    doc_set docs = {0};
    docs_from_corpus(&docs, &en, EN_CODE_STRIDE);
    char *word = malloc(LONG_PIECE);
    memset(word, 'x', LONG_PIECE);
    size_t half = docs.n / 2;
    docs_add(&docs, word, LONG_PIECE);
    docs_add(&docs, en.text + en.off[0], (size_t)(en.off[LONG_DOC_DOCS] - en.off[0])); /* longer than a batch */
    docs_from_corpus(&docs, &multi, 1);
    /* many documents (~20 MB), one, none, the long word and what follows up to the multi corpus, the rest */
    size_t sizes[CALLS] = {half, 1, 0, docs.n - half - 1 - 200, 100, SIZE_MAX};
    run(&t, &docs, sizes, false, "one device");
    setenv("GPU_BPE_EMULATE_DEVICES", "2", 1);
    run(&t, &docs, sizes, false, "two devices");
    run(&t, &docs, sizes, true, "two devices, a sink");

    docs_free(&docs);
    free(word);
    corpus_free(&en), corpus_free(&multi);
    tokenizer_free(&t);
    return done_testing();
}
