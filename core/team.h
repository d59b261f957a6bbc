/* team.h - fork-join over a fixed set of threads: run fn(arg, t, nt) for
 * every t < nt and wait for all of them. Built on core/pool.h. */
#ifndef WINNOW_TEAM_H
#define WINNOW_TEAM_H

typedef struct wteam wteam;

typedef void (*team_fn)(void *arg, int t, int nt);

/* Starts nt threads (at least 1). */
wteam *team_create(int nt);

/* Number of threads. */
int team_size(const wteam *team);

/* Runs fn(arg, t, nt) for t = 0..nt-1 on the team's threads and returns
 * when all are done. One call at a time per team. */
void team_run(wteam *team, team_fn fn, void *arg);

/* Stops the threads and frees the team. */
void team_destroy(wteam *team);

#endif
