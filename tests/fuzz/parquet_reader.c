/* parquet_reader.c - fuzz the Parquet reader: the footer (Thrift compact),
 * every column chunk's pages, and the rows as JSON lines through core/input,
 * as every stage reads a .parquet file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/input.h"
#include "core/parquet.h"
#include "core/parquet_jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_memory(data, size, "fuzz", &err);
    if (f) {
        for (int g = 0; g < pq_num_row_groups(f); g++)
            for (int c = 0; c < pq_num_columns(f); c++) {
                pq_values v;
                if (pq_read_column(f, g, c, &v, &err) == 0) pq_values_free(&v);
            }
        pq_close(f);
    }
    buf_free(&err);

    int fd = memfd_create("parquet", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        parquet_set_threads(2);
        winput *in = input_open(path);
        if (in) {
            char chunk[65536];
            while (input_read(in, chunk, sizeof chunk) > 0) {}
            input_close(in);
        }
    }
    close(fd);
    return 0;
}
