/* rank_lock.c - an exclusive lock per step rank (see rank_lock.h). */
#include "pipeline/rank_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/util.h"

int pl_rank_lock(const pl_plan *p, pl_step s, int rank)
{
    char *dir = pl_path(p, "locks");
    pl_mkdirs(dir);
    free(dir);
    char *path = pl_path(p, "locks/%s.%d", pl_step_name(s), rank);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) dief(EXIT_FATAL, "cannot open %s: %m", path);
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) dief(EXIT_FATAL, "cannot lock %s: %m", path);
    free(path);
    return fd;
}

void pl_rank_unlock(int fd) { close(fd); }
