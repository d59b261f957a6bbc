/* team.c - fork-join over a worker pool (see team.h). */
#include "team.h"

#include <stdlib.h>

#include "pool.h"
#include "util.h"

typedef struct {
    team_fn fn;
    void *arg;
    int t, nt;
} team_task;

struct wteam {
    wpool *pool;
    int nt;
    team_task *tasks;
};

static void run_task(void *ctx, int worker, void *item)
{
    (void)ctx, (void)worker;
    team_task *task = item;
    task->fn(task->arg, task->t, task->nt);
}

wteam *team_create(int nt)
{
    wteam *team = xcalloc(1, sizeof *team);
    team->nt = nt < 1 ? 1 : nt;
    team->pool = pool_create(team->nt, team->nt, run_task, NULL);
    team->tasks = xcalloc((size_t)team->nt, sizeof *team->tasks);
    return team;
}

int team_size(const wteam *team) { return team->nt; }

void team_run(wteam *team, team_fn fn, void *arg)
{
    for (int t = 0; t < team->nt; t++) {
        team->tasks[t] = (team_task){fn, arg, t, team->nt};
        pool_push(team->pool, &team->tasks[t]);
    }
    for (int t = 0; t < team->nt; t++) pool_pop(team->pool);
}

void team_destroy(wteam *team)
{
    if (!team) return;
    pool_destroy(team->pool);
    free(team->tasks);
    free(team);
}
