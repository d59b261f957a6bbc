/* core_input_binary - input_set_binary: after a damaged gzip member a binary
 * input gets no inserted byte, and the place of the damage (also of a member
 * that gave nothing) and how far members ended whole are told, on real ids. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/input.h"
#include "tests/tap.h"

/* The bytes of a file into out; false when it cannot be read. */
static bool load(const char *path, wbuf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(out, chunk, n);
    fclose(f);
    return true;
}

/* Reads path as a binary input into got; returns it still open. */
static winput *read_binary(const char *path, wbuf *got)
{
    winput *in = input_open(path);
    if (!in) return NULL;
    input_set_binary(in);
    char chunk[7777]; /* an odd size, to cross buffer edges */
    size_t n;
    while ((n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(got, chunk, n);
    return in;
}

/* Part size of the three members (bytes of the id stream). */
#define PART_BYTES 100000

int main(void)
{
    char rel[PATH_MAX], ids[PATH_MAX];
    snprintf(rel, sizeof rel, "%s/tokref/multi.cl100k_base.bin.zst", shared_dir());
    require_file(rel);
    if (!realpath(rel, ids)) return ok(0, "realpath %s", rel), done_testing();
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[512], cmd[2 * PATH_MAX], path[600];
    snprintf(dir, sizeof dir, "%s/winnow-input-binary-XXXXXX", tmp);
    if (!mkdtemp(dir)) skip_all("cannot make a temporary directory");
    /* parts a, b, c of the ids; b's member cut in its middle (cut.gz) or its
     * deflate data gone from its first byte (lost.gz: it gives nothing).
     * gzip -n: no name or time in the headers, which zlib decodes as the cut
     * member's data; with the time there, what it made changed with the
     * clock and now and then ended in a '\n' (test 7 failed) */
    snprintf(cmd, sizeof cmd,
             "cd %s && zstd -dcq %s | head -c %d > ids && head -c %d ids > a && tail -c +%d ids | head -c %d > b && "
             "tail -c +%d ids > c && gzip -nc b > b.gz && (gzip -nc a; head -c $(($(stat -c %%s b.gz) / 2)) b.gz; "
             "gzip -nc c) > cut.gz && (gzip -nc a; head -c 10 b.gz; gzip -nc c) > lost.gz",
             dir, ids, 3 * PART_BYTES, PART_BYTES, PART_BYTES + 1, PART_BYTES, 2 * PART_BYTES + 1);
    if (system(cmd) != 0) {
        ok(0, "made the damaged gzip files in %s", dir);
        return done_testing();
    }
    wbuf a = WBUF_INIT, b = WBUF_INIT, c = WBUF_INIT, got = WBUF_INIT;
    snprintf(path, sizeof path, "%s/a", dir);
    load(path, &a);
    snprintf(path, sizeof path, "%s/b", dir);
    load(path, &b);
    snprintf(path, sizeof path, "%s/c", dir);
    load(path, &c);
    ok(a.len == PART_BYTES && b.len == PART_BYTES && c.len == PART_BYTES, "three parts of %d bytes", PART_BYTES);

    /* cut member: a, what zlib made of the cut member (its deflate data runs
     * on into c's member), then c; the same bytes as a text input reads but
     * for the '\n' that ends a text input's partial line at the damage */
    snprintf(path, sizeof path, "%s/cut.gz", dir);
    winput *text = input_open(path);
    wbuf as_text = WBUF_INIT;
    char chunk[7777];
    size_t n;
    while (text && (n = input_read(text, chunk, sizeof chunk)) > 0) buf_append(&as_text, chunk, n);
    if (text) input_close(text);
    winput *in = read_binary(path, &got);
    ok(in != NULL, "cut.gz opens");
    if (in) {
        uint64_t at = 0;
        bool told = input_damage_from(in, 0, &at);
        ok(input_errors(in) >= 1, "cut member: reported (%d errors)", input_errors(in));
        ok(told && at == got.len - c.len, "cut member: the damage is told where c begins (%llu)", (unsigned long long)at);
        ok(!input_damage_from(in, at + 1, &at), "cut member: one damage place");
        ok(got.len > a.len + c.len && memcmp(got.data, a.data, a.len) == 0 &&
               memcmp(got.data + got.len - c.len, c.data, c.len) == 0,
           "cut member: a, %zu bytes of the damaged member, then c", got.len - a.len - c.len);
        at = got.len - c.len;
        ok(got.data[at - 1] != '\n' && as_text.len == got.len + 1 && as_text.data[at] == '\n' &&
               memcmp(as_text.data, got.data, at) == 0 && memcmp(as_text.data + at + 1, got.data + at, c.len) == 0,
           "cut member: no newline added where a text input gets one");
        is_int((long long)input_checked_to(in), (long long)got.len, "cut member: c's member ended whole");
        input_close(in);
    }
    buf_free(&as_text);

    /* a member that gave nothing: its place is told too */
    buf_clear(&got);
    snprintf(path, sizeof path, "%s/lost.gz", dir);
    in = read_binary(path, &got);
    ok(in != NULL, "lost.gz opens");
    if (in) {
        uint64_t at = 0;
        bool told = input_damage_from(in, 0, &at);
        ok(got.len == a.len + c.len && memcmp(got.data, a.data, a.len) == 0 &&
               memcmp(got.data + a.len, c.data, c.len) == 0,
           "lost member: a then c, nothing added");
        ok(told && at == a.len, "lost member: the damage is told at a's end (%llu)",
           (unsigned long long)at);
        is_int(input_lost_members(in), 1, "lost member: counted lost");
        input_close(in);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    buf_free(&a);
    buf_free(&b);
    buf_free(&c);
    buf_free(&got);
    return done_testing();
}
