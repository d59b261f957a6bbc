/* hf_gpu.h - which tokenizer.json pipelines the GPU tokenizer (gpu/bpe.h)
 * encodes exactly, and how: the plan says which of its scanners splits the
 * text and whether the host puts the text through NFC first. A pipeline is
 * eligible only when every stage is one the device implements exactly
 * (docs/gpu_tokenize.md lists them); the others run on the CPU. */
#ifndef WINNOW_TOKENIZE_HF_GPU_H
#define WINNOW_TOKENIZE_HF_GPU_H

#include <stdbool.h>

#include "core/buf.h"
#include "tokenize/vocab.h"

struct hf_pipeline;

/* How the GPU encodes an eligible pipeline's ordinary text. */
typedef struct {
    int family;        /* the scanner: a pretok_family (gpt2, cl100k or o200k shape) */
    int max_digits;    /* digits per piece: 3 (\p{N}{1,3}), or 1 (\p{N}: Qwen, Tekken) */
    bool contractions; /* the pattern has the (?i:'s|'t|...) alternatives (Tekken's has none) */
    bool nfc;          /* the normalizer is NFC: the host normalizes texts that NFC may change */
    bool invalid_barrier; /* the CPU splits as PCRE2 with MATCH_INVALID_UTF (PCRE2 itself, or for
                           * Tekken's pattern pretok_hf.c's scanner): no piece holds an invalid
                           * UTF-8 byte, runs of them are pieces */
} hf_gpu_plan;

/* True when the GPU tokenizer gives p's ids (HF encode of ordinary text)
 * exactly, with the plan; else false with the reason, naming the stage, in
 * why. vocab is the tokenizer's vocabulary (every byte must be a token). */
bool hf_gpu_plan_of(const struct hf_pipeline *p, const tok_vocab *vocab, hf_gpu_plan *plan, wbuf *why);

#endif
