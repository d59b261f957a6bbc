/* core_xzbz - the xz and bzip2 step decoders fed as a slow pipe would feed
 * them (input one byte at a time, 7 bytes of output room a call) and all at
 * once, against Python's lzma.decompress / bz2.decompress (every stream of a
 * file, one after the other) and xz -dc for xz's stream padding, on a real
 * WARC (resiliparse's warcfile.warc, 550,336 bytes) split in two streams.
 * Damage after the last stream, and a file of one stream cut in half, are
 * errors, after every byte the references decode. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "core/xzbz.h"
#include "tests/tap.h"

/* Output room a call in the slow feeding. */
enum { SLOW_ROOM = 7 };

static char dir[512];

/* Runs a shell command (with %s for the WARC) in the scratch directory; true when it exits 0. */
static bool sh(const char *fmt, const char *arg)
{
    char body[4 * (PATH_MAX + 64) + 2048], cmd[sizeof body + sizeof dir + 16];
    snprintf(body, sizeof body, fmt, arg, arg, arg, arg);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s", dir, body);
    return system(cmd) == 0;
}

static bool load(const char *name, wbuf *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n;
    char *s = read_file(path, &n);
    buf_clear(out);
    if (!s) return false;
    buf_append(out, s, n);
    free(s);
    return true;
}

/* Decodes in with steps of at most `chunk` input bytes (more while a step
 * takes none) and `room` output bytes; returns the last result, *what its
 * message. */
static xzbz_result decode(xzbz_kind kind, const wbuf *in, size_t chunk, size_t room, wbuf *out, const char **what)
{
    xzbz *d = xzbz_new(kind);
    buf_clear(out);
    size_t pos = 0, offer = chunk;
    xzbz_result r;
    for (;;) {
        size_t n = in->len - pos < offer ? in->len - pos : offer;
        bool at_end = pos + n == in->len;
        buf_reserve(out, room);
        size_t used = 0, made = 0;
        r = xzbz_step(d, (const unsigned char *)in->data + pos, n, at_end, out->data + out->len, room, &used, &made,
                      what);
        pos += used;
        out->len += made;
        if (r != XZBZ_MORE) break;
        offer = used || made ? chunk : offer + 1; /* it needs more in hand */
        if (!used && !made && at_end) {
            r = XZBZ_ERROR;
            *what = "(no progress at the end: the test's own verdict)";
            break;
        }
    }
    xzbz_free(d);
    return r;
}

static void check(const char *file, xzbz_kind kind, const char *ref, bool want_error)
{
    wbuf in = WBUF_INIT, want = WBUF_INIT, got = WBUF_INIT;
    if (!load(file, &in) || !load(ref, &want)) {
        ok(0, "%s and %s made", file, ref);
        return;
    }
    for (int slow = 0; slow < 2; slow++) {
        const char *what = NULL;
        xzbz_result r = slow ? decode(kind, &in, 1, SLOW_ROOM, &got, &what) : decode(kind, &in, in.len, 1 << 20, &got, &what);
        const char *how = slow ? "a byte at a time" : "at once";
        if (want_error)
            ok(r == XZBZ_ERROR && what, "%s %s: an error (%s)", file, how, what ? what : "none");
        else
            ok(r == XZBZ_END, "%s %s: ends well (%s)", file, how, r == XZBZ_ERROR ? what : "");
        ok(got.len == want.len && !memcmp(got.data, want.data, want.len), "%s %s: the %zu bytes of %s (got %zu)", file,
           how, want.len, ref, got.len);
    }
    buf_free(&in);
    buf_free(&want);
    buf_free(&got);
}

int main(void)
{
    static char shared_abs[PATH_MAX];
    require_file(shared_dir());
    if (!realpath(shared_dir(), shared_abs)) return ok(0, "realpath %s", shared_dir()), done_testing();
    char warc[PATH_MAX + 64];
    snprintf(warc, sizeof warc, "%s/warc/resiliparse/tests/data/warcfile.warc", shared_abs);
    require_file(warc);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/winnow-xzbz-XXXXXX", tmp);
    if (!mkdtemp(dir)) return ok(0, "made a temporary directory"), done_testing();

    ok(sh("head -c 200000 %s > a && tail -c +200001 %s > b && "
          "(xz -c a; xz -c b) > two.xz && (xz -c a; head -c 8 /dev/zero; xz -c b) > padded.xz && "
          "(bzip2 -1 -c a; bzip2 -1 -c b) > two.bz2 && (cat two.bz2; printf junk) > junk.bz2 && "
          "xz -c %s > one.xz && bzip2 -1 -c %s > one.bz2 && "
          "head -c $(($(stat -c %%s one.xz) / 2)) one.xz > cut.xz && head -c $(($(stat -c %%s one.bz2) / 2)) one.bz2 > cut.bz2 && "
          "xz -dc padded.xz > padded.ref && "
          "python3 -c 'import lzma,bz2,sys\n"
          "for name, mod in ((\"two.xz\", lzma), (\"two.bz2\", bz2)):\n"
          "    open(name + \".ref\", \"wb\").write(mod.decompress(open(name, \"rb\").read()))\n"
          "for name, cls in ((\"cut.xz\", lzma.LZMADecompressor), (\"cut.bz2\", bz2.BZ2Decompressor)):\n"
          "    d = cls(); open(name + \".ref\", \"wb\").write(d.decompress(open(name, \"rb\").read())); assert not d.eof\n"
          "open(\"junk.bz2.ref\", \"wb\").write(bz2.decompress(open(\"two.bz2\", \"rb\").read()))'",
          warc),
       "made xz and bzip2 files of two streams from %s, and Python's and xz -dc's bytes", warc);

    check("two.xz", XZBZ_XZ, "two.xz.ref", false);
    check("padded.xz", XZBZ_XZ, "padded.ref", false);
    check("cut.xz", XZBZ_XZ, "cut.xz.ref", true);
    check("two.bz2", XZBZ_BZIP2, "two.bz2.ref", false);
    check("junk.bz2", XZBZ_BZIP2, "junk.bz2.ref", true);
    check("cut.bz2", XZBZ_BZIP2, "cut.bz2.ref", true);
    {
        wbuf ref = WBUF_INIT;
        ok(load("two.xz.ref", &ref) && ref.len == 550336, "two streams: Python gives all 550,336 bytes of the WARC");
        buf_free(&ref);
    }

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
