/* rank_lock.h - one process at a time on one rank of one step.
 *
 * Slurm can requeue an array task while the old copy still runs, and a user
 * can launch the same rank twice: the copies would write the same files and
 * each take the other's for its own. A rank's work is therefore done under an
 * exclusive lock on WORK/locks/STEP.RANK (flock); a second copy waits for the
 * first and then finds the completion marker, so it does nothing. */
#ifndef WINNOW_PIPELINE_RANK_LOCK_H
#define WINNOW_PIPELINE_RANK_LOCK_H

#include "pipeline/plan.h"

/* Takes the lock of rank `rank` of step s, waiting while another process
 * holds it. Returns the descriptor that holds it; exits with status 2 when
 * the lock file cannot be made. */
int pl_rank_lock(const pl_plan *p, pl_step s, int rank);

/* Releases a lock pl_rank_lock() took. */
void pl_rank_unlock(int fd);

#endif
