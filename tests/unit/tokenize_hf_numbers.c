/* tokenize_hf_numbers.c - JSON numbers read as Hugging Face tokenizers reads
 * them. serde_json (built without float_roundtrip, as tokenizers is) does
 * not always give the nearest double, and a Unigram score one ulp off
 * breaks a tie between two segmentations the other way: ruT5's "Hmmm" is
 * ▁H mm m in HF, ▁H m mm with the nearest doubles. Checks every literal of
 * tests/data/hf/serde_numbers.tsv (hand-picked and seeded random ones, made
 * by scripts/hf_serde_numbers.py: the doubles HF holds after reading them,
 * as it writes them back) and that tie, on a Unigram file with ruT5's
 * three scores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "tokenize/hf_json.h"
#include "tokenize/tokenizer.h"

#define NUMBERS "tests/data/hf/serde_numbers.tsv"
#define MIN_NUMBERS 4000

/* Every literal reads as the bits HF holds; returns how many differ. */
static int check_numbers(int *count)
{
    FILE *f = fopen(NUMBERS, "r");
    if (!f) {
        printf("Bail out! cannot read %s\n", NUMBERS);
        exit(1);
    }
    char line[512];
    int differ = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        uint64_t want = strtoull(tab + 1, NULL, 16), got = 0;
        char text[600];
        snprintf(text, sizeof text, "[%s]", line);
        hj_doc doc;
        wbuf err = WBUF_INIT;
        if (!hj_parse(text, strlen(text), &doc, &err)) {
            memcpy(&got, &doc.root.items[0].number, sizeof got);
            hj_free(&doc);
        }
        if (got != want && differ++ < 5)
            diag("%s reads as %016llx, HF holds %016llx%s%s", line, (unsigned long long)got,
                 (unsigned long long)want, err.len ? ": " : "", err.len ? err.data : "");
        buf_free(&err);
        (*count)++;
    }
    fclose(f);
    return differ;
}

/* ruT5's scores of ▁H, m and mm: (▁H + mm) + m is one ulp above (▁H + m) + mm
 * as serde_json reads them, equal as the nearest doubles. */
static const char TIE_FILE[] =
    "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[],\"normalizer\":null,"
    "\"pre_tokenizer\":null,\"post_processor\":null,\"decoder\":null,\"model\":{\"type\":\"Unigram\",\"unk_id\":0,"
    "\"vocab\":[[\"<unk>\",0.0],[\"\xe2\x96\x81H\",-9.517477035522461],[\"m\",-9.13558292388916],"
    "[\"mm\",-11.703954696655273]],\"byte_fallback\":false}}";

static void check_tie(void)
{
    char path[] = "/tmp/winnow-hfnum-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, TIE_FILE, sizeof TIE_FILE - 1) != (ssize_t)(sizeof TIE_FILE - 1) || close(fd)) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
    tokenizer t;
    wbuf err = WBUF_INIT;
    int rc = tokenizer_load(&t, NULL, path, -1, &err);
    unlink(path);
    if (!ok(rc == 0, "the Unigram file with ruT5's scores loads%s%s", rc ? ": " : "", rc ? err.data : "")) return;
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    static const char text[] = "\xe2\x96\x81Hmmm";
    tokenizer_encode(&t, text, sizeof text - 1, true, &scratch, &ids);
    ok(ids.n == 3 && ids.ids[0] == 1 && ids.ids[1] == 3 && ids.ids[2] == 2,
       "\"\xe2\x96\x81Hmmm\" is \xe2\x96\x81H mm m (ids 1 3 2) as in HF, got %zu ids: %u %u %u", ids.n,
       ids.n > 0 ? ids.ids[0] : 0, ids.n > 1 ? ids.ids[1] : 0, ids.n > 2 ? ids.ids[2] : 0);
    free(ids.ids);
    bpe_scratch_free(&scratch);
    tokenizer_free(&t);
    buf_free(&err);
}

int main(void)
{
    require_file(NUMBERS);
    int count = 0, differ = check_numbers(&count);
    ok(count >= MIN_NUMBERS && differ == 0, "%d of %d literals read as the doubles HF holds", count - differ, count);
    check_tie();
    return done_testing();
}
