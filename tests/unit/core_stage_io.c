/* core_stage_io - the stage engine (core/stage.c) over several inputs, as a
 * user runs `winnow filter a.jsonl.gz b.jsonl ...`: every document of every
 * input once, in order, each line ended (a compressed input whose last line
 * has no line end included); indented JSON lines are documents (Python's
 * json reads them), not blank lines; a bad line is named by file, line and
 * byte as Python's json names it; an input that cannot be opened is reported
 * and makes the exit status 2 while the others are read; the stats' bytes_out
 * is the size of the output written, also by a stage that writes its own
 * format (emit); a line of only tabs and spaces is blank whatever it starts
 * with; '-' (stdin) after other inputs is read in its place; bytes_in is the
 * decoded size of the documents' lines. Real documents: OLMo's C4 sample. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/stage.h"
#include "tests/tap.h"

static char dir[256];

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    wbuf b = WBUF_INIT;
    char chunk[65536];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&b, chunk, k);
    fclose(f);
    *n = b.len;
    return b.data ? b.data : calloc(1, 1);
}

static void at(char *path, const char *name) { snprintf(path, PATH_MAX, "%s/%s", dir, name); }

/* A number from a --stats JSON file ("key": N), or -1. */
static long long stat_of(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = json ? strstr(json, pat) : NULL;
    return p ? atoll(p + strlen(pat)) : -1;
}

/* An emit() that writes each document's ordinal and length (a stage with its own format). */
static void emit_ordinals(void *ctx, stage_batch *b, woutput *out)
{
    (void)ctx;
    char line[64];
    for (int i = 0; i < b->n; i++) {
        if (b->docs[i].verdict == DOC_FAIL) continue;
        int n = snprintf(line, sizeof line, "%llu %zu\n", (unsigned long long)b->docs[i].ordinal, b->docs[i].len);
        output_write(out, line, (size_t)n);
    }
}

/* Runs ops over inputs into out (stats into stats, stderr into err); returns the exit status. */
static int run(const stage_ops *ops, char **inputs, int n, const char *out, const char *stats, const char *err,
               int threads)
{
    stage_opts o;
    stage_opts_init(&o);
    o.threads = threads;
    o.quiet = true;
    o.output = out;
    o.stats_path = stats;
    o.inputs = inputs;
    o.ninputs = n;
    o.batch_bytes = 8 << 10;
    fflush(stderr);
    int saved = dup(2), fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    int status = stage_run(&o, ops);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    return status;
}

int main(void)
{
    static char c4[PATH_MAX];
    snprintf(c4, sizeof c4, "%s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz", shared_dir());
    require_file(c4);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/winnow-stage-io-XXXXXX", tmp);
    if (!mkdtemp(dir)) skip_all("cannot make a temporary directory");

    /* a.jsonl.gz: 40 documents, the last without its line end; b.jsonl: 60, every
     * seventh indented with spaces or a tab, blank lines between (some of only
     * tabs and spaces, starting with either); c.bytes: c's decoded size; c.jsonl.zst: 30;
     * bad.jsonl: good documents and bad lines. want.jsonl: Python's view of the
     * documents (json.loads of each non-blank line), each with a line end;
     * want.err: the messages for bad.jsonl, with Python's json's column */
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && zcat '%s' > c4.jsonl && "
             "head -40 c4.jsonl | head -c -1 | gzip -n > a.jsonl.gz && "
             "sed -n 41,100p c4.jsonl | awk 'NR %% 7 == 1 {printf \"  %%s\\n\", $0; next} NR %% 7 == 4 {printf \"\\t%%s\\n\\n \\n\\t \\t\\n\", $0; next} {print}' > b.jsonl && "
             "sed -n 101,130p c4.jsonl | zstd -q > c.jsonl.zst && "
             "sed -n 101,130p c4.jsonl | wc -c > c.bytes && "
             "python3 - <<'PY'\n"
             "import gzip, json, subprocess\n"
             "good = open('c4.jsonl', encoding='utf-8').read().split('\\n')[130:133]\n"
             "bad = ['{\"text\": broken}', '{\"text\":\"a\",}', '{\"text\":\"a\" \"b\"}', '{\"text\":\"a\"',\n"
             "       '{\"text\":\"a\"}x', '{\"text\":\"caf\\\\u00e9\", \"n\": 01}', '{\"text\":\"tab\\tinside\"}',\n"
             "       '{\"text\":\"a\", \"t2\": tru}']\n"
             "lines = [good[0], bad[0], '', bad[1], bad[2], good[1], bad[3], bad[4], '', '', bad[5], bad[6], bad[7], good[2]]\n"
             "open('bad.jsonl', 'w', encoding='utf-8').write('\\n'.join(lines) + '\\n')\n"
             "err = open('want.err', 'w')\n"
             "for no, line in enumerate(lines, 1):\n"
             "    if not line.strip(): continue\n"
             "    try: json.loads(line)\n"
             "    except json.JSONDecodeError as e: err.write('bad.jsonl: line %%d: bad JSON at byte %%d\\n' %% (no, e.colno))\n"
             "raw = gzip.open('a.jsonl.gz', 'rb').read().split(b'\\n') + open('b.jsonl', 'rb').read().split(b'\\n')\n"
             "raw += subprocess.run(['zstd', '-dc', 'c.jsonl.zst'], capture_output=True, check=True).stdout.split(b'\\n')\n"
             "raw += open('bad.jsonl', 'rb').read().split(b'\\n')\n"
             "docs = []\n"
             "for line in raw:\n"
             "    if not line.strip(b' \\t'): continue\n"
             "    try: json.loads(line)\n"
             "    except ValueError: continue\n"
             "    docs.append(line + b'\\n')\n"
             "open('want.jsonl', 'wb').write(b''.join(docs))\n"
             "PY",
             dir, c4);
    ok(system(cmd) == 0, "inputs built from C4 documents, and Python's reading of them");
    char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], bad[PATH_MAX], missing[PATH_MAX], out[PATH_MAX], stats[PATH_MAX],
        err[PATH_MAX], want_path[PATH_MAX], want_err_path[PATH_MAX];
    at(a, "a.jsonl.gz"), at(b, "b.jsonl"), at(c, "c.jsonl.zst"), at(bad, "bad.jsonl"), at(missing, "missing.jsonl");
    at(out, "out.jsonl"), at(stats, "stats.json"), at(err, "err.txt"), at(want_path, "want.jsonl");
    at(want_err_path, "want.err");
    size_t want_len, want_err_len;
    char *want = slurp(want_path, &want_len), *want_err = slurp(want_err_path, &want_err_len);
    long want_docs = 0;
    for (char *p = want; p && (p = strchr(p, '\n')); p++) want_docs++;
    ok(want_docs == 40 + 60 + 30 + 3, "Python reads %ld documents", want_docs);

    stage_ops keep = {.name = "keep"};
    for (int threads = 1; threads <= 3; threads += 2) {
        /* the .gz first: its last line has no line end, and the next input follows it */
        char *inputs[] = {a, b, c, bad};
        int status = run(&keep, inputs, 4, out, stats, err, threads);
        size_t n, ns, ne;
        char *got = slurp(out, &n), *st = slurp(stats, &ns), *msgs = slurp(err, &ne);
        is_int(status, 0, "-j %d: exit status 0", threads);
        ok(got && n == want_len && !memcmp(got, want, n),
           "-j %d: every document of the 4 inputs once, in order, each line ended, indented ones too (%zu bytes, want %zu)",
           threads, n, want_len);
        is_int(stat_of(st, "in"), want_docs + 8, "-j %d: in = Python's %ld documents + 8 bad lines", threads, want_docs);
        is_int(stat_of(st, "bytes_out"), (long long)n, "-j %d: bytes_out is the output's size", threads);
        /* the messages for bad.jsonl, in its order, with the byte Python's json points at */
        wbuf named = WBUF_INIT;
        for (char *p = msgs; p && *p;) {
            char *nl = strchr(p, '\n'), *m = strstr(p, "bad.jsonl: line ");
            if (!nl) break;
            if (m && m < nl) {
                char *colon = strstr(m, ": bad JSON at byte ");
                char *end = colon ? colon + strlen(": bad JSON at byte ") : m;
                end += strspn(end, "0123456789");
                buf_append(&named, m, (size_t)(end - m));
                buf_putc(&named, '\n');
            }
            p = nl + 1;
        }
        if (!ok(named.len == want_err_len && named.data && !memcmp(named.data, want_err, want_err_len),
                "-j %d: each of the 8 bad lines named by file, line and byte as Python's json names it", threads))
            diag("got:\n%swant:\n%s", named.data ? named.data : "", want_err ? want_err : "");
        buf_free(&named);
        free(got), free(st), free(msgs);
    }

    /* an input that cannot be opened: named, exit status 2, the others read */
    {
        char *inputs[] = {a, missing, b, c, bad};
        int status = run(&keep, inputs, 5, out, stats, err, 2);
        size_t n, ne;
        char *got = slurp(out, &n), *msgs = slurp(err, &ne);
        is_int(status, 2, "a missing input: exit status 2");
        ok(msgs && strstr(msgs, "missing.jsonl: cannot open"), "a missing input: named");
        ok(got && n == want_len && !memcmp(got, want, n), "a missing input: every document of the others, in order");
        free(got), free(msgs);
    }

    /* '-' after another input: stdin (b.jsonl) read in its place */
    {
        char dash[] = "-";
        char *inputs[] = {a, dash, c, bad};
        fflush(stdin);
        int saved = dup(0), fd = open(b, O_RDONLY);
        dup2(fd, 0);
        close(fd);
        int status = run(&keep, inputs, 4, out, stats, err, 2);
        dup2(saved, 0);
        close(saved);
        size_t n;
        char *got = slurp(out, &n);
        is_int(status, 0, "'-' as the second input: exit status 0");
        ok(got && n == want_len && !memcmp(got, want, n), "'-' as the second input: stdin's documents in its place");
        free(got);
    }

    /* bytes_in: every byte of the documents' lines, line ends included */
    {
        char *inputs[] = {c}, c_bytes[PATH_MAX];
        run(&keep, inputs, 1, out, stats, err, 2);
        at(c_bytes, "c.bytes");
        size_t ns, nb;
        char *st = slurp(stats, &ns), *bytes = slurp(c_bytes, &nb);
        ok(bytes && atoll(bytes) > 0, "c.jsonl.zst decodes to %lld bytes", bytes ? atoll(bytes) : -1);
        is_int(stat_of(st, "bytes_in"), bytes ? atoll(bytes) : -1, "bytes_in is the decoded size of c.jsonl.zst");
        free(st), free(bytes);
    }

    /* a stage that writes its own format: bytes_out counts what emit() wrote */
    {
        stage_ops own = {.name = "own", .emit = emit_ordinals};
        char *inputs[] = {a, b, c};
        run(&own, inputs, 3, out, stats, err, 2);
        size_t n, ns;
        char *got = slurp(out, &n), *st = slurp(stats, &ns);
        long lines = 0;
        for (char *p = got; p && (p = strchr(p, '\n')); p++) lines++;
        ok(n > 0 && lines == 130, "emit: one line per document (%ld)", lines);
        is_int(stat_of(st, "bytes_out"), (long long)n, "emit: bytes_out is the size of what emit wrote");
        free(got), free(st);
    }

    free(want), free(want_err);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
