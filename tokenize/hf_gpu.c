/* hf_gpu.c - the tokenizer.json pipelines the GPU tokenizer encodes
 * exactly (see hf_gpu.h): byte-level BPE behind one of the tiktoken-shaped
 * pre-tokenizers (GPT-2's, cl100k's as in Llama 3, o200k's as in GPT-4o, and
 * their single-digit variants of Qwen 2.5/3 and Tekken), with no normalizer
 * or NFC. Everything else (SentencePiece-style models, byte fallback, other
 * regexes, several splits) runs on the CPU. */
#include <string.h>

#include "tokenize/hf_gpu.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/pretok_hf.h"
#include "tokenize/pretokenize.h"

#define DIGITS_TIKTOKEN 3
#define DIGITS_SINGLE 1
#define BYTE_VALUES 256

/* The patterns the device scans besides the tiktoken ones: Qwen 2.5/3's is
 * cl100k's (Llama 3's spelling) with single digits; Tekken's (Mistral Nemo)
 * is o200k's without the contractions and with single digits. */
static const char PATTERN_QWEN[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*"
    "|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char PATTERN_TEKKEN[] =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+"
    "|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*"
    "|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/* A Split step whose matches, kept as pieces, tile the text with one of the
 * device's scanners: true with the plan's scanner fields. */
static bool split_plan(const hf_pretok_step *st, hf_gpu_plan *plan)
{
    if (st->kind != HP_SPLIT) return false;
    if (st->match == HM_FAMILY) { /* the loader has normalized behavior and invert */
        plan->family = st->family;
        /* a loader that also takes a family's pattern with \p{N} for
         * \p{N}{1,3} as the family (splitting its digit pieces) keeps the
         * pattern it was given: single digits then */
        if (st->literal && strcmp(st->literal, pretok_pattern_string((pretok_family)st->family)))
            plan->max_digits = DIGITS_SINGLE;
        return true;
    }
    /* Isolated only: Removed with invert would drop what PCRE2 leaves
     * between matches (runs of invalid UTF-8), which the device keeps */
    bool tekken_scanner = st->match == HM_SCANNER && st->scanner == PRETOK_HF_TEKKEN; /* the CPU's, same pieces */
    if ((st->match != HM_REGEX && !tekken_scanner) || st->behavior != HB_ISOLATED || st->invert || !st->literal)
        return false;
    plan->invalid_barrier = true;
    if (!strcmp(st->literal, PATTERN_QWEN)) {
        plan->family = PRETOK_CL100K;
        plan->max_digits = DIGITS_SINGLE;
        return true;
    }
    if (!strcmp(st->literal, PATTERN_TEKKEN)) {
        plan->family = PRETOK_O200K;
        plan->max_digits = DIGITS_SINGLE;
        plan->contractions = false;
        return true;
    }
    return false;
}

static bool byte_level_plain(const hf_pretok_step *st, bool use_regex)
{
    return st->kind == HP_BYTE_LEVEL && !st->add_prefix_space && st->use_regex == use_regex;
}

bool hf_gpu_plan_of(const struct hf_pipeline *p, const tok_vocab *vocab, hf_gpu_plan *plan, wbuf *why)
{
    *plan = (hf_gpu_plan){.family = PRETOK_GPT2, .max_digits = DIGITS_TIKTOKEN, .contractions = true};
    if (p->nnorm > 1 || (p->nnorm == 1 && p->norm[0].kind != HN_NFC)) {
        buf_printf(why, "normalizer: only none or NFC runs on the GPU");
        return false;
    }
    plan->nfc = p->nnorm == 1;
    bool pre_ok = false;
    if (p->npre == 1) pre_ok = byte_level_plain(&p->pre[0], true); /* GPT-2: ByteLevel's own split */
    else if (p->npre == 2) pre_ok = split_plan(&p->pre[0], plan) && byte_level_plain(&p->pre[1], false);
    if (!pre_ok) {
        buf_printf(why, "pre_tokenizer: only ByteLevel (use_regex, no prefix space), or a Split with GPT-2's, "
                        "cl100k's, o200k's, Qwen's or Tekken's pattern then ByteLevel, runs on the GPU");
        return false;
    }
    const hf_bpe *m = &p->bpe;
    if (m->wordpiece || m->unigram || !m->byte_level || m->byte_fallback || m->unk != VOCAB_NO_TOKEN ||
        m->split_at_space || m->affixes) {
        buf_printf(why, "model: only byte-level BPE without byte_fallback, unk_token, continuing_subword_prefix or "
                        "end_of_word_suffix runs on the GPU");
        return false;
    }
    for (int b = 0; b < BYTE_VALUES; b++)
        if (vocab->byte_id[b] == VOCAB_NO_TOKEN) {
            buf_printf(why, "model.vocab: byte 0x%02X has no token (the GPU needs all 256)", b);
            return false;
        }
    return true;
}
