/* core_gzmembers - a gzip file of many members (real WARC records, gzip'd
 * one by one) read with its members inflated on several threads gives the
 * bytes, errors and offsets of the serial decoder, clean or damaged; a file
 * that is one gzip member stays serial. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/gzmembers.h"
#include "core/input.h"
#include "core/util.h"
#include "tests/tap.h"

typedef struct {
    wbuf bytes;
    int errors;
    unsigned long long raw_end;
    int threads_seen; /* threads of this process while the file was read */
} reading;

static int process_threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    if (f) fclose(f);
    return n;
}

static void read_with(const char *path, int threads, reading *r)
{
    buf_clear(&r->bytes);
    input_set_threads(threads);
    winput *in = input_open(path);
    r->errors = -1;
    r->threads_seen = 0;
    if (!in) return;
    char chunk[7777]; /* an odd size, to cross buffer edges */
    size_t n;
    while ((n = input_read(in, chunk, sizeof chunk)) > 0) {
        if (!r->threads_seen) r->threads_seen = process_threads();
        buf_append(&r->bytes, chunk, n);
    }
    r->errors = input_errors(in);
    r->raw_end = input_raw_offset(in);
    input_close(in);
}

/* Reads name serially and with 2 and 8 threads; all three must agree. */
static void same_any_threads(const char *dir, const char *name, int want_errors)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    reading one = {WBUF_INIT, 0, 0, 0}, many = {WBUF_INIT, 0, 0, 0};
    read_with(path, 1, &one);
    ok(one.bytes.len > 0, "%s: %zu bytes decoded serially, %d errors", name, one.bytes.len, one.errors);
    if (want_errors >= 0) is_int(one.errors, want_errors, "%s: errors reported serially", name);
    else ok(one.errors > 0, "%s: damage reported serially (%d)", name, one.errors);
    int threads[] = {2, 8};
    for (int i = 0; i < 2; i++) {
        read_with(path, threads[i], &many);
        ok(many.bytes.len == one.bytes.len && memcmp(many.bytes.data, one.bytes.data, one.bytes.len) == 0,
           "%s: %d threads decode the same %zu bytes (got %zu)", name, threads[i], one.bytes.len, many.bytes.len);
        ok(many.errors == one.errors && many.raw_end == one.raw_end,
           "%s: %d threads: the same errors (%d, %d) and compressed end (%llu, %llu)", name, threads[i], many.errors,
           one.errors, many.raw_end, one.raw_end);
    }
    buf_free(&one.bytes);
    buf_free(&many.bytes);
}

int main(void)
{
    static char shared_abs[4096];
    if (!realpath(shared_dir(), shared_abs)) {
        ok(0, "shared test data at %s", shared_dir());
        return done_testing();
    }
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[512], cmd[8192], path[600];
    snprintf(dir, sizeof dir, "%s/winnow-gzm-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        ok(0, "made a temporary directory");
        return done_testing();
    }
    /* copies: four real WARCs compressed record by record (1.2 MB);
     * big: one member of 14 MB (over 3 MB compressed: more than two stretches, more than a member's first room);
     * hcrc: one member with a header CRC (FHCRC), which libdeflate does not check;
     * hcrcbad: the same with its header CRC wrong (zlib reports it). */
    snprintf(cmd, sizeof cmd,
             "cd %s && W=%s/warc && "
             "cat $W/pywb/sample_archive/warcs/iana.warc.gz $W/resiliparse/tests/data/clueweb-quirk.warc.gz "
             "$W/resiliparse/tests/data/warcfile.warc.gz $W/whirlwind-python/whirlwind.warc.gz > copy && "
             "cat copy copy copy > copies && cat copies copy | gzip -dc | head -c 14000000 | gzip -c > big && "
             "python3 -c 'import zlib,struct,sys\n"
             "h=bytes([0x1f,0x8b,8,2,0,0,0,0,0,255]); d=open(\"copy\",\"rb\").read()[:100000]\n"
             "c=zlib.compressobj(6,zlib.DEFLATED,-15); z=c.compress(d)+c.flush()\n"
             "sys.stdout.buffer.write(h+struct.pack(\"<H\",zlib.crc32(h)&0xffff)+z+struct.pack(\"<II\",zlib.crc32(d),len(d)))' > hcrc && "
             "python3 -c 'b=bytearray(open(\"hcrc\",\"rb\").read()); b[10]^=1; open(\"hcrcbad\",\"wb\").write(b)' && "
             "cat copies big copies > clean.gz && gzip -dc clean.gz | gzip -c > whole.gz && "
             "cp clean.gz damaged.gz && size=$(stat -c %%s damaged.gz) && "
             "printf 'XXXXXXXXXXXXXXXX' | dd of=damaged.gz bs=1 seek=$((size / 5)) conv=notrunc 2>/dev/null && "
             "printf 'XXXXXXXXXXXXXXXX' | dd of=damaged.gz bs=1 seek=$((size * 4 / 5)) conv=notrunc 2>/dev/null && "
             "(cat copies; head -c 100 /dev/zero; cat copies) > padded.gz && "
             "(cat copies; printf junk; cat copies) > junk.gz && "
             "cat copies hcrc copies > hcrc.gz && cat copies hcrcbad copies > hcrcbad.gz && head -c $((size - 5000)) clean.gz > cut.gz && "
             "gzip -dc clean.gz > clean",
             dir, shared_abs);
    if (system(cmd) != 0) {
        ok(0, "made the test files from real WARCs");
        return done_testing();
    }

    /* clean: the bytes gzip itself decodes, and threads really inflate it */
    {
        reading r = {WBUF_INIT, 0, 0, 0};
        wbuf want = WBUF_INIT;
        snprintf(path, sizeof path, "%s/clean", dir);
        read_with(path, 1, &r);
        buf_append(&want, r.bytes.data, r.bytes.len);
        snprintf(path, sizeof path, "%s/clean.gz", dir);
        read_with(path, 8, &r);
        ok(want.len > 3 * GZM_STRETCH && r.bytes.len == want.len && memcmp(r.bytes.data, want.data, want.len) == 0,
           "per-record gzip, 8 threads: the %zu bytes gzip -d gives", want.len);
        is_int(r.errors, 0, "per-record gzip, 8 threads: no errors");
        ok(r.threads_seen >= 9, "per-record gzip: inflated on 8 more threads (%d threads seen)", r.threads_seen);
        snprintf(path, sizeof path, "%s/whole.gz", dir);
        read_with(path, 8, &r);
        ok(r.bytes.len == want.len && memcmp(r.bytes.data, want.data, want.len) == 0,
           "whole-file gzip, 8 threads: the same bytes");
        is_int(r.threads_seen, 1, "whole-file gzip: one member, read serially");
        buf_free(&r.bytes);
        buf_free(&want);
    }
    /* clean, through the chain itself: the threads inflate every member (the
     * 14 MB one after growing its room), the chain goes on through every
     * stretch to the file's end, and the pieces are gzip -d's bytes */
    {
        char gz[600];
        snprintf(gz, sizeof gz, "%s/clean.gz", dir);
        snprintf(path, sizeof path, "%s/clean", dir);
        size_t size = 0, want_len = 0;
        char *data = read_file(gz, &size), *want = read_file(path, &want_len);
        wbuf got = WBUF_INIT;
        uint64_t raw_end = 0;
        size_t pieces = 0;
        if (data && want) {
            gzmembers *g = gzm_start((const unsigned char *)data, size, 4);
            char *out;
            size_t len;
            while (gzm_next(g, &out, &len, &raw_end)) {
                buf_append(&got, out, len);
                pieces++;
            }
            gzm_stop(g);
        }
        ok(data && want && raw_end == size, "clean.gz: the chain of members reaches the end (%llu of %zu bytes)",
           (unsigned long long)raw_end, size);
        ok(pieces >= size / GZM_STRETCH && got.len == want_len && !memcmp(got.data, want, want_len),
           "clean.gz: %zu pieces from 4 threads, the %zu bytes gzip -d gives (got %zu)", pieces, want_len, got.len);
        free(data);
        free(want);
        buf_free(&got);
    }
    same_any_threads(dir, "clean.gz", 0);
    same_any_threads(dir, "whole.gz", 0);
    same_any_threads(dir, "damaged.gz", -1);
    same_any_threads(dir, "padded.gz", 0);
    same_any_threads(dir, "junk.gz", 1);
    same_any_threads(dir, "hcrc.gz", 0);
    /* the header CRC is checked with threads too; the serial reader reports it,
     * then reads on from gzip members stored verbatim in the bad member's
     * payload (it deflates bytes of .warc.gz files): 4 errors in all */
    same_any_threads(dir, "hcrcbad.gz", 4);
    same_any_threads(dir, "cut.gz", 1);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
