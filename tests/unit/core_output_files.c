/* core_output_files - what core/output.c leaves on disk: a -z output is zstd
 * frames that carry their content checksum (RFC 8878 3.1.1: the
 * Content_Checksum_flag of the Frame_Header_Descriptor, and the frame's last
 * 4 bytes the low 32 bits of XXH64 of the content, seed 0), so a damaged file
 * is found when read; a process forked while an output is open (a pipeline
 * step run in a child) exits without touching its parent's temporary, which
 * the parent then renames into place, while a child's own unfinished output
 * is removed at its exit or when SIGTERM kills it; an output path that is a
 * symbolic link is written through it. Real documents: OLMo's C4 sample. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/output.h"
#include "core/util.h"
#include "tests/tap.h"

#define FHD_CHECKSUM_FLAG 0x04 /* RFC 8878 3.1.1.1.1, bit 2 */
#define FRAME_MAGIC 0xFD2FB528u

static void slurp(const char *path, wbuf *out)
{
    buf_clear(out);
    FILE *f = fopen(path, "rb");
    char chunk[1 << 16];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(out, chunk, n);
    if (f) fclose(f);
}


/* Temporaries (NAME.tmp.PID) left in dir. */
static int temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += output_is_temporary(e->d_name);
    if (d) closedir(d);
    return n;
}

int main(void)
{
    char c4[1024], dir[256], path[512], cmd[2048];
    snprintf(c4, sizeof c4, "%s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz", shared_dir());
    require_file(c4);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/winnow-output-files-XXXXXX", tmp);
    if (!mkdtemp(dir)) skip_all("cannot make a temporary directory");
    snprintf(path, sizeof path, "%s/c4.jsonl", dir);
    snprintf(cmd, sizeof cmd, "zcat '%s' > '%s'", c4, path);
    ok(system(cmd) == 0, "C4 sample decoded");
    wbuf text = WBUF_INIT, z = WBUF_INIT;
    slurp(path, &text);

    /* -z: every frame carries its checksum; the checksums are those of the content */
    snprintf(path, sizeof path, "%s/out.jsonl.zst", dir);
    woutput *o = output_open(path, 3);
    for (size_t at = 0; at < text.len; at += 100000)
        output_write(o, text.data + at, text.len - at < 100000 ? text.len - at : 100000);
    output_close(o);
    slurp(path, &z);
    size_t frames = 0, flagged = 0, summed = 0, content_total = 0;
    for (size_t pos = 0; pos + 5 < z.len;) {
        const unsigned char *f = (const unsigned char *)z.data + pos;
        size_t fsize = ZSTD_findFrameCompressedSize(f, z.len - pos);
        if (ZSTD_isError(fsize) || get_le32(f) != FRAME_MAGIC) break;
        frames++;
        flagged += (f[4] & FHD_CHECKSUM_FLAG) != 0;
        unsigned long long content = ZSTD_getFrameContentSize(f, fsize);
        wbuf plain = WBUF_INIT;
        size_t cap = content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ? text.len : content;
        buf_reserve(&plain, cap);
        size_t got = ZSTD_decompress(plain.data, cap, f, fsize);
        if (!ZSTD_isError(got)) {
            content_total += got;
            summed += (unsigned)(XXH64(plain.data, got, 0) & 0xffffffffu) == get_le32(f + fsize - 4);
        }
        buf_free(&plain);
        pos += fsize;
    }
    ok(frames >= 1 && content_total == text.len, "-z: %zu frame(s) holding the %zu bytes written", frames, text.len);
    is_int(flagged, frames, "-z: every frame header sets Content_Checksum_flag");
    is_int(summed, frames, "-z: every frame ends in the low 32 bits of XXH64 of its content");

    /* a child forked while the parent's output is open exits (atexit runs) */
    snprintf(path, sizeof path, "%s/parent.jsonl", dir);
    o = output_open(path, 0);
    output_write(o, text.data, 1000);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char own[600];
        snprintf(own, sizeof own, "%s/child.jsonl", dir);
        woutput *c = output_open(own, 0); /* the child's own, never finished */
        output_write(c, "x\n", 2);
        exit(0);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    is_int(temporaries(dir), 1, "after the child's exit: the parent's temporary is there, the child's own is gone");
    /* the same for a child that dies of SIGTERM (core/output.c's handler) */
    pid = fork();
    if (pid == 0) {
        char own[600];
        snprintf(own, sizeof own, "%s/child.jsonl", dir);
        woutput *c = output_open(own, 0);
        output_write(c, "x\n", 2);
        raise(SIGTERM);
        _exit(0);
    }
    waitpid(pid, &status, 0);
    ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "a child sent SIGTERM dies of it");
    is_int(temporaries(dir), 1, "after its SIGTERM: the parent's temporary is there, the child's own is gone");
    output_write(o, text.data + 1000, 1000);
    output_close(o);
    wbuf back = WBUF_INIT;
    slurp(path, &back);
    ok(back.len == 2000 && !memcmp(back.data, text.data, 2000), "the parent's output is in place, whole, after the child exited");
    is_int(temporaries(dir), 0, "no temporary left");

    /* an output path that is a symbolic link: the link stays, its target gets the bytes (as `sort -o`
     * and shell redirection write through a link; the temporary is made beside the target) */
    char target[600], link_path[600];
    snprintf(target, sizeof target, "%s/target.jsonl", dir);
    snprintf(link_path, sizeof link_path, "%s/link.jsonl", dir);
    FILE *t = fopen(target, "w");
    if (t) fputs("old\n", t), fclose(t);
    ok(symlink("target.jsonl", link_path) == 0, "a link to a file made");
    o = output_open(link_path, 0);
    output_write(o, text.data, 3000);
    output_close(o);
    struct stat st;
    ok(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode), "the output path is still a symbolic link");
    slurp(target, &back);
    ok(back.len == 3000 && !memcmp(back.data, text.data, 3000), "its target holds the 3000 bytes written");
    is_int(temporaries(dir), 0, "no temporary left beside the link or the target");

    buf_free(&text), buf_free(&z), buf_free(&back);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
