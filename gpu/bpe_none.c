/* bpe_none.c - the GPU tokenizer in builds without CUDA: never usable, so
 * callers take the CPU path (tokenize/tokenizer.c), which gives the same ids. */
#include "gpu/bpe.h"

bool gpu_bpe_maybe_present(void) { return false; }

bool gpu_bpe_usable(wbuf *why)
{
    buf_puts(why, "winnow was built without CUDA (no nvcc at build time)");
    return false;
}

gpu_bpe *gpu_bpe_open(const tokenizer *t, gpu_bpe_mode mode, wbuf *err)
{
    (void)t, (void)mode;
    buf_puts(err, "winnow was built without CUDA (no nvcc at build time)");
    return NULL;
}

int gpu_bpe_encode(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, tok_ids *out,
                   size_t *doc_end, wbuf *err)
{
    (void)g, (void)texts, (void)lens, (void)ndocs, (void)out, (void)doc_end;
    buf_puts(err, "winnow was built without CUDA (no nvcc at build time)");
    return -1;
}

int gpu_bpe_encode_pinned(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, tok_ids *out,
                          size_t *doc_end, wbuf *err)
{
    return gpu_bpe_encode(g, texts, lens, ndocs, out, doc_end, err);
}

int gpu_bpe_encode_begin(gpu_bpe *g, const char *const *texts, const size_t *lens, size_t ndocs, bool texts_pinned,
                         tok_ids *out, size_t *doc_end, gpu_bpe_id_sink *sink, wbuf *err)
{
    (void)texts_pinned, (void)sink;
    return gpu_bpe_encode(g, texts, lens, ndocs, out, doc_end, err);
}

int gpu_bpe_finish(gpu_bpe *g, wbuf *err)
{
    (void)g, (void)err;
    return 0;
}

int gpu_bpe_host_register(gpu_bpe *g, void *p, size_t bytes)
{
    (void)g, (void)p, (void)bytes;
    return -1;
}

void gpu_bpe_host_free(gpu_bpe *g, void *p) { (void)g, (void)p; }

int gpu_bpe_tune(gpu_bpe *g, size_t chunk_bytes, size_t batch_bytes, bool overlap, wbuf *err)
{
    (void)g, (void)chunk_bytes, (void)batch_bytes, (void)overlap;
    buf_puts(err, "winnow was built without CUDA (no nvcc at build time)");
    return -1;
}

double gpu_bpe_kernel_seconds(const gpu_bpe *g)
{
    (void)g;
    return 0;
}

int gpu_bpe_devices(const gpu_bpe *g)
{
    (void)g;
    return 0;
}

double gpu_bpe_device_kernel_seconds(const gpu_bpe *g, int i)
{
    (void)g, (void)i;
    return 0;
}

int gpu_bpe_wait_devices(gpu_bpe *g)
{
    (void)g;
    return 0;
}

size_t gpu_bpe_device_batches(const gpu_bpe *g, int i)
{
    (void)g, (void)i;
    return 0;
}

void gpu_bpe_phase_seconds(const gpu_bpe *g, double seconds[GPU_BPE_PHASES])
{
    (void)g;
    for (int i = 0; i < GPU_BPE_PHASES; i++) seconds[i] = 0;
}

void gpu_bpe_host_seconds(const gpu_bpe *g, double seconds[GPU_BPE_HOST_PHASES])
{
    (void)g;
    for (int i = 0; i < GPU_BPE_HOST_PHASES; i++) seconds[i] = 0;
}

void gpu_bpe_close(gpu_bpe *g) { (void)g; }
