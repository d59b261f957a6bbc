/* gpu.h - is a GPU usable, and which device a stage should run on.
 *
 * Stages take --device auto|cpu|gpu: auto uses the GPU when one is usable
 * and the CPU silently otherwise; gpu insists (exit 1 with the reason when
 * none is usable); cpu never touches the GPU. Builds without nvcc link
 * gpu/none.c, whose probe always says why no GPU is usable. */
#ifndef WINNOW_GPU_H
#define WINNOW_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef enum { DEVICE_AUTO = 0, DEVICE_CPU, DEVICE_GPU } wdevice;

/* True when a CUDA GPU can run winnow's kernels; otherwise false with a
 * one-line reason in why (n bytes). Cheap after the first call. */
bool gpu_usable(char *why, size_t n);

/* Parses "auto", "cpu" or "gpu" into *d; returns -1 for anything else. */
static inline int device_parse(const char *s, wdevice *d)
{
    if (!strcmp(s, "auto")) *d = DEVICE_AUTO;
    else if (!strcmp(s, "cpu")) *d = DEVICE_CPU;
    else if (!strcmp(s, "gpu")) *d = DEVICE_GPU;
    else return -1;
    return 0;
}

#endif
