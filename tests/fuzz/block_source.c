/* block_source fuzz target: any bytes as a gzip, zstd, xz, bzip2 or lz4 legacy file (the
 * seeds are small files of several members, frames and streams) read through the block source
 * (units decoded by two threads, cut into small blocks) give exactly the
 * serial decoder's bytes, exit status and JSON array problems, in whole
 * lines; a JSON array (plain or compressed; seeds array.json*) is read as
 * its elements by both, as the stages read it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/block_source.h"
#include "core/buf.h"
#include "core/input.h"

/* Small units and blocks, so that a small input crosses many of both. */
#define FUZZ_UNIT_BYTES 256
#define FUZZ_BLOCK_BYTES 100
#define FUZZ_THREADS 2

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) snprintf(path, sizeof path, "/tmp/winnow-fuzz-blocks-%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();

    wbuf ref = WBUF_INIT, got = WBUF_INIT;
    int ref_status = 2, ref_bad = 0;
    winput *in = input_open(path);
    if (in) {
        input_json_array(in, false);
        char chunk[4096];
        size_t n;
        while ((n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(&ref, chunk, n);
        ref_status = input_errors(in) ? 2 : 0;
        ref_bad = input_bad_elements(in);
        input_close(in);
    }

    char *paths[] = {path};
    block_source *s = block_source_open(paths, 1, FUZZ_THREADS, FUZZ_UNIT_BYTES);
    source_block b;
    bool open_line = false; /* the block before did not end with a line end */
    while (block_source_next(s, FUZZ_BLOCK_BYTES, &b)) {
        if (open_line || !b.len) abort(); /* only the input's last block may end inside a line */
        open_line = b.data[b.len - 1] != '\n';
        buf_append(&got, b.data, b.len);
        block_source_release(s, &b);
    }
    int bad = (int)block_source_losses(s).bad_elements;
    int status = block_source_close(s);
    if (got.len != ref.len || (ref.len && memcmp(got.data, ref.data, ref.len)) || status != ref_status ||
        bad != ref_bad) {
        size_t same = 0;
        while (same < got.len && same < ref.len && got.data[same] == ref.data[same]) same++;
        fprintf(stderr, "block_source differs from the serial decoder: %zu bytes, status %d (serial: %zu bytes, status %d), the same up to byte %zu\n",
                got.len, status, ref.len, ref_status, same);
        abort();
    }
    buf_free(&ref);
    buf_free(&got);
    unlink(path);
    return 0;
}
