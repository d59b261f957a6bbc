/* core_xxh3_fast.c - xxh3_update() (libxxhash's code built for AVX2 where
 * the CPU has it) gives libxxhash's XXH3-64 for every length and every way
 * of cutting the input into updates, on the bytes of a real file. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/util.h"
#include "core/xxh3_fast.h"
#include "tests/tap.h"

int main(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tokref/multi.cl100k_base.bin.zst", shared_dir());
    require_file(path);
    size_t n;
    char *data = read_file(path, &n);
    size_t len[] = {0, 1, 3, 16, 17, 128, 129, 240, 241, 1024, 1025, 4096, 65536 + 7, 1 << 20, 0};
    const size_t pieces[] = {1, 7, 64, 256, 1000, 65536};
    size_t nlen = sizeof len / sizeof *len;
    len[nlen - 1] = n; /* the whole file */
    for (size_t l = 0; l < nlen; l++) {
        uint64_t want = XXH3_64bits(data, len[l]);
        int same = 0;
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            XXH3_state_t *s = XXH3_createState();
            XXH3_64bits_reset(s);
            for (size_t at = 0; at < len[l]; at += pieces[k])
                xxh3_update(s, data + at, len[l] - at < pieces[k] ? len[l] - at : pieces[k]);
            same += XXH3_64bits_digest(s) == want;
            XXH3_freeState(s);
        }
        is_int(same, 6, "%zu bytes, in pieces of 1 to 65536: libxxhash's XXH3-64", len[l]);
    }
    XXH3_state_t *s = XXH3_createState();
    XXH3_64bits_reset(s);
    xxh3_update_avx2(s, data, n);
    ok(!__builtin_cpu_supports("avx2") || XXH3_64bits_digest(s) == XXH3_64bits(data, n), "the AVX2 build alone too");
    XXH3_freeState(s);
    free(data);
    return done_testing();
}
