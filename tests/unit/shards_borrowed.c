/* shards_borrowed.c - documents lent to the shard writer
 * (shard_writer_add_borrowed) give the same files as documents it copies,
 * the lent memory may be reused once shard_writer_release() returns, and an
 * id not below the vocabulary size is fatal. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/input.h"
#include "core/util.h"
#include "shards/shard_writer.h"
#include "tests/tap.h"

#define BLOCK_IDS 200000 /* ids per lent block: less than a frame of uint32 (262144), so frames span blocks */
#define POISON 0         /* what a block holds after release: valid ids, other than the document's */

typedef struct {
    uint32_t *ids; /* all documents back to back */
    size_t *len;
    size_t n, nids;
} corpus;

static uint64_t rng_state = 7;
static uint32_t next_rand(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static void push_doc(corpus *c, const uint32_t *ids, size_t n)
{
    c->ids = xrealloc(c->ids, (c->nids + n + 1) * sizeof *c->ids);
    c->len = xrealloc(c->len, (c->n + 1) * sizeof *c->len);
    if (n) memcpy(c->ids + c->nids, ids, n * sizeof *ids);
    c->nids += n;
    c->len[c->n++] = n;
}

/* Empty, short, typical, and longer than a block and than a frame. */
static corpus synthetic(size_t ndocs, uint32_t vocab)
{
    corpus c = {0};
    uint32_t *doc = xmalloc(800000 * sizeof *doc);
    for (size_t d = 0; d < ndocs; d++) {
        size_t n = d % 53 == 5 ? 0 : d % 131 == 7 ? 600000 + next_rand() % 1000 : next_rand() % 3000;
        for (size_t i = 0; i < n; i++) doc[i] = 1 + next_rand() % (vocab - 1);
        push_doc(&c, doc, n);
    }
    free(doc);
    return c;
}

/* A tokref reference: per document a u32 count then the ids. */
static corpus tokref(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tokref/%s", shared_dir(), name);
    require_file(path);
    corpus c = {0};
    winput *in = input_open(path);
    uint32_t count, *doc = NULL;
    while (in && input_read(in, &count, 4) == 4) {
        doc = xrealloc(doc, (count + 1) * sizeof *doc);
        size_t got = 0, k = 1;
        while (got < count * 4u && k) got += (k = input_read(in, (char *)doc + got, count * 4u - got));
        push_doc(&c, doc, count);
    }
    if (in) input_close(in);
    free(doc);
    return c;
}

static int write_copied(const char *dir, const corpus *c, const shard_writer_options *o)
{
    shard_writer *w = shard_writer_open(dir, o);
    if (!w) return -1;
    size_t at = 0;
    for (size_t d = 0; d < c->n; at += c->len[d++])
        if (shard_writer_add_document(w, c->ids + at, c->len[d])) return -1;
    return shard_writer_close(w);
}

/* Lends the documents from a block buffer that is overwritten after each
 * release, as a caller reusing its memory does; a document longer than a
 * block is lent from a buffer of its own, overwritten the same way. */
static int write_borrowed(const char *dir, const corpus *c, const shard_writer_options *o)
{
    shard_writer *w = shard_writer_open(dir, o);
    if (!w) return -1;
    uint32_t *block = xmalloc(BLOCK_IDS * sizeof *block), *own = NULL;
    size_t used = 0, at = 0;
    for (size_t d = 0; d < c->n; at += c->len[d++]) {
        size_t n = c->len[d];
        if (used + n > BLOCK_IDS) {
            shard_writer_release(w);
            memset(block, POISON, BLOCK_IDS * sizeof *block);
            if (own) memset(own, POISON, n * sizeof *own);
            free(own);
            own = NULL;
            used = 0;
        }
        uint32_t *dst = n > BLOCK_IDS ? (own = xmalloc(n * sizeof *own)) : block + used;
        if (n) memcpy(dst, c->ids + at, n * sizeof *dst);
        if (n <= BLOCK_IDS) used += n;
        shard_writer_add_borrowed(w, dst, n);
    }
    shard_writer_release(w);
    memset(block, POISON, BLOCK_IDS * sizeof *block);
    free(block);
    free(own);
    return shard_writer_close(w);
}

static int same_dirs(const char *a, const char *b)
{
    char cmd[8448];
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' > /dev/null", a, b);
    return system(cmd) == 0;
}

static void compare(const char *tmp, const char *what, const corpus *c, shard_writer_options *o)
{
    char copied[4200], lent[4200];
    snprintf(copied, sizeof copied, "%s/%s-copied", tmp, what);
    snprintf(lent, sizeof lent, "%s/%s-lent", tmp, what);
    ok(write_copied(copied, c, o) == 0, "%s: written from copies", what);
    int threads = o->threads;
    for (int t = 1; t <= 3; t += 2) {
        o->threads = t;
        ok(write_borrowed(lent, c, o) == 0 && same_dirs(copied, lent),
           "%s: lent documents, %d thread(s), give the same files as copied ones", what, t);
    }
    o->threads = threads;
}

/* In a child: an id not below the vocabulary size, lent (at token `at` of a
 * document of n ids, after a document of 3 good ones), ends the process with
 * status 2 and a message naming it, before any manifest is written. */
static void test_bad_id(const char *tmp, const char *what, size_t n, size_t at, const char *want)
{
    char dir[4200], err_path[4200];
    snprintf(dir, sizeof dir, "%s/bad-%s", tmp, what);
    snprintf(err_path, sizeof err_path, "%s/bad-%s.err", tmp, what);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, STDERR_FILENO);
        shard_writer_options o;
        shard_writer_options_init(&o);
        o.vocab_size = 1000;
        o.eos_id = 999;
        o.threads = 2;
        shard_writer *w = shard_writer_open(dir, &o);
        uint32_t good[3] = {1, 2, 3}, *bad = xmalloc(n * sizeof *bad);
        for (size_t i = 0; i < n; i++) bad[i] = (uint32_t)(i % 997);
        bad[at] = 1000;
        shard_writer_add_borrowed(w, good, 3);
        shard_writer_add_borrowed(w, bad, n);
        shard_writer_release(w);
        shard_writer_close(w);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ok(WIFEXITED(status) && WEXITSTATUS(status) == 2, "bad id lent, %s: exit status 2 (status %d)", what, status);
    size_t len = 0;
    char *text = NULL;
    FILE *f = fopen(err_path, "r");
    if (f) {
        text = xmalloc(4096);
        len = fread(text, 1, 4095, f);
        text[len] = 0;
        fclose(f);
    }
    ok(text && strstr(text, want), "bad id lent, %s: the message names document, token and id (%s)", what,
       text ? text : "no message");
    free(text);
    char manifest[4300];
    snprintf(manifest, sizeof manifest, "%s/manifest.json", dir);
    ok(access(manifest, F_OK) != 0, "bad id lent, %s: no manifest written", what);
}

int main(void)
{
    char tmpl[] = "/tmp/winnow-shards-borrowed.XXXXXX";
    char *tmp = mkdtemp(tmpl);

    shard_writer_options o;
    shard_writer_options_init(&o);
    o.vocab_size = 50257; /* uint16 */
    o.eos_id = 50256;
    o.shard_tokens = 1000000;
    o.threads = 2;
    corpus c = synthetic(900, 50257);
    compare(tmp, "uint16", &c, &o);
    o.split_docs = true;
    o.shard_tokens = 300007;
    o.prepend_bos = true;
    o.bos_id = 50255;
    compare(tmp, "uint16-split-bos", &c, &o);
    free(c.ids);
    free(c.len);

    c = tokref("multi.cl100k_base.bin.zst");
    ok(c.n > 1000, "tokref multi cl100k_base: %zu documents", c.n);
    shard_writer_options_init(&o);
    o.vocab_size = 100277; /* uint32 */
    o.eos_id = 100257;
    o.shard_tokens = 2000000;
    o.threads = 2;
    compare(tmp, "cl100k", &c, &o);
    o.split_docs = true;
    o.shard_tokens = 1000003;
    o.zstd_level = -3;
    compare(tmp, "cl100k-split-fast", &c, &o);
    free(c.ids);
    free(c.len);

    test_bad_id(tmp, "short", 3, 1, "document 1 (counting from 0): token 1 of 3 is id 1000, not below the vocabulary size 1000");
    /* 600000 ids after 4 tokens: the document's second frame begins at its id 524284 (a frame holds
     * 524288 uint16 tokens); the token is counted in the document, not in the frame's piece of it */
    test_bad_id(tmp, "second frame", 600000, 550000,
                "document 1 (counting from 0): token 550000 of 600000 is id 1000, not below the vocabulary size 1000");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd)) diag("could not remove %s", tmp);
    return done_testing();
}
