/* dedup_sigfile.c - fuzz target for staged dedup's signature files (the
 * records of each partition, their index and footer): any bytes as a
 * signature file, every partition read back. A damaged file must give an
 * error, never a crash or a read outside the file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/buf.h"
#include "dedup/sigfile.h"

#define PARTITIONS_TRIED 20 /* more than the default 16 partitions */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("sigs", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64], err[1024];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        wbuf out = WBUF_INIT;
        for (int p = -1; p < PARTITIONS_TRIED; p++) {
            buf_clear(&out);
            sig_file_read(path, p, &out, err, sizeof err);
        }
        buf_free(&out);
    }
    close(fd);
    return 0;
}
