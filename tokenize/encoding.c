/* encoding.c - the table of known encodings (values from tiktoken's
 * openai_public.py and Meta's Llama 3 tokenizer.py). */
#include "tokenize/encoding.h"

#include <stdio.h>
#include <string.h>

#define OPENAI_URL "https://openaipublic.blob.core.windows.net/encodings/"
#define LLAMA3_FIRST_SPECIAL 128000
#define LLAMA3_NSPECIALS 256
#define LLAMA3_NAMED_RESERVED 3 /* reserved_special_token_0..2 sit among the named ones */

static const encoding_info encodings[] = {
    {"r50k_base", "r50k_base.tiktoken", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
     OPENAI_URL "r50k_base.tiktoken", "package/data/r50k_base.tiktoken", PRETOK_GPT2, "<|endoftext|>",
     "<|endoftext|>"},
    {"p50k_base", "p50k_base.tiktoken", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
     OPENAI_URL "p50k_base.tiktoken", "package/data/p50k_base.tiktoken", PRETOK_GPT2, "<|endoftext|>",
     "<|endoftext|>"},
    {"p50k_edit", "p50k_base.tiktoken", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
     OPENAI_URL "p50k_base.tiktoken", "package/data/p50k_base.tiktoken", PRETOK_GPT2, "<|endoftext|>",
     "<|endoftext|>"},
    {"cl100k_base", "cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
     OPENAI_URL "cl100k_base.tiktoken", "package/data/cl100k_base.tiktoken", PRETOK_CL100K, "<|endoftext|>",
     "<|endoftext|>"},
    {"o200k_base", "o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
     OPENAI_URL "o200k_base.tiktoken", "package/data/o200k_base.tiktoken", PRETOK_O200K, "<|endoftext|>",
     "<|endoftext|>"},
    {"llama3", "llama3.tokenizer.model", "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55", NULL,
     NULL, PRETOK_CL100K, "<|end_of_text|>", "<|begin_of_text|>"},
};
static const int nencodings = (int)(sizeof encodings / sizeof encodings[0]);

typedef struct {
    const char *name;
    uint32_t id;
} special_def;

static const special_def r50k_specials[] = {{"<|endoftext|>", 50256}};
static const special_def p50k_edit_specials[] = {
    {"<|endoftext|>", 50256}, {"<|fim_prefix|>", 50281}, {"<|fim_middle|>", 50282}, {"<|fim_suffix|>", 50283}};
static const special_def cl100k_specials[] = {{"<|endoftext|>", 100257}, {"<|fim_prefix|>", 100258},
                                              {"<|fim_middle|>", 100259}, {"<|fim_suffix|>", 100260},
                                              {"<|endofprompt|>", 100276}};
static const special_def o200k_specials[] = {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}};
/* Llama 3 (names as of Llama 3.1, whose tokenizer.model is the same file):
 * these eleven first, then reserved_special_token_3.. up to 256 in all. */
static const char *const llama3_named[] = {
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>", "<|reserved_special_token_2|>", "<|start_header_id|>", "<|end_header_id|>",
    "<|eom_id|>", "<|eot_id|>", "<|python_tag|>"};

const encoding_info *encoding_find(const char *name)
{
    if (!strcmp(name, "gpt2")) name = "r50k_base";
    for (int i = 0; i < nencodings; i++)
        if (!strcmp(encodings[i].name, name)) return &encodings[i];
    return NULL;
}

const encoding_info *encoding_all(int *n)
{
    *n = nencodings;
    return encodings;
}

static void add_defs(tok_vocab *v, const special_def *d, int n)
{
    for (int i = 0; i < n; i++) vocab_add_special(v, d[i].name, d[i].id);
}

#define ADD_DEFS(v, d) add_defs(v, d, (int)(sizeof d / sizeof d[0]))

void encoding_add_specials(const encoding_info *e, tok_vocab *v)
{
    if (!strcmp(e->name, "r50k_base") || !strcmp(e->name, "p50k_base")) ADD_DEFS(v, r50k_specials);
    else if (!strcmp(e->name, "p50k_edit")) ADD_DEFS(v, p50k_edit_specials);
    else if (!strcmp(e->name, "cl100k_base")) ADD_DEFS(v, cl100k_specials);
    else if (!strcmp(e->name, "o200k_base")) ADD_DEFS(v, o200k_specials);
    else if (!strcmp(e->name, "llama3")) {
        int named = (int)(sizeof llama3_named / sizeof llama3_named[0]);
        for (int i = 0; i < LLAMA3_NSPECIALS; i++) {
            char name[64];
            if (i < named) snprintf(name, sizeof name, "%s", llama3_named[i]);
            else snprintf(name, sizeof name, "<|reserved_special_token_%d|>", i - named + LLAMA3_NAMED_RESERVED);
            vocab_add_special(v, name, (uint32_t)(LLAMA3_FIRST_SPECIAL + i));
        }
    }
}
