/* hf_wordlevel.c - HF tokenizers' WordLevel model: each pre-tokenized word
 * is the id of the vocab entry that is the whole word, else the id of
 * unk_token. A file whose unk_token is not in its vocab is refused (HF
 * fails on any word outside the vocab). */
#include "tokenize/hf_pipeline.h"

int hf_wordlevel_load(hf_bpe *m, const hj_node *model, tok_vocab *vocab, wbuf *err)
{
    /* the vocab (an object of token -> id) and unk_token read as WordPiece's are */
    if (hf_wordpiece_load(m, model, vocab, err)) return -1;
    m->wordpiece = false;
    m->wordlevel = true;
    m->ignore_merges = true; /* hf_bpe_encode looks the whole word up, then gives unk */
    return 0;
}
