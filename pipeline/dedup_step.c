/* dedup_step.c - a staged dedup step, in this process. */
#include "pipeline/dedup_step.h"

#include "core/stage.h"
#include "core/util.h"
#include "dedup/options.h"
#include "dedup/staged.h"

#define MESSAGE_MAX 512

int pl_dedup_run(const pl_dedup_work *w)
{
    const pl_plan *p = w->p;
    dedup_config c;
    char err[MESSAGE_MAX];
    if (dedup_config_make(&p->stages.dedup, &c, err, sizeof err) != 0) dief(EXIT_USAGE, "%s", err);
    if (c.verify || c.mark) dief(EXIT_USAGE, "--verify and --mark are for the streaming mode");
    stage_opts o;
    stage_opts_init_quiet(&o, w->threads, w->inputs, w->ninputs);
    o.output = w->output;
    o.stats_path = w->stats;
    o.rejects_path = w->rejects;
    if (w->output && p->cfg.compress) o.zstd_level = PL_WORK_ZSTD_LEVEL;
    staged_opts so = {w->work, p->stages.dedup.partitions, w->rank, p->cfg.tasks};
    int status;
    if (w->step == STEP_SIGNATURES) status = dedup_staged_signatures(&o, &c, &so);
    else if (w->step == STEP_BUCKETS) status = dedup_staged_buckets(&o, &so);
    else status = dedup_staged_apply(&o, &so);
    minhash_params_free(&c.params);
    return status;
}
