#!/bin/bash
# run.sh - bench/gpu_tokenize_exit.sh (485dd60 against main 86d2baa's /work/main/build/winnow): bash dist-gpu-i15u/run.sh (one call, timeout 300)
exec bash "$(dirname "$0")/gpu_tokenize_exit.sh"
