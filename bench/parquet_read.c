/* parquet_read - the Parquet reader's throughput on one file (bench/parquet.sh):
 *   parquet_read FILE text            decode the text column of every row group (one thread)
 *                                     and print its bytes (what MB/s are counted in)
 *   parquet_read FILE jsonl THREADS   every row as a JSON line through core/input (what stages read) */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/input.h"
#include "core/parquet.h"
#include "core/parquet_jsonl.h"
#include "core/util.h"

#define READ_BLOCK (1 << 20)

int main(int argc, char **argv)
{
    if (argc < 3) dief(EXIT_USAGE, "usage: parquet_read FILE text [COLUMN] | parquet_read FILE jsonl THREADS");
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) dief(EXIT_FATAL, "%s: cannot open", argv[1]);
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_fd(fd, NULL, 0, argv[1], &err);
    close(fd);
    if (!f) dief(EXIT_FATAL, "%s", err.data);
    int c = pq_find_column(f, "text");
    if (c < 0) dief(EXIT_FATAL, "no text column");
    uint64_t text_bytes = 0;
    for (int g = 0; g < pq_num_row_groups(f) && strcmp(argv[2], "text") == 0; g++) {
        pq_values v;
        if (pq_read_column(f, g, c, &v, &err) != 0) dief(EXIT_FATAL, "%s", err.data);
        for (int64_t r = 0; r < v.n; r++) text_bytes += v.bytes[r].len;
        pq_values_free(&v);
    }
    pq_close(f);
    uint64_t jsonl_bytes = 0;
    if (strcmp(argv[2], "jsonl") == 0) {
        parquet_set_threads(argc > 3 ? atoi(argv[3]) : 1);
        winput *in = input_open(argv[1]);
        if (!in) return EXIT_FATAL;
        char *block = xmalloc(READ_BLOCK);
        size_t n;
        while ((n = input_read(in, block, READ_BLOCK)) > 0) jsonl_bytes += n;
        if (input_errors(in)) return EXIT_FATAL;
        input_close(in);
        free(block);
    }
    printf("%" PRIu64 "\n", jsonl_bytes ? jsonl_bytes : text_bytes);
    return 0;
}
