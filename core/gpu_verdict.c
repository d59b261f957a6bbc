/* gpu_verdict.c - a GPU check's answer, set once and waited for (see gpu_verdict.h). */
#include "core/gpu_verdict.h"

#include <stdio.h>

#include "core/util.h"

void gpu_verdict_init(gpu_verdict *v)
{
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->decided_cond, NULL);
    v->decided = false;
    atomic_init(&v->usable, false);
    v->why[0] = 0;
}

void gpu_verdict_destroy(gpu_verdict *v)
{
    pthread_mutex_destroy(&v->lock);
    pthread_cond_destroy(&v->decided_cond);
}

void gpu_verdict_set(gpu_verdict *v, bool usable, const char *why)
{
    pthread_mutex_lock(&v->lock);
    if (!v->decided) {
        v->decided = true;
        if (!usable) snprintf(v->why, sizeof v->why, "%s", why ? why : "");
        atomic_store(&v->usable, usable);
        pthread_cond_broadcast(&v->decided_cond);
    }
    pthread_mutex_unlock(&v->lock);
}

bool gpu_verdict_wait(gpu_verdict *v)
{
    if (atomic_load(&v->usable)) return true;
    pthread_mutex_lock(&v->lock);
    while (!v->decided) pthread_cond_wait(&v->decided_cond, &v->lock);
    pthread_mutex_unlock(&v->lock);
    return atomic_load(&v->usable);
}

void gpu_verdict_require(gpu_verdict *v)
{
    if (!gpu_verdict_wait(v)) gpu_refuse(v->why); /* written before the decision, never after */
}

void gpu_refuse(const char *why)
{
    static pthread_mutex_t dying = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&dying); /* never unlocked: the process ends */
    dief(EXIT_USAGE, "--device gpu: %s", why ? why : "the GPU did not start");
}
