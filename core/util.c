#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"

#define READ_FILE_STEP ((size_t)1 << 16)
/* Pipe buffer asked for by pipe_widen: the default /proc/sys/fs/pipe-max-size. */
#define PIPE_BYTES (1 << 20)

const char *winnow_prog = "winnow";

static void out_of_memory(size_t n)
{
    fprintf(stderr, "%s: out of memory (asked for %zu bytes)\n", winnow_prog, n);
    exit(EXIT_FATAL);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) out_of_memory(count * size);
    return p;
}

#define HUGE_PAGE ((size_t)2 << 20)

void *xcalloc_huge(size_t count, size_t size)
{
    size_t n = count * size, rounded = n ? (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
    if (!p) out_of_memory(n);
    madvise(p, rounded, MADV_HUGEPAGE); /* a hint: without it the memory works the same */
    return memset(p, 0, rounded);
}

void *xmalloc_huge(size_t n)
{
    size_t rounded = n ? (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
    if (!p) out_of_memory(n);
    madvise(p, rounded, MADV_HUGEPAGE); /* a hint: without it the memory works the same */
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double now_seconds(void) { return clock_seconds(CLOCK_MONOTONIC); }

double thread_cpu_seconds(void) { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }

double process_cpu_seconds(void) { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

static void vmessage(const char *fmt, va_list ap)
{
    char line[4096];
    int n = snprintf(line, sizeof line, "%s: ", winnow_prog);
    if (n < 0 || (size_t)n >= sizeof line) n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    fprintf(stderr, "%s\n", line); /* one write, so lines from threads do not interleave */
}

/* warn_mute depth of this thread */
static _Thread_local int warn_muted;

void warn_mute(bool on) { warn_muted += on ? 1 : -1; }

void warnf(const char *fmt, ...)
{
    if (warn_muted) return;
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

int fail_msg(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void dief(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    exit(status);
}

int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

long long parse_count(const char *s)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    unsigned long long mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1000ULL; end++; break;
    case 'm': case 'M': mul = 1000000ULL; end++; break;
    case 'g': case 'G': mul = 1000000000ULL; end++; break;
    default: break;
    }
    if (*end) return -1;
    if (v > (unsigned long long)INT64_MAX / mul) return -1;
    return (long long)(v * mul);
}

bool option_name_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
        if (x != y) return false;
    }
    return *a == *b;
}

char *trim_space(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    return s;
}

void trim_blanks(const char **p, size_t *n)
{
    while (*n && (**p == ' ' || **p == '\t')) (*p)++, (*n)--;
    while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t' || (*p)[*n - 1] == '\r')) (*n)--;
}

void cut_comment(char *s, const char *markers)
{
    for (char *p = s; *p; p++)
        if (strchr(markers, *p) && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
            *p = 0;
            return;
        }
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    wbuf b = WBUF_INIT;
    struct stat st;
    /* a regular file is read into a buffer of its size at once (one byte
     * more, to see its end); a pipe, or a file that grew, 64 KiB at a time */
    size_t step = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : READ_FILE_STEP;
    for (;;) {
        buf_reserve(&b, step);
        size_t n = fread(b.data + b.len, 1, step, f);
        b.len += n;
        if (n < step) break; /* the end, or an error */
        step = READ_FILE_STEP;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        buf_free(&b);
        errno = EIO;
        return NULL;
    }
    b.data[b.len] = 0;
    if (len) *len = b.len;
    return b.data;
}

int pread_full(int fd, void *dst, size_t n, uint64_t offset)
{
    char *p = dst;
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)offset);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) {
            errno = 0;
            return -1;
        }
        p += r;
        n -= (size_t)r;
        offset += (uint64_t)r;
    }
    return 0;
}

void pipe_widen(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) (void)fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
}
