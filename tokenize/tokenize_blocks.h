/* tokenize_blocks.h - the tokenize stage's path for the GPU: large blocks of
 * input, every step on many threads, the encoder fed whole blocks.
 *
 *   source (core/block_source.h: plain files mapped, compressed files
 *   decoded a thread each) -> scan (all threads: line ends, JSON, the text's
 *   place; escapes decoded only where a string has them) -> encode (the GPU,
 *   one call per block with its batches in flight on their own streams; the
 *   CPU on all threads while the GPU starts, or when a GPU call fails) ->
 *   format (a writer thread, all threads: bin, JSONL or shard frames) ->
 *   large writes.
 *
 * The output (bytes, stats, messages) is the engine path's (core/stage.h
 * with tokenize_stage.c's map), the reference. */
#ifndef WINNOW_TOKENIZE_BLOCKS_H
#define WINNOW_TOKENIZE_BLOCKS_H

#include "tokenize/tokenize_stage.h"

typedef enum {
    TB_ENCODE_GPU,     /* the GPU once it has started (a thread starts it), the CPU until then; under
                        * --device gpu a GPU that fails to start ends the run (exit 1) before any output */
    TB_ENCODE_GPU_LATER, /* the CPU until TB_STREAM_GPU_BYTES of input came, then as TB_ENCODE_GPU */
    TB_ENCODE_CPU,     /* the CPU only: the same path without a GPU (tests) */
    TB_ENCODE_EMULATE, /* the GPU code emulated on the host (tests; builds with CUDA) */
} tb_encoder;

/* --device auto on input of unknown size (a pipe): the GPU is started only
 * once this much JSONL has arrived, so a short stream never pays CUDA's
 * start-up and teardown (~0.4 + 0.3 s, more than the CPU needs for it),
 * while a long one has the GPU up after a fraction of a second of CPU work
 * (16 cores encode ~0.5-1 GB/s). */
#define TB_STREAM_GPU_BYTES ((uint64_t)256 << 20)

/* Runs the stage over so's inputs as tokenize_run() does (o->allow_special
 * must be false), encoding with enc. Returns the stage's exit status. */
int tokenize_blocks_run(const tokenizer *t, const tokenize_options *o, const stage_opts *so, tokenize_format format,
                        const tokenize_shard_sink *sink, tb_encoder enc);

#endif
