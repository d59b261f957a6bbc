/* tokenize_hf_merge.c - the BPE merge order of SentencePiece-style
 * tokenizer.json files, and the places a word is cut or split before
 * merging (hf_bpe.c), against Hugging Face tokenizers itself: the hand-made
 * files tests/data/hf/merge_order.json (an unknown token, byte fallback),
 * merge_order_nounk.json (neither for some characters: they are dropped)
 * merge_order_bytes.json (a token for every byte, none merged) and
 * merge_order_allbytes.json (a token for every byte, some merged) rank
 * their merges unlike their tokens' ids, have pairs of equal rank side
 * by side (short words and words of more than 24 symbols), merges of a byte
 * token with U+2581 and with a letter, a merge of two non-ASCII characters
 * and one of U+2581 with U+2581 b; tests/data/hf/NAME.tsv holds each text
 * and HF's ids for it (scripts/tokenize_hf_merge.js, npm tokenizers@0.23.2):
 * corner texts and 600 pseudo-random texts of the files' alphabet. */
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/tokenizer.h"

#define MAX_IDS 256

/* Checks every text of tests/data/hf/NAME.tsv encoded with NAME.json. */
static void check_file(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/data/hf/%s.json", name);
    size_t n;
    char *json = slurp(path, &n);
    tokenizer t;
    wbuf err = WBUF_INIT;
    int rc = tokenizer_load_mem(&t, NULL, json, n, -1, &err);
    free(json);
    if (!ok(rc == 0, "%s loads%s%s", name, rc ? ": " : "", rc ? err.data : "")) {
        buf_free(&err);
        return;
    }
    buf_free(&err);
    snprintf(path, sizeof path, "tests/data/hf/%s.tsv", name);
    char *tsv = slurp(path, &n);
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    int texts = 0, bad = 0;
    for (char *line = tsv, *next; line < tsv + n; line = next + 1) {
        next = strchr(line, '\n');
        if (!next) next = tsv + n;
        *next = 0;
        char *tab = strchr(line, '\t');
        if (!tab) {
            bad++;
            diag("%s line %d has no tab", name, texts + 1);
            break;
        }
        uint32_t want[MAX_IDS];
        size_t nwant = 0;
        for (char *p = tab + 1, *end; nwant < MAX_IDS; p = end) {
            unsigned long id = strtoul(p, &end, 10);
            if (end == p) break;
            want[nwant++] = (uint32_t)id;
        }
        ids.n = 0;
        tokenizer_encode(&t, line, (size_t)(tab - line), true, &scratch, &ids);
        bool same = ids.n == nwant && (!nwant || !memcmp(ids.ids, want, nwant * sizeof *want));
        if (!same && bad++ < 3) diag("%s: \"%.*s\": %zu ids, want %zu", name, (int)(tab - line), line, ids.n, nwant);
        texts++;
    }
    ok(texts > 600 && bad == 0, "%s: %d texts, ids identical to HF tokenizers (%d differ)", name, texts, bad);
    free(tsv);
    ids_free(&ids);
    bpe_scratch_free(&scratch);
    tokenizer_free(&t);
}

int main(void)
{
    check_file("merge_order");
    check_file("merge_order_nounk");
    check_file("merge_order_bytes");
    check_file("merge_order_allbytes");
    return done_testing();
}
