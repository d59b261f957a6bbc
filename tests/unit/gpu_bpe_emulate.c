/* gpu_bpe_emulate.c - the GPU tokenizer's device code run on the host
 * (gpu_bpe emulation: cut finding, chunked encoding, compaction, long
 * pieces) against the CPU path, on subsets of every test corpus plus the
 * vectors and adversarial input, for gpt2, cl100k_base and o200k_base.
 * Runs wherever CUDA was built in, GPU or not. */
#include "tests/unit/gpu_bpe_check.h"

#define MULTI_STRIDE 4
#define EN_CODE_STRIDE 50

int main(void)
{
    wbuf err = WBUF_INIT;
    tokenizer t;
    load_tok(&t, GPU_ENCODINGS[0].name, GPU_ENCODINGS[0].file);
    gpu_bpe *probe = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
    tokenizer_free(&t);
    if (!probe) {
        printf("1..0 # SKIP %s\n", err.data);
        buf_free(&err);
        return 0;
    }
    gpu_bpe_close(probe);
    for (size_t e = 0; e < sizeof GPU_ENCODINGS / sizeof GPU_ENCODINGS[0]; e++) {
        load_tok(&t, GPU_ENCODINGS[e].name, GPU_ENCODINGS[e].file);
        gpu_bpe *g = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
        compare_all(g, &t, MULTI_STRIDE, EN_CODE_STRIDE, false);
        gpu_bpe_close(g);
        tokenizer_free(&t);
    }
    buf_free(&err);
    return done_testing();
}
