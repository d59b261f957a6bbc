/* filter_config.c - fuzz target for the filter's settings file and block
 * lists: the input, split at its first two NUL bytes, is a config file
 * (`winnow filter --config`), a URL block list and a word block list; what
 * follows a third NUL is a URL and a text matched against both lists. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "filter/blocklist.h"
#include "filter/config.h"

/* The next part of data[*at, size) up to a NUL (or the end). */
static const uint8_t *part(const uint8_t *data, size_t size, size_t *at, size_t *len)
{
    const uint8_t *p = data + *at;
    const uint8_t *nul = memchr(p, 0, size - *at);
    *len = nul ? (size_t)(nul - p) : size - *at;
    *at += *len + (nul != NULL);
    return p;
}

/* A file holding p[0, n), as a path; fd receives its descriptor. */
static const char *as_file(const uint8_t *p, size_t n, int *fd, char path[64])
{
    *fd = memfd_create("list", 0);
    if (*fd < 0 || write(*fd, p, n) != (ssize_t)n) return NULL;
    snprintf(path, 64, "/proc/self/fd/%d", *fd);
    return path;
}

/* What --print-config prints for c, or NULL when it refuses c. */
static char *printed(const filter_config *c)
{
    char *text = NULL, err[512];
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) return NULL;
    int rc = filter_config_print(c, f, err, sizeof err);
    fclose(f);
    if (rc == 0) return text;
    free(text);
    return NULL;
}

/* --print-config's promise: what it prints reads back as c, which prints the same. */
static void print_reads_back(const filter_config *c)
{
    char *text = printed(c), err[512];
    if (!text) return;
    filter_config back;
    filter_config_defaults(&back);
    FILE *f = fmemopen(text, strlen(text) ? strlen(text) : 1, "r");
    if (!f || filter_config_read(&back, f, "printed.conf", err, sizeof err) != 0) {
        fprintf(stderr, "--print-config printed a file that does not read back: %s\n%s", f ? err : "fmemopen", text);
        abort();
    }
    fclose(f);
    char *again = printed(&back);
    if (!again || strcmp(again, text) != 0) {
        fprintf(stderr, "read back, the settings print otherwise:\n%s---\n%s", text, again ? again : "(refused)\n");
        abort();
    }
    free(again);
    free(text);
    filter_config_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t at = 0, len[4];
    const uint8_t *conf = part(data, size, &at, &len[0]);
    const uint8_t *urls = part(data, size, &at, &len[1]);
    const uint8_t *words = part(data, size, &at, &len[2]);
    const uint8_t *probe = data + at;
    len[3] = size - at;

    filter_config c;
    filter_config_defaults(&c);
    FILE *f = fmemopen((void *)conf, len[0] ? len[0] : 1, "r");
    if (f) {
        char err[512];
        if (len[0]) filter_config_read(&c, f, "fuzz.conf", err, sizeof err);
        fclose(f);
    }
    print_reads_back(&c);
    filter_config_free(&c);

    char path[64];
    int fd;
    wbuf scratch = WBUF_INIT;
    if (as_file(urls, len[1], &fd, path)) {
        url_blocklist *b = url_blocklist_load(path);
        url_blocklist_match(b, (const char *)probe, len[3], &scratch);
        url_blocklist_size(b);
        url_blocklist_free(b);
    }
    if (fd >= 0) close(fd);
    if (as_file(words, len[2], &fd, path)) {
        word_blocklist *b = word_blocklist_load(path);
        word_blocklist_match(b, (const char *)probe, len[3], &scratch);
        word_blocklist_size(b);
        word_blocklist_free(b);
    }
    if (fd >= 0) close(fd);
    buf_free(&scratch);
    return 0;
}
