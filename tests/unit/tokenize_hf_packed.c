/* tokenize_hf_packed.c - the packed merge table of a tokenizer.json that is
 * not byte-level (hf_bpe.c) when its pairs crowd one place: a file whose
 * merges all start at the same slot, more of them than a packed slot's tag
 * can say how far it lies from there, loads into the 16-byte table instead,
 * and every merge still makes its token; at the tags' reach, 62 such merges
 * stay in the packed table and 63 move (each merge found either way). The pairs are chosen with
 * hf_bpe.c's packed hash (ids side by side times PACKED_MUL, modulo 2^(2
 * id_bits); the first slot is its high bits), so a change there shows as a
 * failed "moved to the 16-byte table" here. By BPE's definition a text of
 * two tokens whose pair merges is the merged token alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/tokenizer.h"

#define ID_BITS 12               /* ids 0..4095 */
#define IDS (1u << ID_BITS)
#define PAIR_BITS (2 * ID_BITS)
#define MERGES 80                /* more than the 62 slots a packed tag can reach from the first */
#define REACH 62                 /* PACKED_PROBES - 2: the slots a packed tag can reach (distances 1..62 stored) */
#define SLOT_BITS 7              /* hf_bpe_load's table for 80 merges: 128 slots (at most 3/4 full) */
#define FIRST_SLOT 5             /* the slot every pair starts at */
#define PACKED_MUL 0x9E3779B97F4A7C15ull
#define CJK_BASE 0x4E00 /* token i that is one character: U+4E00 + i */

/* The UTF-8 of U+4E00 + i (three bytes) into out. */
static void id_char(uint32_t i, char out[4])
{
    uint32_t cp = CJK_BASE + i;
    out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | (cp >> 6 & 0x3F)), out[2] = (char)(0x80 | (cp & 0x3F));
    out[3] = 0;
}

/* Loads a file of the first nmerges crowded merges and checks the table it
 * lands in (packed or the 16-byte one) and that each merge makes its token. */
static void crowd(int nmerges, bool want_packed)
{
    uint64_t inverse = PACKED_MUL; /* modulo 2^64, by Newton's iteration */
    for (int k = 0; k < 6; k++) inverse *= 2 - PACKED_MUL * inverse;
    uint64_t pair_mask = ((uint64_t)1 << PAIR_BITS) - 1;
    uint32_t left[MERGES], right[MERGES], merged[MERGES];
    static bool part[IDS], is_merged[IDS];
    memset(part, 0, sizeof part), memset(is_merged, 0, sizeof is_merged);
    for (int r = 0; r < nmerges; r++) { /* hash value FIRST_SLOT in the high bits, r + 1 below */
        uint64_t x = (uint64_t)FIRST_SLOT << (PAIR_BITS - SLOT_BITS) | (uint64_t)(r + 1);
        uint64_t pair = (x * inverse) & pair_mask;
        left[r] = (uint32_t)(pair >> ID_BITS), right[r] = (uint32_t)pair & (IDS - 1);
        part[left[r]] = part[right[r]] = true;
    }
    uint32_t next = IDS - 1; /* merged tokens take the highest ids no pair uses, IDS - 1 among them */
    for (int r = 0; r < nmerges; r++) {
        while (part[next]) next--;
        merged[r] = next;
        is_merged[next--] = true;
    }
    wbuf json = WBUF_INIT;
    buf_printf(&json, "{\"model\":{\"type\":\"BPE\",\"vocab\":{");
    char a[4], b[4];
    for (uint32_t i = 0, r = 0; i < IDS; i++) {
        if (is_merged[i]) {
            for (r = 0; merged[r] != i; r++) {}
            id_char(left[r], a), id_char(right[r], b);
            buf_printf(&json, "%s\"%s%s\":%u", i ? "," : "", a, b, i);
        } else {
            id_char(i, a);
            buf_printf(&json, "%s\"%s\":%u", i ? "," : "", a, i);
        }
    }
    buf_printf(&json, "},\"merges\":[");
    for (int r = 0; r < nmerges; r++) {
        id_char(left[r], a), id_char(right[r], b);
        buf_printf(&json, "%s\"%s %s\"", r ? "," : "", a, b);
    }
    buf_printf(&json, "]}}");
    tokenizer t;
    wbuf err = WBUF_INIT;
    int rc = tokenizer_load_mem(&t, NULL, json.data, json.len, -1, &err);
    if (!ok(rc == 0, "%d crowded merges: the file loads%s%s", nmerges, rc ? ": " : "", rc ? err.data : "")) {
        buf_free(&json);
        buf_free(&err);
        return;
    }
    if (want_packed) ok(t.hf->bpe.packed && !t.hf->bpe.merges, "... they stay in the packed table");
    else ok(!t.hf->bpe.packed && t.hf->bpe.merges, "... they moved to the 16-byte table");
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    int bad = 0;
    for (int r = 0; r < nmerges; r++) {
        char text[8];
        id_char(left[r], a), id_char(right[r], b);
        snprintf(text, sizeof text, "%s%s", a, b);
        ids.n = 0;
        tokenizer_encode(&t, text, strlen(text), true, &scratch, &ids);
        if (ids.n != 1 || ids.ids[0] != merged[r]) {
            if (bad++ < 3) diag("merge %d (%u %u): %zu ids, first %u, want %u", r, left[r], right[r], ids.n,
                                ids.n ? ids.ids[0] : 0, merged[r]);
        }
    }
    ok(bad == 0, "... each of the %d merges makes its token (%d do not)", nmerges, bad);
    ids_free(&ids);
    bpe_scratch_free(&scratch);
    tokenizer_free(&t);
    buf_free(&json);
    buf_free(&err);
}

int main(void)
{
    crowd(REACH, true);
    crowd(REACH + 1, false);
    crowd(MERGES, false);
    return done_testing();
}
