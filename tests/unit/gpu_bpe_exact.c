/* gpu_bpe_exact.c - the GPU tokenizer on the device against the CPU path:
 * every document of tokref edge, multi and en_code, en_code as one document
 * longer than a batch and as one document per line, the test vectors, BLNS
 * and adversarial input, for gpt2, cl100k_base and o200k_base. Skipped, with
 * the reason, where no GPU is usable. */
#include "tests/unit/gpu_bpe_check.h"

int main(void)
{
    wbuf why = WBUF_INIT;
    if (!gpu_bpe_usable(&why)) {
        printf("1..0 # SKIP %s\n", why.data);
        buf_free(&why);
        return 0;
    }
    for (size_t e = 0; e < sizeof GPU_ENCODINGS / sizeof GPU_ENCODINGS[0]; e++) {
        tokenizer t;
        load_tok(&t, GPU_ENCODINGS[e].name, GPU_ENCODINGS[e].file);
        gpu_bpe *g = gpu_bpe_open(&t, GPU_BPE_DEVICE, &why);
        if (!g) {
            ok(0, "%s: gpu_bpe_open: %s", t.name, why.data);
            tokenizer_free(&t);
            continue;
        }
        compare_all(g, &t, 1, 1, true);
        gpu_bpe_close(g);
        tokenizer_free(&t);
    }
    buf_free(&why);
    return done_testing();
}
