/* json_scan - CPU-seconds per GB of the tokenize block path's per-line JSON
 * work, on one thread (issue 15: the scanner is the GPU run's critical path).
 * Steps, each over the whole file (each finds the lines too), best of REPEAT:
 *   lines       line ends (memchr), as the block scanner finds them
 *   utf8        the line's UTF-8 check (utf8_valid), json_scan_doc's first pass
 *   scan        json_scan_doc
 *   scan+text   json_scan_doc, then the text copied or unescaped (json_unescape_into)
 *               into a buffer, as the block path did with a pinned buffer before
 *   fused       json_scan_doc_text: the scan that writes the decoded text itself
 *               (what the block path runs now)
 *   memcpy      the lines copied with one memcpy each (a floor for any copy)
 * The two text steps' outputs are compared byte for byte (exit 1 if they differ).
 * usage: json_scan FILE.jsonl [REPEAT] [baseline]   ("baseline": SSE4.2 even with AVX2) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/json.h"
#include "core/simd.h"
#include "core/utf8.h"
#include "core/util.h"

enum { STEP_LINES, STEP_UTF8, STEP_SCAN, STEP_SCAN_TEXT, STEP_FUSED, STEP_MEMCPY, STEPS };
static const char *const step_name[STEPS] = {"lines", "utf8", "scan", "scan+text", "fused", "memcpy"};

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs one step over every line of data; the texts (text steps) go to out back
 * to back. Returns a checksum so that no step is optimised away. */
static size_t run_step(int step, const char *data, size_t size, char *out, size_t *out_len)
{
    size_t sum = 0;
    char *o = out;
    for (const char *p = data, *end = data + size; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *next = nl ? nl + 1 : end;
        jdoc j;
        const char *err;
        size_t pos, n;
        switch (step) {
        case STEP_LINES: sum += len; break;
        case STEP_UTF8: sum += utf8_valid(p, len); break;
        case STEP_SCAN: sum += (size_t)json_scan_doc(p, len, &j, &err, &pos) + j.text.len; break;
        case STEP_SCAN_TEXT:
            if (json_scan_doc(p, len, &j, &err, &pos) == 0 && j.text.kind == JSON_STRING) {
                n = j.text.has_escapes ? json_unescape_into(&j.text, o) : j.text.len;
                if (!j.text.has_escapes) memcpy(o, j.text.p, j.text.len);
                o += n;
            }
            break;
        case STEP_FUSED:
            if (json_scan_doc_text(p, len, &j, o, &n, &err, &pos) == 0 && j.text.kind == JSON_STRING) o += n;
            break;
        default: memcpy(o, p, len), o += len; break;
        }
        p = next;
    }
    *out_len = (size_t)(o - out);
    return sum + *out_len;
}

int main(int argc, char **argv)
{
    if (argc < 2) dief(2, "usage: json_scan FILE.jsonl [REPEAT] [baseline]");
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    if (argc > 3 && !strcmp(argv[3], "baseline")) simd_force_baseline(true);
    FILE *f = fopen(argv[1], "rb");
    if (!f) dief(2, "%s: cannot open", argv[1]);
    fseek(f, 0, SEEK_END);
    size_t size = (size_t)ftell(f);
    rewind(f);
    char *data = xmalloc(size + 1);
    if (fread(data, 1, size, f) != size) dief(2, "%s: short read", argv[1]);
    fclose(f);
    char *out = xmalloc(size + 64), *text = xmalloc(size + 64);
    size_t text_len = 0, sink = 0;
    printf("%s: %.1f MB, one thread, %s, CPU-seconds per GB (best of %d)\n", argv[1], (double)size / 1e6,
           simd_avx2() ? "AVX2" : "SSE4.2", repeat);
    for (int step = 0; step < STEPS; step++) {
        double best = 0;
        size_t n = 0;
        for (int r = 0; r < repeat; r++) {
            double t0 = cpu_seconds();
            sink += run_step(step, data, size, out, &n);
            double t = cpu_seconds() - t0;
            if (!r || t < best) best = t;
        }
        printf("  %-10s %.3f\n", step_name[step], best / ((double)size / 1e9));
        if (step == STEP_SCAN_TEXT) memcpy(text, out, text_len = n);
        if (step == STEP_FUSED && (n != text_len || memcmp(text, out, n))) {
            printf("DIFFERENT texts: fused against scan+text\n");
            return 1;
        }
    }
    fprintf(stderr, "(checksum %zu)\n", sink);
    return 0;
}
