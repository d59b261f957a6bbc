/* core_output_writev - output_writev() writes its pieces in order, whole:
 * more pieces than one writev takes (IOV_MAX), empty pieces among them, to a
 * plain file (writev) and to a zstd file (the pieces go through the
 * compressor one by one), read back and compared with the pieces joined. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/output.h"
#include "tests/tap.h"

#define PIECES (3 * IOV_MAX + 7)

/* The whole content of path, in out. */
static void slurp(const char *path, wbuf *out)
{
    FILE *f = fopen(path, "rb");
    char chunk[1 << 16];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(out, chunk, n);
    if (f) fclose(f);
}

/* Writes pieces of lengths 0.., some empty, with output_writev to path
 * (after a few plain bytes through output_write, so the buffer has to be
 * flushed first); want gets the bytes that should come out. */
static void write_pieces(const char *path, int zstd_level, wbuf *want)
{
    static char data[PIECES * 40];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (char)('a' + i * 7 % 26);
    struct iovec *iov = malloc(PIECES * sizeof *iov);
    size_t at = 0;
    for (int i = 0; i < PIECES; i++) {
        size_t len = i % 5 == 0 ? 0 : (size_t)(i * 13 % 40);
        iov[i] = (struct iovec){data + at, len};
        buf_append(want, data + at, len);
        at += len;
    }
    woutput *o = output_open(path, zstd_level);
    output_write(o, "head", 4);
    output_writev(o, iov, PIECES);
    output_write(o, "tail", 4);
    ok(output_bytes(o) == want->len + 4, "output_bytes counts every piece (zstd level %d)", zstd_level); /* want has "head" */
    output_close(o);
    free(iov);
}

int main(void)
{
    char dir[] = "/tmp/core_output_writev.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char plain[sizeof dir + 16], packed[sizeof dir + 16];
    snprintf(plain, sizeof plain, "%s/out.bin", dir);
    snprintf(packed, sizeof packed, "%s/out.bin.zst", dir);

    wbuf want = WBUF_INIT, got = WBUF_INIT;
    buf_append(&want, "head", 4);
    write_pieces(plain, 0, &want);
    buf_append(&want, "tail", 4);
    slurp(plain, &got);
    ok(got.len == want.len && !memcmp(got.data, want.data, want.len), "plain file: the pieces in order, whole (%zu bytes)",
       got.len);

    wbuf want2 = WBUF_INIT, z = WBUF_INIT;
    buf_append(&want2, "head", 4);
    write_pieces(packed, 3, &want2);
    buf_append(&want2, "tail", 4);
    slurp(packed, &z);
    unsigned long long size = ZSTD_getFrameContentSize(z.data, z.len);
    char *plain2 = malloc(want2.len + 1);
    size_t n = ZSTD_decompress(plain2, want2.len + 1, z.data, z.len);
    ok(!ZSTD_isError(n) && n == want2.len && !memcmp(plain2, want2.data, n),
       "zstd file: the same bytes once decompressed (%zu, frame says %llu)", n, size);

    unlink(plain), unlink(packed), rmdir(dir);
    free(plain2);
    buf_free(&want), buf_free(&got), buf_free(&want2), buf_free(&z);
    return done_testing();
}
