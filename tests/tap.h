/* tap.h - a tiny TAP producer for C tests (no framework).
 *
 *   ok(cond, "name %d", i);     one test point
 *   is_int(got, want, "name");  compare integers, print both on failure
 *   is_str(got, want, "name");  compare strings
 *   skip_all("no GPU");         plan 0 and exit
 *   require_file(path);         a missing data file fails the test, naming it
 *   return done_testing();      prints the plan; exit status 0 only if all passed
 */
#ifndef WINNOW_TAP_H
#define WINNOW_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_count, tap_failed;

static inline int tap_ok(int cond, const char *fmt, va_list ap)
{
    tap_count++;
    if (!cond) tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

static inline __attribute__((format(printf, 2, 3))) int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = tap_ok(cond, fmt, ap);
    va_end(ap);
    return r;
}

#define is_int(got, want, ...)                                                            \
    do {                                                                                  \
        long long got_ = (long long)(got), want_ = (long long)(want);                     \
        if (!ok(got_ == want_, __VA_ARGS__))                                              \
            printf("#   got: %lld\n#  want: %lld\n", got_, want_);                        \
    } while (0)

#define is_str(got, want, ...)                                                            \
    do {                                                                                  \
        const char *got_ = (got), *want_ = (want);                                        \
        int same_ = got_ && want_ && strcmp(got_, want_) == 0;                            \
        if (!ok(same_, __VA_ARGS__))                                                      \
            printf("#   got: '%s'\n#  want: '%s'\n", got_ ? got_ : "(null)", want_ ? want_ : "(null)"); \
    } while (0)

static inline void diag(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static inline void skip_all(const char *why)
{
    printf("1..0 # SKIP %s\n", why);
    exit(0);
}

static inline int done_testing(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

/* Directory of the shared test data (SHARED env, else ../shared/data). */
static inline const char *shared_dir(void)
{
    const char *s = getenv("SHARED");
    return s && *s ? s : "../shared/data";
}

/* Fails the whole test (a "not ok" naming path, the plan, exit 1) unless path
 * can be read: a missing data file is a failure, never a skip. */
static inline void require_file(const char *path)
{
    if (access(path, R_OK) == 0) return;
    ok(0, "data file missing or unreadable: %s", path);
    diag("(SHARED=%s; the test data is ../shared/data, see its MANIFEST.md)", shared_dir());
    printf("1..%d\n", tap_count);
    exit(1);
}

#endif
