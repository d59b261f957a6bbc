/* core_input_streams - how core/input.c reads streams that are whole but
 * unusual, or damaged between and inside members, against independent
 * readers: Python's gzip module (which reads on through NUL padding between
 * members and refuses bytes after the last member that are not gzip), the
 * zstd command (which reads a file that starts with a skippable frame, as
 * pzstd writes them, and refuses a frame cut short), and Python's lzma and
 * bz2 decompressors (every byte an xz or bzip2 file cut short holds). Real data: Common
 * Crawl WARC records (resiliparse, whirlwind). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/input.h"
#include "tests/tap.h"

static char dir[512];

/* Everything input_read gives for path, its error count and codec. */
static int slurp(const char *path, wbuf *out, input_codec *codec)
{
    buf_clear(out);
    winput *in = input_open(path);
    if (!in) return -1;
    char chunk[7777]; /* an odd size, to cross buffer edges */
    size_t n;
    while ((n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(out, chunk, n);
    int errors = input_errors(in);
    if (codec) *codec = input_get_codec(in);
    input_close(in);
    return errors;
}

static void read_file(const char *path, wbuf *out)
{
    buf_clear(out);
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(out, chunk, n);
    if (f) fclose(f);
}

static bool same(const wbuf *a, const wbuf *b) { return a->len == b->len && !memcmp(a->data, b->data, a->len); }

/* Runs a shell command in the scratch directory; true when it exits 0. */
static bool sh(const char *fmt, const char *arg)
{
    char cmd[4096], body[3500];
    snprintf(body, sizeof body, fmt, arg, arg, arg, arg);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s", dir, body);
    return system(cmd) == 0;
}

static void at(char *path, size_t n, const char *name) { snprintf(path, n, "%s/%s", dir, name); }

int main(void)
{
    static char shared_abs[PATH_MAX];
    require_file(shared_dir());
    if (!realpath(shared_dir(), shared_abs)) return ok(0, "realpath %s", shared_dir()), done_testing();
    const char *S = shared_abs;
    char warc[PATH_MAX + 64], warc_gz[PATH_MAX + 64], clipped[PATH_MAX + 64], whirl_gz[PATH_MAX + 64]; /* the shared path and a file name under it */
    snprintf(warc, sizeof warc, "%s/warc/resiliparse/tests/data/warcfile.warc", S);
    snprintf(warc_gz, sizeof warc_gz, "%s/warc/resiliparse/tests/data/warcfile.warc.gz", S);
    snprintf(clipped, sizeof clipped, "%s/warc/resiliparse/tests/data/clipped.warc.gz", S);
    snprintf(whirl_gz, sizeof whirl_gz, "%s/warc/whirlwind-python/whirlwind.warc.gz", S);
    require_file(warc);
    require_file(warc_gz);
    require_file(clipped);
    require_file(whirl_gz);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/winnow-input-streams-XXXXXX", tmp);
    if (!mkdtemp(dir)) skip_all("cannot make a temporary directory");
    char path[PATH_MAX + 64], ref[PATH_MAX + 64];
    wbuf got = WBUF_INIT, want = WBUF_INIT;
    input_codec codec;
    int e;

    /* zstd: a skippable frame first (RFC 8878 3.1.2; pzstd writes one before each
     * frame): still zstd, decoded as `zstd -d` decodes it */
    ok(sh("python3 -c 'import struct,sys; sys.stdout.buffer.write(struct.pack(\"<II\", 0x184D2A53, 5) + b\"meta!\")' > sk.zst && "
          "zstd -q -c %s >> sk.zst && zstd -q -d -c sk.zst > sk.ref",
          warc),
       "made a zstd file that starts with a skippable frame (zstd -d reads it)");
    at(path, sizeof path, "sk.zst");
    at(ref, sizeof ref, "sk.ref");
    e = slurp(path, &got, &codec);
    read_file(ref, &want);
    is_int(codec, CODEC_ZSTD, "a skippable frame first: the codec is zstd");
    ok(e == 0 && want.len > 500000 && same(&got, &want), "a skippable frame first: zstd -d's %zu bytes, no error (%d)",
       want.len, e);

    /* zstd cut inside its frame: the decoded prefix, and the cut reported (zstd -d refuses it too) */
    ok(sh("zstd -q -c %s | head -c 60000 > cut.zst && ! zstd -q -d -c cut.zst > /dev/null 2>&1", warc),
       "made a zstd file cut inside its frame (zstd -d fails on it)");
    at(path, sizeof path, "cut.zst");
    e = slurp(path, &got, &codec);
    read_file(warc, &want);
    is_int(e, 1, "zstd cut inside its frame: one error");
    ok(got.len > 0 && got.len < want.len && !memcmp(got.data, want.data, got.len - 1),
       "zstd cut inside its frame: the decoded prefix is delivered (%zu bytes)", got.len);

    /* a zstd frame damaged before it gave any output (its magic, or its first
     * block), after a whole frame: what that frame decodes to alone (zstd -d),
     * one error, and one frame that gave no output, as for a gzip member */
    ok(sh("head -c 40000 %s > first && zstd -q -c first > first.zst && sed -n 2000,2300p %s | zstd -q -c > second.zst && "
          "python3 -c 'import sys\n"
          "a = open(\"first.zst\", \"rb\").read(); b = bytearray(open(\"second.zst\", \"rb\").read())\n"
          "m = bytearray(b); m[0] ^= 0x5a; open(\"lost-magic.zst\", \"wb\").write(a + m)\n"
          "for k in range(6, len(b)): b[k] ^= 0x5a\n"
          "open(\"lost-block.zst\", \"wb\").write(a + b)' && "
          "! zstd -q -d -c lost-magic.zst > /dev/null 2>&1 && ! zstd -q -d -c lost-block.zst > /dev/null 2>&1",
          warc),
       "made two zstd files: a whole frame, then one damaged at its magic or first block (zstd -d refuses both)");
    at(ref, sizeof ref, "first");
    read_file(ref, &want);
    static const char *const lost_frames[] = {"lost-magic.zst", "lost-block.zst"};
    for (int k = 0; k < 2; k++) {
        at(path, sizeof path, lost_frames[k]);
        winput *in = input_open(path);
        buf_clear(&got);
        char chunk[65536];
        size_t n;
        while (in && (n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(&got, chunk, n);
        ok(in && input_errors(in) == 1 && input_lost_members(in) == 1 && want.len == 40000 && same(&got, &want),
           "%s: the first frame's %zu bytes (%zu), one error, one frame that gave no output (%d)", lost_frames[k],
           want.len, got.len, in ? input_lost_members(in) : -1);
        input_close(in);
    }

    /* gzip: NUL padding between members (tape or block padding, a concatenation of
     * padded files); Python's gzip reads on through it to the next member */
    ok(sh("gzip -c -n %s > pad.gz && head -c 512 /dev/zero >> pad.gz && gzip -c -n %s >> pad.gz && "
          "python3 -c 'import gzip,sys; sys.stdout.buffer.write(gzip.decompress(open(\"pad.gz\",\"rb\").read()))' > pad.ref",
          warc),
       "made a gzip file with NUL padding between members (Python's gzip reads it)");
    at(path, sizeof path, "pad.gz");
    at(ref, sizeof ref, "pad.ref");
    e = slurp(path, &got, NULL);
    read_file(ref, &want);
    ok(e == 0 && want.len > 1000000 && same(&got, &want),
       "NUL padding between members: Python gzip's %zu bytes (%zu read), no error (%d)", want.len, got.len, e);

    /* bytes after the last member that are not gzip: Python's gzip raises
     * BadGzipFile; here the members before are delivered and the junk reported */
    ok(sh("gzip -c -n %s > junk.gz && printf 'appended, not gzip\\n' >> junk.gz && "
          "python3 -c 'import gzip,sys\ntry: gzip.decompress(open(\"junk.gz\",\"rb\").read())\n"
          "except gzip.BadGzipFile: sys.exit(0)\nsys.exit(1)'",
          warc),
       "made a gzip file with bytes appended (Python's gzip raises BadGzipFile)");
    at(path, sizeof path, "junk.gz");
    e = slurp(path, &got, NULL);
    read_file(warc, &want);
    is_int(e, 1, "bytes after the last member: one error");
    ok(same(&got, &want), "bytes after the last member: the member's %zu bytes delivered", want.len);

    /* a clipped Common Crawl member (cut mid-record) followed by a whole per-record
     * WARC: zlib reads the next file's first member header as deflate data before
     * it finds the damage, yet every member of the second file is read */
    {
        char cmd[4 * (PATH_MAX + 64)]; /* dir and three paths */
        snprintf(cmd, sizeof cmd, "cd '%s' && cat '%s' '%s' > joined.warc.gz && gzip -dc '%s' > whirl.ref", dir, clipped,
                 whirl_gz, whirl_gz);
        ok(system(cmd) == 0, "joined the clipped member and whirlwind.warc.gz's 4 members");
    }
    at(path, sizeof path, "joined.warc.gz");
    at(ref, sizeof ref, "whirl.ref");
    e = slurp(path, &got, NULL);
    read_file(ref, &want);
    ok(e >= 1, "clipped member then a whole file: the damage reported (%d errors)", e);
    ok(want.len > 70000 && got.len >= want.len && !memcmp(got.data + got.len - want.len, want.data, want.len),
       "clipped member then a whole file: all %zu bytes of the whole file's members come after it", want.len);

    /* the bytes after a member cut short hold 1f 8b 08 with a reserved flag bit
     * set: no member zlib reads starts there, so no second error, no member lost */
    ok(sh("gzip -c -n %s > fake.gz && gzip -c -n %s | head -c 30000 >> fake.gz && "
          "printf '\\037\\213\\010\\340 not a member header' >> fake.gz",
          warc),
       "made a good member, then one cut short followed by 1f 8b 08 e0");
    {
        at(path, sizeof path, "fake.gz");
        winput *in = input_open(path);
        char chunk[65536];
        size_t total = 0, n;
        while (in && (n = input_read(in, chunk, sizeof chunk)) > 0) total += n;
        ok(in && input_errors(in) == 1 && input_lost_members(in) == 0 && total > 550336,
           "a false member start after a cut: one error, no member counted lost (%d errors, %d lost)",
           in ? input_errors(in) : -1, in ? input_lost_members(in) : -1);
        input_close(in);
    }

    /* text that starts with "BZh" (Python's bz2 refuses it; libarchive's bzip2
     * filter bids only on "BZh", a block size and a block's or the end's
     * magic) is plain text; an empty bzip2 stream (the end's magic) is bzip2 */
    ok(sh("printf 'BZh9 is not a bzip2 header: this is text.\\n' > bzh.txt && "
          "python3 -c 'import bz2,sys\ntry: bz2.decompress(open(\"bzh.txt\",\"rb\").read())\nexcept OSError: sys.exit(0)\nsys.exit(1)' && "
          "bzip2 -c < /dev/null > empty.bz2 && test \"$(python3 -c 'import bz2; print(len(bz2.decompress(open(\"empty.bz2\",\"rb\").read())))')\" = 0",
          ""),
       "made a text that starts with BZh9 (Python's bz2 refuses it) and an empty bzip2 file");
    at(path, sizeof path, "bzh.txt");
    e = slurp(path, &got, &codec);
    read_file(path, &want);
    ok(codec == CODEC_PLAIN && e == 0 && same(&got, &want), "text that starts with BZh9: plain, its %zu bytes (codec %s, %d errors)",
       want.len, input_codec_name(codec), e);
    at(path, sizeof path, "empty.bz2");
    e = slurp(path, &got, &codec);
    ok(codec == CODEC_OTHER && e == 0 && got.len == 0, "an empty bzip2 stream: bzip2, no bytes, no error (codec %s, %d errors)",
       input_codec_name(codec), e);

    /* a member whose first deflate block has the reserved type (nothing of it
     * decodes), text, then a whole member whose header starts at each place
     * around the end of the first 256 KiB read (the search for the next header
     * refills its buffer there): the whole member is found each time and
     * decodes to what Python's gzip makes of it alone */
    ok(sh("python3 -c 'import gzip,sys\n"
          "bad = bytearray(gzip.compress(b\"a member lost to damage\\n\" * 20, mtime=0)); bad[10] = 0x07\n"
          "good = gzip.compress(open(sys.argv[1], \"rb\").read(), mtime=0)\n"
          "assert bad.find(b\"\\x1f\\x8b\", 1) < 0\n"
          "for k in range(9): open(\"straddle%%d.gz\" %% k, \"wb\").write(bytes(bad) + b\"x\" * (262138 + k - len(bad)) + good)\n"
          "sys.stdout.buffer.write(gzip.decompress(good))' %s > straddle.ref",
          warc),
       "made 9 files: a member with a bad first block, then a whole one from offset 262138 to 262146");
    at(ref, sizeof ref, "straddle.ref");
    read_file(ref, &want);
    for (int k = 0; k < 9; k++) {
        char name[32];
        snprintf(name, sizeof name, "straddle%d.gz", k);
        at(path, sizeof path, name);
        winput *in = input_open(path);
        buf_clear(&got);
        char chunk[65536];
        size_t n;
        while (in && (n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(&got, chunk, n);
        ok(in && input_errors(in) == 1 && input_lost_members(in) == 1 && want.len > 500000 && same(&got, &want),
           "the next member's header at offset %d after damage: found, its %zu bytes read (%zu), one member lost (%d)",
           262138 + k, want.len, got.len, in ? input_lost_members(in) : -1);
        input_close(in);
    }

    /* xz and bzip2: several streams one after the other are one input; a file cut
     * short gives every byte Python's lzma / bz2 decompressor objects give from it
     * (then its partial last line is ended) and one error */
    static const struct {
        const char *name, *pack, *module, *decompressor;
    } cuts[] = {{"xz", "xz -c", "lzma", "LZMADecompressor"}, {"bz2", "bzip2 -1 -c", "bz2", "BZ2Decompressor"}};
    for (int k = 0; k < 2; k++) {
        char made[3000];
        snprintf(made, sizeof made,
                 "head -c 200000 %%s > half1 && tail -c +200001 %%s > half2 && "
                 "(%s half1; %s half2) > two.%s && %s %%s | head -c 50000 > cut.%s && "
                 "python3 -c 'import %s,sys; d=%s.%s(); sys.stdout.buffer.write(d.decompress(open(\"cut.%s\",\"rb\").read())); "
                 "sys.exit(d.eof)' > cut.%s.ref",
                 cuts[k].pack, cuts[k].pack, cuts[k].name, cuts[k].pack, cuts[k].name, cuts[k].module, cuts[k].module,
                 cuts[k].decompressor, cuts[k].name, cuts[k].name);
        ok(sh(made, warc), "%s: made two streams in a file, and a file cut short (Python's %s.%s: no end)",
           cuts[k].name, cuts[k].module, cuts[k].decompressor);
        snprintf(path, sizeof path, "%s/two.%s", dir, cuts[k].name);
        e = slurp(path, &got, &codec);
        read_file(warc, &want);
        ok(e == 0 && same(&got, &want), "%s: two streams read as one input (%zu bytes, %d errors)", cuts[k].name,
           got.len, e);
        snprintf(path, sizeof path, "%s/cut.%s", dir, cuts[k].name);
        snprintf(ref, sizeof ref, "%s/cut.%s.ref", dir, cuts[k].name);
        e = slurp(path, &got, &codec);
        read_file(ref, &want);
        is_int(e, 1, "%s cut short: one error", cuts[k].name);
        ok(want.len > 50000 && got.len >= want.len && got.len <= want.len + 1 && !memcmp(got.data, want.data, want.len) &&
               got.data[got.len - 1] == '\n',
           "%s cut short: the %zu bytes Python's %s gives, the partial line ended (%zu)", cuts[k].name, want.len,
           cuts[k].module, got.len);
    }

    buf_free(&got);
    buf_free(&want);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
