/* output.c - buffered, optionally zstd-compressed, atomically renamed output. */
#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>

#include "parquet_writer.h"
#include "util.h"

#define OUT_CHUNK (1 << 20)
#define PARQUET_SUFFIX ".parquet" /* an output of this name is written as Parquet */

struct woutput {
    int fd;
    char *path; /* final name; NULL for stdout */
    char *tmp;  /* temporary name while writing */
    ZSTD_CCtx *zc;
    char *buf; /* bytes waiting to be compressed or written */
    size_t len;
    char *zbuf;
    size_t zcap;
    uint64_t bytes;
    struct woutput *next_open; /* list of open temporaries, for output_abort_all */
    int signal_slot;           /* its place in signal_tmp, or -1 */
    pq_writer *parquet;        /* a NAME.parquet output: the document stream as Parquet */
    pid_t owner;               /* the process that made the temporary (a forked child inherits the list) */
};

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static woutput *open_list;

/* The temporaries' names again, for a signal handler, which may neither
 * lock nor walk a list that another thread frees: a slot holds a name (and
 * its owner) from output_open until its file is renamed or removed, and
 * whoever takes a name out of its slot (the handler, or track) owns it. More
 * than SIGNAL_SLOTS open at once go uncovered: a later run over their
 * directory removes them (output_remove_temporaries). */
#define SIGNAL_SLOTS 1024
static char *_Atomic signal_tmp[SIGNAL_SLOTS];
static pid_t signal_owner[SIGNAL_SLOTS];
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* On Ctrl-C, kill (a Slurm job's end) or a closed terminal: removes this
 * process's temporaries, then dies of the signal as it would have. */
static void remove_temporaries_and_die(int sig)
{
    int saved = errno;
    pid_t self = getpid();
    for (int i = 0; i < SIGNAL_SLOTS; i++) {
        char *tmp = atomic_exchange(&signal_tmp[i], NULL);
        if (tmp && signal_owner[i] == self) unlink(tmp);
    }
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

/* Installs the handler for the signals a user or scheduler stops a run
 * with, except one already ignored (nohup's SIGHUP). */
static void install_signal_cleanup(void)
{
    for (size_t k = 0; k < sizeof cleanup_signals / sizeof *cleanup_signals; k++) {
        struct sigaction was, now = {.sa_handler = remove_temporaries_and_die};
        sigemptyset(&now.sa_mask);
        if (sigaction(cleanup_signals[k], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaction(cleanup_signals[k], &now, NULL);
    }
}

static void register_cleanups(void)
{
    atexit(output_abort_all);
    install_signal_cleanup();
}

/* Puts o's temporary name in a free slot, if one is left (with open_lock
 * held; o->signal_slot stays -1 otherwise). */
static void add_signal_slot(woutput *o)
{
    for (int i = 0; i < SIGNAL_SLOTS; i++)
        if (atomic_load(&signal_tmp[i]) == NULL) {
            signal_owner[i] = o->owner;
            atomic_store(&signal_tmp[i], o->tmp);
            o->signal_slot = i;
            return;
        }
}

/* Takes o's name back out of its slot. When a handler took it first, the
 * handler may still be reading it: o->tmp is then left unfreed (the process
 * is dying of the signal). */
static void drop_signal_slot(woutput *o)
{
    if (o->signal_slot < 0) return;
    if (atomic_exchange(&signal_tmp[o->signal_slot], NULL) != o->tmp) o->tmp = NULL;
    o->signal_slot = -1;
}

static void track(woutput *o, bool add)
{
    static pthread_once_t cleanups_once = PTHREAD_ONCE_INIT;
    /* every exit that is not a clean close (dief, out of memory, a write
     * error, SIGINT, SIGTERM, SIGHUP) removes the temporaries: nothing
     * half-written stays behind */
    if (add) pthread_once(&cleanups_once, register_cleanups);
    pthread_mutex_lock(&open_lock);
    if (add) {
        o->owner = getpid();
        o->next_open = open_list;
        open_list = o;
        add_signal_slot(o);
    } else {
        for (woutput **pp = &open_list; *pp; pp = &(*pp)->next_open)
            if (*pp == o) { *pp = o->next_open; break; }
        drop_signal_slot(o);
    }
    pthread_mutex_unlock(&open_lock);
}

/* Exits, as every write error does. */
static void write_failed(woutput *o)
{
    int e = errno;
    const char *name = o->path ? o->path : "stdout";
    if (e == EPIPE) exit(EXIT_FATAL); /* reader went away: nothing more to say */
    output_abort_all();
    dief(EXIT_FATAL, "%s: write error: %s", name, strerror(e));
}

static void write_all(woutput *o, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) write_failed(o);
        p += w;
        n -= (size_t)w;
    }
}

/* Writes the pieces iov[0..n) (which it may change) with writev, up to IOV_MAX at a time. */
static void writev_all(woutput *o, struct iovec *iov, size_t n)
{
    while (n) {
        int k = n < IOV_MAX ? (int)n : IOV_MAX;
        ssize_t w = writev(o->fd, iov, k);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) write_failed(o);
        size_t left = (size_t)w;
        while (n && left >= iov->iov_len) left -= iov->iov_len, iov++, n--; /* empty pieces pass here too */
        if (left) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
}

#define TEMPORARY_MARK ".tmp."

bool output_is_temporary(const char *name)
{
    const char *mark = strstr(name, TEMPORARY_MARK), *pid = NULL;
    for (; mark; mark = strstr(mark + 1, TEMPORARY_MARK)) pid = mark + strlen(TEMPORARY_MARK);
    return pid && *pid && strspn(pid, "0123456789") == strlen(pid);
}

void output_remove_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!output_is_temporary(e->d_name)) continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *path = xmalloc(n);
        snprintf(path, n, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT) warnf("cannot remove %s: %s", path, strerror(errno));
        free(path);
    }
    closedir(d);
}

/* True for a path whose name ends in ".parquet". */
static bool is_parquet_name(const char *path)
{
    size_t n = path ? strlen(path) : 0, k = strlen(PARQUET_SUFFIX);
    return n > k && strcmp(path + n - k, PARQUET_SUFFIX) == 0;
}

static void write_raw(void *ctx, const void *p, size_t n);

woutput *output_open(const char *path, int zstd_level)
{
    woutput *o = xcalloc(1, sizeof *o);
    o->signal_slot = -1;
    struct stat st;
    if (!path || strcmp(path, "-") == 0) {
        o->fd = STDOUT_FILENO;
        pipe_widen(o->fd);
    } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or pipe (/dev/null): written in place, never renamed over */
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) dief(EXIT_FATAL, "%s: cannot open: %s", path, strerror(errno));
    } else {
        /* a symbolic link is written through, as shell redirection does: the
         * renamed temporary replaces its target, not the link */
        char *resolved = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
        o->path = resolved ? resolved : xstrdup(path);
        size_t n = strlen(o->path) + 32;
        o->tmp = xmalloc(n);
        snprintf(o->tmp, n, "%s" TEMPORARY_MARK "%ld", o->path, (long)getpid());
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o->fd < 0) dief(EXIT_FATAL, "%s: cannot create: %s", path, strerror(errno));
        track(o, true);
    }
    if (zstd_level > 0) {
        o->zc = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(o->zc, ZSTD_c_compressionLevel, zstd_level);
        ZSTD_CCtx_setParameter(o->zc, ZSTD_c_checksumFlag, 1);
        o->zcap = ZSTD_CStreamOutSize();
        o->zbuf = xmalloc(o->zcap);
    }
    o->buf = xmalloc(OUT_CHUNK);
    if (is_parquet_name(path)) {
        if (o->zc) { /* Parquet compresses its pages itself */
            ZSTD_freeCCtx(o->zc);
            o->zc = NULL;
        }
        o->parquet = pq_writer_new(path, write_raw, o);
    }
    return o;
}

static void flush_buf(woutput *o, bool last)
{
    if (!o->zc) {
        write_all(o, o->buf, o->len);
        o->len = 0;
        return;
    }
    ZSTD_inBuffer in = {o->buf, o->len, 0};
    ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
        ZSTD_outBuffer out = {o->zbuf, o->zcap, 0};
        size_t r = ZSTD_compressStream2(o->zc, &out, &in, mode);
        if (ZSTD_isError(r)) dief(EXIT_FATAL, "zstd: %s", ZSTD_getErrorName(r));
        write_all(o, o->zbuf, out.pos);
        if (last ? r == 0 : in.pos == in.size) break;
    }
    o->len = 0;
}

/* The bytes of the file itself (Parquet's writer calls this). */
static void write_raw(void *ctx, const void *p, size_t n)
{
    woutput *o = ctx;
    if (!o->zc && n >= OUT_CHUNK / 4) { /* large plain writes skip the buffer */
        flush_buf(o, false);
        write_all(o, p, n);
        return;
    }
    while (n) {
        size_t k = OUT_CHUNK - o->len;
        if (k > n) k = n;
        memcpy(o->buf + o->len, p, k);
        o->len += k;
        p = (const char *)p + k;
        n -= k;
        if (o->len == OUT_CHUNK) flush_buf(o, false);
    }
}

void output_write(woutput *o, const void *p, size_t n)
{
    o->bytes += n;
    if (o->parquet) pq_writer_feed(o->parquet, p, n);
    else write_raw(o, p, n);
}

void output_writev(woutput *o, struct iovec *iov, size_t n)
{
    if (o->zc || o->parquet) {
        for (size_t i = 0; i < n; i++) output_write(o, iov[i].iov_base, iov[i].iov_len);
        return;
    }
    for (size_t i = 0; i < n; i++) o->bytes += iov[i].iov_len;
    flush_buf(o, false);
    writev_all(o, iov, n);
}

uint64_t output_bytes(const woutput *o) { return o->bytes; }

static void release(woutput *o)
{
    if (o->zc) ZSTD_freeCCtx(o->zc);
    free(o->zbuf);
    free(o->buf);
    free(o->path);
    free(o->tmp);
    free(o);
}

void output_close(woutput *o)
{
    if (o->parquet) pq_writer_finish(o->parquet);
    o->parquet = NULL;
    flush_buf(o, true);
    if (o->path) {
        if (fsync(o->fd) != 0 && errno != EINVAL) {
            int e = errno;
            output_abort_all();
            dief(EXIT_FATAL, "%s: cannot sync: %s", o->path, strerror(e));
        }
        if (close(o->fd) != 0 || rename(o->tmp, o->path) != 0) {
            int e = errno;
            output_abort_all();
            dief(EXIT_FATAL, "%s: cannot finish: %s", o->path, strerror(e));
        }
        track(o, false);
    } else if (o->fd != STDOUT_FILENO) {
        close(o->fd);
    }
    release(o);
}

void output_abort(woutput *o)
{
    pq_writer_free(o->parquet);
    o->parquet = NULL;
    if (o->path) {
        close(o->fd);
        unlink(o->tmp);
        track(o, false);
    } else if (o->fd != STDOUT_FILENO) {
        close(o->fd);
    }
    release(o);
}

void output_abort_all(void)
{
    pthread_mutex_lock(&open_lock);
    pid_t self = getpid();
    /* the list is kept: a second call (at exit, after a fatal error's) finds
     * the files gone, and the outputs stay reachable for LeakSanitizer */
    for (woutput *o = open_list; o; o = o->next_open)
        if (o->owner == self) unlink(o->tmp);
    pthread_mutex_unlock(&open_lock);
}
