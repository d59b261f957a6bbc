/* pipeline_config - the pipeline file parser: keys, sections, switches,
 * relative paths, and the errors with file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/config.h"
#include "tests/tap.h"

static char dir[] = "/tmp/winnow-plconf.XXXXXX";

/* Writes text to DIR/name and loads it; returns the loader's status. */
static int load(const char *name, const char *text, pl_config *c, char *err, size_t errlen)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return pl_config_load(path, c, err, errlen);
}

int main(void)
{
    if (!mkdtemp(dir)) skip_all("no temporary directory");
    char err[512], want[4200];
    pl_config c;

    int rc = load("good.ini",
                  "# a comment\n; another\n\ninput = crawl/*.warc.gz\ninput = /abs/*.jsonl\n"
                  "work = w\noutput = /out\ntasks = 4k\ncompress = false\n"
                  "[filter]\n  min-words = 50  \nno-lang\n[dedup]\nbands=20\n[slurm]\nexclusive\n",
                  &c, err, sizeof err);
    is_int(rc, 0, "a good file loads");
    is_int(c.nglobs, 2, "input repeats");
    snprintf(want, sizeof want, "%s/crawl/*.warc.gz", dir);
    is_str(c.globs[0], want, "relative input is relative to the file's directory");
    is_str(c.globs[1], "/abs/*.jsonl", "absolute input stays");
    snprintf(want, sizeof want, "%s/w", dir);
    is_str(c.work, want, "relative work directory");
    is_int(c.tasks, 4000, "tasks takes k suffixes");
    ok(!c.compress, "compress = false");
    const pl_section *f = pl_config_section(&c, "filter");
    ok(f && f->n == 2, "filter section has two options");
    bool present;
    is_str(pl_section_get(f, "min-words", &present), "50", "value trimmed");
    ok(pl_section_get(f, "no-lang", &present) == NULL && present, "bare key is a present switch");
    is_str(pl_section_get(pl_config_section(&c, "dedup"), "bands", NULL), "20", "key=value without spaces");
    ok(pl_config_section(&c, "tokenize") == NULL, "absent section is NULL");
    pl_config_free(&c);

    /* comments after a value or a section header, as in docs/pipeline.md's
     * example; a '#' or ';' inside a value (not after a space) stays */
    rc = load("inline.ini",
              "input = /data/*.warc.gz   # a glob; repeat the line for more\n"
              "work = /w\t; the work directory\noutput = /o # out\ntasks  = 64    # 64 tasks\n"
              "[slurm]\nconcurrency = 200      # at most 200\nconstraint = a#b;c\n"
              "[slurm.signatures]     # this step only\ngres = gpu:1\n[tokenize]\nno-eos   # the shard step appends EOS\n",
              &c, err, sizeof err);
    is_int(rc, 0, "a file with comments after values and headers loads");
    if (rc) printf("#   got: %s\n", err);
    ok(rc == 0 && c.nglobs == 1 && !strcmp(c.globs[0], "/data/*.warc.gz"), "the glob without its comment");
    ok(rc == 0 && !strcmp(c.work, "/w") && !strcmp(c.output, "/o"), "work and output without theirs");
    is_int(c.tasks, 64, "tasks = 64 with a comment after it");
    is_str(pl_section_get(pl_config_section(&c, "slurm"), "concurrency", NULL), "200", "a section value without its comment");
    is_str(pl_section_get(pl_config_section(&c, "slurm"), "constraint", NULL), "a#b;c", "'#' and ';' inside a value stay");
    is_str(pl_section_get(pl_config_section(&c, "slurm.signatures"), "gres", NULL), "gpu:1", "a header with a comment after it");
    bool eos_present = false;
    ok(pl_section_get(pl_config_section(&c, "tokenize"), "no-eos", &eos_present) == NULL && eos_present,
       "a switch with a comment after it");
    pl_config_free(&c);

    /* [slurm] lines are sbatch's options: output (the job log) and quiet are its own, not the
     * stage options of the same name that the pipeline sets itself */
    rc = load("slurm.ini", "input = a\nwork = w\noutput = o\n[slurm]\noutput = /logs/%A_%a.out\n[slurm.merge]\nquiet\n",
              &c, err, sizeof err);
    is_int(rc, 0, "sbatch's output and quiet under [slurm] and [slurm.STEP]");
    if (rc) printf("#   got: %s\n", err);
    is_str(pl_section_get(pl_config_section(&c, "slurm"), "output", NULL), "/logs/%A_%a.out", "... kept as written");
    pl_config_free(&c);

    /* a stage option naming a file means it from the pipeline file's directory too (the file means
     * the same from any working directory, docs/pipeline.md); names and absolute paths stay */
    rc = load("paths.ini",
              "input = a\nwork = w\noutput = o\n[filter]\nconfig = f.conf\nurl_blocklist = lists/b.txt\n"
              "badwords = /abs/bad.txt\nclassifier = dclm=models/q.bin\nclassifier = lid = /m/lid.bin\nlangid-model = dclm\n"
              "[tokenize]\nencoding = cl100k_base\nvocab = v.tiktoken\n[shard]\ntokenizer = cl100k_base\nvocab = ../v.tiktoken\n",
              &c, err, sizeof err);
    is_int(rc, 0, "a file with stage options that name files loads");
    const pl_section *fs = pl_config_section(&c, "filter"), *ts = pl_config_section(&c, "tokenize"),
                     *ss = pl_config_section(&c, "shard");
    snprintf(want, sizeof want, "%s/f.conf", dir);
    is_str(pl_section_get(fs, "config", NULL), want, "[filter] config from the file's directory");
    snprintf(want, sizeof want, "%s/lists/b.txt", dir);
    is_str(pl_section_get(fs, "url_blocklist", NULL), want, "[filter] url_blocklist too");
    is_str(pl_section_get(fs, "badwords", NULL), "/abs/bad.txt", "an absolute path stays");
    snprintf(want, sizeof want, "dclm=%s/models/q.bin", dir);
    is_str(fs->n > 3 ? fs->opts[3].value : "", want, "[filter] classifier NAME=FILE: the file from the file's directory");
    is_str(fs->n > 4 ? fs->opts[4].value : "", "lid = /m/lid.bin", "... an absolute one stays");
    is_str(pl_section_get(fs, "langid-model", NULL), "dclm", "a classifier's name stays");
    snprintf(want, sizeof want, "%s/v.tiktoken", dir);
    is_str(pl_section_get(ts, "vocab", NULL), want, "[tokenize] vocab from the file's directory");
    is_str(pl_section_get(ts, "encoding", NULL), "cl100k_base", "an encoding's name stays");
    snprintf(want, sizeof want, "%s/../v.tiktoken", dir);
    is_str(pl_section_get(ss, "vocab", NULL), want, "[shard] vocab from the file's directory");
    is_str(pl_section_get(ss, "tokenizer", NULL), "cl100k_base", "a tokenizer's name stays");
    pl_config_free(&c);

    rc = load("defaults.ini", "input = a\nwork = w\noutput = o\n", &c, err, sizeof err);
    is_int(rc, 0, "minimal file loads");
    is_int(c.tasks, 1, "tasks defaults to 1");
    ok(c.compress, "compress defaults to true");
    pl_config_free(&c);

    struct {
        const char *text, *message;
    } bad[] = {
        {"input = a\nwork = w\noutput = o\n[filtre]\n", "bad.ini:4: unknown section [filtre]"},
        {"input = a\nwork = w\noutput = o\n[filter\n", "bad.ini:4: a section header is [name]"},
        {"input = a\nwork = w\noutput = o\n[filter]\n[filter]\n", "bad.ini:5: section [filter] appears twice"},
        {"input = a\nwork = w\noutput = o\ntasks = 0\n", "bad.ini:4: tasks wants a number from 1"},
        {"input = a\nwork = w\noutput = o\ncolour = red\n", "bad.ini:4: unknown key 'colour'"},
        {"input = a\nwork = w\noutput = o\n[tokenize]\nFormat = bin\n", "bad.ini:5: 'Format' is not a key"},
        {"input = a\nwork = w\noutput = o\n[filter]\nstats = x\n", "bad.ini:5: [filter] stats is set by the pipeline"},
        {"input = a\nwork = w\noutput = o\ncompress = maybe\n", "bad.ini:4: compress wants true or false"},
        {"input =\nwork = w\noutput = o\n", "bad.ini:1: 'input' needs a value"},
        {"work = w\noutput = o\n", "no 'input =' line"},
        {"input = a\noutput = o\n", "no 'work =' line"},
        {"input = a\nwork = w\n", "no 'output =' line"},
        /* lines are numbered as in an editor: comments and blank lines count */
        {"# crawl\n\ninput = a\n; the work\nwork = w\n\noutput = o\n[filtre]\n", "bad.ini:8: unknown section [filtre]"},
        /* a misspelt step's section would be kept and never read */
        {"input = a\nwork = w\noutput = o\n[slurm.shard]\ngres = gpu:1\n", "bad.ini:4: unknown section [slurm.shard]"},
        {"input = a\nwork = w\noutput = o\n[slurm.]\n", "bad.ini:4: unknown section [slurm.]"},
        /* a setting on its header's line would be lost */
        {"input = a\nwork = w\noutput = o\n[filter] lang = en\n", "bad.ini:4: a section header is [name]"},
        /* a key of one value given twice: which one was meant is a guess (Python's configparser
         * refuses any repeated key: DuplicateOptionError); input is the repeatable one */
        {"input = a\nwork = w\nwork = v\noutput = o\n", "bad.ini:3: 'work' is given twice (first at line 2)"},
        {"input = a\nwork = w\noutput = o\ntasks = 2\n[pipeline]\ntasks = 3\n", "bad.ini:6: 'tasks' is given twice (first at line 4)"},
        {"input = a\nwork = w\noutput = o\n[pipeline]\n[filter]\n[pipeline]\n", "bad.ini:6: section [pipeline] appears twice"},
        /* so is a stage's setting ('-' and '_' alike), but for the filter's repeatable lists (classifier, keep) */
        {"input = a\nwork = w\noutput = o\n[filter]\ngopher-min-words = 5\ngopher_min_words = 50\n",
         "bad.ini:6: [filter] 'gopher_min_words' is given twice (first at line 5)"},
        {"input = a\nwork = w\noutput = o\n[tokenize]\nencoding = gpt2\n\nencoding = o200k_base\n",
         "bad.ini:7: [tokenize] 'encoding' is given twice (first at line 5)"},
        {"input = a\nwork = w\noutput = o\n[slurm.docs]\ngres = gpu:1\ngres = gpu:2\n",
         "bad.ini:6: [slurm.docs] 'gres' is given twice (first at line 5)"},
        /* Slurm settings winnow slurm cannot honour: a concurrency that is no plain number (it becomes
         * --array=0-N%CONCURRENCY) or none at all; an array of the user's (a second --array line
         * would replace the one that runs a task per rank) */
        {"input = a\nwork = w\noutput = o\n[slurm]\nconcurrency\n", "bad.ini:5: [slurm] concurrency wants a number from 1"},
        {"input = a\nwork = w\noutput = o\n[slurm.shards]\nconcurrency = 0\n", "bad.ini:5: [slurm.shards] concurrency wants a number from 1"},
        {"input = a\nwork = w\noutput = o\n[slurm]\nconcurrency = 2k\n", "bad.ini:5: [slurm] concurrency wants a number from 1"},
        {"input = a\nwork = w\noutput = o\n[slurm]\ngres.x = 1\n", "bad.ini:5: 'gres.x' is not a key"},
        {"input = a\nwork = w\noutput = o\n[slurm]\narray = 0-9\n", "bad.ini:5: [slurm] array is set by winnow slurm"},
        {"input = a\nwork = w\noutput = o\n[slurm]\n[slurm.merge]\narray = 0\n", "bad.ini:6: [slurm.merge] array is set by winnow slurm"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        rc = load("bad.ini", bad[i].text, &c, err, sizeof err);
        ok(rc == -1 && strstr(err, bad[i].message), "refused: %s", bad[i].message);
        if (!strstr(err, bad[i].message)) printf("#   got: %s\n", err);
        pl_config_free(&c);
    }
    /* a pipeline file named relative to the working directory ("p.ini": its
     * directory is "."): its paths still come out absolute, as a step run
     * elsewhere (a Slurm node) needs them */
    char cwd[4096], real_dir[4096];
    rc = load("rel.ini", "input = in/*.gz\nwork = w\noutput = ../o\n", &c, err, sizeof err);
    pl_config_free(&c);
    ok(getcwd(cwd, sizeof cwd) && realpath(dir, real_dir) && chdir(dir) == 0, "into %s", dir);
    rc = pl_config_load("rel.ini", &c, err, sizeof err);
    is_int(rc, 0, "a pipeline file named relative to the working directory loads");
    snprintf(want, sizeof want, "%s/w", real_dir);
    is_str(rc ? "" : c.work, want, "... its work directory is absolute");
    snprintf(want, sizeof want, "%s/in/*.gz", real_dir);
    is_str(rc ? "" : c.globs[0], want, "... and its input glob");
    pl_config_free(&c);
    ok(chdir(cwd) == 0, "back to %s", cwd);

    /* a file that cannot be read to its end is refused, not taken for what was read of it */
    rc = pl_config_load(dir, &c, err, sizeof err);
    ok(rc == -1 && strstr(err, ": cannot read"), "a directory for the pipeline file: cannot read");
    if (!strstr(err, ": cannot read")) printf("#   got: %s\n", err);
    pl_config_free(&c);
    /* a UTF-8 byte order mark (as some Windows editors write) is not part of the first key */
    rc = load("bom.ini", "\xef\xbb\xbfinput = a\nwork = w\noutput = o\n", &c, err, sizeof err);
    ok(rc == 0 && c.nglobs == 1, "a file that starts with a UTF-8 byte order mark loads");
    if (rc) printf("#   got: %s\n", err);
    pl_config_free(&c);

    rc = pl_config_load("/nonexistent/p.ini", &c, err, sizeof err);
    ok(rc == -1 && strstr(err, "/nonexistent/p.ini: cannot open"), "missing file named");
    pl_config_free(&c);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    return done_testing();
}
