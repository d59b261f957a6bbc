/* pipeline_file.c - fuzz target for the pipeline file parser (`winnow run` /
 * `winnow slurm`): any bytes as the file, then every section and key the
 * stages look up. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pipeline/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("pipeline.ini", 0);
    if (fd < 0) return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        char path[64], err[1024];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        pl_config c;
        if (pl_config_load(path, &c, err, sizeof err) == 0) {
            static const char *const sections[] = {"ingest", "filter", "dedup", "tokenize", "shard", "slurm", "nope"};
            static const char *const keys[] = {"jobs", "device", "vocab-size", "bands", "", "x"};
            for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
                const pl_section *s = pl_config_section(&c, sections[i]);
                for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                    bool present;
                    pl_section_get(s, keys[k], &present);
                }
            }
            pl_config_free(&c);
        }
    }
    close(fd);
    return 0;
}
