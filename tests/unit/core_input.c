/* core_input - decoding by content: plain, gzip members, zstd, lz4/xz/bzip2, damage. */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/input.h"
#include "tests/tap.h"

static void slurp(const char *path, wbuf *out, int *errors, input_codec *codec)
{
    buf_clear(out);
    winput *in = input_open(path);
    if (!in) { *errors = -1; return; }
    char chunk[7777]; /* an odd size, to cross buffer edges */
    size_t n;
    while ((n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(out, chunk, n);
    *errors = input_errors(in);
    *codec = input_get_codec(in);
    input_close(in);
}

static void same_as_plain(const char *rel_plain, const char *rel_packed, input_codec want_codec)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/%s", shared_dir(), rel_plain);
    snprintf(b, sizeof b, "%s/%s", shared_dir(), rel_packed);
    wbuf pa = WBUF_INIT, pb = WBUF_INIT;
    int ea, eb;
    input_codec ca, cb;
    slurp(a, &pa, &ea, &ca);
    slurp(b, &pb, &eb, &cb);
    ok(ea == 0 && eb == 0, "%s: no errors", rel_packed);
    is_int(cb, want_codec, "%s: codec %s", rel_packed, input_codec_name(want_codec));
    ok(pa.len > 0 && pa.len == pb.len && memcmp(pa.data, pb.data, pa.len) == 0, "%s decodes to %s (%zu bytes)",
       rel_packed, rel_plain, pa.len);
    buf_free(&pa);
    buf_free(&pb);
}

int main(void)
{
    static char shared_abs[4096];
    require_file(shared_dir());
    if (!realpath(shared_dir(), shared_abs)) return ok(0, "realpath %s", shared_dir()), done_testing();
    setenv("SHARED", shared_abs, 1);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[512], cmd[2048], path[600];
    snprintf(dir, sizeof dir, "%s/winnow-input-XXXXXX", tmp);
    if (!mkdtemp(dir)) skip_all("cannot make a temporary directory");

    same_as_plain("warc/resiliparse/tests/data/warcfile.warc", "warc/resiliparse/tests/data/warcfile.warc.gz", CODEC_GZIP);
    same_as_plain("warc/resiliparse/tests/data/warcfile.warc", "warc/resiliparse/tests/data/warcfile.warc.lz4", CODEC_OTHER);
    same_as_plain("jsonl/dolma/tests/data/formats/zst/CC-MAIN-20190717121559-20190717143559-00140.jsonl.zst",
                  "jsonl/dolma/tests/data/formats/zst/CC-MAIN-20190717121559-20190717143559-00140.jsonl.zst", CODEC_PLAIN);

    /* two zstd frames, xz, bzip2 and gzip -> identical bytes */
    const char *src = "warc/whirlwind-python/whirlwind.warc";
    snprintf(cmd, sizeof cmd,
             "cd %s && head -c 30000 %s/%s > a && tail -c +30001 %s/%s > b && cat a b > plain && "
             "(zstd -q -c a; zstd -q -c b) > two.zst && xz -c plain > p.xz && bzip2 -c plain > p.bz2 && "
             "(gzip -c a; gzip -c b; head -c 100 /dev/zero) > padded.gz && gzip -c plain | head -c 9000 > cut.gz",
             dir, shared_dir(), src, shared_dir(), src);
    if (system(cmd) != 0) {
        ok(0, "made compressed copies");
    } else {
        wbuf plain = WBUF_INIT, got = WBUF_INIT;
        int e;
        input_codec c;
        snprintf(path, sizeof path, "%s/plain", dir);
        slurp(path, &plain, &e, &c);
        const char *names[] = {"two.zst", "p.xz", "p.bz2", "padded.gz"};
        for (int i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            slurp(path, &got, &e, &c);
            ok(e == 0 && got.len == plain.len && memcmp(got.data, plain.data, plain.len) == 0,
               "%s decodes to the original %zu bytes", names[i], plain.len);
        }
        /* a damaged member in the middle: the members after it are still read */
        snprintf(cmd, sizeof cmd,
                 "cd %s && (gzip -c a; gzip -c b) > ab.gz && size=$(stat -c %%s ab.gz) && "
                 "printf 'XXXXXXXXXXXXXXXX' | dd of=ab.gz bs=1 seek=$((size - 9000)) conv=notrunc 2>/dev/null && "
                 "(cat ab.gz; gzip -c a) > mid.gz", dir);
        if (system(cmd) == 0) {
            wbuf a = WBUF_INIT;
            snprintf(path, sizeof path, "%s/a", dir);
            slurp(path, &a, &e, &c);
            snprintf(path, sizeof path, "%s/mid.gz", dir);
            slurp(path, &got, &e, &c);
            ok(e >= 1, "damaged middle member: reported (%d errors)", e);
            ok(got.len >= 2 * a.len && memcmp(got.data, a.data, a.len) == 0 &&
                   memcmp(got.data + got.len - a.len, a.data, a.len) == 0,
               "damaged middle member: the members before and after it are delivered");
            buf_free(&a);
        } else {
            ok(0, "made a damaged gzip file");
        }
        snprintf(path, sizeof path, "%s/cut.gz", dir);
        slurp(path, &got, &e, &c);
        is_int(e, 1, "truncated gzip: one error reported");
        /* the partial last line is ended with '\n' (input_lost_members()) */
        ok(got.len > 9000 && got.len <= plain.len && memcmp(got.data, plain.data, got.len - 1) == 0 &&
               got.data[got.len - 1] == '\n',
           "truncated gzip: the decodable prefix is delivered, its partial line ended (%zu bytes)", got.len);
        buf_free(&plain);
        buf_free(&got);
    }

    /* real damage: a clipped Common Crawl member */
    {
        wbuf got = WBUF_INIT;
        int e;
        input_codec c;
        snprintf(path, sizeof path, "%s/warc/resiliparse/tests/data/clipped.warc.gz", shared_dir());
        slurp(path, &got, &e, &c);
        is_int(e, 1, "clipped.warc.gz: truncation reported");
        ok(got.len > 0 && memcmp(got.data, "WARC/1.", 7) == 0, "clipped.warc.gz: the record start is delivered");
        buf_free(&got);
    }

    /* getline: CRLF, a last line without newline, a line longer than the buffer */
    {
        snprintf(path, sizeof path, "%s/lines", dir);
        FILE *f = fopen(path, "w");
        fputs("one\r\ntwo\n\n", f);
        for (int i = 0; i < 600000; i++) fputc('x', f);
        fputs("\nlast", f);
        fclose(f);
        winput *in = input_open(path);
        const char *line;
        size_t len;
        int n = 0;
        size_t lens[8] = {0};
        while (input_getline(in, &line, &len) && n < 8) lens[n++] = len;
        is_int(n, 5, "getline: five lines");
        ok(lens[0] == 3 && lens[1] == 3 && lens[2] == 0 && lens[3] == 600000 && lens[4] == 4, "getline: lengths, CR stripped");
        is_int(input_offset(in), 3 + 2 + 4 + 1 + 600001 + 4, "offset counts decoded bytes");
        input_close(in);
        /* a CRLF file whose last line lacks its "\n": the '\r' goes there too */
        f = fopen(path, "w");
        fputs("{\"text\":\"one\"}\r\n{\"text\":\"last\"}\r", f);
        fclose(f);
        in = input_open(path);
        n = 0;
        while (input_getline(in, &line, &len) && n < 8) lens[n++] = len;
        ok(n == 2 && lens[0] == 14 && lens[1] == 15 && line[14] == '}',
           "getline: a last line \"...\\r\" without \"\\n\" loses its CR too (%d lines)", n);
        input_close(in);
    }
    /* reads of a real plain WARC larger than the decoded buffer (read straight into the caller's memory):
     * the file's bytes as stdio reads them, and the offset (WARC record positions) counts every one */
    {
        snprintf(path, sizeof path, "%s/warc/resiliparse/tests/data/warcfile.warc", shared_dir());
        wbuf want = WBUF_INIT, got = WBUF_INIT;
        FILE *f = fopen(path, "rb");
        char chunk[65536];
        size_t n;
        while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&want, chunk, n);
        if (f) fclose(f);
        enum { BIG_READ = 1 << 20, DIRECT_READ_MIN = 256 << 10 }; /* core/input.c reads 256 KiB at open, and reads
                                                                   * straight into a request of more than that */
        char *big = malloc(BIG_READ);
        winput *in = input_open(path);
        size_t offset_wrong = 0, reads = 0;
        while (in && (n = input_read(in, big, BIG_READ)) > 0) {
            buf_append(&got, big, n);
            offset_wrong += input_offset(in) != got.len;
            reads++;
        }
        ok(want.len > 2 * DIRECT_READ_MIN && got.len == want.len && !memcmp(got.data, want.data, want.len),
           "large plain reads: the file's %zu bytes", want.len);
        is_int(offset_wrong, 0, "large plain reads: the offset after each of %zu is the bytes read so far", reads);
        input_close(in);
        free(big);
        buf_free(&want);
        buf_free(&got);
    }
    ok(input_open("/nonexistent/file") == NULL, "missing file: NULL and a message");

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
