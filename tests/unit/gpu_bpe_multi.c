/* gpu_bpe_multi.c - the GPU tokenizer spread over several devices, with the
 * host emulation pretending to have two (GPU_BPE_EMULATE_DEVICES): batches
 * alternate between the devices, more of them in flight than one device
 * holds, and the ids must come back in input order, identical to the CPU
 * path, also in the first call, while the second device may still be
 * setting up; a device that fails mid-run fails that call naming it, gets
 * no more batches, and the next calls give the CPU's ids on the device left.
 * Runs wherever CUDA was built in, GPU or not. */
#include "tests/unit/gpu_bpe_check.h"

#define EMULATED_DEVICES "2"
#define SMALL_BATCH ((size_t)4 << 20) /* the smallest batch: many batches per call */
#define EN_CODE_STRIDE 2              /* ~40 MB of en_code: ~10 batches, more than the 6 slots */

/* An emulated tokenizer for cl100k_base over two devices, in small batches
 * (gpu_bpe_tune returns once every device is set up). */
static gpu_bpe *open_two(const tokenizer *t)
{
    wbuf err = WBUF_INIT;
    gpu_bpe *g = gpu_bpe_open(t, GPU_BPE_EMULATE, &err);
    if (!g || gpu_bpe_tune(g, 0, SMALL_BATCH, true, &err)) {
        printf("Bail out! %s\n", err.data);
        exit(1);
    }
    buf_free(&err);
    return g;
}

int main(void)
{
    tokenizer t;
    wbuf err = WBUF_INIT;
    load_emulated_or_skip(&t);
    setenv("GPU_BPE_EMULATE_DEVICES", EMULATED_DEVICES, 1);

    tok_corpus en, multi;
    corpus_load(&en, "en_code");
    corpus_load(&multi, "multi");
    doc_set docs = {0};
    docs_from_corpus(&docs, &en, EN_CODE_STRIDE);
    docs_from_corpus(&docs, &multi, 1);

    /* the first call right after open: the second device may still be setting up */
    gpu_bpe *g = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
    compare(g, &t, &docs, "the first call, devices joining");
    ok(gpu_bpe_wait_devices(g) == 2, "both devices are set up in the end");
    gpu_bpe_close(g);

    g = open_two(&t);
    ok(gpu_bpe_devices(g) == 2, "the emulation pretends to have %d devices", gpu_bpe_devices(g));
    compare(g, &t, &docs, "en_code and multi over 2 devices");
    size_t on0 = gpu_bpe_device_batches(g, 0), on1 = gpu_bpe_device_batches(g, 1);
    ok(on0 + on1 > 6 && on0 >= on1 && on0 - on1 <= 1,
       "batches alternate between the devices and outnumber the 6 slots: %zu on device 0, %zu on device 1", on0,
       on1);
    compare(g, &t, &docs, "the same again (slots reused, the rotation going on)");
    on0 = gpu_bpe_device_batches(g, 0) - on0, on1 = gpu_bpe_device_batches(g, 1) - on1;
    ok(on0 == on1, "the second call too: %zu on device 0, %zu on device 1", on0, on1);
    gpu_bpe_close(g);

    setenv("GPU_BPE_EMULATE_FAIL_DEVICE", "1", 1);
    g = open_two(&t);
    tok_ids ids = {0};
    size_t *end = calloc(docs.n, sizeof *end);
    int rc = gpu_bpe_encode(g, docs.text, docs.len, docs.n, &ids, end, &err);
    ok(rc == -1 && err.data && strstr(err.data, "emulated failure of device 1") &&
           strstr(err.data, "on CUDA device 1, which this run no longer uses; 1 other device left"),
       "a call whose batch fails on device 1 fails, saying so: %s", err.data ? err.data : "(no message)");
    size_t failed_batches = gpu_bpe_device_batches(g, 1);
    compare(g, &t, &docs, "the next call, on device 0 alone");
    ok(gpu_bpe_device_batches(g, 1) == failed_batches && failed_batches == 1,
       "device 1 got no batch after its failure (%zu in all)", gpu_bpe_device_batches(g, 1));
    gpu_bpe_close(g);

    setenv("GPU_BPE_EMULATE_DEVICES", "1", 1);
    setenv("GPU_BPE_EMULATE_FAIL_DEVICE", "0", 1);
    g = open_two(&t);
    buf_clear(&err);
    rc = gpu_bpe_encode(g, docs.text, docs.len, docs.n, &ids, end, &err);
    buf_clear(&err);
    int again = gpu_bpe_encode(g, docs.text, docs.len, docs.n, &ids, end, &err);
    ok(rc == -1 && again == -1 && err.data && strstr(err.data, "every CUDA device failed earlier in this run"),
       "with its only device failed, later calls fail at once: %s", err.data ? err.data : "(no message)");
    gpu_bpe_close(g);

    free(end), ids_free(&ids), buf_free(&err);
    docs_free(&docs), corpus_free(&en), corpus_free(&multi), tokenizer_free(&t);
    return done_testing();
}
