/* gpu.cu - the GPU probe of a CUDA build (see gpu.h). */
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "gpu/gpu.h"
}

/* The kernels are built for sm_90 (plus its PTX), so older GPUs cannot run them. */
#define MIN_COMPUTE_MAJOR 9

extern "C" bool gpu_usable(char *why, size_t n)
{
    static int probed, usable;
    static char reason[256];
    if (!probed) {
        int count = 0;
        cudaError_t err = cudaGetDeviceCount(&count);
        cudaDeviceProp prop;
        if (err != cudaSuccess) {
            snprintf(reason, sizeof reason, "no usable CUDA device: %s", cudaGetErrorString(err));
        } else if (count == 0) {
            snprintf(reason, sizeof reason, "no CUDA device found");
        } else if ((err = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) {
            snprintf(reason, sizeof reason, "cannot query CUDA device 0: %s", cudaGetErrorString(err));
        } else if (prop.major < MIN_COMPUTE_MAJOR) {
            snprintf(reason, sizeof reason, "GPU %s has compute capability %d.%d; winnow's kernels need %d.0 or newer",
                     prop.name, prop.major, prop.minor, MIN_COMPUTE_MAJOR);
        } else {
            usable = 1;
            snprintf(reason, sizeof reason, "%s", prop.name);
        }
        probed = 1;
    }
    if (!usable) snprintf(why, n, "%s", reason);
    return usable;
}
